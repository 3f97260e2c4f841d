// SPDX-License-Identifier: GPL-2.0-or-later
// report_input.h - the fuzz_report target's input language: a byte string
// read as a sequence of LNet messages, each built as a real lnetcap record
// (tests/support/lnet_builders.h), so what the reports see is what
// decode_message makes of a capture, and any input can be written out as a
// pcapng file for `lnetcap -r` (report_input_pcapng.cpp).
//
// Byte 0 sets the reports' bounds (so give-up, arrow cap and label
// overflow paths are reached with a few messages):
//   bits 0-2  RpcMatcher max_pending - 1     bits 3-5  chart arrows / 4
//   bits 6-7  lnetcapd label budget - 1
// Then every 4 bytes are one step  [kind | who | bits | time]:
//   kind  low nibble: what (Kind below); high nibble: status, snap length,
//         record flags
//   who   bits 0-1 client, 2-3 server (kNids), bit 4 which end recorded it,
//         bit 5 nid16 header, bits 6-7 jobid (kJobids); for the kinds that
//         repeat an earlier record, the whole byte picks it (most recent = 0)
//   bits  bits 0-2 XID (kXids: few, so resends and reuse are the rule),
//         bits 3-4 pb_mbits (0, = XID, XID + 1 as a bulk RPC's, another
//         XID of the set), bits 5-7 opcode (kOpcodes)
//   time  bits 0-5 amount, bits 6-7: equal, +us, -us (out of order), +s
// A short tail is ignored.  Nothing here can fail: every step makes a record
// parse_record accepts (the target checks that).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lnet_builders.h"
#include "lnetcap/lnet.h"
#include "lnetcap/record.h"

