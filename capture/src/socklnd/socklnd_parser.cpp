// SPDX-License-Identifier: GPL-2.0-or-later
#include "socklnd_parser.h"

#include <algorithm>
#include <cstddef>

#include "codec/wire_reader.h"
#include "lnetcap/lnet.h"
#include "lnetcap/socklnd.h"

namespace lnetcap::socklnd {
namespace {

// Buffer capacity a stream keeps between messages (a header and a default
// payload prefix fit); anything larger is released.
constexpr std::size_t kKeepCapacity = 4096;
// LNet's MAX_PORTALS: no portal index reaches it.
constexpr std::uint32_t kMaxPortals = 64;
// LNET_PID_RESERVED (0xf0000000) without LNET_PID_USERFLAG.
constexpr std::uint32_t kPidReservedBits = 0x70000000u;

bool known_lnd(unsigned type) {
  switch (type) {
#define X(name, value, str, style) case value:
    LNETCAP_LND_LIST(X)
#undef X
    return true;
    default:
      return false;
  }
}

bool plausible_nid4(std::uint64_t nid) {
  return (nid >> 56) == 0 && known_lnd(static_cast<unsigned>((nid >> 48) & 0xff));
}

// struct lnet_nid: size 0/4/8/12, a known LND, insignificant bytes zero.
bool plausible_nid16(const std::uint8_t* p) {
  std::size_t size = p[offsetof(struct lnetcap_nid, nid_size)];
  if (size > LNETCAP_NID_SIZE_MAX || size % 4 != 0 || !known_lnd(p[offsetof(struct lnetcap_nid, nid_type)]))
    return false;
  // nid_addr holds size + 4 significant bytes; the rest must be zero.
  for (std::size_t i = offsetof(struct lnetcap_nid, nid_addr) + size + 4; i < sizeof(struct lnetcap_nid); ++i)
    if (p[i] != 0) return false;
  return true;
}

// The HELLO fields after the NIDs, at the offsets of either form's struct.
template <class Hello>
void decode_hello_tail(const WireReader& r, HelloInfo& h) {
#define HELLO(field) LNETCAP_FIELD(Hello, field)
  h.src_pid = r.u32(HELLO(kshm_src_pid));
  h.dst_pid = r.u32(HELLO(kshm_dst_pid));
  h.src_incarnation = r.u64(HELLO(kshm_src_incarnation));
  h.dst_incarnation = r.u64(HELLO(kshm_dst_incarnation));
  h.ctype = static_cast<std::int32_t>(r.u32(HELLO(kshm_ctype)));
  h.nips = r.u32(HELLO(kshm_nips));
#undef HELLO
}

bool plausible_nids(const WireReader& r, const struct lnetcap_hdr_nid4*) {
  return plausible_nid4(r.u64(LNETCAP_FIELD(struct lnetcap_hdr_nid4, dest_nid))) &&
         plausible_nid4(r.u64(LNETCAP_FIELD(struct lnetcap_hdr_nid4, src_nid)));
}
bool plausible_nids(const WireReader& r, const struct lnetcap_hdr_nid16*) {
  return plausible_nid16(r.span(LNETCAP_FIELD(struct lnetcap_hdr_nid16, dest_nid)).data()) &&
         plausible_nid16(r.span(LNETCAP_FIELD(struct lnetcap_hdr_nid16, src_nid)).data());
}

// Either header form: the same fields, at the offsets of its own struct.
template <class Hdr>
bool plausible_header(const WireReader& r, bool strict) {
#define HDR(field) LNETCAP_FIELD(Hdr, field)
  std::uint32_t type = r.u32(HDR(type));
  std::uint32_t plen = r.u32(HDR(payload_length));
  if (type > LNETCAP_MSG_REPLY || plen > LNETCAP_LNET_MTU) return false;
  // lnet_parse() refuses a payload on ACK and GET.
  if ((type == LNETCAP_MSG_ACK || type == LNETCAP_MSG_GET) && plen != 0) return false;
  if (!strict) return true;
  if (!plausible_nids(r, static_cast<const Hdr*>(nullptr))) return false;
  if ((r.u32(HDR(dest_pid)) & kPidReservedBits) || (r.u32(HDR(src_pid)) & kPidReservedBits))
    return false;
  const WireReader msg = r.at(HDR(msg));
#undef HDR
  switch (type) {
    case LNETCAP_MSG_PUT:
      return msg.u32(LNETCAP_FIELD(struct lnetcap_put, ptl_index)) < kMaxPortals;
    case LNETCAP_MSG_GET:
      return msg.u32(LNETCAP_FIELD(struct lnetcap_get, ptl_index)) < kMaxPortals &&
             msg.u32(LNETCAP_FIELD(struct lnetcap_get, sink_length)) <= LNETCAP_LNET_MTU;
    case LNETCAP_MSG_ACK:
      return msg.u32(LNETCAP_FIELD(struct lnetcap_ack, mlength)) <= LNETCAP_LNET_MTU;
    default:
      return true;
  }
}

}  // namespace

bool plausible_lnet_header(const std::uint8_t* h, std::size_t len, bool strict) {
  const WireReader r(ByteSpan(h, len));
  return len == LNETCAP_HDR_NID16_LEN ? plausible_header<struct lnetcap_hdr_nid16>(r, strict)
                                      : plausible_header<struct lnetcap_hdr_nid4>(r, strict);
}

void SocklndParser::start(bool from_connection_start) {
  state_ = from_connection_start ? State::kStart : State::kHunt;
}

void SocklndParser::set_version(int version) {
  if (version_ == 0) version_ = version;
}

std::uint32_t SocklndParser::u32(std::size_t off) const {
  return swapped_ ? load_be32(buf_.data() + off) : load_le32(buf_.data() + off);
}

bool SocklndParser::fill(ByteSpan& data, std::size_t want) {
  if (buf_.size() < want) {
    std::size_t n = std::min(want - buf_.size(), data.size());
    buf_.insert(buf_.end(), data.begin(), data.begin() + static_cast<std::ptrdiff_t>(n));
    data = data.subspan(n);
  }
  return buf_.size() >= want;
}

void SocklndParser::classify_start() {
  std::uint32_t le = load_le32(buf_.data());
  std::uint32_t be = load_be32(buf_.data());
  auto is = [&](std::uint32_t magic) {
    if (le == magic || be == magic) {
      swapped_ = le != magic;
      return true;
    }
    return false;
  };
  if (is(LNETCAP_LNET_PROTO_ACCEPTOR_MAGIC)) {
    state_ = State::kConnreq;
  } else if (is(LNETCAP_LNET_PROTO_MAGIC)) {
    state_ = State::kHello;
  } else if (is(LNETCAP_LNET_PROTO_TCP_MAGIC)) {
    state_ = State::kHelloV1;
  } else if (is(LNETCAP_KSOCK_MSG_LNET) || is(LNETCAP_KSOCK_MSG_NOOP)) {
    state_ = State::kMsgHeader;  // handshake not on this stream: data straight away
  } else {
    ++counters_.bad_headers;
    lose_sync(true);
  }
}

void SocklndParser::on_data(std::uint64_t ts_ns, ByteSpan data) {
  // Each state's step consumes what it can; false: it needs more bytes
  // than this segment holds (they are kept in buf_ until the next one).
  while (!data.empty()) {
    bool more = true;
    switch (state_) {
      case State::kIdle:
        start(false);
        break;
      case State::kStart:
        more = fill(data, 4);
        if (more) classify_start();
        break;
      case State::kConnreq:
        more = step_connreq(ts_ns, data);
        break;
      case State::kHello:
        more = step_hello(ts_ns, data);
        break;
      case State::kHelloV1:
        more = step_hello_v1(ts_ns, data);
        break;
      case State::kMsgHeader:
        more = step_msg_header(ts_ns, data);
        break;
      case State::kPrefix:
        more = fill(data, ksock_len() + msg_hdr_len_ + want_prefix_);
        if (more) {
          emit_message(false);
          after_message();
        }
        break;
      case State::kSkip: {
        std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(skip_, data.size()));
        data = data.subspan(n);
        skip_ -= n;
        if (skip_ == 0) state_ = State::kMsgHeader;
        break;
      }
      case State::kHunt:
        hunt(ts_ns, data);
        break;
    }
    if (!more) return;
  }
}

