// SPDX-License-Identifier: GPL-2.0-or-later
#include "message.h"

#include <algorithm>
#include <cstring>
#include <strings.h>

#include "codec/lustre_msg.h"
#include "codec/wire_reader.h"
#include "lnetcap/bodies.h"
#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/record.h"
#include "lnetcap/rpc_formats.h"
#include "lnetcap/rpc_predicates.h"

namespace lnetcap {
namespace {

struct Named {
  std::uint32_t value;
  const char* name;
};

constexpr Named kMsgTypes[] = {
#define X(n, v, s) {v, s},
    LNETCAP_MSG_TYPE_LIST(X)
#undef X
};
constexpr Named kPortals[] = {
#define X(n, v) {v, #n},
    LNETCAP_PORTAL_LIST(X)
#undef X
};
constexpr Named kOpcodes[] = {
#define X(n, v, s) {v, #n},
    LNETCAP_OPCODE_LIST(X)
#undef X
};
constexpr Named kErrnos[] = {
#define X(n, v) {v, #n},
    LNETCAP_ERRNO_LIST(X)
#undef X
};
constexpr Named kEldlm[] = {
#define X(n, v) {v, #n},
    LNETCAP_ELDLM_LIST(X)
#undef X
};
constexpr Named kHealth[] = {
#define X(n, v, s) {v, s},
    LNETCAP_HEALTH_LIST(X)
#undef X
};
constexpr Named kDirections[] = {
#define X(n, v, s) {v, s},
    LNETCAP_DIR_LIST(X)
#undef X
};
constexpr Named kDropReasons[] = {
#define X(n, v, s, d) {v, s},
    LNETCAP_DROP_REASON_LIST(X)
#undef X
};
constexpr Named kHooks[] = {
#define X(n, v, s) {v, s},
    LNETCAP_HOOK_LIST(X)
#undef X
};
constexpr Named kRpcTypes[] = {
#define X(n, v, s) {v, s},
    LNETCAP_PTL_RPC_MSG_LIST(X)
#undef X
};
constexpr Named kLdlmTypes[] = {
#define X(n, v) {v, #n},
    LNETCAP_LDLM_TYPE_LIST(X)
#undef X
};

template <std::size_t N>
const char* lookup(const Named (&table)[N], std::uint32_t value) {
  for (const auto& e : table)
    if (e.value == value) return e.name;
  return nullptr;
}

template <std::size_t N>
std::optional<std::uint32_t> reverse_lookup(const Named (&table)[N], std::string_view name) {
  for (const auto& e : table)
    if (name.size() == std::strlen(e.name) && strncasecmp(name.data(), e.name, name.size()) == 0)
      return e.value;
  return std::nullopt;
}

// The fields both header forms share, whatever the width of their NIDs.
template <class Hdr>
WireReader decode_lnet_common(const WireReader& r, LnetFields& f) {
#define HDR(field) LNETCAP_FIELD(Hdr, field)
  f.dest_pid = r.u32(HDR(dest_pid));
  f.src_pid = r.u32(HDR(src_pid));
  f.type = r.u32(HDR(type));
  f.payload_length = r.u32(HDR(payload_length));
  return r.at(HDR(msg));
#undef HDR
}

void decode_lnet(ByteSpan h, LnetFields& f) {
  if (h.size() != LNETCAP_HDR_NID4_LEN && h.size() != LNETCAP_HDR_NID16_LEN) return;
  const WireReader r(h);
  WireReader u;  // the msg union
  if (h.size() == LNETCAP_HDR_NID4_LEN) {
    f.dest_nid = Nid::from_nid4(r.u64(LNETCAP_FIELD(struct lnetcap_hdr_nid4, dest_nid)));
    f.src_nid = Nid::from_nid4(r.u64(LNETCAP_FIELD(struct lnetcap_hdr_nid4, src_nid)));
    u = decode_lnet_common<struct lnetcap_hdr_nid4>(r, f);
  } else {
    f.dest_nid = Nid::from_lnet_nid(r.span(LNETCAP_FIELD(struct lnetcap_hdr_nid16, dest_nid)).data());
    f.src_nid = Nid::from_lnet_nid(r.span(LNETCAP_FIELD(struct lnetcap_hdr_nid16, src_nid)).data());
    u = decode_lnet_common<struct lnetcap_hdr_nid16>(r, f);
  }
  switch (f.type) {
    case LNETCAP_MSG_ACK:
      f.wmd_interface = u.u64(LNETCAP_FIELD(struct lnetcap_ack, dst_wmd.wh_interface_cookie));
      f.wmd_object = u.u64(LNETCAP_FIELD(struct lnetcap_ack, dst_wmd.wh_object_cookie));
      f.match_bits = u.u64(LNETCAP_FIELD(struct lnetcap_ack, match_bits));
      f.mlength = u.u32(LNETCAP_FIELD(struct lnetcap_ack, mlength));
      break;
    case LNETCAP_MSG_PUT:
#define PUT(field) LNETCAP_FIELD(struct lnetcap_put, field)
      f.wmd_interface = u.u64(PUT(ack_wmd.wh_interface_cookie));
      f.wmd_object = u.u64(PUT(ack_wmd.wh_object_cookie));
      f.ack_requested = f.wmd_interface != LNETCAP_LNET_WIRE_COOKIE_NONE ||
                        f.wmd_object != LNETCAP_LNET_WIRE_COOKIE_NONE;
      f.match_bits = u.u64(PUT(match_bits));
      f.hdr_data = u.u64(PUT(hdr_data));
      f.portal = u.u32(PUT(ptl_index));
      f.offset = u.u32(PUT(offset));
#undef PUT
      break;
    case LNETCAP_MSG_GET:
#define GET(field) LNETCAP_FIELD(struct lnetcap_get, field)
      f.wmd_interface = u.u64(GET(return_wmd.wh_interface_cookie));
      f.wmd_object = u.u64(GET(return_wmd.wh_object_cookie));
      f.match_bits = u.u64(GET(match_bits));
      f.portal = u.u32(GET(ptl_index));
      f.offset = u.u32(GET(src_offset));
      f.sink_length = u.u32(GET(sink_length));
#undef GET
      break;
    case LNETCAP_MSG_REPLY:
      f.wmd_interface = u.u64(LNETCAP_FIELD(struct lnetcap_reply, dst_wmd.wh_interface_cookie));
      f.wmd_object = u.u64(LNETCAP_FIELD(struct lnetcap_reply, dst_wmd.wh_object_cookie));
      break;
    default:
      break;
  }
  f.present = true;
}

// Decodes lustre_msg_v2 + ptlrpc_body (and the LDLM buffer) from a payload
// prefix.  Every read is bounds-checked against the captured bytes.
void decode_ptlrpc(ByteSpan pl, const LnetFields& lnet, PtlrpcFields& r, LdlmFields& d) {
#define MSG(field) LNETCAP_FIELD(struct lnetcap_lustre_msg_v2, field)
#define BODY(field) LNETCAP_FIELD(struct lnetcap_ptlrpc_body, field)
  // The fixed header and the first buffer length at least.
  if (pl.size() < sizeof(struct lnetcap_lustre_msg_v2) + sizeof(std::uint32_t)) return;
  Endian e;
  if (!lustre_msg_order(WireReader(pl), &e)) return;
  const WireReader msg(pl, e);
  r.big_endian = !e.little;
  r.bufcount = msg.u32(MSG(lm_bufcount));
  if (r.bufcount == 0 || r.bufcount > LNETCAP_PTLRPC_MAX_BUFCOUNT) return;
  r.present = true;
  r.secflvr = msg.u32(MSG(lm_secflvr));
  r.msg_flags = msg.u32(MSG(lm_flags));
  const std::size_t hdr = LNETCAP_LUSTRE_MSG_HDR_SIZE(r.bufcount);
  const std::uint32_t body_len = msg.u32(lustre_msg_buflen(0));
  // The body as far as both its length and the capture reach.
  const WireReader b = msg.from(hdr).first(body_len);
  if (!b.has(BODY(pb_status))) return;
  r.body_len = body_len;
  r.handle = b.u64(BODY(pb_handle));
  r.type = b.u32(BODY(pb_type));
  r.version = b.u32(BODY(pb_version));
  r.opc = b.u32(BODY(pb_opc));
  r.status = b.s32(BODY(pb_status));
  r.last_xid = b.u64(BODY(pb_last_xid));
  r.projid = b.u32(BODY(pb_projid));
  if (b.has(BODY(pb_transno))) {
    r.last_committed = b.u64(BODY(pb_last_committed));
    r.transno = b.u64(BODY(pb_transno));
  }
  if (b.has(BODY(pb_limit))) {
    r.flags = b.u32(BODY(pb_flags));
    r.op_flags = b.u32(BODY(pb_op_flags));
    r.conn_cnt = b.u32(BODY(pb_conn_cnt));
    r.timeout = b.u32(BODY(pb_timeout));
    r.service_time = b.u32(BODY(pb_service_time));
    r.limit = b.u32(BODY(pb_limit));
  }
  r.slv = b.u64(BODY(pb_slv));
  r.mbits = b.u64(BODY(pb_mbits));
  if (b.has(BODY(pb_gid))) {
    r.uid = b.u32(BODY(pb_uid));
    r.gid = b.u32(BODY(pb_gid));
  }
  if (b.has(BODY(pb_jobid))) {
    const ByteSpan j = b.span(BODY(pb_jobid));
    const char* jc = reinterpret_cast<const char*>(j.data());
    r.jobid.assign(jc, strnlen(jc, j.size()));
  }
  // The buffers' places, each padded to 8 bytes (lustre_msg.h).
  static_assert(PtlrpcFields::kMaxBuffers == LNETCAP_RPC_FORMAT_MAX_BUFS);
  std::size_t at = hdr;
  for (std::uint32_t i = 0; i < r.bufcount && i < PtlrpcFields::kMaxBuffers; ++i) {
    const std::uint32_t len = msg.u32(lustre_msg_buflen(i));
    if (at > UINT32_MAX) break;
    r.buf_off[i] = static_cast<std::uint32_t>(at);
    r.buf_len[i] = len;
    at += (std::uint64_t{len} + 7) & ~std::uint64_t{7};
  }
  r.early_reply = lnet.type == LNETCAP_MSG_PUT &&
                  lnetcap_rpc_is_early_reply(r.type, r.bufcount, msg.u32(MSG(lm_cksum)), lnet.offset);
#undef BODY
#undef MSG

  // LDLM: buffer 1 is an ldlm_request (requests) or ldlm_reply (replies)
  // where the format table says so (not a glimpse reply's LVB); both start
  // with lock_flags and a lock_desc, read up to its policy data.
#define REQ(field) LNETCAP_FIELD(struct lnetcap_ldlm_request, field)
  const bool reply = r.type != LNETCAP_PTL_RPC_MSG_REQUEST;
  const enum lnetcap_rmf buf1 = lnetcap_rpc_buffer_kind(r.opc, 0, 0, reply, 1);
  if ((buf1 != LNETCAP_RMF_DLM_REQ && buf1 != LNETCAP_RMF_DLM_REP) || r.bufcount < 2) return;
  const std::size_t known = offsetof(struct lnetcap_ldlm_request, lock_desc.l_policy_data);
  const WireReader q = msg.from(hdr + LNETCAP_LUSTRE_MSG_ROUND8(body_len));
  if (msg.u32(lustre_msg_buflen(1)) < known || !q.has(0, known)) return;
  d.present = true;
  d.lock_flags = q.u32(REQ(lock_flags));
  d.lock_count = r.type == LNETCAP_PTL_RPC_MSG_REQUEST ? q.u32(REQ(lock_count)) : 0;
  d.res_type = q.u32(REQ(lock_desc.l_resource.lr_type));
  for (int i = 0; i < 4; ++i)
    d.res_name[i] = q.u64(LNETCAP_ELEMENT(struct lnetcap_ldlm_request, lock_desc.l_resource.lr_name.name, i));
  d.req_mode = q.u32(REQ(lock_desc.l_req_mode));
  d.granted_mode = q.u32(REQ(lock_desc.l_granted_mode));
#undef REQ
}

}  // namespace

std::optional<std::uint64_t> Message::xid() const {
  if (!lnet.match_bits) return std::nullopt;
  if (lnet.portal && *lnet.portal == 0) return std::nullopt;  // LNet's own traffic
  return lnet.match_bits;
}

Message decode_message(const RecordView& rec, std::uint64_t ts_ns, std::uint32_t interface_id) {
  Message m;
  m.ts_ns = ts_ns;
  m.interface_id = interface_id;
  m.rec = rec;
  decode_lnet(rec.lnet_header, m.lnet);
  // PtlRPC travels in PUTs on Lustre portals; portal 0 is LNet ping/push.
  if (m.lnet.present && m.lnet.type == LNETCAP_MSG_PUT && m.lnet.portal && *m.lnet.portal != 0)
    decode_ptlrpc(rec.payload, m.lnet, m.rpc, m.dlm);
  return m;
}

const char* msg_type_name(std::uint32_t t) { return lookup(kMsgTypes, t); }
const char* portal_name(std::uint32_t p) { return lookup(kPortals, p); }
const char* opcode_name(std::uint32_t o) { return lookup(kOpcodes, o); }
const char* errno_name(std::uint32_t e) { return lookup(kErrnos, e); }
const char* health_name(std::uint32_t h) { return lookup(kHealth, h); }
const char* direction_name(std::uint32_t d) { return lookup(kDirections, d); }
const char* hook_name(std::uint32_t h) { return lookup(kHooks, h); }
const char* drop_reason_name(std::uint32_t r) { return lookup(kDropReasons, r); }
const char* rpc_type_name(std::uint32_t t) { return lookup(kRpcTypes, t); }
const char* ldlm_type_name(std::uint32_t t) { return lookup(kLdlmTypes, t); }

std::optional<std::uint32_t> portal_from_name(std::string_view name) {
  constexpr std::string_view suffix = "_PORTAL";
  if (name.size() > suffix.size() &&
      strncasecmp(name.data() + name.size() - suffix.size(), suffix.data(), suffix.size()) == 0)
    name.remove_suffix(suffix.size());
  return reverse_lookup(kPortals, name);
}
std::optional<std::uint32_t> opcode_from_name(std::string_view n) { return reverse_lookup(kOpcodes, n); }
std::optional<std::uint32_t> msg_type_from_name(std::string_view n) { return reverse_lookup(kMsgTypes, n); }

std::string status_string(std::int32_t status) {
  const char* name = nullptr;
  if (status < 0)
    name = errno_name(static_cast<std::uint32_t>(-static_cast<std::int64_t>(status)));
  else if (status > 0)
    name = lookup(kEldlm, static_cast<std::uint32_t>(status));
  std::string s = std::to_string(status);
  if (name) s += std::string(" (") + name + ")";
  return s;
}

}  // namespace lnetcap
