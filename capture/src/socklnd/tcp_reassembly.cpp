// SPDX-License-Identifier: GPL-2.0-or-later
#include "tcp_reassembly.h"

#include "packet_decode.h"

namespace lnetcap::socklnd {
namespace {

// Signed distance from b to a in 32-bit sequence space (RFC 1982 style).
inline std::int64_t seq_diff(std::uint32_t a, std::uint32_t b) {
  return static_cast<std::int32_t>(a - b);
}

}  // namespace

TcpReassembler::~TcpReassembler() { release(buffered_); }

void TcpReassembler::release(std::size_t bytes) {
  buffered_ -= bytes;
  budget_.used -= bytes;
}

void TcpReassembler::add(std::uint64_t ts_ns, std::uint32_t seq, std::uint8_t tcp_flags,
                         ByteSpan payload, std::uint32_t wire_len) {
  if (tcp_flags & kTcpRst) {
    rst_ = true;
    return;  // data on a RST is not delivered to the socket
  }
  if (tcp_flags & kTcpSyn) {
    if (!started_) {
      started_ = saw_syn_ = true;
      isn_ = seq;
      next_seq_ = seq + 1;
    }
    ++seq;  // the SYN occupies one sequence number
  }
  if (tcp_flags & kTcpFin) fin_ = true;
  if (wire_len == 0) return;
  ++counters_.segments;
  if (!started_) {
    // Picked up mid-connection: the stream starts at the first byte seen.
    started_ = true;
    next_seq_ = seq;
  }

  std::uint32_t missing = wire_len - static_cast<std::uint32_t>(payload.size());
  std::int64_t rel = seq_diff(seq, next_seq_);
  if (rel + static_cast<std::int64_t>(wire_len) <= 0) {
    counters_.retransmitted += wire_len;
    return;
  }
  if (rel < 0) {
    // Overlaps bytes already delivered: the first copy wins.
    std::uint64_t trim = static_cast<std::uint64_t>(-rel);
    counters_.retransmitted += trim;
    if (trim <= payload.size()) {
      payload = payload.subspan(trim);
    } else {
      missing -= static_cast<std::uint32_t>(trim - payload.size());
      payload = {};
    }
    rel = 0;
  }
  if (rel == 0) {
    deliver(ts_ns, payload, missing);
    drain();
    return;
  }

  ++counters_.out_of_order;
  std::uint64_t at = offset_ + static_cast<std::uint64_t>(rel);
  auto it = pending_.find(at);
  if (it != pending_.end()) {
    // Same start twice: keep the copy that covers more.
    if (it->second.data.size() + it->second.missing_tail >= payload.size() + missing) return;
    release(it->second.data.size());
    pending_.erase(it);
  }
  pending_.emplace(at, Pending{ts_ns, std::vector<std::uint8_t>(payload.begin(), payload.end()),
                               missing});
  buffered_ += payload.size();
  budget_.used += payload.size();
  if (ack_valid_) peer_acked(ts_ns, max_ack_);
  while (!pending_.empty() && (buffered_ > budget_.per_stream || budget_.used > budget_.total)) {
    // Waiting longer would exceed the memory budget: give the hole up.
    ++counters_.overflows;
    skip_to_first_pending(ts_ns);
    drain();
  }
}

void TcpReassembler::peer_acked(std::uint64_t ts_ns, std::uint32_t ack) {
  if (!ack_valid_ || seq_diff(ack, max_ack_) > 0) max_ack_ = ack;
  ack_valid_ = true;
  if (!started_) return;
  while (!pending_.empty()) {
    std::int64_t rel = seq_diff(max_ack_, next_seq_);
    if (rel <= 0 || pending_.begin()->first > offset_ + static_cast<std::uint64_t>(rel)) return;
    skip_to_first_pending(ts_ns);
    drain();
  }
}

void TcpReassembler::flush(std::uint64_t ts_ns) {
  while (!pending_.empty()) {
    skip_to_first_pending(ts_ns);
    drain();
  }
}

void TcpReassembler::deliver(std::uint64_t ts_ns, ByteSpan data, std::uint32_t missing_tail) {
  if (!data.empty()) {
    next_seq_ += static_cast<std::uint32_t>(data.size());
    offset_ += data.size();
    counters_.bytes += data.size();
    sink_.on_data(ts_ns, data);
  }
  if (missing_tail) {
    next_seq_ += missing_tail;
    offset_ += missing_tail;
    ++counters_.gaps;
    counters_.gap_bytes += missing_tail;
    sink_.on_gap(ts_ns, missing_tail);
  }
}

void TcpReassembler::drain() {
  while (!pending_.empty() && pending_.begin()->first <= offset_) {
    auto node = pending_.extract(pending_.begin());
    Pending& seg = node.mapped();
    release(seg.data.size());
    std::uint64_t trim = offset_ - node.key();
    std::uint64_t len = seg.data.size() + seg.missing_tail;
    if (trim >= len) {
      counters_.retransmitted += len;
      continue;
    }
    counters_.retransmitted += trim;
    ByteSpan data(seg.data);
    std::uint32_t missing = seg.missing_tail;
    if (trim <= data.size()) {
      data = data.subspan(trim);
    } else {
      missing -= static_cast<std::uint32_t>(trim - data.size());
      data = {};
    }
    deliver(seg.ts_ns, data, missing);
  }
}

void TcpReassembler::skip_to_first_pending(std::uint64_t ts_ns) {
  if (pending_.empty() || pending_.begin()->first <= offset_) return;
  std::uint64_t hole = pending_.begin()->first - offset_;
  next_seq_ += static_cast<std::uint32_t>(hole);
  offset_ += hole;
  ++counters_.gaps;
  counters_.gap_bytes += hole;
  sink_.on_gap(ts_ns, hole);
}

}  // namespace lnetcap::socklnd