void SocklndParser::reject_header() {
  ++counters_.bad_headers;
  lose_sync(true);
}

// The acceptor's connection request (lnet_acceptor_connreq, 16 or 28 bytes).
bool SocklndParser::step_connreq(std::uint64_t ts_ns, ByteSpan& data) {
  using V1 = lnetcap_acceptor_connreq;
  using V2 = lnetcap_acceptor_connreq_v2;
  if (!fill(data, LNETCAP_OFFSETOF(V1, acr_nid))) return false;  // magic and version
  std::uint32_t version = u32(LNETCAP_OFFSETOF(V1, acr_version));
  std::size_t need = version == LNETCAP_LNET_PROTO_ACCEPTOR_VERSION      ? sizeof(V1)
                     : version == LNETCAP_LNET_PROTO_ACCEPTOR_VERSION_16 ? sizeof(V2)
                                                                         : 0;
  if (need == 0) {
    reject_header();
    return true;
  }
  if (!fill(data, need)) return false;
  // acr_nid is at the same offset in both forms (socklnd.h asserts it).
  const std::uint8_t* nid = buf_.data() + LNETCAP_OFFSETOF(V1, acr_nid);
  Nid target = need == sizeof(V1) ? Nid::from_nid4(swapped_ ? load_be64(nid) : load_le64(nid))
                                  : Nid::from_lnet_nid(nid);
  ++counters_.connreqs;
  events_.on_connreq(ts_ns, version, target);
  buf_.clear();
  state_ = State::kStart;  // the HELLO follows
  return true;
}

