// SPDX-License-Identifier: GPL-2.0-or-later
// message_fixtures.h - a few decoded messages every filter/printer test uses.
#pragma once

#include <stdexcept>

#include "bytes.h"
#include "lnet_builders.h"
#include "lnetcap/fields.h"
#include "lnetcap/record.h"
#include "source.h"

namespace lnetcap::test {

/// Owns the record bytes a Message points into.
struct OwnedMessage {
  std::vector<std::uint8_t> bytes;
  Message msg;
};

inline OwnedMessage make_message(const RecordSpec& r, const LnetHeaderSpec& h,
                                 const std::vector<std::uint8_t>& payload,
                                 std::uint64_t ts = 1700000000123456789ULL) {
  OwnedMessage o;
  o.bytes = record(r, lnet_header(h), payload);
  std::string why;
  auto v = parse_record(o.bytes, &why);
  if (!v) throw std::runtime_error(why);
  o.msg = decode_message(*v, ts, 0);
  return o;
}

/// The record as a source delivers it (bytes still owned by `m`).
inline CapturedRecord captured(const OwnedMessage& m) {
  CapturedRecord rec;
  rec.ts_ns = m.msg.ts_ns;
  rec.bytes = ByteSpan(m.bytes);
  rec.orig_len = static_cast<std::uint32_t>(m.bytes.size());
  return rec;
}

/// LDLM_ENQUEUE request PUT from a client to the MDS, jobid "dd.500".
inline OwnedMessage enqueue_request() {
  RpcSpec rpc;
  rpc.opc = LNETCAP_OPC_LDLM_ENQUEUE;
  rpc.version = 0x00040003;
  rpc.status = 4321;  // a request carries the sender's pid here
  rpc.uid = 500;
  rpc.gid = 100;
  rpc.projid = 7;
  rpc.jobid = "dd.500";
  rpc.buffers.push_back(ldlm_request(0x200000007ULL, 0x1));
  auto payload = lustre_msg(rpc);
  LnetHeaderSpec h;
  h.src = nid("10.0.3.2@tcp");
  h.dst = nid("10.0.3.1@tcp");
  h.type = LNETCAP_MSG_PUT;
  h.portal = LNETCAP_PORTAL_MDS_REQUEST;
  h.match_bits = 0x5f0000000080ULL;
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  RecordSpec r;
  r.direction = 1;
  r.local = h.src;
  r.peer = h.dst;
  r.flags = 0x1;  // TASK_VALID
  r.pid = 4321;
  r.comm = "dd";
  return make_message(r, h, payload);
}

/// Its error reply: status -2 (ENOENT), received on the client.
inline OwnedMessage enoent_reply() {
  RpcSpec rpc;
  rpc.type = LNETCAP_PTL_RPC_MSG_ERR;
  rpc.opc = LNETCAP_OPC_LDLM_ENQUEUE;
  rpc.version = 3;
  rpc.status = -2;
  rpc.limit = 1234;
  rpc.slv = 987654321;
  auto payload = lustre_msg(rpc);
  LnetHeaderSpec h;
  h.src = nid("10.0.3.1@tcp");
  h.dst = nid("10.0.3.2@tcp");
  h.portal = LNETCAP_PORTAL_MDC_REPLY;
  h.match_bits = 0x5f0000000080ULL;
  h.offset = 224;
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  RecordSpec r;
  r.direction = 2;
  r.local = h.dst;
  r.peer = h.src;
  r.seq = 2;
  return make_message(r, h, payload);
}

/// LNet ping: GET on portal 0 to a kfi peer, health failure after a retry.
inline OwnedMessage ping_get() {
  LnetHeaderSpec h;
  h.type = LNETCAP_MSG_GET;
  h.src = nid("16@kfi");
  h.dst = nid("17@kfi");
  h.portal = 0;
  h.match_bits = LNETCAP_LNET_PING_MATCHBITS;
  h.sink_length = 272;
  RecordSpec r;
  r.direction = 1;
  r.local = h.src;
  r.peer = h.dst;
  r.seq = 3;
  r.health = LNETCAP_HEALTH_REMOTE_TIMEOUT;
  r.retries = 1;
  r.flags = 0x10;  // HEALTH_VALID
  return make_message(r, h, {});
}

/// An OST_WRITE request in nid16 form between IPv6 NIDs, big-endian sender.
inline OwnedMessage ost_write_v6_be() {
  RpcSpec rpc;
  rpc.opc = LNETCAP_OPC_OST_WRITE;
  rpc.version = 0x00030003;
  rpc.uid = 0;
  rpc.big_endian = true;
  rpc.buffers.push_back(std::vector<std::uint8_t>(208, 0));  // ost_body
  auto payload = lustre_msg(rpc);
  LnetHeaderSpec h;
  h.nid16 = true;
  h.src = nid("2001:db8::2@tcp");
  h.dst = nid("2001:db8::1@tcp");
  h.portal = LNETCAP_PORTAL_OST_IO;
  h.match_bits = 0x6000000000000ULL;
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  RecordSpec r;
  r.direction = 3;  // forwarded by a router
  r.local = nid("10.9.9.9@tcp");
  r.peer = h.dst;
  r.snaplen = 64;  // only part of the body captured
  r.seq = 4;
  return make_message(r, h, payload);
}

/// LNet health, as a live capture records it (record.h msg_id, queue_ns,
/// drop_reason): an OBD_PING request PUT sent after LNet held it 1.5 ms for
/// credits (seq 7 on CPU 1), the DROP that is its outcome (the LND failed
/// it: -5, LOCAL_DROPPED), and a received PUT that matched no MD.
inline LnetHeaderSpec health_put_header() {
  LnetHeaderSpec h;
  h.src = nid("192.168.1.10@tcp");
  h.dst = nid("192.168.1.20@tcp");
  h.portal = LNETCAP_PORTAL_OST_REQUEST;
  h.match_bits = 0x65f1a0c000001ULL;
  h.payload_length = 0;
  return h;
}
inline OwnedMessage queued_send() {
  LnetHeaderSpec h = health_put_header();
  RecordSpec r;
  r.direction = LNETCAP_DIR_SEND;
  r.hook = LNETCAP_HOOK_LNET_NI_SEND;
  r.local = h.src;
  r.peer = h.dst;
  r.seq = 7;
  r.flags = LNETCAP_REC_F_QUEUE_VALID | LNETCAP_REC_F_HEALTH_VALID;
  r.queue_ns = 1500000;
  r.msg_id = LNETCAP_MSG_ID(1, 7);
  return make_message(r, h, {});
}
inline OwnedMessage failed_send_outcome() {
  LnetHeaderSpec h = health_put_header();
  h.payload_length = 224;  // the SEND carried it; the DROP carries none
  RecordSpec r;
  r.payload_len = 224;
  r.direction = LNETCAP_DIR_DROP;
  r.hook = LNETCAP_HOOK_LNET_FINALIZE;
  r.local = h.src;
  r.peer = h.dst;
  r.seq = 8;
  r.flags = LNETCAP_REC_F_OUTCOME | LNETCAP_REC_F_STATUS_VALID | LNETCAP_REC_F_HEALTH_VALID;
  r.status = -5;
  r.health = LNETCAP_HEALTH_LOCAL_DROPPED;
  r.msg_id = LNETCAP_MSG_ID(1, 7);
  r.drop_reason = LNETCAP_DROP_SEND_FAILED;
  return make_message(r, h, {}, 1700000000124456789ULL);
}
inline OwnedMessage unmatched_put_drop() {
  LnetHeaderSpec h = health_put_header();
  std::swap(h.src, h.dst);
  h.portal = LNETCAP_PORTAL_LDLM_CANCEL_REQUEST;
  RecordSpec r;
  r.direction = LNETCAP_DIR_DROP;
  r.hook = LNETCAP_HOOK_LNET_FINALIZE;
  r.local = h.dst;
  r.peer = h.src;
  r.seq = 9;
  r.flags = LNETCAP_REC_F_STATUS_VALID;
  r.status = -2;
  r.msg_id = LNETCAP_MSG_ID(0, 9);
  r.drop_reason = LNETCAP_DROP_RECV_NO_MATCH;
  return make_message(r, h, {}, 1700000000125456789ULL);
}

/// The value every_field_obdo() and ost_write_reply() give a row of
/// include/lnetcap/fields.h: by its member's offset, so that a new row
/// changes no other row's value.
inline std::uint64_t every_field_value(const struct lnetcap_body_field& f) {
  return 4096 * (std::uint64_t{f.offset} + 1);
}

/// An obdo whose every numeric row holds every_field_value() and whose
/// o_valid has every row's bit: a new row needs no change here to be seen
/// (docs/CONTRIBUTING.md).
inline std::vector<std::uint8_t> every_field_obdo() {
  std::vector<std::uint8_t> o(sizeof(struct lnetcap_obdo), 0);
  std::uint64_t valid = 0;
  for (std::size_t i = 0; i < LNETCAP_BF_COUNT; ++i) {
    const struct lnetcap_body_field& f = lnetcap_body_fields[i];
    if (f.rmf != LNETCAP_RMF_OST_BODY || f.type == LNETCAP_BFT_OSTID) continue;
    const std::uint64_t v = every_field_value(f);
    if (f.width == 4) store_le32(o.data() + f.offset, static_cast<std::uint32_t>(v));
    else store_le64(o.data() + f.offset, v);
    valid |= f.valid_bit;
  }
  store_le64(o.data() + LNETCAP_OFFSETOF(struct lnetcap_obdo, o_valid), valid);
  return o;
}

/// A successful OST_WRITE reply (1 MiB written) received on the client:
/// the ost_body of every_field_obdo() and one niobuf return code; its
/// ptlrpc_body's rows hold every_field_value() as well.
inline OwnedMessage ost_write_reply(std::vector<std::uint8_t> obdo = every_field_obdo()) {
  RpcSpec rpc;
  rpc.type = LNETCAP_PTL_RPC_MSG_REPLY;
  rpc.opc = LNETCAP_OPC_OST_WRITE;
  rpc.version = 0x00030003;
  rpc.status = 1048576;
  rpc.buffers.push_back(std::move(obdo));
  rpc.buffers.push_back(std::vector<std::uint8_t>(sizeof(std::uint32_t), 0));  // RMF_RCS
  auto payload = lustre_msg(rpc);
  // The ptlrpc_body's rows too (little-endian, buffer 0 after the header).
  const std::size_t body = LNETCAP_LUSTRE_MSG_HDR_SIZE(rpc.buffers.size() + 1);
  for (std::size_t i = 0; i < LNETCAP_BF_COUNT; ++i) {
    const struct lnetcap_body_field& f = lnetcap_body_fields[i];
    if (f.rmf != LNETCAP_RMF_PTLRPC_BODY) continue;
    const std::uint64_t v = every_field_value(f);
    if (f.width == 4) store_le32(payload.data() + body + f.offset, static_cast<std::uint32_t>(v));
    else store_le64(payload.data() + body + f.offset, v);
  }
  LnetHeaderSpec h;
  h.src = nid("10.0.3.3@tcp");
  h.dst = nid("10.0.3.2@tcp");
  h.portal = LNETCAP_PORTAL_OSC_REPLY;
  h.match_bits = 0x5f0000000100ULL;
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  RecordSpec r;
  r.direction = 2;
  r.local = h.dst;
  r.peer = h.src;
  r.seq = 10;
  return make_message(r, h, payload);
}

// An MDS request PUT with this XID as match bits, 10.0.3.2@tcp ->
// 10.0.3.1@tcp, with payload_bytes bytes of its own (from the XID): a test
// that numbers its records by XID can tell every one apart, and a batch
// that came from a reused buffer shows.
inline OwnedMessage rpc_put(std::uint64_t xid, std::size_t payload_bytes = 0) {
  const std::vector<std::uint8_t> payload(payload_bytes, static_cast<std::uint8_t>(xid >> 6));
  LnetHeaderSpec h;
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  h.src = nid("10.0.3.2@tcp");
  h.dst = nid("10.0.3.1@tcp");
  h.type = LNETCAP_MSG_PUT;
  h.portal = LNETCAP_PORTAL_MDS_REQUEST;
  h.match_bits = xid;
  RecordSpec r;
  r.direction = 1;
  r.local = h.src;
  r.peer = h.dst;
  return make_message(r, h, payload);
}

}  // namespace lnetcap::test
