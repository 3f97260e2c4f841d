// SPDX-License-Identifier: GPL-2.0-or-later
// tcp_reassembly.h - one direction of a TCP connection turned back into a
// byte stream: in-order data passes straight through, out-of-order
// segments wait (bounded), retransmitted and overlapping bytes are trimmed,
// and data that will never arrive becomes an explicit gap.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "../bytes.h"

namespace lnetcap::socklnd {

/// Receives the reassembled stream, strictly in stream order.
class StreamSink {
 public:
  virtual ~StreamSink() = default;
  /// Bytes that the segment captured at ts carried.
  virtual void on_data(std::uint64_t ts_ns, ByteSpan data) = 0;
  /// bytes bytes of the stream are missing (lost by the capture or cut by
  /// its snap length); on_data resumes right after them.
  virtual void on_gap(std::uint64_t ts_ns, std::uint64_t bytes) = 0;
};

struct ReassemblyCounters {
  std::uint64_t segments = 0;        // segments with payload
  std::uint64_t bytes = 0;           // payload bytes delivered
  std::uint64_t retransmitted = 0;   // payload bytes already delivered, dropped
  std::uint64_t out_of_order = 0;    // segments that had to wait
  std::uint64_t gaps = 0;            // holes declared
  std::uint64_t gap_bytes = 0;       // bytes in those holes
  std::uint64_t overflows = 0;       // holes declared because the buffer was full
};

/// Shared by every stream of a converter: the out-of-order bytes buffered
/// across all of them, so thousands of streams stay within one budget.
struct ReassemblyBudget {
  std::size_t per_stream = 1u << 20;  // out-of-order bytes one stream may hold
  std::size_t total = 64u << 20;      // and all streams together
  std::size_t used = 0;
};

class TcpReassembler {
 public:
  TcpReassembler(StreamSink& sink, ReassemblyBudget& budget, ReassemblyCounters& counters)
      : sink_(sink), budget_(budget), counters_(counters) {}
  ~TcpReassembler();
  TcpReassembler(const TcpReassembler&) = delete;
  TcpReassembler& operator=(const TcpReassembler&) = delete;

  /// A segment of this direction.  wire_len >= payload.size(): the part the
  /// capture's snap length cut off is reported as a gap.
  void add(std::uint64_t ts_ns, std::uint32_t seq, std::uint8_t tcp_flags, ByteSpan payload,
           std::uint32_t wire_len);
  /// The peer acknowledged everything before ack: holes below it will never
  /// be filled (the receiver has the bytes, the capture lost them).
  void peer_acked(std::uint64_t ts_ns, std::uint32_t ack);
  /// End of input or stream expiry: deliver what is buffered, with gaps.
  void flush(std::uint64_t ts_ns);

  /// True once the first byte of the stream was seen (SYN captured).
  bool saw_syn() const { return saw_syn_; }
  bool started() const { return started_; }
  bool finished() const { return fin_ || rst_; }
  std::uint32_t isn() const { return isn_; }
  std::size_t buffered() const { return buffered_; }

 private:
  struct Pending {
    std::uint64_t ts_ns;
    std::vector<std::uint8_t> data;
    std::uint32_t missing_tail;  // bytes past data cut by the snap length
  };

  void deliver(std::uint64_t ts_ns, ByteSpan data, std::uint32_t missing_tail);
  void drain();
  void skip_to_first_pending(std::uint64_t ts_ns);
  void release(std::size_t bytes);

  StreamSink& sink_;
  ReassemblyBudget& budget_;
  ReassemblyCounters& counters_;
  bool started_ = false;
  bool saw_syn_ = false;
  bool fin_ = false;
  bool rst_ = false;
  std::uint32_t isn_ = 0;
  std::uint32_t next_seq_ = 0;  // sequence number of the next stream byte
  std::uint64_t offset_ = 0;    // stream offset of next_seq_
  std::map<std::uint64_t, Pending> pending_;  // by stream offset
  std::size_t buffered_ = 0;
  bool ack_valid_ = false;
  std::uint32_t max_ack_ = 0;  // highest acknowledgement the peer sent
};

}  // namespace lnetcap::socklnd