// A ksock HELLO of protocol V2, V3 or V4, then the IPs it lists (skipped).
bool SocklndParser::step_hello(std::uint64_t ts_ns, ByteSpan& data) {
  if (!fill(data, 8)) return false;
  std::uint32_t version = u32(4);
  std::size_t need = (version == LNETCAP_KSOCK_PROTO_V2 || version == LNETCAP_KSOCK_PROTO_V3)
                         ? sizeof(struct lnetcap_ksock_hello_nid4)
                     : version == LNETCAP_KSOCK_PROTO_V4 ? sizeof(struct lnetcap_ksock_hello)
                                                         : 0;
  if (need == 0) {
    reject_header();
    return true;
  }
  if (!fill(data, need)) return false;
  const WireReader r(ByteSpan(buf_.data(), buf_.size()), Endian{!swapped_});
  HelloInfo h;
  h.version = static_cast<int>(version);
  h.swapped = swapped_;
  if (version == LNETCAP_KSOCK_PROTO_V4) {
    h.src_nid = Nid::from_lnet_nid(r.span(LNETCAP_FIELD(struct lnetcap_ksock_hello, kshm_src_nid)).data());
    h.dst_nid = Nid::from_lnet_nid(r.span(LNETCAP_FIELD(struct lnetcap_ksock_hello, kshm_dst_nid)).data());
    decode_hello_tail<struct lnetcap_ksock_hello>(r, h);
  } else {
    h.src_nid = Nid::from_nid4(r.u64(LNETCAP_FIELD(struct lnetcap_ksock_hello_nid4, kshm_src_nid)));
    h.dst_nid = Nid::from_nid4(r.u64(LNETCAP_FIELD(struct lnetcap_ksock_hello_nid4, kshm_dst_nid)));
    decode_hello_tail<struct lnetcap_ksock_hello_nid4>(r, h);
  }
  if (h.nips > LNETCAP_KSOCK_HELLO_MAX_IPS) {
    reject_header();
    return true;
  }
  version_ = h.version;
  ++counters_.hellos[version_];
  events_.on_hello(ts_ns, h);
  buf_.clear();
  skip_ = 4ull * h.nips;
  state_ = skip_ ? State::kSkip : State::kMsgHeader;
  return true;
}

