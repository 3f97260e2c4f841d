// SPDX-License-Identifier: GPL-2.0-or-later
#include "socklnd_converter.h"
#include "codec/wire_reader.h"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "../record.h"
#include "lnetcap/record.h"
#include "lnetcap/socklnd.h"

namespace lnetcap::socklnd {

std::string ConverterConfig::pcap_filter() const {
  std::string f = "tcp port " + std::to_string(port);
  if (bulk_port && bulk_port != port) f += " or tcp port " + std::to_string(bulk_port);
  return f;
}

// The parser of one direction reports to the connection it belongs to.
struct ConnectionEvents final : ParserEvents {
  SocklndConverter* conv = nullptr;
  SocklndConverter::Connection* conn = nullptr;
  int side = 0;

  void on_connreq(std::uint64_t ts_ns, std::uint32_t version, const Nid& target) override;
  void on_hello(std::uint64_t ts_ns, const HelloInfo& hello) override;
  void on_noop(std::uint64_t) override {}
  void on_message(const ParsedMessage& msg) override { conv->message(*conn, side, msg); }
};

struct SocklndConverter::Connection {
  struct Direction {
    ConnectionEvents events;
    SocklndParser parser;
    TcpReassembler tcp;
    Direction(SocklndConverter& conv, Connection& c, int side)
        : parser(events, conv.counters_.socklnd, conv.config_.snaplen),
          tcp(parser, conv.budget_, conv.counters_.tcp) {
      events.conv = &conv;
      events.conn = &c;
      events.side = side;
    }
  };

  Connection(SocklndConverter& conv, const TcpSegment& seg)
      : dir{Direction(conv, *this, 0), Direction(conv, *this, 1)} {
    addr[0] = seg.src;
    port[0] = seg.sport;
    addr[1] = seg.dst;
    port[1] = seg.dport;
  }

