// SPDX-License-Identifier: GPL-2.0-or-later
#include "chart.h"

#include "nid_names.h"

#include <cinttypes>
#include <cstdio>

#include "lnetcap/lnet.h"
#include "lnetcap/record.h"
#include "summary.h"
#include "text_escape.h"

namespace lnetcap::report {
namespace {

std::string xid_text(std::uint64_t xid) { return "x" + std::to_string(xid); }

std::string lnet_label(const Message& m) {
  const char* t = msg_type_name(m.lnet.type);
  std::string s = t ? t : "type " + std::to_string(m.lnet.type);
  if (m.lnet.portal) s += " " + portal_key(m.lnet.portal);
  // A GET carries no data: the size it asks for is its sink length.
  const std::uint32_t bytes = m.lnet.type == LNETCAP_MSG_GET ? m.lnet.sink_length : m.lnet.payload_length;
  if (bytes) s += " " + std::to_string(bytes) + " B";
  return s;
}

}  // namespace

ChartBuilder::ChartBuilder(std::size_t max_arrows) { model_.max_arrows = max_arrows; }

std::size_t ChartBuilder::participant(const std::string& name) {
  auto [it, inserted] = index_.emplace(name, model_.participants.size());
  if (inserted) model_.participants.push_back(name);
  return it->second;
}

void ChartBuilder::push(Arrow a) {
  if (model_.arrows.size() >= model_.max_arrows) {
    ++model_.omitted;
    return;
  }
  model_.arrows.push_back(std::move(a));
}

// How far apart the sender's and the receiver's records of one message may
// be (clock skew plus router queues), as the plugin's xnode_window.
constexpr std::uint64_t kSameMessageNs = 10'000'000'000ULL;

bool ChartBuilder::drawn_before(const Message& m) {
  const RecordHeader& h = m.rec.hdr;
  // Past the arrow cap nothing is drawn: nothing to remember (bounds memory).
  if (model_.arrows.size() >= model_.max_arrows) return false;
  if (h.is_outcome() || (h.direction != LNETCAP_DIR_SEND && h.direction != LNETCAP_DIR_RECV))
    return false;
  // Without the header bytes nothing identifies the message.
  if (m.rec.lnet_header.empty()) return false;
  // Only the sender's own SEND and the receiver's own RECV are ends.
  if (h.local_nid != (h.direction == LNETCAP_DIR_SEND ? m.lnet.src_nid : m.lnet.dest_nid))
    return false;
  // Both ends of a message in one record stream only in a merged capture;
  // tag the key with the end so a SEND pairs only with a RECV.
  std::vector<std::uint8_t> key(m.rec.lnet_header.begin(), m.rec.lnet_header.end());
  std::vector<std::uint8_t> other = key;
  key.push_back(h.direction);
  other.push_back(h.direction == LNETCAP_DIR_SEND ? LNETCAP_DIR_RECV : LNETCAP_DIR_SEND);
  auto it = drawn_.find(other);
  if (it != drawn_.end()) {
    std::deque<std::uint64_t>& q = it->second;
    while (!q.empty() && q.front() + kSameMessageNs < m.ts_ns) q.pop_front();
    if (!q.empty() && q.front() <= m.ts_ns + kSameMessageNs) {
      q.pop_front();
      if (q.empty()) drawn_.erase(it);
      return true;
    }
  }
  std::deque<std::uint64_t>& mine = drawn_[key];
  if (mine.size() < 4096) mine.push_back(m.ts_ns);  // bounded per header
  return false;
}

void ChartBuilder::add(const Message& m) {
  if (!m.lnet.present) return;
  if (model_.arrows.empty() && model_.omitted == 0) model_.first_ts_ns = m.ts_ns;
  if (drawn_before(m)) {
    matcher_.observe(m);
    return;
  }
  // Matching must see every message even when arrows are no longer drawn,
  // but participants are only created for drawn arrows.
  const bool full = model_.arrows.size() >= model_.max_arrows;
  const std::optional<RpcMatch> match = matcher_.observe(m);
  Arrow a;
  a.ts_ns = m.ts_ns;
  // A router's FWD record is one hop: from the router's outgoing NI to the
  // next hop, not a second end-to-end arrow.
  const bool hop = m.rec.hdr.direction == LNETCAP_DIR_FORWARD;
  const std::string src = display_nid(hop ? m.rec.hdr.local_nid : m.lnet.src_nid);
  const std::string dst = display_nid(hop ? m.rec.hdr.peer_nid : m.lnet.dest_nid);
  if (is_rpc_request(m)) {
    const std::string jobid = wire_text(m.rpc.jobid);
    const std::string from = jobid.empty() ? src : src + " " + jobid;
    a.kind = ArrowKind::kRequest;
    a.label = opcode_key(m.rpc.opc) + " " + xid_text(*m.lnet.match_bits);
    a.detail = "request " + opcode_key(m.rpc.opc) + " xid " + std::to_string(*m.lnet.match_bits) +
               " portal " + portal_key(m.lnet.portal) + " " +
               std::to_string(m.lnet.payload_length) + " B" +
               (jobid.empty() ? "" : " jobid " + jobid);
    if (full) {
      ++model_.omitted;
      return;
    }
    a.from = participant(from);
    a.to = participant(dst);
    sender_[{m.lnet.src_nid, m.lnet.dest_nid, *m.lnet.match_bits}] = a.from;
    if (m.rpc.mbits && m.rpc.mbits != *m.lnet.match_bits)  // REP_MBITS
      sender_[{m.lnet.src_nid, m.lnet.dest_nid, m.rpc.mbits}] = a.from;
  } else if (is_rpc_reply(m)) {
    a.kind = is_rpc_error(m) ? ArrowKind::kError : ArrowKind::kReply;
    const std::string status = a.kind == ArrowKind::kError ? status_string(m.rpc.status)
                               : m.rpc.status ? "status " + std::to_string(m.rpc.status)
                                              : "ok";
    a.label = opcode_key(m.rpc.opc) + " " + status;
    a.detail = "reply " + opcode_key(m.rpc.opc) + " status " + status_string(m.rpc.status) +
               " match bits " + std::to_string(*m.lnet.match_bits);
    std::optional<std::size_t> to;
    if (match) {
      a.label += " " + format_duration(match->latency_ns);
      a.detail += " latency " + format_duration(match->latency_ns);
      auto it = sender_.find({match->request.client, match->request.server, *m.lnet.match_bits});
      if (it != sender_.end()) to = it->second;
      sender_.erase({match->request.client, match->request.server, match->request.xid});
      sender_.erase({match->request.client, match->request.server, *m.lnet.match_bits});
    }
    if (full) {
      ++model_.omitted;
      return;
    }
    a.from = participant(src);
    a.to = to ? *to : participant(dst);
  } else {
    a.kind = m.rpc.present && m.rpc.early_reply ? ArrowKind::kEarly : ArrowKind::kLnet;
    a.label = a.kind == ArrowKind::kEarly ? opcode_key(m.rpc.opc) + " early reply" : lnet_label(m);
    a.detail = a.label;
    if (m.lnet.match_bits) a.detail += " match bits " + std::to_string(*m.lnet.match_bits);
    if (full) {
      ++model_.omitted;
      return;
    }
    std::optional<std::size_t> to;
    if (a.kind == ArrowKind::kEarly) {
      auto it = sender_.find({m.lnet.dest_nid, m.lnet.src_nid, *m.lnet.match_bits});
      if (it != sender_.end()) to = it->second;
    }
    a.from = participant(src);
    a.to = to ? *to : participant(dst);
  }
  if (hop) {
    a.label = "FWD " + a.label;
    a.detail = "forwarded " + display_nid(m.lnet.src_nid) + " -> " +
               display_nid(m.lnet.dest_nid) + ": " + a.detail;
  }
  push(std::move(a));
}

}  // namespace lnetcap::report
