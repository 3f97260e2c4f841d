// SPDX-License-Identifier: GPL-2.0-or-later
// socklnd_builders.h - socklnd byte streams and TCP segments built byte by
// byte from docs/protocol.md 5.1 (acceptor connreq, HELLO V2-V4, ksock_msg), for
// the socklnd unit tests, the live-capture traffic generator and the
// benchmark's synthetic streams.  Nothing here comes from a capture.
#pragma once

#include <cstdint>
#include <vector>

#include "lnet_builders.h"
#include "lnetcap/socklnd.h"
#include "socklnd/packet_decode.h"
#include "socklnd/socklnd_converter.h"

namespace lnetcap::test {

using Bytes = std::vector<std::uint8_t>;

inline void append(Bytes& out, const Bytes& more) { out.insert(out.end(), more.begin(), more.end()); }

/// Acceptor connection request: v1 (16 bytes, nid4) or v2 (28 bytes, lnet_nid).
inline Bytes connreq(const Nid& target, bool v2 = false) {
  Bytes b;
  LeWriter w(b);
  w.u32(LNETCAP_LNET_PROTO_ACCEPTOR_MAGIC);
  w.u32(v2 ? LNETCAP_LNET_PROTO_ACCEPTOR_VERSION_16 : LNETCAP_LNET_PROTO_ACCEPTOR_VERSION);
  if (v2) {
    std::uint8_t raw[20];
    target.to_lnet_nid(raw);
    w.bytes(raw, 20);
  } else {
    w.u64(target.to_nid4());
  }
  return b;
}

struct HelloSpec {
  int version = LNETCAP_KSOCK_PROTO_V3;  // 2, 3 (nid4) or 4 (lnet_nid)
  Nid src, dst;
  std::uint32_t src_pid = LNETCAP_LNET_PID_LUSTRE, dst_pid = LNETCAP_LNET_PID_LUSTRE;
  std::uint64_t src_incarnation = 0x17a0000000000001ULL, dst_incarnation = 0;
  std::int32_t ctype = LNETCAP_SOCKLND_CONN_CONTROL;
  std::uint32_t nips = 0;
  bool big_endian = false;  // a big-endian sender writes every field swapped
};

inline Bytes hello(const HelloSpec& s) {
  Bytes b;
  auto u32 = [&](std::uint32_t v) {
    std::uint8_t x[4];
    if (s.big_endian) store_be32(x, v); else store_le32(x, v);
    b.insert(b.end(), x, x + 4);
  };
  auto u64 = [&](std::uint64_t v) {
    if (s.big_endian) { u32(static_cast<std::uint32_t>(v >> 32)); u32(static_cast<std::uint32_t>(v)); }
    else { u32(static_cast<std::uint32_t>(v)); u32(static_cast<std::uint32_t>(v >> 32)); }
  };
  u32(LNETCAP_LNET_PROTO_MAGIC);
  u32(static_cast<std::uint32_t>(s.version));
  if (s.version == LNETCAP_KSOCK_PROTO_V4) {
    std::uint8_t raw[sizeof(struct lnetcap_nid)];
    s.src.to_lnet_nid(raw);
    b.insert(b.end(), raw, raw + sizeof(raw));
    s.dst.to_lnet_nid(raw);
    b.insert(b.end(), raw, raw + sizeof(raw));
  } else {
    u64(s.src.to_nid4());
    u64(s.dst.to_nid4());
  }
  u32(s.src_pid);
  u32(s.dst_pid);
  u64(s.src_incarnation);
  u64(s.dst_incarnation);
  u32(static_cast<std::uint32_t>(s.ctype));
  u32(s.nips);
  for (std::uint32_t i = 0; i < s.nips; ++i) u32(0x0a000300 + i);
  return b;
}

inline Bytes ksock_noop(std::uint64_t zc_ack_cookie = 7) {
  Bytes b;
  LeWriter w(b);
  w.u32(LNETCAP_KSOCK_MSG_NOOP);
  w.u32(0);
  w.u64(0);
  w.u64(zc_ack_cookie);
  return b;
}

/// KSOCK_MSG_LNET: 24-byte ksock header, LNet header (payload_length set
/// from payload), payload.
inline Bytes ksock_lnet(LnetHeaderSpec h, const Bytes& payload) {
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  Bytes b;
  LeWriter w(b);
  w.u32(LNETCAP_KSOCK_MSG_LNET);
  w.u32(0);
  w.u64(0);
  w.u64(0);
  append(b, lnet_header(h));
  append(b, payload);
  return b;
}

/// A recognisable payload: byte i is (seed + i) & 0xff.
inline Bytes pattern(std::size_t n, std::uint8_t seed = 0) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(seed + i);
  return b;
}