namespace lnetcap::fuzz {

struct GeneratedRecord {
  std::vector<std::uint8_t> bytes;  // one lnetcap record (an EPB's data)
  std::uint64_t ts_ns = 0;
};

struct ReportInput {
  std::size_t max_pending = 1;   // RpcMatcher bound of the target's own matcher
  std::size_t max_arrows = 4;    // ChartBuilder cap
  unsigned label_budget = 1;     // lnetcapd's max_label_values
  std::vector<GeneratedRecord> records;
  // Record counts after which the target renders every report, as a
  // status tick (SIGUSR1, --stats-interval) or a scrape does mid-capture.
  std::vector<std::size_t> ticks;
};

enum class Kind : std::uint8_t {
  kRequest,      // client -> server request PUT
  kReply,        // final reply (status from the kind's high nibble)
  kEarlyReply,   // AT early reply: offset 0, one buffer, lm_cksum set
  kErrorReply,   // PTL_RPC_MSG_ERR with a negative status
  kBulkGet,      // server pulls write data: GET on the bulk portal, pb_mbits
  kBulkPut,      // server pushes read data: PUT on the bulk portal, no RPC body
  kAck,          // ACK of a bulk PUT
  kForward,      // a router's FWD record of a request or reply
  kDrop,         // LNet dropped it (drop reason and health)
  kDuplicate,    // an earlier record again, as from the same file merged twice
  kOtherEnd,     // an earlier message as the other node recorded it (merged nodes)
  kResend,       // an earlier SEND again with retry_count > 0 (health resend)
  kOutcome,      // the outcome record of an earlier message (failed send)
  kPing,         // LNet ping GET, or its REPLY listing the peer's NIDs (multi-rail)
  kTick,         // no record: render every report now
  kRpcNoBody,    // a request or reply whose body was not captured (snap length)
};

inline constexpr const char* kNids[] = {"10.0.3.2@tcp", "10.0.3.1@tcp", "192.168.2.1@o2ib",
                                        "2001:db8::2@tcp1"};
inline constexpr const char* kRouter = "10.0.3.9@tcp";
inline constexpr std::uint64_t kXids[] = {0x1000, 0x1001, 0x1080, 0x1100, 0,
                                          ~0ULL,  0x655400000080ULL, 0x1002};
inline constexpr std::uint32_t kOpcodes[] = {
    LNETCAP_OPC_OBD_PING, LNETCAP_OPC_LDLM_ENQUEUE, LNETCAP_OPC_MDS_GETATTR, LNETCAP_OPC_OST_WRITE,
    LNETCAP_OPC_OST_READ, LNETCAP_OPC_MDS_CLOSE,    LNETCAP_OPC_LDLM_CANCEL, 9999};
// Empty; ordinary; quotes, HTML, an escape sequence and a backslash (every
// renderer escapes differently); the longest a v3 body holds (31).
inline const std::string kJobids[] = {"", "dd.500", "a\"<b>&'\x1b[31m\\\n%s",
                                      "0123456789abcdef0123456789abcde"};
inline constexpr std::int32_t kStatuses[] = {0, -2, -110, 301, 1048576, -1, INT32_MIN, 5};
inline constexpr std::size_t kMaxRecords = 4096;
inline constexpr std::size_t kMaxTicks = 8;

namespace detail {

struct Built {  // an earlier step, kept so later steps can repeat it
  test::RecordSpec rec;
  test::LnetHeaderSpec hdr;
  std::vector<std::uint8_t> payload;
};

inline Nid nid_at(unsigned i) { return *Nid::parse(kNids[i & 3]); }

// The request's or reply's portals by opcode family (MDS, OST, LDLM, ping).
inline std::uint32_t request_portal(std::uint32_t opc) {
  switch (opc) {
    case LNETCAP_OPC_OST_WRITE: case LNETCAP_OPC_OST_READ: return LNETCAP_PORTAL_OST_IO;
    case LNETCAP_OPC_LDLM_CANCEL: return LNETCAP_PORTAL_LDLM_CANCEL_REQUEST;
    case LNETCAP_OPC_OBD_PING: return LNETCAP_PORTAL_OST_REQUEST;
    default: return LNETCAP_PORTAL_MDS_REQUEST;
  }
}
inline std::uint32_t reply_portal(std::uint32_t opc) {
  switch (request_portal(opc)) {
    case LNETCAP_PORTAL_OST_IO: case LNETCAP_PORTAL_OST_REQUEST: return LNETCAP_PORTAL_OSC_REPLY;
    case LNETCAP_PORTAL_LDLM_CANCEL_REQUEST: return LNETCAP_PORTAL_LDLM_CANCEL_REPLY;
    default: return LNETCAP_PORTAL_MDC_REPLY;
  }
}

inline std::vector<std::uint8_t> rpc_payload(std::uint32_t type, std::uint32_t opc, std::int32_t status,
                                             std::uint64_t mbits, const std::string& jobid,
                                             bool early) {
  test::wire::Body b;
  b.type = type;
  b.opc = opc;
  b.status = status;
  b.mbits = mbits;
  b.jobid = jobid;
  b.version = type == LNETCAP_PTL_RPC_MSG_REQUEST ? 0x00040003 : 3;
  std::vector<test::wire::Bytes> bufs{test::wire::ptlrpc_body(false, b)};
  if (!early) bufs.push_back(test::wire::Bytes(40, 0x5a));  // a request or reply buffer
  // An early reply is told apart by its checksum (lnetcap_rpc_is_early_reply).
  return test::wire::lustre_msg(false, bufs, LNETCAP_MSGHDR_AT_SUPPORT, early ? 0xc5c5c5c5 : 0);
}

// The id resends and outcomes name: the message's own, or one from its seq.
inline std::uint64_t message_id(const Built& b) {
  return b.rec.msg_id ? b.rec.msg_id : LNETCAP_MSG_ID(0, b.rec.seq);
}

}  // namespace detail

inline ReportInput read_report_input(const std::uint8_t* data, std::size_t size) {
  using namespace detail;
  ReportInput in;
  if (size == 0) return in;
  in.max_pending = 1 + (data[0] & 7);
  in.max_arrows = 4 * ((data[0] >> 3) & 7);
  in.label_budget = 1 + (data[0] >> 6);
  std::vector<Built> history;  // every record so far, to repeat
  std::uint64_t ts = 1700000000000000000ULL;
  std::uint64_t seq = 0;
  for (std::size_t at = 1; at + 4 <= size && in.records.size() < kMaxRecords; at += 4) {
    const std::uint8_t k = data[at], who = data[at + 1], bits = data[at + 2], tb = data[at + 3];
    const Kind kind = static_cast<Kind>(k & 15);
    const unsigned mod = k >> 4;
    // Time first: equal, later, earlier (out of order) or much later
    // (past the chart's 10 s window for the two ends of one message).
    const std::uint64_t amount = tb & 63;
    switch (tb >> 6) {
      case 0: break;
      case 1: ts += amount * 1000; break;
      case 2: ts -= amount * 1000; break;
      case 3: ts += amount * 1000000000ULL; break;
    }
    if (kind == Kind::kTick) {
      // Bounded: each renders every report over everything so far.
      if (in.ticks.size() < kMaxTicks) in.ticks.push_back(in.records.size());
      continue;
    }
    const unsigned ci = who & 3, si = (who >> 2) & 3;
    const bool server_side = who & 16;
    const bool nid16 = (who & 32) || ci == 3 || si == 3;  // IPv6 NIDs need the 96-byte form
    const std::string& jobid = kJobids[who >> 6];
    const std::uint64_t xid = kXids[bits & 7];
    std::uint64_t mbits = 0;
    switch ((bits >> 3) & 3) {
      case 0: mbits = 0; break;
      case 1: mbits = xid; break;
      case 2: mbits = xid + 1; break;               // a bulk RPC's reply match bits
      case 3: mbits = kXids[(bits + 1) & 7]; break;  // collides with another XID
    }
    const std::uint32_t opc = kOpcodes[bits >> 5];
    const std::int32_t status = kStatuses[mod & 7];
    const Nid client = nid_at(ci), server = nid_at(si);

    Built b;
    b.hdr.nid16 = nid16;
    b.rec.seq = ++seq;
    b.rec.snaplen = (mod & 8) ? 48 : 1024;  // 48: the LNet payload is cut inside lustre_msg
    // The end that recorded it: its NI is local, the other end is the peer.
    auto recorded_by = [&](const Nid& src, const Nid& dst, bool at_dst) {
      b.rec.direction = at_dst ? LNETCAP_DIR_RECV : LNETCAP_DIR_SEND;
      b.rec.local = at_dst ? dst : src;
      b.rec.peer = at_dst ? src : dst;
      b.hdr.src = src;
      b.hdr.dst = dst;
    };
    auto rpc = [&](std::uint32_t type, bool early) {
      const bool request = type == LNETCAP_PTL_RPC_MSG_REQUEST;
      if (request) {
        recorded_by(client, server, server_side);
        b.hdr.match_bits = xid;
        b.hdr.portal = request_portal(opc);
      } else {
        recorded_by(server, client, !server_side);
        // A reply comes back on pb_mbits when the request set them (REP_MBITS).
        b.hdr.match_bits = mbits ? mbits : xid;
        b.hdr.portal = reply_portal(opc);
        b.hdr.offset = early ? 0 : 224;
      }
      b.payload = rpc_payload(type, opc, request ? 4242 : status, request ? mbits : 0,
                              request ? jobid : std::string(), early);
      b.hdr.type = LNETCAP_MSG_PUT;
      b.hdr.payload_length = static_cast<std::uint32_t>(b.payload.size());
      if (mod & 4) {  // the sender's task, as live captures record it
        b.rec.flags |= LNETCAP_REC_F_TASK_VALID;
        b.rec.pid = 100 + ci;
        b.rec.comm = jobid.substr(0, 15);
      }
    };
    // Repeat an earlier record: `who` counts back from the most recent.
    const Built* earlier = history.empty() ? nullptr : &history[history.size() - 1 - who % history.size()];

    switch (kind) {
      case Kind::kRequest: rpc(LNETCAP_PTL_RPC_MSG_REQUEST, false); break;
      case Kind::kReply: rpc(LNETCAP_PTL_RPC_MSG_REPLY, false); break;
      case Kind::kEarlyReply: rpc(LNETCAP_PTL_RPC_MSG_REPLY, true); break;
      case Kind::kErrorReply:
        rpc(LNETCAP_PTL_RPC_MSG_ERR, false);
        b.payload = rpc_payload(LNETCAP_PTL_RPC_MSG_ERR, opc, status < 0 ? status : -status - 1, 0, {}, false);
        break;
      case Kind::kRpcNoBody:
        rpc(mod & 1 ? LNETCAP_PTL_RPC_MSG_REPLY : LNETCAP_PTL_RPC_MSG_REQUEST, false);
        b.rec.snaplen = (mod >> 1) * 8;  // 0..56: not even the whole ptlrpc_body
        break;
      case Kind::kBulkGet:
      case Kind::kBulkPut:
        recorded_by(server, client, !server_side);
        b.hdr.type = kind == Kind::kBulkGet ? LNETCAP_MSG_GET : LNETCAP_MSG_PUT;
        b.hdr.match_bits = mbits ? mbits : xid;
        b.hdr.portal = LNETCAP_PORTAL_OST_BULK;
        b.hdr.sink_length = kind == Kind::kBulkGet ? 1048576u >> (mod & 7) : 0;
        b.hdr.want_ack = kind == Kind::kBulkPut && (mod & 1);
        if (kind == Kind::kBulkPut) {
          b.hdr.payload_length = 1048576u >> (mod & 7);
          b.payload.assign(16, 0xb0);
          b.rec.payload_len = b.hdr.payload_length;  // captured: its first 16 bytes
        }
        break;
      case Kind::kAck:
        recorded_by(client, server, server_side);
        b.hdr.type = LNETCAP_MSG_ACK;
        b.hdr.match_bits = mbits ? mbits : xid;
        b.hdr.mlength = 4096u << (mod & 7);
        break;
      case Kind::kForward:
        rpc(mod & 1 ? LNETCAP_PTL_RPC_MSG_REPLY : LNETCAP_PTL_RPC_MSG_REQUEST, false);
        b.rec.direction = LNETCAP_DIR_FORWARD;
        b.rec.local = *Nid::parse(kRouter);
        b.rec.peer = b.hdr.dst;
        if (mod & 2) {  // with health fields and queue time, as live routers record
          b.rec.flags |= LNETCAP_REC_F_HEALTH_VALID | LNETCAP_REC_F_QUEUE_VALID;
          b.rec.queue_ns = 1000u << (mod & 15);
        }
        break;
      case Kind::kDrop:
        if (earlier) b = *earlier;
        else rpc(LNETCAP_PTL_RPC_MSG_REQUEST, false);
        b.rec.direction = LNETCAP_DIR_DROP;
        b.rec.drop_reason = static_cast<std::uint8_t>(bits % 11);  // 10: beyond the table
        b.rec.health = static_cast<std::uint8_t>(mod);
        b.rec.flags |= LNETCAP_REC_F_HEALTH_VALID | LNETCAP_REC_F_STATUS_VALID;
        b.rec.status = status;
        break;
      case Kind::kDuplicate:
        if (!earlier) continue;
        b = *earlier;  // the same bytes, seq and all
        break;
      case Kind::kOtherEnd:
        if (!earlier || !(earlier->rec.direction == LNETCAP_DIR_SEND ||
                          earlier->rec.direction == LNETCAP_DIR_RECV))
          continue;
        b = *earlier;
        b.rec.direction = earlier->rec.direction == LNETCAP_DIR_SEND ? LNETCAP_DIR_RECV : LNETCAP_DIR_SEND;
        b.rec.local = earlier->rec.peer;
        b.rec.peer = earlier->rec.local;
        b.rec.seq = ++seq;
        break;
      case Kind::kResend:
        if (!earlier) continue;
        b = *earlier;
        b.rec.direction = LNETCAP_DIR_SEND;
        b.rec.flags |= LNETCAP_REC_F_HEALTH_VALID;
        b.rec.retries = static_cast<std::uint8_t>(1 + (mod & 3));
        b.rec.health = static_cast<std::uint8_t>(mod >> 2);  // the failed attempt's
        b.rec.msg_id = message_id(*earlier);
        b.rec.seq = ++seq;
        break;
      case Kind::kOutcome:
        if (!earlier) continue;
        b = *earlier;
        b.rec.direction = mod & 1 ? LNETCAP_DIR_DROP : LNETCAP_DIR_SEND;
        b.rec.flags |= LNETCAP_REC_F_OUTCOME | LNETCAP_REC_F_HEALTH_VALID | LNETCAP_REC_F_STATUS_VALID;
        b.rec.drop_reason = static_cast<std::uint8_t>(mod & 1 ? 2 + ((mod >> 1) & 7) % 8 : 0);
        b.rec.health = static_cast<std::uint8_t>(mod >> 1);
        b.rec.status = -110;
        b.rec.msg_id = message_id(*earlier);
        b.rec.seq = ++seq;
        break;
      case Kind::kPing: {
        b.hdr.nid16 = false;  // ping info lists nid4 NIDs
        const Nid a = nid_at(ci & 1 ? 2 : 0), p = nid_at(si & 1 ? 1 : 2);
        if (mod & 1) {  // the GET
          recorded_by(a, p, server_side);
          b.hdr.type = LNETCAP_MSG_GET;
          b.hdr.match_bits = LNETCAP_LNET_PING_MATCHBITS;
          b.hdr.sink_length = 272;
          break;
        }
        recorded_by(p, a, !server_side);
        b.hdr.type = LNETCAP_MSG_REPLY;
        // lnet_ping_info: magic, features, pid, n NIDs, then each NID and status.
        const unsigned n = 1 + (mod >> 1);  // 1..8: a multi-rail peer from 2 on
#define PI(f) LNETCAP_OFFSETOF(struct lnetcap_ping_info, f)
        const std::size_t ni = sizeof(struct lnetcap_ping_info), nis = sizeof(struct lnetcap_ni_status);
        b.payload.assign(ni + nis * n, 0);
        store_le32(&b.payload[PI(pi_magic)], LNETCAP_LNET_PROTO_PING_MAGIC);
        store_le32(&b.payload[PI(pi_features)], 0x1b);
        store_le32(&b.payload[PI(pi_pid)], LNETCAP_LNET_PID_LUSTRE);
        const unsigned claimed = n + (bits & 64 ? 100 : 0);  // more NIDs than sent
        store_le32(&b.payload[PI(pi_nnis)], claimed);
#undef PI
        for (unsigned i = 0; i < n; ++i) {
          static const char* const others[] = {"0@lo", "10.0.3.2@tcp", "10.0.3.1@tcp", "192.168.2.1@o2ib"};
          const Nid listed = i == 0 ? p : *Nid::parse(others[(bits + i) & 3]);
          store_le64(&b.payload[ni + nis * i + LNETCAP_OFFSETOF(struct lnetcap_ni_status, ns_nid)],
                     listed.to_nid4());
          store_le32(&b.payload[24 + 16 * i], LNETCAP_LNET_NI_STATUS_UP);
        }
        b.hdr.payload_length = static_cast<std::uint32_t>(b.payload.size());
        break;
      }
      case Kind::kTick: break;
    }
    if ((mod & 2) && b.rec.direction == LNETCAP_DIR_SEND && !b.rec.msg_id) {
      // A live capture's first SEND: queue time and its own message id.
      b.rec.flags |= LNETCAP_REC_F_QUEUE_VALID;
      b.rec.queue_ns = static_cast<std::uint64_t>(tb) << mod;
      b.rec.msg_id = message_id(b);
    }
    GeneratedRecord g;
    g.bytes = test::record(b.rec, test::lnet_header(b.hdr), b.payload);
    g.ts_ns = ts;
    in.records.push_back(std::move(g));
    history.push_back(std::move(b));
  }
  return in;
}

}  // namespace lnetcap::fuzz