// A V1 HELLO: a 72-byte LNet header of type HELLO whose dest_nid is the
// lnet_magicversion; its payload is nips x u32.
bool SocklndParser::step_hello_v1(std::uint64_t ts_ns, ByteSpan& data) {
  if (!fill(data, LNETCAP_HDR_NID4_LEN)) return false;
#define V1(field) LNETCAP_FIELD(struct lnetcap_hdr_nid4, field)
  const WireReader r(ByteSpan(buf_.data(), buf_.size()));
  const WireReader hello = r.at(V1(msg));
  std::uint32_t plen = r.u32(V1(payload_length));
  if (r.u32(V1(type)) != LNETCAP_MSG_HELLO || plen > 4 * LNETCAP_KSOCK_HELLO_MAX_IPS) {
    reject_header();
    return true;
  }
  HelloInfo h;
  h.version = LNETCAP_KSOCK_PROTO_V1;
  h.src_nid = Nid::from_nid4(r.u64(V1(src_nid)));
  h.dst_nid = Nid::any();
  h.dst_pid = r.u32(V1(dest_pid));
  h.src_pid = r.u32(V1(src_pid));
  h.src_incarnation = hello.u64(LNETCAP_FIELD(struct lnetcap_hello, incarnation));
  h.ctype = static_cast<std::int32_t>(hello.u32(LNETCAP_FIELD(struct lnetcap_hello, type)));
#undef V1
  h.nips = plen / 4;
  version_ = LNETCAP_KSOCK_PROTO_V1;
  ++counters_.hellos[version_];
  events_.on_hello(ts_ns, h);
  buf_.clear();
  skip_ = plen;
  state_ = skip_ ? State::kSkip : State::kMsgHeader;
  return true;
}

// A ksock_msg header (V2 and later) and the LNet header after it.
bool SocklndParser::step_msg_header(std::uint64_t ts_ns, ByteSpan& data) {
  std::size_t k = ksock_len();
  if (k) {
    if (!fill(data, k)) return false;
    std::uint32_t type = u32(0);
    if (type == LNETCAP_KSOCK_MSG_NOOP) {
      ++counters_.noops;
      events_.on_noop(ts_ns);
      buf_.clear();
      return true;
    }
    if (type != LNETCAP_KSOCK_MSG_LNET) {
      reject_header();
      return true;
    }
  }
  if (version_ != 0) {
    if (!fill(data, k + hdr_len())) return false;
    if (!plausible_lnet_header(buf_.data() + k, hdr_len(), false)) {
      reject_header();
      return true;
    }
    msg_hdr_len_ = hdr_len();
  } else {
    // No HELLO seen: the header form must be recognised, nid4 first.
    if (!fill(data, k + LNETCAP_HDR_NID4_LEN)) return false;
    if (plausible_lnet_header(buf_.data() + k, LNETCAP_HDR_NID4_LEN, true)) {
      msg_hdr_len_ = LNETCAP_HDR_NID4_LEN;
    } else {
      if (!fill(data, k + LNETCAP_HDR_NID16_LEN)) return false;
      if (!plausible_lnet_header(buf_.data() + k, LNETCAP_HDR_NID16_LEN, true)) {
        reject_header();
        return true;
      }
      msg_hdr_len_ = LNETCAP_HDR_NID16_LEN;
    }
  }
  finish_header(ts_ns);
  return true;
}

void SocklndParser::finish_header(std::uint64_t ts_ns) {
  header_ts_ = ts_ns;
  const std::uint8_t* h = buf_.data() + ksock_len();
  payload_len_ = load_le32(h + (msg_hdr_len_ == LNETCAP_HDR_NID16_LEN
                                     ? offsetof(struct lnetcap_hdr_nid16, payload_length)
                                     : offsetof(struct lnetcap_hdr_nid4, payload_length)));
  want_prefix_ = std::min<std::size_t>(snaplen_, payload_len_);
  skip_ = payload_len_ - want_prefix_;
  if (want_prefix_ == 0) {
    emit_message(false);
    after_message();
  } else {
    state_ = State::kPrefix;
  }
}

void SocklndParser::emit_message(bool prefix_lost) {
  std::size_t k = ksock_len();
  ParsedMessage m;
  m.ts_ns = header_ts_;
  m.header = ByteSpan(buf_.data() + k, msg_hdr_len_);
  m.prefix = ByteSpan(buf_.data() + k + msg_hdr_len_, buf_.size() - k - msg_hdr_len_);
  m.payload_len = payload_len_;
  m.gap_before = gap_before_;
  m.prefix_lost = prefix_lost;
  gap_before_ = false;
  ++counters_.messages;
  events_.on_message(m);
}

void SocklndParser::after_message() {
  buf_.clear();
  // A large snap length must not leave every idle stream holding a large
  // buffer: give memory back beyond what a default record needs.
  if (buf_.capacity() > kKeepCapacity) buf_.shrink_to_fit();
  state_ = skip_ ? State::kSkip : State::kMsgHeader;
}