inline socklnd::IpAddr ip4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  socklnd::IpAddr ip;
  ip.bytes[0] = a; ip.bytes[1] = b; ip.bytes[2] = c; ip.bytes[3] = d;
  return ip;
}

/// One TCP connection between a client (active side, port 1021) and a
/// server on port 988: hands out segments with the right sequence numbers.
struct FakeConnection {
  socklnd::IpAddr client = ip4(10, 0, 3, 2), server = ip4(10, 0, 3, 1);
  std::uint16_t cport = 1021, sport = 988;
  std::uint32_t cisn = 1000, sisn = 0xfffff000u;  // the server's wraps around 2^32
  std::uint64_t c_sent = 0, s_sent = 0;           // stream bytes handed out so far

  socklnd::TcpSegment make(bool from_client, std::uint32_t seq, std::uint8_t flags,
                           const std::uint8_t* data, std::size_t len) const {
    socklnd::TcpSegment s;
    s.src = from_client ? client : server;
    s.dst = from_client ? server : client;
    s.sport = from_client ? cport : sport;
    s.dport = from_client ? sport : cport;
    s.seq = seq;
    s.flags = flags;
    s.payload = ByteSpan(data, len);
    s.wire_len = static_cast<std::uint32_t>(len);
    return s;
  }
  socklnd::TcpSegment syn(bool from_client) const {
    return make(from_client, from_client ? cisn : sisn,
                from_client ? socklnd::kTcpSyn : socklnd::kTcpSyn | socklnd::kTcpAck, nullptr, 0);
  }
  /// Sequence number of stream byte `offset` of one direction.
  std::uint32_t seq_at(bool from_client, std::uint64_t offset) const {
    return (from_client ? cisn : sisn) + 1 + static_cast<std::uint32_t>(offset);
  }
  /// A data segment carrying data[off, off+len) of one direction's stream.
  socklnd::TcpSegment data(bool from_client, const Bytes& stream, std::size_t off,
                           std::size_t len) const {
    return make(from_client, seq_at(from_client, off), socklnd::kTcpAck | socklnd::kTcpPsh,
                stream.data() + off, len);
  }
};

/// A converter plus the records it produced, decoded.
struct Converted {
  socklnd::SocklndConverter conv;
  std::vector<socklnd::OutRecord> out;
  explicit Converted(socklnd::ConverterConfig cfg = {}) : conv(cfg) {}

  void add(std::uint64_t ts, const socklnd::TcpSegment& s) { conv.add(ts, s); drain(); }
  void finish() { conv.finish(); drain(); }
  void drain() {
    socklnd::OutRecord r;
    while (conv.pop(r)) out.push_back(r);
  }
  RecordView view(std::size_t i) const {
    std::string why;
    auto v = parse_record(out.at(i).bytes, &why);
    if (!v) throw std::runtime_error("record " + std::to_string(i) + ": " + why);
    return *v;
  }
  Message message(std::size_t i) const {
    return decode_message(view(i), out.at(i).ts_ns, out.at(i).interface_id);
  }
};

/// Feeds one direction's stream cut into segments of the given sizes (the
/// last size repeats), from stream offset `from`.
inline void feed_stream(Converted& c, const FakeConnection& fc, bool from_client,
                        const Bytes& stream, std::vector<std::size_t> sizes, std::uint64_t ts,
                        std::size_t from = 0) {
  std::size_t off = from, i = 0;
  while (off < stream.size()) {
    std::size_t n = sizes[i < sizes.size() ? i : sizes.size() - 1];
    if (n > stream.size() - off) n = stream.size() - off;
    c.add(ts++, fc.data(from_client, stream, off, n));
    off += n;
    ++i;
  }
}

}  // namespace lnetcap::test
