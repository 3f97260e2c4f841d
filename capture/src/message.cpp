// SPDX-License-Identifier: GPL-2.0-or-later
#include "message.h"

#include <algorithm>
#include <cstring>
#include <strings.h>

#include "lnetcap/bodies.h"
#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/record.h"

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

constexpr std::uint32_t kOffMsgNid4 = 32, kOffMsgNid16 = 56;

void decode_lnet(ByteSpan h, LnetFields& f) {
  if (h.size() != LNETCAP_HDR_NID4_LEN && h.size() != LNETCAP_HDR_NID16_LEN) return;
  const std::uint8_t* p = h.data();
  std::uint32_t m;  // offset of the msg union
  if (h.size() == LNETCAP_HDR_NID4_LEN) {
    f.dest_nid = Nid::from_nid4(load_le64(p + 0));
    f.src_nid = Nid::from_nid4(load_le64(p + 8));
    f.dest_pid = load_le32(p + 16);
    f.src_pid = load_le32(p + 20);
    f.type = load_le32(p + 24);
    f.payload_length = load_le32(p + 28);
    m = kOffMsgNid4;
  } else {
    f.dest_nid = Nid::from_lnet_nid(p + 0);
    f.src_nid = Nid::from_lnet_nid(p + 20);
    f.dest_pid = load_le32(p + 40);
    f.src_pid = load_le32(p + 44);
    f.type = load_le32(p + 48);
    f.payload_length = load_le32(p + 52);
    m = kOffMsgNid16;
  }
  const std::uint8_t* u = p + m;
  switch (f.type) {
    case LNETCAP_MSG_ACK:
      f.match_bits = load_le64(u + 16);
      f.mlength = load_le32(u + 24);
      break;
    case LNETCAP_MSG_PUT:
      f.ack_requested = load_le64(u + 0) != LNETCAP_LNET_WIRE_COOKIE_NONE ||
                        load_le64(u + 8) != LNETCAP_LNET_WIRE_COOKIE_NONE;
      f.match_bits = load_le64(u + 16);
      f.hdr_data = load_le64(u + 24);
      f.portal = load_le32(u + 32);
      f.offset = load_le32(u + 36);
      break;
    case LNETCAP_MSG_GET:
      f.match_bits = load_le64(u + 16);
      f.portal = load_le32(u + 24);
      f.offset = load_le32(u + 28);
      f.sink_length = load_le32(u + 32);
      break;
    default:
      break;
  }
  f.present = true;
}

bool is_ldlm_opcode(std::uint32_t opc) {
  return opc >= LNETCAP_OPC_LDLM_ENQUEUE && opc <= LNETCAP_OPC_LDLM_GL_CALLBACK;
}

// Decodes lustre_msg_v2 + ptlrpc_body (and the LDLM buffer) from a payload
// prefix.  Every read is bounds-checked against the captured bytes.
void decode_ptlrpc(ByteSpan pl, const LnetFields& lnet, PtlrpcFields& r, LdlmFields& d) {
  if (pl.size() < 32 + 4) return;
  const std::uint8_t* p = pl.data();
  const std::uint32_t magic = load_le32(p + 8);
  Endian e;
  if (magic == LNETCAP_LUSTRE_MSG_MAGIC_V2)
    e.little = true;
  else if (magic == LNETCAP_LUSTRE_MSG_MAGIC_V2_SWABBED)
    e.little = false;
  else
    return;
  r.big_endian = !e.little;
  r.bufcount = e.u32(p + 0);
  if (r.bufcount == 0 || r.bufcount > LNETCAP_PTLRPC_MAX_BUFCOUNT) return;
  r.present = true;
  r.secflvr = e.u32(p + 4);
  r.msg_flags = e.u32(p + 20);
  const std::size_t hdr = LNETCAP_LUSTRE_MSG_HDR_SIZE(r.bufcount);
  auto buflen = [&](std::uint32_t i) -> std::uint32_t {
    return 32 + 4 * (i + 1) <= pl.size() ? e.u32(p + 32 + 4 * i) : 0;
  };
  const std::uint32_t body_len = buflen(0);
  const std::uint8_t* b = p + hdr;
  auto have = [&](std::size_t off, std::size_t len) {
    return off + len <= body_len && hdr + off + len <= pl.size();
  };
  if (!have(0, 24)) return;
  r.body_len = body_len;
  r.handle = e.u64(b + 0);
  r.type = e.u32(b + 8);
  r.version = e.u32(b + 12);
  r.opc = e.u32(b + 16);
  r.status = static_cast<std::int32_t>(e.u32(b + 20));
  if (have(24, 8)) r.last_xid = e.u64(b + 24);
  if (have(36, 4)) r.projid = e.u32(b + 36);
  if (have(40, 16)) {
    r.last_committed = e.u64(b + 40);
    r.transno = e.u64(b + 48);
  }
  if (have(56, 24)) {
    r.flags = e.u32(b + 56);
    r.op_flags = e.u32(b + 60);
    r.conn_cnt = e.u32(b + 64);
    r.timeout = e.u32(b + 68);
    r.service_time = e.u32(b + 72);
    r.limit = e.u32(b + 76);
  }
  if (have(80, 8)) r.slv = e.u64(b + 80);
  if (have(120, 8)) r.mbits = e.u64(b + 120);
  if (have(144, 8)) {
    r.uid = e.u32(b + 144);
    r.gid = e.u32(b + 148);
  }
  if (have(152, LNETCAP_LUSTRE_JOBID_SIZE)) {
    const char* j = reinterpret_cast<const char*>(b + 152);
    r.jobid.assign(j, strnlen(j, LNETCAP_LUSTRE_JOBID_SIZE));
  }
  r.early_reply = r.type == LNETCAP_PTL_RPC_MSG_REPLY && r.bufcount == 1 &&
                  lnet.type == LNETCAP_MSG_PUT && lnet.offset == 0 && e.u32(p + 16) != 0;

  // LDLM: buffer 1 is an ldlm_request (requests) or ldlm_reply (replies).
  if (!is_ldlm_opcode(r.opc) || r.bufcount < 2) return;
  const std::size_t off1 = hdr + LNETCAP_LUSTRE_MSG_ROUND8(body_len);
  const std::uint32_t len1 = buflen(1);
  if (len1 < 56 || off1 + 56 > pl.size()) return;
  const std::uint8_t* q = p + off1;
  d.present = true;
  d.lock_flags = e.u32(q + 0);
  d.lock_count = r.type == LNETCAP_PTL_RPC_MSG_REQUEST ? e.u32(q + 4) : 0;
  d.res_type = e.u32(q + 8);
  for (int i = 0; i < 4; ++i) d.res_name[i] = e.u64(q + 16 + 8 * i);
  d.req_mode = e.u32(q + 48);
  d.granted_mode = e.u32(q + 52);
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