void SocklndParser::lose_sync(bool drop_first_byte) {
  ++counters_.desyncs;
  if (drop_first_byte && !buf_.empty()) {
    buf_.erase(buf_.begin());
    ++counters_.garbage_bytes;
  }
  state_ = State::kHunt;
}

void SocklndParser::hunt(std::uint64_t ts_ns, ByteSpan& data) {
  buf_.insert(buf_.end(), data.begin(), data.end());
  data = {};
  const std::size_t k = ksock_len();
  const std::size_t n = buf_.size();
  std::size_t i = 0;
  for (; i < n; ++i) {
    const std::uint8_t* p = buf_.data() + i;
    std::size_t avail = n - i;
    if (k) {
      if (avail < 4) break;
      if ((swapped_ ? load_be32(p) : load_le32(p)) != LNETCAP_KSOCK_MSG_LNET) continue;
    }
    // Candidate header forms: the known one, or nid4 then nid16.
    std::size_t forms[2] = {version_ ? hdr_len() : std::size_t{LNETCAP_HDR_NID4_LEN},
                            version_ ? 0 : std::size_t{LNETCAP_HDR_NID16_LEN}};
    std::size_t found = 0;
    bool need_more = false;
    for (std::size_t form : forms) {
      if (form == 0) break;
      if (avail < k + form) {
        need_more = true;
        break;
      }
      if (plausible_lnet_header(p + k, form, true)) {
        found = form;
        break;
      }
    }
    if (found) {
      counters_.garbage_bytes += i;
      if (version_ == 0 && found == LNETCAP_HDR_NID16_LEN) version_ = LNETCAP_KSOCK_PROTO_V4;
      // Re-read everything from the header on as ordinary stream data.
      replay_.assign(buf_.begin() + static_cast<std::ptrdiff_t>(i), buf_.end());
      buf_.clear();
      state_ = State::kMsgHeader;
      data = ByteSpan(replay_);
      (void)ts_ns;
      return;
    }
    if (need_more) break;
  }
  counters_.garbage_bytes += i;
  buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(i));
  if (buf_.capacity() > kKeepCapacity) buf_.shrink_to_fit();
  if (replay_.capacity() > kKeepCapacity) std::vector<std::uint8_t>().swap(replay_);
}

void SocklndParser::on_gap(std::uint64_t /*ts_ns*/, std::uint64_t bytes) {
  const std::size_t k = ksock_len();
  switch (state_) {
    case State::kSkip:
      // Lost payload the record does not carry anyway: framing is intact.
      if (bytes <= skip_) {
        skip_ -= bytes;
        if (skip_ == 0) state_ = State::kMsgHeader;
        return;
      }
      ++counters_.lost_messages;  // the gap ran into the next header
      break;
    case State::kPrefix: {
      // The header is good; the prefix stops at the gap.
      std::uint64_t rest = (want_prefix_ - (buf_.size() - k - msg_hdr_len_)) + skip_;
      emit_message(true);
      buf_.clear();
      if (bytes <= rest) {
        skip_ = rest - bytes;
        state_ = skip_ ? State::kSkip : State::kMsgHeader;
        return;
      }
      ++counters_.lost_messages;
      break;
    }
    case State::kMsgHeader:
    case State::kStart:
    case State::kConnreq:
    case State::kHello:
    case State::kHelloV1:
      ++counters_.lost_messages;
      break;
    case State::kIdle:
    case State::kHunt:
      break;
  }
  if (state_ != State::kHunt) ++counters_.desyncs;
  counters_.garbage_bytes += buf_.size();
  buf_.clear();
  skip_ = 0;
  gap_before_ = true;
  state_ = State::kHunt;
}

void SocklndParser::finish() {
  switch (state_) {
    case State::kPrefix:
      emit_message(true);
      ++counters_.unfinished;
      break;
    case State::kSkip:
      ++counters_.unfinished;
      break;
    case State::kHunt:
      counters_.garbage_bytes += buf_.size();
      break;
    default:
      if (!buf_.empty()) ++counters_.unfinished;
      break;
  }
  buf_.clear();
  skip_ = 0;
  state_ = State::kIdle;
}

}  // namespace lnetcap::socklnd
