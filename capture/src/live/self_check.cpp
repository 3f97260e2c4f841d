// SPDX-License-Identifier: GPL-2.0-or-later
#include "self_check.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "codec/wire_reader.h"
#include "lnetcap/lnet.h"
#include "lnetcap/record.h"

#include "../bytes.h"
#include "../nid.h"

namespace lnetcap::live {
namespace {

// Lustre's uapi (include/uapi/linux/lnet/libcfs_ioctl.h, lnet-dlc.h),
// identical from 2.15.0 to 2.17.57 for what is used here.
struct libcfs_ioctl_hdr {
  std::uint32_t ioc_len;
  std::uint32_t ioc_version;
};
struct lnet_process_id {
  std::uint64_t nid;  // lnet_nid_t
  std::uint32_t pid;
};
struct lnet_ioctl_ping_data {
  libcfs_ioctl_hdr ping_hdr;
  std::uint32_t op_param;  // timeout, ms
  std::uint32_t ping_count;
  std::uint32_t ping_flags;
  std::uint32_t mr_info;
  lnet_process_id ping_id;
  lnet_process_id* ping_buf;
  std::uint64_t ping_src;  // lnet_nid_t; LNET_NID_ANY
};
static_assert(sizeof(lnet_ioctl_ping_data) == 56, "x86_64 layout of lnet_ioctl_ping_data");
constexpr std::uint32_t kIoctlVersion2 = 0x0001000b;  // LNET_IOCTL_VERSION2
// IOC_LIBCFS_PING_PEER = _IOWR('e', 62, IOCTL_LIBCFS_TYPE), IOCTL_LIBCFS_TYPE long
constexpr unsigned long kIocPingPeer = _IOWR('e', 62, long);
constexpr std::uint64_t kLo0Nid4 = std::uint64_t{LNETCAP_LND_LOLND} << 48;  // 0@lo
constexpr std::uint32_t kPidAny = 0xffffffffu;

const char* type_name(std::uint32_t t) {
  switch (t) {
    case LNETCAP_MSG_ACK: return "ACK";
    case LNETCAP_MSG_PUT: return "PUT";
    case LNETCAP_MSG_GET: return "GET";
    case LNETCAP_MSG_REPLY: return "REPLY";
    case LNETCAP_MSG_HELLO: return "HELLO";
  }
  return "none";
}

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// One expectation failed: the field (as the struct member whose offset is
// at fault), what LNet must have put there, what was read.
struct Miss {
  std::string where, field, expected, read;
};

class Judge {
 public:
  void expect(bool ok, const std::string& where, const std::string& field, std::string expected,
              std::string read) {
    if (!ok && misses_.empty()) misses_.push_back({where, field, std::move(expected), std::move(read)});
  }
  bool failed() const { return !misses_.empty(); }
  const Miss& first() const { return misses_.front(); }