  IpAddr addr[2];          // side 0 sent the first segment seen
  std::uint16_t port[2] = {};
  Direction dir[2];
  int active = -1;         // side that connected (sent SYN or connreq), -1 unknown
  std::optional<HelloInfo> hello[2];
  std::optional<Nid> nid[2];  // each side's NID, from the handshake
  std::int64_t iface = -1;
  std::uint64_t last_ts = 0;
};

void ConnectionEvents::on_connreq(std::uint64_t, std::uint32_t, const Nid& target) {
  // The connreq names the NID the active side wants: the passive side's.
  if (conn->active < 0) conn->active = side;
  if (!conn->nid[1 - side]) conn->nid[1 - side] = target;
}

void ConnectionEvents::on_hello(std::uint64_t, const HelloInfo& hello) {
  conn->hello[side] = hello;
  conn->nid[side] = hello.src_nid;
  if (!conn->hello[1 - side] && !hello.dst_nid.is_any()) conn->nid[1 - side] = hello.dst_nid;
  // Both directions of a connection speak the negotiated version.
  conn->dir[1 - side].parser.set_version(hello.version);
}

std::size_t SocklndConverter::FlowHash::operator()(const FlowKey& k) const {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (std::uint8_t b : k.raw) h = (h ^ b) * 1099511628211ull;
  return static_cast<std::size_t>(h);
}

SocklndConverter::SocklndConverter(ConverterConfig config) : config_(std::move(config)) {
  budget_.per_stream = config_.ooo_per_stream;
  budget_.total = config_.ooo_total;
}

SocklndConverter::~SocklndConverter() = default;

SocklndConverter::Connection& SocklndConverter::lookup(std::uint64_t ts_ns, const TcpSegment& seg,
                                                       int* side) {
  // The key orders the two endpoints so both directions find one entry.
  FlowKey key;
  auto put = [&](std::size_t at, const IpAddr& a, std::uint16_t p) {
    std::memcpy(key.raw.data() + at, a.bytes.data(), 16);
    store_be16(key.raw.data() + at + a.bytes.size(), p);
  };
  bool src_first = std::tie(seg.src, seg.sport) < std::tie(seg.dst, seg.dport);
  put(src_first ? 0 : 18, seg.src, seg.sport);
  put(src_first ? 18 : 0, seg.dst, seg.dport);
  key.raw[36] = seg.src.v6;

  bool syn_only = (seg.flags & (kTcpSyn | kTcpAck)) == kTcpSyn;
  auto it = conns_.find(key);
  if (it != conns_.end()) {
    Connection& c = *it->second;
    int s = (c.addr[0] == seg.src && c.port[0] == seg.sport) ? 0 : 1;
    // A new SYN on a known 4-tuple is a new connection (port reuse), unless
    // it repeats the SYN already seen.  A SYN-ACK counts too: a recording
    // of one interface of a multi-rail node may see only the passive side
    // of a connection (its SYN left by another interface), and socklnd
    // reuses its few ports.
    const TcpReassembler& t = c.dir[s].tcp;
    bool reused = (seg.flags & kTcpSyn) && t.started() && !(t.saw_syn() && t.isn() == seg.seq);
    if (!reused) {
      *side = s;
      return c;
    }
    close(c);
    conns_.erase(it);
  }

  if (conns_.size() >= config_.max_connections) make_room();
  auto conn = std::make_unique<Connection>(*this, seg);
  Connection& c = *conn;
  if (syn_only) {
    c.active = 0;
  } else if (config_.is_lnet_port(seg.dport) && !config_.is_lnet_port(seg.sport)) {
    c.active = 0;
  } else if (config_.is_lnet_port(seg.sport) && !config_.is_lnet_port(seg.dport)) {
    c.active = 1;
  }
  c.last_ts = ts_ns;
  conns_.emplace(key, std::move(conn));
  ++counters_.connections;
  if (conns_.size() > counters_.peak_connections) counters_.peak_connections = conns_.size();
  *side = 0;
  return c;
}

void SocklndConverter::add(std::uint64_t ts_ns, const TcpSegment& seg) {
  if (!config_.is_lnet_port(seg.sport) && !config_.is_lnet_port(seg.dport)) {
    ++counters_.other_port;
    return;
  }
  ++counters_.segments;
  if (ts_ns > now_ns_) now_ns_ = ts_ns;
  // Sweep once per second of capture time (live: expire() also runs on
  // read timeouts with the wall clock, which may be ahead of packet times).
  if (now_ns_ >= last_sweep_ns_ + 1000000000ull) expire(now_ns_);

  int side = 0;
  Connection& c = lookup(ts_ns, seg, &side);
  c.last_ts = ts_ns;
  auto& d = c.dir[side];
  if (!d.tcp.started()) d.parser.start((seg.flags & kTcpSyn) != 0);
  d.tcp.add(ts_ns, seg.seq, seg.flags, seg.payload, seg.wire_len);
  if (seg.flags & kTcpAck) c.dir[1 - side].tcp.peer_acked(ts_ns, seg.ack);
}

void SocklndConverter::close(Connection& c) {
  for (auto& d : c.dir) {
    d.tcp.flush(now_ns_);
    d.parser.finish();
  }
}

void SocklndConverter::expire(std::uint64_t now_ns) {
  if (now_ns > last_sweep_ns_) last_sweep_ns_ = now_ns;
  for (auto it = conns_.begin(); it != conns_.end();) {
    Connection& c = *it->second;
    bool closed = c.dir[0].tcp.finished() && c.dir[1].tcp.finished();
    std::uint64_t idle = now_ns > c.last_ts ? now_ns - c.last_ts : 0;
    if (idle > (closed ? config_.closed_timeout_ns : config_.idle_timeout_ns)) {
      close(c);
      ++counters_.expired;
      it = conns_.erase(it);
    } else {
      ++it;
    }
  }
}

void SocklndConverter::make_room() {
  // Forget the least recently active tenth at once, so the O(n) scan runs
  // once per max_connections/10 new connections.
  std::vector<std::uint64_t> last;
  last.reserve(conns_.size());
  for (const auto& [key, c] : conns_) last.push_back(c->last_ts);
  auto nth = last.begin() + static_cast<std::ptrdiff_t>(last.size() / 10);
  std::nth_element(last.begin(), nth, last.end());
  std::uint64_t cutoff = *nth;
  for (auto it = conns_.begin(); it != conns_.end();) {
    if (it->second->last_ts <= cutoff) {
      close(*it->second);
      ++counters_.evicted;
      it = conns_.erase(it);
    } else {
      ++it;
    }
  }
}

void SocklndConverter::finish() {
  for (auto& [key, c] : conns_) close(*c);
  conns_.clear();
}

bool SocklndConverter::pop(OutRecord& out) {
  if (out_.empty()) return false;
  if (!out.bytes.empty() || out.bytes.capacity()) {
    // Hand the caller's old buffer back for reuse.
    out.bytes.clear();
    if (spare_.size() < 64) spare_.push_back(std::move(out));
  }
  out = std::move(out_.front());
  out_.pop_front();
  return true;
}

namespace {

Nid header_src(ByteSpan h) {
  const WireReader r(h);
  return h.size() == LNETCAP_HDR_NID16_LEN
             ? Nid::from_lnet_nid(r.span(LNETCAP_FIELD(struct lnetcap_hdr_nid16, src_nid)).data())
             : Nid::from_nid4(r.u64(LNETCAP_FIELD(struct lnetcap_hdr_nid4, src_nid)));
}
Nid header_dest(ByteSpan h) {
  return h.size() == LNETCAP_HDR_NID16_LEN ? Nid::from_lnet_nid(h.data())
                                           : Nid::from_nid4(load_le64(h.data()));
}

const char* ctype_name(std::int32_t ctype) {
  switch (ctype) {
#define X(name, value, str) \
  case value:               \
    return str;
    LNETCAP_SOCKLND_CONN_LIST(X)
#undef X
    default:
      return "unknown";
  }
}

std::string endpoint(const IpAddr& a, std::uint16_t port) {
  return a.v6 ? "[" + a.to_string() + "]:" + std::to_string(port)
              : a.to_string() + ":" + std::to_string(port);
}

}  // namespace

std::uint32_t SocklndConverter::interface_for(Connection& c, int side, const ParsedMessage& m) {
  if (c.iface >= 0) return static_cast<std::uint32_t>(c.iface);
  int act = c.active >= 0 ? c.active : side;
  int pas = 1 - act;
  CaptureInterface iface;
  iface.name = endpoint(c.addr[act], c.port[act]) + "-" + endpoint(c.addr[pas], c.port[pas]);
  std::string d = endpoint(c.addr[act], c.port[act]) + " -> " + endpoint(c.addr[pas], c.port[pas]);
  const HelloInfo* h = c.hello[act] ? &*c.hello[act] : c.hello[pas] ? &*c.hello[pas] : nullptr;
  if (h) {
    d += " socklnd V" + std::to_string(h->version);
    // The active side's HELLO names the type; the passive side mirrors
    // BULK_IN/BULK_OUT in its answer.
    std::int32_t ctype = h->ctype;
    bool from_passive = !c.hello[act];
    if (from_passive && (ctype == LNETCAP_SOCKLND_CONN_BULK_IN || ctype == LNETCAP_SOCKLND_CONN_BULK_OUT))
      ctype = LNETCAP_SOCKLND_CONN_BULK_IN + LNETCAP_SOCKLND_CONN_BULK_OUT - ctype;
    d += std::string(" ") + ctype_name(ctype);
  } else {
    d += m.header.size() == LNETCAP_HDR_NID16_LEN ? " socklnd V4" : " socklnd V2/V3";
    d += " (handshake not captured)";
  }
  if (c.nid[act] && c.nid[pas]) d += ", " + c.nid[act]->to_string() + " -> " + c.nid[pas]->to_string();
  iface.description = d;
  iface.filter = config_.pcap_filter();
  iface.snaplen = LNETCAP_REC_HDR_V1_LEN + LNETCAP_HDR_NID16_LEN + config_.snaplen;
  c.iface = static_cast<std::int64_t>(interfaces_.size());
  interfaces_.push_back(std::move(iface));
  return static_cast<std::uint32_t>(c.iface);
}

void SocklndConverter::message(Connection& c, int side, const ParsedMessage& m) {
  RecordHeader rh;
  rh.hook = LNETCAP_HOOK_SOCKLND_STREAM;
  rh.lnd_type = LNETCAP_LND_SOCKLND;
  rh.cpu = LNETCAP_CPU_UNKNOWN;
  rh.seq = seq_++;
  rh.payload_len = m.payload_len;
  if (m.gap_before) rh.flags |= LNETCAP_REC_F_GAP_BEFORE;
  if (m.prefix_lost) rh.flags |= LNETCAP_REC_F_PAYLOAD_UNREADABLE;
  // The hop's NIDs come from the handshake; without it, from the header
  // (the same NIDs unless the message was routed).
  Nid sender = c.nid[side] ? *c.nid[side] : header_src(m.header);
  Nid receiver = c.nid[1 - side] ? *c.nid[1 - side] : header_dest(m.header);

  std::uint32_t epb_flags = 0;
  if (!config_.local_nid) {
    rh.direction = LNETCAP_DIR_WIRE;
    rh.local_nid = sender;
    rh.peer_nid = receiver;
  } else if (sender == *config_.local_nid) {
    rh.direction = LNETCAP_DIR_SEND;
    rh.local_nid = sender;
    rh.peer_nid = receiver;
    epb_flags = 2;  // pcapng epb_flags: outbound
  } else {
    rh.direction = LNETCAP_DIR_RECV;
    rh.local_nid = receiver;
    rh.peer_nid = sender;
    epb_flags = 1;  // inbound
  }
  rh.ni_id = interface_for(c, side, m);

  OutRecord rec;
  if (!spare_.empty()) {
    rec = std::move(spare_.back());
    spare_.pop_back();
  }
  rec.ts_ns = m.ts_ns;
  rec.interface_id = rh.ni_id;
  rec.epb_flags = epb_flags;
  rec.bytes.clear();
  encode_record(rh, m.header, m.prefix, rec.bytes);
  rec.orig_len = static_cast<std::uint32_t>(rec.bytes.size() + (m.payload_len - m.prefix.size()));
  out_.push_back(std::move(rec));
  ++counters_.records;
}

std::vector<std::pair<std::string, std::uint64_t>> SocklndConverter::details() const {
  const auto& t = counters_.tcp;
  const auto& s = counters_.socklnd;
  return {
      {"tcp segments on the LNet port", counters_.segments},
      {"tcp connections", counters_.connections},
      {"tcp connections expired (closed or idle)", counters_.expired},
      {"tcp connections evicted (too many at once)", counters_.evicted},
      {"tcp connections at most at once", counters_.peak_connections},
      {"tcp bytes reassembled", t.bytes},
      {"tcp bytes retransmitted (dropped)", t.retransmitted},
      {"tcp segments out of order", t.out_of_order},
      {"tcp gaps (data not captured)", t.gaps},
      {"tcp gap bytes", t.gap_bytes},
      {"tcp gaps forced by the buffer limit", t.overflows},
      {"socklnd connection requests", s.connreqs},
      {"socklnd HELLOs V1", s.hellos[1]},
      {"socklnd HELLOs V2", s.hellos[2]},
      {"socklnd HELLOs V3", s.hellos[3]},
      {"socklnd HELLOs V4", s.hellos[4]},
      {"socklnd NOOPs", s.noops},
      {"socklnd LNet messages", s.messages},
      {"socklnd resynchronisations", s.desyncs},
      {"socklnd messages lost in gaps", s.lost_messages},
      {"socklnd bytes skipped while resynchronising", s.garbage_bytes},
      {"socklnd streams ending inside a message", s.unfinished},
  };
}

}  // namespace lnetcap::socklnd
