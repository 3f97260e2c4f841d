// SPDX-License-Identifier: GPL-2.0-or-later
// socklnd_parser.h - one direction of a socklnd TCP connection, as a byte
// stream, cut into what socklnd sends: the acceptor's connection request,
// the HELLO (V1..V4), KSOCK_MSG_NOOP and KSOCK_MSG_LNET messages with their
// 72- or 96-byte LNet header and payload (include/lnetcap/socklnd.h,
// docs/protocol.md 5.1).
//
// After lost data, or when the capture began mid-connection, the parser
// hunts for the next plausible ksock_msg + LNet header and never reports a
// message it did not frame exactly: a header must pass strict checks
// (message type, NID shape, PID bits, portal, payload limits) before the
// stream is trusted again.
#pragma once

#include <cstdint>
#include <vector>

#include "../bytes.h"
#include "../nid.h"
#include "tcp_reassembly.h"

namespace lnetcap::socklnd {

struct HelloInfo {
  int version = 0;       // 1..4 (KSOCK_PROTO_V*)
  bool swapped = false;  // the sender is big-endian
  Nid src_nid, dst_nid;
  std::uint32_t src_pid = 0, dst_pid = 0;
  std::uint64_t src_incarnation = 0, dst_incarnation = 0;
  std::int32_t ctype = 0;  // SOCKLND_CONN_*
  std::uint32_t nips = 0;
};

struct ParsedMessage {
  std::uint64_t ts_ns = 0;     // capture time of the segment that completed the LNet header
  ByteSpan header;             // LNet header as on the wire: 72 or 96 bytes
  ByteSpan prefix;             // first payload bytes (up to the snap length)
  std::uint32_t payload_len = 0;
  bool gap_before = false;     // stream bytes were lost since the previous message
  bool prefix_lost = false;    // fewer than min(snaplen, payload_len) bytes were captured
};

class ParserEvents {
 public:
  virtual ~ParserEvents() = default;
  virtual void on_connreq(std::uint64_t ts_ns, std::uint32_t version, const Nid& target) = 0;
  virtual void on_hello(std::uint64_t ts_ns, const HelloInfo& hello) = 0;
  virtual void on_noop(std::uint64_t ts_ns) = 0;
  virtual void on_message(const ParsedMessage& msg) = 0;
};

struct ParserCounters {
  std::uint64_t connreqs = 0;
  std::uint64_t hellos[5] = {};  // by version
  std::uint64_t noops = 0;
  std::uint64_t messages = 0;
  std::uint64_t desyncs = 0;        // framing lost (gap or bad header), hunting began
  std::uint64_t lost_messages = 0;  // messages known to be lost (a header was hit by a gap)
  std::uint64_t garbage_bytes = 0;  // bytes skipped while hunting for a header
  std::uint64_t bad_headers = 0;    // framed headers that failed the checks
  std::uint64_t unfinished = 0;     // streams that ended inside a message or HELLO
};

/// Checks used to trust a header: a 72-byte nid4 header or a 96-byte nid16
/// header (strict = the checks for hunting; otherwise the basic LNet rules).
bool plausible_lnet_header(const std::uint8_t* hdr, std::size_t hdr_len, bool strict);

class SocklndParser final : public StreamSink {
 public:
  SocklndParser(ParserEvents& events, ParserCounters& counters, std::uint32_t snaplen)
      : events_(events), counters_(counters), snaplen_(snaplen) {}

  /// Where the stream starts: true when its first byte is the first byte
  /// of the connection (SYN captured), false when picked up mid-stream.
  void start(bool from_connection_start);
  /// The protocol version learnt from the other direction's HELLO.
  void set_version(int version);
  int version() const { return version_; }

  void on_data(std::uint64_t ts_ns, ByteSpan data) override;
  void on_gap(std::uint64_t ts_ns, std::uint64_t bytes) override;
  /// End of the stream: a message whose payload prefix is incomplete is
  /// reported with prefix_lost.
  void finish();
  /// Bytes held for a header or payload prefix in progress.
  std::size_t buffered() const { return buf_.capacity(); }

 private:
  enum class State {
    kIdle,      // start() not called yet
    kStart,     // connection start: connreq, HELLO or ksock_msg
    kConnreq,
    kHello,     // V2..V4 HELLO
    kHelloV1,
    kMsgHeader, // ksock_msg header (+ LNet header), or a V1 LNet header
    kPrefix,    // payload prefix of the message in buf_
    kSkip,      // skip_ bytes (rest of a payload, HELLO IPs)
    kHunt,      // looking for a plausible header
  };

  bool fill(ByteSpan& data, std::size_t want);
  std::uint32_t u32(std::size_t off) const;
  void classify_start();
  // The steps of on_data's states: false when data holds too few bytes.
  bool step_connreq(std::uint64_t ts_ns, ByteSpan& data);
  bool step_hello(std::uint64_t ts_ns, ByteSpan& data);
  bool step_hello_v1(std::uint64_t ts_ns, ByteSpan& data);
  bool step_msg_header(std::uint64_t ts_ns, ByteSpan& data);
  /// A header that cannot be: counted, and the stream hunted for the next.
  void reject_header();
  void finish_header(std::uint64_t ts_ns);
  void emit_message(bool prefix_lost);
  void after_message();
  void lose_sync(bool drop_first_byte);
  void hunt(std::uint64_t ts_ns, ByteSpan& data);
  std::size_t ksock_len() const { return version_ == 1 ? 0 : 24; }
  std::size_t hdr_len() const { return version_ == 4 ? 96 : 72; }

  ParserEvents& events_;
  ParserCounters& counters_;
  std::uint32_t snaplen_;
  State state_ = State::kIdle;
  int version_ = 0;        // 0 = unknown (nid4 or nid16 header)
  bool swapped_ = false;   // ksock_msg/HELLO fields are big-endian
  bool gap_before_ = false;
  std::vector<std::uint8_t> buf_;    // header + prefix in progress, or hunt window
  std::vector<std::uint8_t> replay_; // bytes re-read after a header was found while hunting
  std::uint64_t skip_ = 0;
  std::uint64_t header_ts_ = 0;
  std::size_t msg_hdr_len_ = 0;      // LNet header bytes of the message in buf_
  std::uint32_t payload_len_ = 0;
  std::size_t want_prefix_ = 0;
};

}  // namespace lnetcap::socklnd
