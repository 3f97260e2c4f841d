// SPDX-License-Identifier: GPL-2.0-or-later
#include "socklnd_parser.h"

#include <algorithm>

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
  std::size_t size = p[0];
  if (size > LNETCAP_NID_SIZE_MAX || size % 4 != 0 || !known_lnd(p[1])) return false;
  for (std::size_t i = 4 + size + 4; i < 20; ++i)
    if (p[i] != 0) return false;
  return true;
}

}  // namespace

bool plausible_lnet_header(const std::uint8_t* h, std::size_t len, bool strict) {
  // Field offsets of the nid16 form are those of the nid4 form + 24.
  std::size_t shift = len == LNETCAP_HDR_NID16_LEN ? 24 : 0;
  std::uint32_t type = load_le32(h + 24 + shift);
  std::uint32_t plen = load_le32(h + 28 + shift);
  if (type > LNETCAP_MSG_REPLY || plen > LNETCAP_LNET_MTU) return false;
  // lnet_parse() refuses a payload on ACK and GET.
  if ((type == LNETCAP_MSG_ACK || type == LNETCAP_MSG_GET) && plen != 0) return false;
  if (!strict) return true;
  if (shift == 0) {
    if (!plausible_nid4(load_le64(h)) || !plausible_nid4(load_le64(h + 8))) return false;
  } else {
    if (!plausible_nid16(h) || !plausible_nid16(h + 20)) return false;
  }
  if ((load_le32(h + 16 + shift) & kPidReservedBits) || (load_le32(h + 20 + shift) & kPidReservedBits))
    return false;
  const std::uint8_t* msg = h + 32 + shift;
  switch (type) {
    case LNETCAP_MSG_PUT:
      return load_le32(msg + 32) < kMaxPortals;
    case LNETCAP_MSG_GET:
      return load_le32(msg + 24) < kMaxPortals && load_le32(msg + 32) <= LNETCAP_LNET_MTU;
    case LNETCAP_MSG_ACK:
      return load_le32(msg + 24) <= LNETCAP_LNET_MTU;
    default:
      return true;
  }
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
  while (!data.empty()) {
    switch (state_) {
      case State::kIdle:
        start(false);
        break;

      case State::kStart:
        if (!fill(data, 4)) return;
        classify_start();
        break;

      case State::kConnreq: {
        if (!fill(data, 8)) return;
        std::uint32_t version = u32(4);
        std::size_t need = version == LNETCAP_LNET_PROTO_ACCEPTOR_VERSION      ? 16
                           : version == LNETCAP_LNET_PROTO_ACCEPTOR_VERSION_16 ? 28
                                                                               : 0;
        if (need == 0) {
          ++counters_.bad_headers;
          lose_sync(true);
          break;
        }
        if (!fill(data, need)) return;
        const std::uint8_t* nid = buf_.data() + 8;
        Nid target = need == 16 ? Nid::from_nid4(swapped_ ? load_be64(nid) : load_le64(nid))
                                : Nid::from_lnet_nid(nid);
        ++counters_.connreqs;
        events_.on_connreq(ts_ns, version, target);
        buf_.clear();
        state_ = State::kStart;  // the HELLO follows
        break;
      }

      case State::kHello: {
        if (!fill(data, 8)) return;
        std::uint32_t version = u32(4);
        std::size_t need = (version == LNETCAP_KSOCK_PROTO_V2 || version == LNETCAP_KSOCK_PROTO_V3)
                               ? sizeof(struct lnetcap_ksock_hello_nid4)
                           : version == LNETCAP_KSOCK_PROTO_V4 ? sizeof(struct lnetcap_ksock_hello)
                                                               : 0;
        if (need == 0) {
          ++counters_.bad_headers;
          lose_sync(true);
          break;
        }
        if (!fill(data, need)) return;
        const std::uint8_t* p = buf_.data();
        Endian e{!swapped_};
        HelloInfo h;
        h.version = static_cast<int>(version);
        h.swapped = swapped_;
        if (version == LNETCAP_KSOCK_PROTO_V4) {
          h.src_nid = Nid::from_lnet_nid(p + 8);
          h.dst_nid = Nid::from_lnet_nid(p + 28);
          p += 24;  // the remaining fields sit 24 bytes further than in nid4 form
        } else {
          h.src_nid = Nid::from_nid4(e.u64(p + 8));
          h.dst_nid = Nid::from_nid4(e.u64(p + 16));
        }
        h.src_pid = e.u32(p + 24);
        h.dst_pid = e.u32(p + 28);
        h.src_incarnation = e.u64(p + 32);
        h.dst_incarnation = e.u64(p + 40);
        h.ctype = static_cast<std::int32_t>(e.u32(p + 48));
        h.nips = e.u32(p + 52);
        if (h.nips > LNETCAP_KSOCK_HELLO_MAX_IPS) {
          ++counters_.bad_headers;
          lose_sync(true);
          break;
        }
        version_ = h.version;
        ++counters_.hellos[version_];
        events_.on_hello(ts_ns, h);
        buf_.clear();
        skip_ = 4ull * h.nips;
        state_ = skip_ ? State::kSkip : State::kMsgHeader;
        break;
      }

      case State::kHelloV1: {
        // A 72-byte LNet header of type HELLO whose dest_nid is the
        // lnet_magicversion; its payload is nips x u32.
        if (!fill(data, LNETCAP_HDR_NID4_LEN)) return;
        const std::uint8_t* p = buf_.data();
        std::uint32_t plen = load_le32(p + 28);
        if (load_le32(p + 24) != LNETCAP_MSG_HELLO || plen > 4 * LNETCAP_KSOCK_HELLO_MAX_IPS) {
          ++counters_.bad_headers;
          lose_sync(true);
          break;
        }
        HelloInfo h;
        h.version = LNETCAP_KSOCK_PROTO_V1;
        h.src_nid = Nid::from_nid4(load_le64(p + 8));
        h.dst_nid = Nid::any();
        h.dst_pid = load_le32(p + 16);
        h.src_pid = load_le32(p + 20);
        h.src_incarnation = load_le64(p + 32);
        h.ctype = static_cast<std::int32_t>(load_le32(p + 40));
        h.nips = plen / 4;
        version_ = LNETCAP_KSOCK_PROTO_V1;
        ++counters_.hellos[version_];
        events_.on_hello(ts_ns, h);
        buf_.clear();
        skip_ = plen;
        state_ = skip_ ? State::kSkip : State::kMsgHeader;
        break;
      }

      case State::kMsgHeader: {
        std::size_t k = ksock_len();
        if (k) {
          if (!fill(data, k)) return;
          std::uint32_t type = u32(0);
          if (type == LNETCAP_KSOCK_MSG_NOOP) {
            ++counters_.noops;
            events_.on_noop(ts_ns);
            buf_.clear();
            break;
          }
          if (type != LNETCAP_KSOCK_MSG_LNET) {
            ++counters_.bad_headers;
            lose_sync(true);
            break;
          }
        }
        if (version_ != 0) {
          if (!fill(data, k + hdr_len())) return;
          if (!plausible_lnet_header(buf_.data() + k, hdr_len(), false)) {
            ++counters_.bad_headers;
            lose_sync(true);
            break;
          }
          msg_hdr_len_ = hdr_len();
        } else {
          // No HELLO seen: the header form must be recognised, nid4 first.
          if (!fill(data, k + LNETCAP_HDR_NID4_LEN)) return;
          if (plausible_lnet_header(buf_.data() + k, LNETCAP_HDR_NID4_LEN, true)) {
            msg_hdr_len_ = LNETCAP_HDR_NID4_LEN;
          } else {
            if (!fill(data, k + LNETCAP_HDR_NID16_LEN)) return;
            if (!plausible_lnet_header(buf_.data() + k, LNETCAP_HDR_NID16_LEN, true)) {
              ++counters_.bad_headers;
              lose_sync(true);
              break;
            }
            msg_hdr_len_ = LNETCAP_HDR_NID16_LEN;
          }
        }
        finish_header(ts_ns);
        break;
      }

      case State::kPrefix:
        if (!fill(data, ksock_len() + msg_hdr_len_ + want_prefix_)) return;
        emit_message(false);
        after_message();
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
  }
}

void SocklndParser::finish_header(std::uint64_t ts_ns) {
  header_ts_ = ts_ns;
  const std::uint8_t* h = buf_.data() + ksock_len();
  payload_len_ = load_le32(h + (msg_hdr_len_ == LNETCAP_HDR_NID16_LEN ? 52 : 28));
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