 private:
  std::vector<Miss> misses_;
};

struct Hdr {
  Nid dest, src;
  std::uint32_t dest_pid = 0, type = 0xffffffffu, plen = 0, portal = 0;
  std::uint64_t mbits = 0;
  bool present = false;
};

Hdr header_of(const RecordView& r) {
  Hdr h;
  if (r.lnet_header.size() != LNETCAP_HDR_NID16_LEN) return h;
  const WireReader w(r.lnet_header);
  h.present = true;
  h.dest = Nid::from_lnet_nid(w.span(LNETCAP_FIELD(struct lnetcap_hdr_nid16, dest_nid)).data());
  h.src = Nid::from_lnet_nid(w.span(LNETCAP_FIELD(struct lnetcap_hdr_nid16, src_nid)).data());
  h.dest_pid = w.u32(LNETCAP_FIELD(struct lnetcap_hdr_nid16, dest_pid));
  h.type = w.u32(LNETCAP_FIELD(struct lnetcap_hdr_nid16, type));
  h.plen = w.u32(LNETCAP_FIELD(struct lnetcap_hdr_nid16, payload_length));
  const WireReader get = w.at(LNETCAP_FIELD(struct lnetcap_hdr_nid16, msg));
  h.mbits = get.u64(LNETCAP_FIELD(struct lnetcap_get, match_bits));
  h.portal = get.u32(LNETCAP_FIELD(struct lnetcap_get, ptl_index));
  return h;
}

// The ping magic at the start of the payload, when the payload was read.
void expect_ping_info(Judge& j, const RecordView& r, const std::string& where,
                      const char* field) {
  if (r.hdr.flags & LNETCAP_REC_F_PAYLOAD_UNREADABLE) {
    j.expect(false, where, field, "the node's lnet_ping_info", "an unreadable payload");
    return;
  }
  if (r.payload.size() < 4) return;  // -s 0..3: nothing to compare
  std::uint32_t magic = load_le32(r.payload.data());
  j.expect(magic == LNETCAP_LNET_PROTO_PING_MAGIC, where, field,
           "lnet_ping_info starting with the ping magic " + hex(LNETCAP_LNET_PROTO_PING_MAGIC),
           "first word " + hex(magic));
}

}  // namespace

int lnet_self_ping(std::string* why) {
  int fd = ::open("/dev/lnet", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    *why = std::string("cannot open /dev/lnet: ") + std::strerror(e);
    return -e;
  }
  // Room for 256 NIs, so the REPLY (this node's whole ping buffer) is
  // never truncated and msg_wanted equals its payload length.
  static lnet_process_id ids[256];
  lnet_ioctl_ping_data d{};
  d.ping_hdr.ioc_len = sizeof d;
  d.ping_hdr.ioc_version = kIoctlVersion2;
  d.op_param = 2000;  // ms: a loopback ping answers at once
  d.ping_count = 256;
  d.ping_id.nid = kLo0Nid4;
  d.ping_id.pid = kPidAny;  // LNet makes it LNET_PID_LUSTRE
  d.ping_buf = ids;
  d.ping_src = ~std::uint64_t{0};  // LNET_NID_ANY
  int rc = ::ioctl(fd, kIocPingPeer, &d);
  int e = errno;
  ::close(fd);
  if (rc < 0) {
    *why = std::string("LNet refused to ping 0@lo (ioctl IOC_LIBCFS_PING_PEER: ") +
           std::strerror(e) + ")" +
           (e == ENETDOWN || e == ESHUTDOWN || e == ENODEV
                ? ": LNet is not configured (lnetctl lnet configure)"
                : "");
    return -e;
  }
  return 0;
}

SelfCheckResult judge_self_ping(const std::vector<RecordView>& recs) {
  const Nid lo = Nid::from_nid4(kLo0Nid4);
  Judge j;
  const RecordView *send_get = nullptr, *send_reply = nullptr, *recv_reply = nullptr;
  for (const auto& r : recs) {
    const Hdr h = header_of(r);
    if (r.hdr.direction == LNETCAP_DIR_DROP) {
      // A ping of 0@lo drops nothing: a DROP means a completion or a
      // committed bit was misread (msg_tx_committed, msg_rx_committed,
      // msg_md's md_flags).
      j.expect(false, "the ping", "msg_tx_committed / msg_rx_committed / md_flags",
               "no DROP", std::string("a DROP at ") + (r.hdr.hook == LNETCAP_HOOK_LNET_FINALIZE
                                                           ? "lnet_finalize"
                                                           : "another hook"));
      continue;
    }
    if (r.hdr.hook == LNETCAP_HOOK_LNET_NI_SEND) {
      if (!send_get) {
        send_get = &r;
      } else if (!send_reply) {
        send_reply = &r;
      }
    } else if (r.hdr.hook == LNETCAP_HOOK_LNET_FINALIZE && r.hdr.direction == LNETCAP_DIR_RECV) {
      if (!recv_reply) recv_reply = &r;
    }
    (void)h;
  }
  if (!send_get) {
    j.expect(false, "the ping", "lnet_ni_send", "the SEND of its GET by this thread",
             "no record at lnet_ni_send");
  } else {
    const RecordView& r = *send_get;
    const Hdr h = header_of(r);
    const std::string w = "the ping's GET (SEND at lnet_ni_send)";
    j.expect(r.hdr.direction == LNETCAP_DIR_SEND, w, "msg_routing", "0 (SEND)", "1 (FORWARD)");
    j.expect(h.present && h.type == LNETCAP_MSG_GET, w, "msg_hdr (type)",
             "GET (2)", std::string(type_name(h.type)) + " (" + std::to_string(h.type) + ")");
    j.expect(h.dest == lo, w, "msg_hdr (dest_nid)", "0@lo", h.dest.to_string());
    j.expect(h.src == lo, w, "msg_hdr (src_nid)", "0@lo", h.src.to_string());
    j.expect(h.dest_pid == LNETCAP_LNET_PID_LUSTRE, w, "msg_hdr (dest_pid)", "12345",
             std::to_string(h.dest_pid));
    j.expect(h.portal == LNETCAP_PORTAL_LNET_RESERVED, w, "msg_hdr (portal)", "0",
             std::to_string(h.portal));
    j.expect(h.mbits == LNETCAP_LNET_PING_MATCHBITS, w, "msg_hdr (match bits)",
             hex(LNETCAP_LNET_PING_MATCHBITS), hex(h.mbits));
    j.expect(h.plen == 0, w, "msg_hdr (payload_length)", "0", std::to_string(h.plen));
    j.expect(r.hdr.payload_len == 0, w, "msg_len", "0", std::to_string(r.hdr.payload_len));
    j.expect(r.hdr.local_nid == lo, w, "lnet_ni.ni_nid (the sending NI)", "0@lo",
             r.hdr.local_nid.to_string());
    j.expect(r.hdr.peer_nid == lo, w, "msg_txpeer (NULL for 0@lo: peer = dest_nid)", "0@lo",
             r.hdr.peer_nid.to_string());
    j.expect(r.hdr.retry_count == 0, w, "msg_retry_count", "0",
             std::to_string(r.hdr.retry_count));
  }
  std::uint32_t reply_len = 0;
  if (send_get && !j.failed()) {
    if (!send_reply) {
      j.expect(false, "the ping", "lnet_ni_send", "the SEND of its REPLY by this thread",
               "no second record at lnet_ni_send");
    } else {
      const RecordView& r = *send_reply;
      const Hdr h = header_of(r);
      const std::string w = "the ping's REPLY (SEND at lnet_ni_send)";
      j.expect(h.present && h.type == LNETCAP_MSG_REPLY, w, "msg_hdr (type)", "REPLY (3)",
               std::string(type_name(h.type)) + " (" + std::to_string(h.type) + ")");
      j.expect(h.dest == lo && h.src == lo, w, "msg_hdr (NIDs)", "0@lo > 0@lo",
               h.src.to_string() + " > " + h.dest.to_string());
      j.expect(h.plen >= sizeof(lnetcap_ping_info) && h.plen <= LNETCAP_LNET_MTU, w,
               "msg_hdr (payload_length)", "an lnet_ping_info's length",
               std::to_string(h.plen));
      j.expect(r.hdr.payload_len == h.plen, w, "msg_len", std::to_string(h.plen),
               std::to_string(r.hdr.payload_len));
      j.expect(r.hdr.local_nid == lo, w, "lnet_ni.ni_nid", "0@lo", r.hdr.local_nid.to_string());
      if (!j.failed()) expect_ping_info(j, r, w, "msg_kiov / msg_niov / msg_offset (payload)");
      reply_len = h.plen;
    }
  }
  if (send_reply && !j.failed()) {
    if (!recv_reply) {
      j.expect(false, "the ping", "msg_type / msg_rx_committed / msg_tx_committed / msg_hdr",
               "a RECV of its REPLY at lnet_finalize", "no such record");
    } else {
      const RecordView& r = *recv_reply;
      const Hdr h = header_of(r);
      const std::string w = "the ping's REPLY (RECV at lnet_finalize)";
      j.expect(h.present && h.type == LNETCAP_MSG_REPLY, w, "msg_hdr (type)", "REPLY (3)",
               std::string(type_name(h.type)) + " (" + std::to_string(h.type) + ")");
      j.expect(r.hdr.status == 0, w, "status (msg_md's md_flags / md_handler)", "0",
               std::to_string(r.hdr.status));
      j.expect(r.hdr.health_status == 0, w, "msg_health_status", "0 (OK)",
               std::to_string(r.hdr.health_status));
      j.expect(r.hdr.payload_len == reply_len, w, "msg_wanted", std::to_string(reply_len),
               std::to_string(r.hdr.payload_len));
      j.expect(r.hdr.peer_nid == lo, w, "msg_from", "0@lo", r.hdr.peer_nid.to_string());
      j.expect(r.hdr.local_nid == lo, w, "msg_rxni / lnet_ni.ni_nid", "0@lo",
               r.hdr.local_nid.to_string());
      if (!j.failed()) expect_ping_info(j, r, w, "msg_kiov / msg_niov / msg_offset (payload)");
    }
  }
  SelfCheckResult out;
  if (j.failed()) {
    const Miss& m = j.first();
    out.status = SelfCheckResult::kMismatch;
    out.detail = "in " + m.where + ", " + m.field + ": expected " + m.expected + ", read " + m.read;
  } else {
    out.status = SelfCheckResult::kProven;
    out.detail = "LNet ping of 0@lo read exactly (GET and REPLY headers, NIs, peers, lengths, "
                 "status, health, payload)";
  }
  return out;
}

std::string describe(const SelfCheckResult& r) {
  switch (r.status) {
    case SelfCheckResult::kProven: return "passed: " + r.detail;
    case SelfCheckResult::kMismatch: return "FAILED: " + r.detail;
    case SelfCheckResult::kImpossible: return "not possible: " + r.detail;
  }
  return {};
}

}  // namespace lnetcap::live
