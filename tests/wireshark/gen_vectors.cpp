// SPDX-License-Identifier: GPL-2.0-or-later
// gen_vectors - writes the plugin's test capture: lnetcap records whose LNet
// headers, lustre_msg_v2 framing, ptlrpc_body and bodies are laid out byte
// for byte as Lustre lays them out (docs/protocol.md 1.2, 1.3,
// 2.2, 3.1-3.5, 4.2, 4.3; offsets from include/lnetcap/*.h, which pins
// them with static asserts).  It covers what the real corpus lacks: reint
// variants, nid16 headers, kfi/o2ib/IPv6/lo NIDs, a big-endian lustre_msg,
// errors, health failures, truncation, sequence gaps, early replies,
// resends, REP_MBITS replies and an unknown record version.
//
// usage: lnetcap_ws_vectors OUT.pcapng [random N SEED | hostile | lvb | mdt | elc | srt-targets | fld | quota | out | ping-md]
//   "random" writes N records of random bytes behind a valid record
//   header prefix (for the fuzz test); "hostile" the records of
//   hostile_records(), "lvb" those of lvb_records(), "mdt" those of
//   mdt_records(), "elc" those of elc_records(), "srt-targets" those of
//   srt_target_records(), "fld", "quota" and "out" those of fld_records(),
//   quota_records() and out_records(), "ping-md" those of ping_md_records().
// usage: lnetcap_ws_vectors nids OUT.pcapng EXPECTED.txt
//        lnetcap_ws_vectors unreadable OUT.pcapng
//   (NID printing cross-check against the agent's Nid::to_string()).
// usage: lnetcap_ws_vectors routed DIR
//   (three SYNTHETIC per-node files of a routed run, see gen_routed.cpp).
// usage: lnetcap_ws_vectors phases DIR
//   (three SYNTHETIC per-node files of RPCs for the phases, see gen_phases.cpp).
// usage: lnetcap_ws_vectors replicate-pcap IN.pcap OUT.pcap K
//   (for the benchmark, see replicate_pcap()).
#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "lnetcap/bodies.h"
#include "lnetcap/fld.h"
#include "lnetcap/mdt_reint.h"
#include "lnetcap/out_update.h"
#include "lnetcap/quota.h"
#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/record.h"
#include "lnetcap/rpc_formats.h"
#include "nid.h"
#include "pcapng/writer.h"
#include "record.h"
#include "lnet_builders.h"
#include "wire_builders.h"

using namespace lnetcap;
std::uint32_t lnetcap_opcodes_sample(std::mt19937& rng);
int routed_vectors(const std::string& dir);
int phases_vectors(const std::string& dir);
using Bytes = std::vector<std::uint8_t>;

namespace {

using namespace lnetcap::test::wire;

void fid(W& w, std::size_t off, std::uint64_t seq, std::uint32_t oid, std::uint32_t ver = 0) {
  w.u64(off + OFF(lnetcap_lu_fid, f_seq), seq);
  w.u32(off + OFF(lnetcap_lu_fid, f_oid), oid);
  w.u32(off + OFF(lnetcap_lu_fid, f_ver), ver);
}

Bytes ost_body(bool be, std::uint64_t oid, std::uint64_t size) {
  W w(sizeof(struct lnetcap_obdo), be);
  w.u64(OFF(lnetcap_obdo, o_valid), 0x1 | 0x10 | 0x2000000);  // FLID|FLSIZE|FLFID
  // o_oi as an IDIF FID (lustre_ostid.h): OST index 1, object id bits
  // 32-47 = 0x0002 in the sequence, so ostid_id() = 0x2_0000_0000 + oid.
  fid(w, OFF(lnetcap_obdo, o_oi), 0x100010002ULL, std::uint32_t(oid));
  w.u64(OFF(lnetcap_obdo, o_size), size);
  w.u32(OFF(lnetcap_obdo, o_mode), 0100644);
  w.u32(OFF(lnetcap_obdo, o_uid), 1000);
  w.u32(OFF(lnetcap_obdo, o_gid), 1000);
  w.u64(OFF(lnetcap_obdo, o_grant), 0x200000);
  w.u32(OFF(lnetcap_obdo, o_layout) + 0, 1048576);  // ol_stripe_size
  w.u32(OFF(lnetcap_obdo, o_layout) + 4, 1);        // ol_stripe_count
  w.u32(OFF(lnetcap_obdo, o_projid), 7);
  return w.b;
}

Bytes ioobj(bool be, std::uint64_t oid, std::uint32_t bufcnt) {
  W w(sizeof(struct lnetcap_obd_ioobj), be);
  // ioo_oid in the legacy group-0 form {oi_id, oi_seq 0}.
  w.u64(OFF(lnetcap_obd_ioobj, ioo_oid), oid);
  w.u64(OFF(lnetcap_obd_ioobj, ioo_oid) + 8, 0);
  w.u32(OFF(lnetcap_obd_ioobj, ioo_max_brw), 0);
  w.u32(OFF(lnetcap_obd_ioobj, ioo_bufcnt), bufcnt);
  return w.b;
}

Bytes niobufs(bool be, const std::vector<std::pair<std::uint64_t, std::uint32_t>>& v,
              std::uint32_t flags) {
  W w(16 * v.size(), be);
  for (std::size_t i = 0; i < v.size(); ++i) {
    w.u64(16 * i + OFF(lnetcap_niobuf_remote, rnb_offset), v[i].first);
    w.u32(16 * i + OFF(lnetcap_niobuf_remote, rnb_len), v[i].second);
    w.u32(16 * i + OFF(lnetcap_niobuf_remote, rnb_flags), flags);
  }
  return w.b;
}

// ldlm_lock_desc at off inside w.
void lock_desc(W& w, std::size_t off, std::uint32_t type, const std::uint64_t name[4],
               std::uint32_t req_mode, std::uint32_t granted_mode, std::uint64_t p0,
               std::uint64_t p1, std::uint64_t p2) {
  w.u32(off + OFF(lnetcap_ldlm_lock_desc, l_resource) + OFF(lnetcap_ldlm_resource_desc, lr_type),
        type);
  for (int i = 0; i < 4; ++i)
    w.u64(off + OFF(lnetcap_ldlm_lock_desc, l_resource) +
              OFF(lnetcap_ldlm_resource_desc, lr_name) + 8 * i,
          name[i]);
  w.u32(off + OFF(lnetcap_ldlm_lock_desc, l_req_mode), req_mode);
  w.u32(off + OFF(lnetcap_ldlm_lock_desc, l_granted_mode), granted_mode);
  w.u64(off + OFF(lnetcap_ldlm_lock_desc, l_policy_data), p0);
  w.u64(off + OFF(lnetcap_ldlm_lock_desc, l_policy_data) + 8, p1);
  w.u64(off + OFF(lnetcap_ldlm_lock_desc, l_policy_data) + 16, p2);
}

Bytes ldlm_request(bool be, std::uint32_t flags, std::uint32_t type, const std::uint64_t name[4],
                   std::uint32_t mode, std::uint64_t p0, std::uint64_t p1,
                   std::vector<std::uint64_t> handles) {
  // lock_count is the handles given; the buffer keeps at least
  // LDLM_LOCKREQ_HANDLES slots (ldlm_request_bufsize()), unused ones zero.
  const std::uint32_t count = std::uint32_t(handles.size());
  if (handles.size() < LNETCAP_LDLM_LOCKREQ_HANDLES) handles.resize(LNETCAP_LDLM_LOCKREQ_HANDLES);
  W w(sizeof(struct lnetcap_ldlm_request) + 8 * handles.size(), be);
  w.u32(OFF(lnetcap_ldlm_request, lock_flags), flags);
  w.u32(OFF(lnetcap_ldlm_request, lock_count), count);
  lock_desc(w, OFF(lnetcap_ldlm_request, lock_desc), type, name, mode, 0, p0, p1, 0);
  for (std::size_t i = 0; i < handles.size(); ++i)
    w.u64(sizeof(struct lnetcap_ldlm_request) + 8 * i, handles[i]);
  return w.b;
}

Bytes ldlm_reply(bool be, std::uint32_t flags, std::uint32_t type, const std::uint64_t name[4],
                 std::uint32_t mode, std::uint64_t p0, std::uint64_t p1, std::uint64_t handle,
                 std::uint64_t res1) {
  W w(sizeof(struct lnetcap_ldlm_reply), be);
  w.u32(OFF(lnetcap_ldlm_reply, lock_flags), flags);
  lock_desc(w, OFF(lnetcap_ldlm_reply, lock_desc), type, name, mode, mode, p0, p1, 0);
  w.u64(OFF(lnetcap_ldlm_reply, lock_handle), handle);
  w.u64(OFF(lnetcap_ldlm_reply, lock_policy_res1), res1);
  return w.b;
}

Bytes u64buf(bool be, std::uint64_t v) {
  W w(8, be);
  w.u64(0, v);
  return w.b;
}

Bytes ost_lvb(bool be, std::uint64_t size) {
  W w(sizeof(struct lnetcap_ost_lvb), be);
  w.u64(OFF(lnetcap_ost_lvb, lvb_size), size);
  w.u64(OFF(lnetcap_ost_lvb, lvb_mtime), 1700000000);
  w.u64(OFF(lnetcap_ost_lvb, lvb_blocks), 2048);
  return w.b;
}

Bytes mdt_body(bool be, std::uint64_t seq, std::uint32_t oid, std::uint64_t size) {
  W w(sizeof(struct lnetcap_mdt_body), be);
  fid(w, OFF(lnetcap_mdt_body, mbo_fid1), seq, oid);
  w.u64(OFF(lnetcap_mdt_body, mbo_valid), 0x1 | 0x10 | 0x80 | 0x200 | 0x400);
  w.u64(OFF(lnetcap_mdt_body, mbo_size), size);
  w.u64(OFF(lnetcap_mdt_body, mbo_mtime), 1700000000);
  w.u32(OFF(lnetcap_mdt_body, mbo_mode), 040755);
  w.u32(OFF(lnetcap_mdt_body, mbo_uid), 1000);
  w.u32(OFF(lnetcap_mdt_body, mbo_gid), 1000);
  w.u32(OFF(lnetcap_mdt_body, mbo_nlink), 2);
  return w.b;
}

// Generic reint record prefix plus the variant fields the caller sets.
W reint(bool be, std::uint32_t op) {
  W w(sizeof(struct lnetcap_mdt_rec_reint), be);
  w.u32(OFF(lnetcap_mdt_rec_reint, rr_opcode), op);
  w.u32(OFF(lnetcap_mdt_rec_reint, rr_fsuid), 1000);
  w.u32(OFF(lnetcap_mdt_rec_reint, rr_fsgid), 1000);
  fid(w, OFF(lnetcap_mdt_rec_reint, rr_fid1), 0x200000007ULL, 1);  // root
  return w;
}

Bytes connect_data(bool be, std::uint64_t flags, std::uint64_t flags2) {
  W w(sizeof(struct lnetcap_obd_connect_data), be);
  w.u64(OFF(lnetcap_obd_connect_data, ocd_connect_flags), flags);
  w.u32(OFF(lnetcap_obd_connect_data, ocd_version), 0x02100100);  // 2.16.1.0
  w.u32(OFF(lnetcap_obd_connect_data, ocd_grant), 0);
  w.u32(OFF(lnetcap_obd_connect_data, ocd_index), 0);
  w.u32(OFF(lnetcap_obd_connect_data, ocd_brw_size), 4194304);
  w.u64(OFF(lnetcap_obd_connect_data, ocd_ibits_known), 0x7f);
  w.u32(OFF(lnetcap_obd_connect_data, ocd_max_easize), 65536);
  w.u64(OFF(lnetcap_obd_connect_data, ocd_maxbytes), 0x7fffffffffffffffULL);
  w.u16(OFF(lnetcap_obd_connect_data, ocd_maxmodrpcs), 8);
  w.u64(OFF(lnetcap_obd_connect_data, ocd_connect_flags2), flags2);
  return w.b;
}

Bytes uuid(const std::string& s) {
  Bytes b(LNETCAP_OBD_UUID_LEN - 1, 0);  // RMF_TGTUUID/CLUUID are 39 bytes
  std::memcpy(b.data(), s.data(), s.size());
  return b;
}

// --- LNet headers (docs/protocol.md 1.2 / 1.3) --------------------------------
struct Lnet {
  Nid src, dst;
  std::uint32_t type = LNETCAP_MSG_PUT;
  std::uint32_t portal = 0;
  std::uint64_t mbits = 0;
  std::uint32_t offset = 0;
  bool ack = false;
  bool large = false;
  std::uint32_t sink_length = 0;
  std::uint64_t wmd_if = 0x1234;  // GET return_wmd / REPLY dst_wmd cookie
};

// The vectors' cookies and HELLO fields, through the tests' one builder
// (tests/support/lnet_builders.h).
Bytes lnet_header(const Lnet& h, std::uint32_t payload_len) {
  test::LnetHeaderSpec s;
  s.type = h.type;
  s.src = h.src;
  s.dst = h.dst;
  s.payload_length = payload_len;
  s.match_bits = h.mbits;
  s.portal = h.portal;
  s.nid16 = h.large;
  switch (h.type) {
    case LNETCAP_MSG_PUT:
      s.offset = h.offset;
      s.want_ack = h.ack;
      s.wmd = {0xabc, 0xdef};
      break;
    case LNETCAP_MSG_GET:
      s.sink_length = h.sink_length;
      s.wmd = {h.wmd_if, 0x5678};
      break;
    case LNETCAP_MSG_ACK:
      s.wmd = {0xabc, 0xdef};
      s.mlength = 224;
      break;
    case LNETCAP_MSG_REPLY:
      s.wmd = {0x1234, 0x5678};
      break;
    case LNETCAP_MSG_HELLO:
      s.hello_incarnation = 0x17000000abcdULL;
      s.hello_type = 1;
      break;
  }
  return test::lnet_header(s);
}

Bytes ping_info(const std::vector<std::pair<Nid, std::uint32_t>>& nis) {
  W w(sizeof(struct lnetcap_ping_info) + 16 * nis.size());
  w.u32(OFF(lnetcap_ping_info, pi_magic), LNETCAP_LNET_PROTO_PING_MAGIC);
  w.u32(OFF(lnetcap_ping_info, pi_features), 0x1 | 0x2 | 0x8 | 0x10);
  w.u32(OFF(lnetcap_ping_info, pi_pid), LNETCAP_LNET_PID_LUSTRE);
  w.u32(OFF(lnetcap_ping_info, pi_nnis), std::uint32_t(nis.size()));
  for (std::size_t i = 0; i < nis.size(); ++i) {
    std::size_t o = 16 + 16 * i;
    w.u64(o + OFF(lnetcap_ni_status, ns_nid), nis[i].first.to_nid4());
    w.u32(o + OFF(lnetcap_ni_status, ns_status), nis[i].second);
    w.u32(o + OFF(lnetcap_ni_status, ns_msg_size), 0);
  }
  return w.b;
}

class Out {
 public:
  explicit Out(const std::string& path) : w_(path) {
    w_.begin_section({"lnetcap test vectors", "Linux", "x86_64", {"generated by gen_vectors"}});
    CaptureInterface i;
    i.name = "tcp";
    i.description = "test vectors";
    if0_ = w_.add_interface(LNETCAP_LINKTYPE, i);
    i.name = "o2ib3";
    if1_ = w_.add_interface(LNETCAP_LINKTYPE, i);
  }
  std::uint64_t ts = 1700000000ULL * 1000000000ULL;

  RecordHeader rh(const Nid& local, const Nid& peer, std::uint8_t dir) {
    RecordHeader h;
    h.direction = dir;
    h.hook = dir == LNETCAP_DIR_SEND ? LNETCAP_HOOK_LNET_NI_SEND : LNETCAP_HOOK_LNET_PARSE;
    h.lnd_type = local.type;
    h.flags = LNETCAP_REC_F_TASK_VALID;
    h.cpu = 1;
    h.pid = 4242;
    h.comm = "dd";
    h.local_nid = local;
    h.peer_nid = peer;
    return h;
  }

  // Writes one message; advances time by step_us first.
  void msg(const Lnet& l, const Bytes& payload, std::uint64_t step_us = 1000,
           RecordHeader* hdr = nullptr, std::size_t caplen = SIZE_MAX, bool second_if = false) {
    ts += step_us * 1000;
    RecordHeader h = hdr ? *hdr : rh(l.src, l.dst, LNETCAP_DIR_SEND);
    if (!hdr) h.seq = seq_;
    seq_ = h.seq + 1;
    h.payload_len = std::uint32_t(payload.size());
    Bytes hdrb = lnet_header(l, std::uint32_t(payload.size()));
    std::size_t n = std::min(caplen, payload.size());
    Bytes rec;
    encode_record(h, hdrb, ByteSpan(payload.data(), n), rec);
    w_.write_packet(second_if ? if1_ : if0_, ts, rec, std::uint32_t(rec.size() + payload.size() - n),
                    0, std::nullopt);
  }
  void raw(const Bytes& rec) {
    ts += 1000000;
    w_.write_packet(if0_, ts, rec, std::uint32_t(rec.size()), 0, std::nullopt);
  }
  std::uint64_t seq_ = 1;
  void close() { w_.close(); }

 private:
  pcapng::Writer w_;
  std::uint32_t if0_ = 0, if1_ = 0;
};

Nid N(const char* s) { return *Nid::parse(s); }

Lnet req(const char* c, const char* s, std::uint32_t portal, std::uint64_t xid) {
  Lnet l;
  l.src = N(c);
  l.dst = N(s);
  l.portal = portal;
  l.mbits = xid;
  return l;
}
Lnet rep(const char* c, const char* s, std::uint32_t portal, std::uint64_t mbits,
         std::uint32_t offset = LNETCAP_LUSTRE_MSG_EARLY_SIZE) {
  Lnet l = req(s, c, portal, mbits);
  l.offset = offset;
  return l;
}

Body B(std::uint32_t type, std::uint32_t opc, std::uint32_t version, std::int32_t status = 0) {
  Body b;
  b.type = type;
  b.opc = opc;
  b.version = type == LNETCAP_PTL_RPC_MSG_REQUEST ? version : LNETCAP_PTLRPC_MSG_VERSION;
  b.status = type == LNETCAP_PTL_RPC_MSG_REQUEST ? 4242 : status;  // request: sender pid
  return b;
}

constexpr std::uint32_t RQ = LNETCAP_PTL_RPC_MSG_REQUEST;
constexpr std::uint32_t RP = LNETCAP_PTL_RPC_MSG_REPLY;
const char* CL = "10.0.0.1@tcp";
const char* SV = "10.0.0.2@tcp";

void vectors(Out& o) {
  const bool le = false;
  // 1-2 OBD_PING with a jobid, reply at offset 224.
  {
    Body b = B(RQ, LNETCAP_OPC_OBD_PING, 0x00010003);
    b.jobid = "dd.1000";
    o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x1000), lustre_msg(le, {ptlrpc_body(le, b)}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x1000),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_OBD_PING, 0))}), 250);
  }
  // 3-4 OST_WRITE: body, ost_body, ioobj, 2 niobufs, capa1 (0), short_io (0).
  {
    Body b = B(RQ, LNETCAP_OPC_OST_WRITE, 0x00030003);
    b.mbits = 0x1080;
    b.jobid = "dd.1000";
    o.msg(req(CL, SV, LNETCAP_PORTAL_OST_IO, 0x1080),
          lustre_msg(le, {ptlrpc_body(le, b), ost_body(le, 0x42, 0), ioobj(le, 0x42, 2),
                          niobufs(le, {{0, 4096}, {4096, 8192}}, 0x2 | 0x20), {}, {}}));
    W rcs(8);
    o.msg(rep(CL, SV, LNETCAP_PORTAL_OSC_REPLY, 0x1080),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_OST_WRITE, 0)), ost_body(le, 0x42, 12288),
                          rcs.b}),
          5000);
  }
  // 5-6 OST_READ request, reply.
  {
    Body b = B(RQ, LNETCAP_OPC_OST_READ, 0x00030003);
    b.mbits = 0x1100;
    o.msg(req(CL, SV, LNETCAP_PORTAL_OST_IO, 0x1100),
          lustre_msg(le, {ptlrpc_body(le, b), ost_body(le, 0x42, 0), ioobj(le, 0x42, 1),
                          niobufs(le, {{0, 1048576}}, 0x1), {}, {}}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_OSC_REPLY, 0x1100),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_OST_READ, 0)), ost_body(le, 0x42, 1048576),
                          {}}),
          3000);
  }
  // 7-8 LDLM_ENQUEUE extent PW on an OST object, with an LVB in the reply.
  std::uint64_t res_ost[4] = {0x42, 0x100000000ULL, 0, 0};
  {
    Body b = B(RQ, LNETCAP_OPC_LDLM_ENQUEUE, 0x00040003);
    o.msg(req(CL, SV, LNETCAP_PORTAL_OST_REQUEST, 0x1180),
          lustre_msg(le, {ptlrpc_body(le, b),
                          ldlm_request(le, 0x0, LNETCAP_LDLM_EXTENT, res_ost, 2, 0, ~0ULL,
                                       {0xc0ffee01})}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_OSC_REPLY, 0x1180),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_ENQUEUE, 0)),
                          ldlm_reply(le, 0x0, LNETCAP_LDLM_EXTENT, res_ost, 2, 0, ~0ULL, 0x5e7e1, 0),
                          ost_lvb(le, 12288)}),
          400);
  }
  // 9-10 LDLM_ENQUEUE with an IT_GETATTR intent: ibits lock on a FID
  // resource, then MDT_BODY, CAPA1 and NAME (RQF_LDLM_INTENT_GETATTR).
  std::uint64_t res_fid[4] = {0x200000401ULL, 0x5, 0, 0};
  {
    Body b = B(RQ, LNETCAP_OPC_LDLM_ENQUEUE, 0x00040003);
    o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x1200),
          lustre_msg(le, {ptlrpc_body(le, b),
                          ldlm_request(le, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_IBITS, res_fid, 4,
                                       0x1 | 0x2, 0, {0xc0ffee02}),
                          u64buf(le, 0x8 /* IT_GETATTR */), mdt_body(le, 0x200000401ULL, 5, 0), {},
                          cstr("file1")}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x1200),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_ENQUEUE, 0)),
                          ldlm_reply(le, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_IBITS, res_fid, 4,
                                     0x1 | 0x2, 0, 0x5e7e2, 0x1 | 0x2 | 0x8),
                          mdt_body(le, 0x200000401ULL, 6, 4096)}),
          300);
  }
  // 11-12 LDLM_CANCEL with two handles.
  o.msg(req(CL, SV, LNETCAP_PORTAL_LDLM_CANCEL_REQUEST, 0x1280),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_LDLM_CANCEL, 0x00040003)),
                        ldlm_request(le, 0, LNETCAP_LDLM_PLAIN, res_fid, 0, 0, 0,
                                     {0x5e7e1, 0x5e7e2})}));
  o.msg(rep(CL, SV, LNETCAP_PORTAL_LDLM_CANCEL_REPLY, 0x1280),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_CANCEL, 0))}), 200);
  // 13-14 LDLM_BL_CALLBACK from the server to the client.
  o.msg(req(SV, CL, LNETCAP_PORTAL_LDLM_CB_REQUEST, 0x9000),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_LDLM_BL_CALLBACK, 0x00040003)),
                        ldlm_request(le, 0x20 /* AST_SENT */, LNETCAP_LDLM_IBITS, res_fid, 4,
                                     0x2, 0, {0xc0ffee02})}));
  o.msg(rep(SV, CL, LNETCAP_PORTAL_LDLM_CB_REPLY, 0x9000),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_BL_CALLBACK, 0))}), 150);
  // 15-16 LDLM_CP_CALLBACK with an LVB.
  o.msg(req(SV, CL, LNETCAP_PORTAL_LDLM_CB_REQUEST, 0x9080),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_LDLM_CP_CALLBACK, 0x00040003)),
                        ldlm_request(le, 0, LNETCAP_LDLM_EXTENT, res_ost, 4, 0, 4095,
                                     {0xc0ffee01}),
                        ost_lvb(le, 4096)}));
  o.msg(rep(SV, CL, LNETCAP_PORTAL_LDLM_CB_REPLY, 0x9080),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_CP_CALLBACK, 0))}), 150);
  // 17-18 MDS_GETATTR with REP_MBITS: the reply comes back on pb_mbits.
  {
    Body b = B(RQ, LNETCAP_OPC_MDS_GETATTR, 0x00020003);
    b.mbits = 0x1301;
    o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_READPAGE, 0x1300),
          lustre_msg(le, {ptlrpc_body(le, b), mdt_body(le, 0x200000007ULL, 1, 0), {}}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x1301),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_GETATTR, 0)),
                          mdt_body(le, 0x200000007ULL, 1, 4096), {}, {}, {}, {}}),
          700);
  }
  // 19-28 MDS_REINT: create, setattr, link, unlink (-ENOENT), rename.
  {
    W r = reint(le, LNETCAP_REINT_CREATE);
    fid(r, OFF(lnetcap_mdt_rec_create, cr_fid2), 0x200000401ULL, 7);  // the new child
    r.u32(OFF(lnetcap_mdt_rec_create, cr_mode), 040755);
    r.u32(OFF(lnetcap_mdt_rec_create, cr_umask), 022);
    o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x1380),
          lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_MDS_REINT, 0x00020003)), r.b, {},
                          cstr("newdir")}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x1380),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_REINT, 0)),
                          mdt_body(le, 0x200000401ULL, 7, 4096)}),
          900);
  }
  {
    W r = reint(le, LNETCAP_REINT_SETATTR);
    r.u64(OFF(lnetcap_mdt_rec_setattr, sa_valid), 0x1 | 0x2 | 0x8);  // MODE|UID|SIZE
    r.u32(OFF(lnetcap_mdt_rec_setattr, sa_uid), 2000);
    r.u32(OFF(lnetcap_mdt_rec_setattr, sa_gid), 2000);
    r.u64(OFF(lnetcap_mdt_rec_setattr, sa_size), 65536);
    r.u32(OFF(lnetcap_mdt_rec_setattr, sa_mode), 0100600);
    o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x1400),
          lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_MDS_REINT, 0x00020003)), r.b}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x1400),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_REINT, 0)),
                          mdt_body(le, 0x200000401ULL, 5, 65536)}),
          800);
  }
  {
    W r = reint(le, LNETCAP_REINT_LINK);
    fid(r, OFF(lnetcap_mdt_rec_link, lk_fid2), 0x200000401ULL, 5);
    o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x1480),
          lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_MDS_REINT, 0x00020003)), r.b, {}, {},
                          cstr("hardlink")}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x1480),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_REINT, 0))}), 600);
  }
  {
    W r = reint(le, LNETCAP_REINT_UNLINK);
    r.u32(OFF(lnetcap_mdt_rec_unlink, ul_mode), 0100644);
    o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x1500),
          lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_MDS_REINT, 0x00020003)), r.b, {},
                          cstr("missing")}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x1500),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_REINT, 0, -2))}), 500);
  }
  {
    W r = reint(le, LNETCAP_REINT_RENAME);
    fid(r, OFF(lnetcap_mdt_rec_rename, rn_fid2), 0x200000401ULL, 7);
    o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x1580),
          lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_MDS_REINT, 0x00020003)), r.b, {}, {},
                          cstr("oldname"), cstr("newname")}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x1580),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_REINT, 0))}), 600);
  }
  // 29-30 MDS_REINT open (CAPA1, CAPA2 empty), 31-32 setxattr.
  {
    W r = reint(le, LNETCAP_REINT_OPEN);
    fid(r, OFF(lnetcap_mdt_rec_create, cr_fid2), 0x200000401ULL, 8);
    r.u32(OFF(lnetcap_mdt_rec_create, cr_mode), 0100644);
    r.u32(OFF(lnetcap_mdt_rec_create, cr_flags_l), 0x42 /* O_CREAT|O_RDWR */);
    o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x1600),
          lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_MDS_REINT, 0x00020003)), r.b, {}, {},
                          cstr("opened"), {}}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x1600),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_REINT, 0)),
                          mdt_body(le, 0x200000401ULL, 8, 0)}),
          600);
  }
  {
    W r = reint(le, LNETCAP_REINT_SETXATTR);
    r.u64(OFF(lnetcap_mdt_rec_setxattr, sx_valid), 1ULL << 36);  // OBD_MD_FLXATTR
    r.u32(OFF(lnetcap_mdt_rec_setxattr, sx_size), 5);
    o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x1680),
          lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_MDS_REINT, 0x00020003)), r.b, {},
                          cstr("user.color"), Bytes{'b', 'l', 'u', 'e', 0}}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x1680),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_REINT, 0))}), 600);
  }
  // 33-34 MDS_CONNECT: target and client UUIDs, handle, connect data.
  {
    Body b = B(RQ, LNETCAP_OPC_MDS_CONNECT, 0x00010003);
    b.op_flags = 0x20 /* INITIAL */;
    o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x1700),
          lustre_msg(le, {ptlrpc_body(le, b), uuid("lfs-MDT0000_UUID"),
                          uuid("6f0b2c1e-client-uuid"), u64buf(le, 0x6b6b6b6b),
                          connect_data(le, 0x1 | 0x1000 | 0x8000000000000000ULL, 0x100000), {}}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x1700),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_CONNECT, 0)),
                          connect_data(le, 0x1000 | 0x8000000000000000ULL, 0x100000)}),
          2000);
  }
  // 35-36 Big-endian lustre_msg: OST_SYNC from a big-endian client.
  o.msg(req(CL, SV, LNETCAP_PORTAL_OST_REQUEST, 0x1780),
        lustre_msg(true, {ptlrpc_body(true, B(RQ, LNETCAP_OPC_OST_SYNC, 0x00030003)),
                          ost_body(true, 0x43, 0), {}}));
  o.msg(rep(CL, SV, LNETCAP_PORTAL_OSC_REPLY, 0x1780),
        lustre_msg(true, {ptlrpc_body(true, B(RP, LNETCAP_OPC_OST_SYNC, 0)), ost_body(true, 0x43, 0)}),
        1200);
  // 37-38 nid16 header with IPv6 NIDs: OBD_PING.
  {
    Lnet l = req("fe80::1@tcp", "fe80::2@tcp1", LNETCAP_PORTAL_OST_REQUEST, 0x1800);
    l.large = true;
    o.msg(l, lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_OBD_PING, 0x00010003))}));
    Lnet r = rep("fe80::1@tcp", "fe80::2@tcp1", LNETCAP_PORTAL_OSC_REPLY, 0x1800);
    r.large = true;
    o.msg(r, lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_OBD_PING, 0))}), 100);
  }
  // 39 kfi NIDs, 40 o2ib with net number, 41 loopback (second interface).
  o.msg(req("16@kfi", "17@kfi", LNETCAP_PORTAL_MDS_REQUEST, 0x1880),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_OBD_PING, 0x00010003))}));
  o.msg(req("192.168.1.2@o2ib3", "192.168.1.3@o2ib3", LNETCAP_PORTAL_OST_REQUEST, 0x1900),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_OBD_PING, 0x00010003))}), 1000, nullptr,
        SIZE_MAX, true);
  o.msg(req("0@lo", "0@lo", LNETCAP_PORTAL_MDS_REQUEST, 0x1980),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_OBD_PING, 0x00010003))}));
  // 42 health failure with retries and completion status -ETIMEDOUT.
  {
    Lnet l = req(CL, SV, LNETCAP_PORTAL_OST_REQUEST, 0x1a00);
    RecordHeader h = o.rh(l.src, l.dst, LNETCAP_DIR_SEND);
    h.hook = LNETCAP_HOOK_LNET_FINALIZE;
    h.flags |= LNETCAP_REC_F_HEALTH_VALID | LNETCAP_REC_F_STATUS_VALID;
    h.health_status = LNETCAP_HEALTH_REMOTE_TIMEOUT;
    h.retry_count = 2;
    h.status = -110;
    h.seq = o.seq_;
    o.msg(l, lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_OBD_PING, 0x00010003))}), 1000, &h);
  }
  // 43 truncated: an OST_WRITE request cut at 100 payload bytes, inside
  // the ptlrpc_body (payload_caplen < payload_len).
  {
    Body b = B(RQ, LNETCAP_OPC_OST_WRITE, 0x00030003);
    o.msg(req(CL, SV, LNETCAP_PORTAL_OST_IO, 0x1a80),
          lustre_msg(le, {ptlrpc_body(le, b), ost_body(le, 0x44, 0), ioobj(le, 0x44, 1),
                          niobufs(le, {{0, 4096}}, 0x2), {}, {}}),
          1000, nullptr, 100);
  }
  // 44 sequence gap: 5 records missing before this one.
  o.seq_ += 5;
  o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x1b00),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_OBD_PING, 0x00010003))}));
  // 45-46 LNet ping: GET on portal 0, REPLY with lnet_ping_info.
  {
    Lnet g = req(CL, SV, LNETCAP_PORTAL_LNET_RESERVED, LNETCAP_LNET_PING_MATCHBITS);
    g.type = LNETCAP_MSG_GET;
    g.sink_length = 272;
    o.msg(g, {});
    Lnet r;
    r.src = N(SV);
    r.dst = N(CL);
    r.type = LNETCAP_MSG_REPLY;
    o.msg(r, ping_info({{N("0@lo"), 3}, {N(SV), LNETCAP_LNET_NI_STATUS_UP},
                        {N("10.1.0.2@o2ib1"), LNETCAP_LNET_NI_STATUS_UP}}),
          80);
  }
  // 47-48 discovery push (PUT to portal 0 wanting an ACK) and its ACK.
  {
    Lnet p = req(CL, SV, LNETCAP_PORTAL_LNET_RESERVED, LNETCAP_LNET_PING_MATCHBITS);
    p.ack = true;
    o.msg(p, ping_info({{N("0@lo"), 4}, {N(CL), LNETCAP_LNET_NI_STATUS_UP}}));
    Lnet a;
    a.src = N(SV);
    a.dst = N(CL);
    a.type = LNETCAP_MSG_ACK;
    a.mbits = LNETCAP_LNET_PING_MATCHBITS;
    o.msg(a, {}, 60);
  }
  // 49 HELLO.
  {
    Lnet h;
    h.src = N(CL);
    h.dst = N(SV);
    h.type = LNETCAP_MSG_HELLO;
    o.msg(h, {});
  }
  // 50-52 OST_READ with an early reply (offset 0, 1 buffer, lm_cksum set)
  // and then the final reply at offset 224.
  {
    Body b = B(RQ, LNETCAP_OPC_OST_READ, 0x00030003);
    b.mbits = 0x1c00;
    o.msg(req(CL, SV, LNETCAP_PORTAL_OST_IO, 0x1c00),
          lustre_msg(le, {ptlrpc_body(le, b), ost_body(le, 0x45, 0), ioobj(le, 0x45, 1),
                          niobufs(le, {{0, 4096}}, 0x1), {}, {}}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_OSC_REPLY, 0x1c00, 0),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_OST_READ, 0))}, 1, 0x1234abcd), 30000);
    o.msg(rep(CL, SV, LNETCAP_PORTAL_OSC_REPLY, 0x1c00),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_OST_READ, 0)), ost_body(le, 0x45, 4096),
                          {}}),
          30000);
  }
  // 53-54 MDS_STATFS never answered, then resent with MSG_RESENT.
  {
    Body b = B(RQ, LNETCAP_OPC_MDS_STATFS, 0x00020003);
    o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x1c80), lustre_msg(le, {ptlrpc_body(le, b)}));
    b.flags = 0x2;
    o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x1c80), lustre_msg(le, {ptlrpc_body(le, b)}),
          100000);
  }
  // 55-56 PtlRPC error message (PTL_RPC_MSG_ERR, -EPROTO) to an OST_GETATTR,
  // with a v2 (152-byte) body.
  {
    Body b = B(RQ, LNETCAP_OPC_OST_GETATTR, 0x00030003);
    b.v3 = false;
    o.msg(req(CL, SV, LNETCAP_PORTAL_OST_REQUEST, 0x1d00),
          lustre_msg(le, {ptlrpc_body(le, b), ost_body(le, 0x46, 0), {}}));
    Body e = B(LNETCAP_PTL_RPC_MSG_ERR, LNETCAP_OPC_OST_GETATTR, 0, -71);
    e.v3 = false;
    o.msg(rep(CL, SV, LNETCAP_PORTAL_OSC_REPLY, 0x1d00), lustre_msg(le, {ptlrpc_body(le, e)}), 200);
  }
  // 57 SEQ_QUERY (body, SEQ_OPC, SEQ_RANGE): a body this plugin does not
  // decode, on a portal Wireshark's own Lustre dissector listens to.
  {
    W opc(4);
    opc.u32(0, 1);  // SEQ_ALLOC_META
    W range(24);
    range.u64(OFF(lnetcap_lu_seq_range, lsr_start), 0x200000400ULL);
    range.u64(OFF(lnetcap_lu_seq_range, lsr_end), 0x200000800ULL);
    o.msg(req("10.0.0.3@tcp", SV, LNETCAP_PORTAL_SEQ_METADATA, 0x1d80),
          lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_SEQ_QUERY, 0x00020003)), opc.b, range.b}));
  }
  // 58 a record of version 2 (from a newer lnetcap).
  {
    Bytes rec;
    RecordHeader h = o.rh(N(CL), N(SV), LNETCAP_DIR_SEND);
    encode_record(h, {}, {}, rec);
    rec[OFF(lnetcap_rec_hdr, version)] = 2;
    o.raw(rec);
  }
}

// Records crafted against the plugin's matching tables (test-hostile.sh):
//  1-3  OST_WRITE whose bulk range ends at pb_mbits = 2^64-1 (the last 16
//       match bits), its bulk GET on the last one and its reply;
//  4    a request with xid 5 and pb_mbits 2^64-1 (a one-entry range);
//  5-64 30 OBD_PING request/reply pairs with distinct XIDs, to fill a table
//       made small with -o lnetcap.max_table_entries.
void hostile_records(Out& o) {
  const bool le = false;
  const std::uint64_t top = ~0ULL, xid = top - 15;
  Body b = B(RQ, LNETCAP_OPC_OST_WRITE, 0x00030003);
  b.mbits = top;
  o.msg(req(CL, SV, LNETCAP_PORTAL_OST_IO, xid),
        lustre_msg(le, {ptlrpc_body(le, b), ost_body(le, 0x42, 0), ioobj(le, 0x42, 1),
                        niobufs(le, {{0, 4096}}, 0x2), {}, {}}));
  Lnet get = req(SV, CL, LNETCAP_PORTAL_OST_BULK, top);
  get.type = LNETCAP_MSG_GET;
  get.sink_length = 4096;
  o.msg(get, {});
  o.msg(rep(CL, SV, LNETCAP_PORTAL_OSC_REPLY, xid),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_OST_WRITE, 4096)), ost_body(le, 0x42, 4096),
                        W(8).b}));
  Body p = B(RQ, LNETCAP_OPC_OBD_PING, 0x00010003);
  p.mbits = top;
  o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 5), lustre_msg(le, {ptlrpc_body(le, p)}));
  for (std::uint64_t i = 0; i < 30; ++i) {
    o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x10000 + 0x80 * i),
          lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_OBD_PING, 0x00010003))}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x10000 + 0x80 * i),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_OBD_PING, 0))}), 100);
  }
  // Frames 65-75: 11 bulk GETs of frame 1's OST_WRITE on its first match
  // bits, each with its own return MD (the bulk GET table's key).
  for (std::uint64_t k = 0; k < 11; ++k) {
    Lnet g = req(SV, CL, LNETCAP_PORTAL_OST_BULK, xid + k % 4);
    g.type = LNETCAP_MSG_GET;
    g.sink_length = 4096;
    g.wmd_if = 0x9000 + k;
    o.msg(g, {});
  }
  // Frames 76-99: 12 sequence domains (cpu 100-111), each with two records
  // 5 apart in its sequence: 4 records lost before the second.
  for (std::uint32_t c = 0; c < 12; ++c) {
    for (std::uint64_t s : {std::uint64_t(10), std::uint64_t(15)}) {
      Lnet l = req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x40000 + 0x80 * c);
      l.type = LNETCAP_MSG_ACK;
      RecordHeader h = o.rh(l.src, l.dst, LNETCAP_DIR_SEND);
      h.cpu = 100 + c;
      h.seq = s;
      o.msg(l, {}, 1000, &h);
    }
  }
}

// lov_mds_md v1 (pool empty) or v3 (pool set) of the file fid, with one
// lov_ost_data_v1 per (ost_id FID, OST index) in objs (lustre_user.h 2.16).
Bytes lov_md(bool be, const std::string& pool, std::uint64_t fseq, std::uint32_t foid,
             std::uint32_t stripe_size, const std::vector<std::pair<std::uint64_t, std::uint32_t>>& objs) {
  const bool v3 = !pool.empty();
  const std::size_t hdr = v3 ? LNETCAP_LOV_MDS_MD_V3_LEN : sizeof(struct lnetcap_lov_mds_md_v1);
  W w(hdr + objs.size() * sizeof(struct lnetcap_lov_ost_data_v1), be);
#define LMM(f) OFF(lnetcap_lov_mds_md_v1, f)
  w.u32(LMM(lmm_magic), v3 ? LNETCAP_LOV_MAGIC_V3 : LNETCAP_LOV_MAGIC_V1);
  w.u32(LMM(lmm_pattern), 1);  // LOV_PATTERN_RAID0
  w.u64(LMM(lmm_oi_id), foid);  // lmm_oi as fid_to_lmm_oi() packs it: oid, then seq
  w.u64(LMM(lmm_oi_seq), fseq);
  w.u32(LMM(lmm_stripe_size), stripe_size);
  w.u16(LMM(lmm_stripe_count), std::uint16_t(objs.size()));
  w.u16(LMM(lmm_layout_gen), 3);
  if (v3) w.str(OFF(lnetcap_lov_mds_md_v3, lmm_pool_name), pool);
#undef LMM
  for (std::size_t k = 0; k < objs.size(); ++k) {
    std::size_t o = hdr + k * sizeof(struct lnetcap_lov_ost_data_v1);
    fid(w, o, objs[k].first, 0x10 + std::uint32_t(k));  // l_ost_oi: a FID on that OST
    w.u32(o + OFF(lnetcap_lov_ost_data_v1, l_ost_idx), objs[k].second);
  }
  return w.b;
}

// LVBs by lock type (test-lov.sh): a layout lock's LVB is a LOV layout, an
// extent lock's an ost_lvb, a quota lock's an lquota_lvb.
//  1-2 LDLM_ENQUEUE of an IBITS LAYOUT lock; the reply's LVB is a 1-stripe
//      lov_mds_md_v1, 56 bytes like an ost_lvb;
//  3   LDLM_CP_CALLBACK of a layout lock with a PFL composite layout: [0,
//      1 MiB) v1 on OST1, [1 MiB, EOF) v3 in pool "flash" on OST2 and OST3;
//  4-5 LDLM_ENQUEUE of a PLAIN quota lock, lquota_lvb in the reply;
//  6-7 LDLM_ENQUEUE of an extent lock, ost_lvb in the reply;
//  8-9 LDLM_ENQUEUE IT_LAYOUT (RQF_LDLM_INTENT_LAYOUT): the reply's LVB is
//      a 7-stripe lov_mds_md_v3 in pool "flash", 216 bytes, the size of an
//      mdt_body (a buffer's size used to decide an intent reply);
//  10  the same reply of a request not captured: its 3 buffers are those
//      of the LVB formats, whatever the LVB's size.
Bytes layout_intent(bool be, std::uint32_t opc, std::uint32_t flags, std::uint64_t start,
                    std::uint64_t end);
void lvb_records(Out& o) {
  const bool le = false;
  std::uint64_t res_fid[4] = {0x200000401ULL, 0x2, 0, 0};
  const std::uint64_t ost0 = 0x240000400ULL, ost1 = 0x280000400ULL, ost2 = 0x2c0000400ULL,
                      ost3 = 0x300000400ULL;
  o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x2000),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_LDLM_ENQUEUE, 0x00040003)),
                        ldlm_request(le, 0, LNETCAP_LDLM_IBITS, res_fid, 16, 0x8, 0, {})}));
  o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x2000),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_ENQUEUE, 0)),
                        ldlm_reply(le, 0, LNETCAP_LDLM_IBITS, res_fid, 16, 0x8, 0, 0x5e7e5, 0),
                        lov_md(le, "", 0x200000401ULL, 2, 1048576, {{ost0, 0}})}),
        300);
  {
    Bytes c1 = lov_md(le, "", 0x200000401ULL, 2, 1048576, {{ost1, 1}});
    Bytes c2 = lov_md(le, "flash", 0x200000401ULL, 2, 4194304, {{ost2, 2}, {ost3, 3}});
    const std::size_t hdr = sizeof(struct lnetcap_lov_comp_md_v1),
                      ent = sizeof(struct lnetcap_lov_comp_md_entry_v1);
    W w(hdr + 2 * ent + c1.size() + c2.size(), le);
    w.u32(OFF(lnetcap_lov_comp_md_v1, lcm_magic), LNETCAP_LOV_MAGIC_COMP_V1);
    w.u32(OFF(lnetcap_lov_comp_md_v1, lcm_size), std::uint32_t(w.b.size()));
    w.u32(OFF(lnetcap_lov_comp_md_v1, lcm_layout_gen), 5);
    w.u16(OFF(lnetcap_lov_comp_md_v1, lcm_entry_count), 2);
    const std::uint64_t ext[2][2] = {{0, 1048576}, {1048576, ~0ULL}};
    std::size_t blob = hdr + 2 * ent;
    for (int k = 0; k < 2; ++k) {
      const Bytes& c = k ? c2 : c1;
      std::size_t e = hdr + k * ent;
#define LCME(f) (e + OFF(lnetcap_lov_comp_md_entry_v1, f))
      w.u32(LCME(lcme_id), 1 + k);
      w.u32(LCME(lcme_flags), 0x10);  // LCME_FL_INIT
      w.u64(LCME(lcme_extent_start), ext[k][0]);
      w.u64(LCME(lcme_extent_end), ext[k][1]);
      w.u32(LCME(lcme_offset), std::uint32_t(blob));
      w.u32(LCME(lcme_size), std::uint32_t(c.size()));
#undef LCME
      w.raw(blob, c.data(), c.size());
      blob += c.size();
    }
    o.msg(req(SV, CL, LNETCAP_PORTAL_LDLM_CB_REQUEST, 0x9100),
          lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_LDLM_CP_CALLBACK, 0x00040003)),
                          ldlm_request(le, 0, LNETCAP_LDLM_IBITS, res_fid, 4, 0x8, 0, {0xc0ffee05}),
                          w.b}));
  }
  std::uint64_t res_quota[4] = {0x200000006ULL, 0x10000, 1000, 0};
  o.msg(req("10.0.0.3@tcp", SV, LNETCAP_PORTAL_MDS_REQUEST, 0x2080),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_LDLM_ENQUEUE, 0x00040003)),
                        ldlm_request(le, 0, LNETCAP_LDLM_PLAIN, res_quota, 4, 0, 0, {})}));
  {
    W q(sizeof(struct lnetcap_lquota_lvb), le);
    q.u64(OFF(lnetcap_lquota_lvb, lvb_flags), 1);  // LQUOTA_FL_EDQUOT
    q.u64(OFF(lnetcap_lquota_lvb, lvb_id_qunit), 1048576);
    o.msg(rep("10.0.0.3@tcp", SV, LNETCAP_PORTAL_MDC_REPLY, 0x2080),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_ENQUEUE, 0)),
                          ldlm_reply(le, 0, LNETCAP_LDLM_PLAIN, res_quota, 4, 0, 0, 0x5e7e6, 0), q.b}),
          200);
  }
  std::uint64_t res_ost[4] = {0x7, 0x240000400ULL, 0, 0};
  o.msg(req(CL, SV, LNETCAP_PORTAL_OST_REQUEST, 0x2100),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_LDLM_ENQUEUE, 0x00040003)),
                        ldlm_request(le, 0, LNETCAP_LDLM_EXTENT, res_ost, 2, 0, ~0ULL, {})}));
  o.msg(rep(CL, SV, LNETCAP_PORTAL_OSC_REPLY, 0x2100),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_ENQUEUE, 0)),
                        ldlm_reply(le, 0, LNETCAP_LDLM_EXTENT, res_ost, 2, 0, ~0ULL, 0x5e7e7, 0),
                        ost_lvb(le, 8192)}),
        400);
  const std::vector<std::pair<std::uint64_t, std::uint32_t>> seven = {
      {ost0, 0}, {ost1, 1}, {ost2, 2}, {ost3, 3}, {ost0, 4}, {ost1, 5}, {ost2, 6}};
  const Bytes lvb216 = lov_md(le, "flash", 0x200000401ULL, 2, 1048576, seven);
  if (lvb216.size() != sizeof(struct lnetcap_mdt_body))
    throw std::runtime_error("lvb_records: the layout must be as long as an mdt_body");
  o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x2180),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_LDLM_ENQUEUE, 0x00040003)),
                        ldlm_request(le, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_IBITS, res_fid, 16,
                                     LNETCAP_MDS_INODELOCK_LAYOUT, 0, {}),
                        u64buf(le, LNETCAP_ITF_LAYOUT), layout_intent(le, 2, 0, 0, 1048576), {}}));
  for (std::uint64_t xid : {0x2180ULL, 0x2200ULL})
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, xid),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_ENQUEUE, 0)),
                          ldlm_reply(le, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_IBITS, res_fid, 16,
                                     LNETCAP_MDS_INODELOCK_LAYOUT, 0, 0x5e7e8, 0),
                          lvb216}),
          300);
}

// --- MDT extras (test-mdt.sh): xattrs, POSIX ACLs, DoM inline data, the
// layout intent and the full mdt_ioepoch.  Buffers per lustre/ptlrpc/layout.c
// and structures per lustre/include/uapi/linux/lustre/lustre_idl.h, both of
// Lustre 2.16.1 (2.15.0 and 2.17.0 agree, except the open intent reply: 10
// buffers in 2.15, 11 from 2.16); the ACL per linux/posix_acl_xattr.h.

// mdt_body with mbo_valid and the size fields the caller gives.
Bytes mdt_body_ex(bool be, std::uint64_t valid, std::uint32_t eadatasize, std::uint32_t aclsize,
                  std::uint32_t max_mdsize, std::uint64_t dom_size = 0) {
  W w(sizeof(struct lnetcap_mdt_body), be);
  w.b = mdt_body(be, 0x200000401ULL, 9, 11);
  w.u64(OFF(lnetcap_mdt_body, mbo_valid), valid);
  w.u32(OFF(lnetcap_mdt_body, mbo_mode), 0100644);
  w.u32(OFF(lnetcap_mdt_body, mbo_eadatasize), eadatasize);
  w.u32(OFF(lnetcap_mdt_body, mbo_aclsize), aclsize);
  w.u32(OFF(lnetcap_mdt_body, mbo_max_mdsize), max_mdsize);
  w.u64(OFF(lnetcap_mdt_body, mbo_dom_size), dom_size);
  return w.b;
}

struct AclEntry {
  std::uint16_t tag, perm;
  std::uint32_t id;
};

// posix_acl_xattr: __le32 a_version, then __le16 e_tag, __le16 e_perm,
// __le32 e_id per entry: little-endian whatever the message's byte order.
Bytes posix_acl(const std::vector<AclEntry>& ents, std::uint32_t version = LNETCAP_POSIX_ACL_XATTR_VERSION) {
  const std::size_t hdr = sizeof(struct lnetcap_posix_acl_xattr_header),
                    esz = sizeof(struct lnetcap_posix_acl_xattr_entry);
  W w(hdr + ents.size() * esz, false);
  w.u32(OFF(lnetcap_posix_acl_xattr_header, a_version), version);
  for (std::size_t k = 0; k < ents.size(); ++k) {
    w.u16(hdr + k * esz + OFF(lnetcap_posix_acl_xattr_entry, e_tag), ents[k].tag);
    w.u16(hdr + k * esz + OFF(lnetcap_posix_acl_xattr_entry, e_perm), ents[k].perm);
    w.u32(hdr + k * esz + OFF(lnetcap_posix_acl_xattr_entry, e_id), ents[k].id);
  }
  return w.b;
}

Bytes str_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }

Bytes u32s(bool be, const std::vector<std::uint32_t>& v) {
  W w(4 * v.size(), be);
  for (std::size_t k = 0; k < v.size(); ++k) w.u32(4 * k, v[k]);
  return w.b;
}

// RMF_NIOBUF_INLINE: niobuf_remote (message byte order), then the data.
Bytes niobuf_inline(bool be, std::uint64_t offset, std::uint32_t len, const Bytes& data) {
  W w(sizeof(struct lnetcap_niobuf_remote) + data.size(), be);
  w.u64(OFF(lnetcap_niobuf_remote, rnb_offset), offset);
  w.u32(OFF(lnetcap_niobuf_remote, rnb_len), len);
  w.raw(sizeof(struct lnetcap_niobuf_remote), data.data(), data.size());
  return w.b;
}

Bytes layout_intent(bool be, std::uint32_t opc, std::uint32_t flags, std::uint64_t start,
                    std::uint64_t end) {
  W w(sizeof(struct lnetcap_layout_intent), be);
  w.u32(OFF(lnetcap_layout_intent, lai_opc), opc);
  w.u32(OFF(lnetcap_layout_intent, lai_flags), flags);
  w.u64(OFF(lnetcap_layout_intent, lai_extent_start), start);
  w.u64(OFF(lnetcap_layout_intent, lai_extent_end), end);
  return w.b;
}

//  1-2   MDS_GETXATTR "user.color" (mds_getxattr_client: MDT_BODY, CAPA1,
//        NAME, EADATA, SELINUX_POL; reply MDT_BODY, EADATA = "blue");
//  3-4   MDS_GETXATTR listxattr (OBD_MD_FLXATTRLS), four names in the reply;
//  5-6   MDS_GETATTR, big-endian message, reply RMF_ACL (slot 3) with five
//        entries (the ACL itself little-endian);
//  7-8   LDLM_ENQUEUE IT_GETXATTR (ldlm_intent_getxattr_client/_server): the
//        xattr cache refill, names in EADATA, values in EAVALS, lengths in
//        EAVALS_LENS; one value is an ACL;
//  9-10  LDLM_ENQUEUE IT_OPEN, 2.16 reply (11 buffers): ACL in slot 4 and
//        11 bytes of DoM data in NIOBUF_INLINE (slot 7);
//  11    the same reply in the 2.15 layout (10 buffers), the file's tail;
//  12-13 LDLM_ENQUEUE IT_LAYOUT: layout_intent WRITE [0, 1 MiB), LVB reply;
//  14    IT_LAYOUT TRUNC [4096, EOF) with LAIF_INCOMPRESSIBLE (2.17's flag);
//  15-16 MDS_CLOSE: every mdt_ioepoch field, distinct values;
//  hostile and truncated:
//  17    IT_GETXATTR reply whose second length runs past EAVALS;
//  18    open reply cut by the snap length inside the DoM data;
//  19    MDS_GETATTR reply whose ACL has version 1;
//  20    MDS_GETATTR reply cut inside the ACL entries;
//  21    MDS_GETXATTR reply without its request;
//  22    open reply whose rnb_len exceeds NIOBUF_INLINE;
//  23    MDS_GETATTR reply with an ACL buffer but no OBD_MD_FLACL;
//  24    MDS_GETATTR reply whose ACL is zeroed (as --anon-key leaves it);
//  25-26 MDS_GETXATTR size probe: the value's length, no value.
void mdt_records(Out& o) {
  const bool le = false;
  const std::uint64_t FLXATTR = LNETCAP_OBD_MD_FLXATTR, FLXATTRLS = LNETCAP_OBD_MD_FLXATTRLS,
                      FLACL = LNETCAP_OBD_MD_FLACL;
  const std::vector<AclEntry> acl5 = {{0x01, 6, LNETCAP_ACL_UNDEFINED_ID},  // USER_OBJ rw-
                                      {0x02, 4, 1001},                      // USER 1001 r--
                                      {0x04, 4, LNETCAP_ACL_UNDEFINED_ID},  // GROUP_OBJ r--
                                      {0x10, 5, LNETCAP_ACL_UNDEFINED_ID},  // MASK r-x
                                      {0x20, 0, LNETCAP_ACL_UNDEFINED_ID}}; // OTHER ---
  const std::vector<AclEntry> acl3 = {{0x01, 7, LNETCAP_ACL_UNDEFINED_ID},
                                      {0x08, 5, 2002},                      // GROUP 2002 r-x
                                      {0x20, 1, LNETCAP_ACL_UNDEFINED_ID}};
  std::uint64_t res[4] = {0x200000401ULL, 0x9, 0, 0};
  // 1-2
  o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x3000),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_MDS_GETXATTR, 0x00020003)),
                        mdt_body_ex(le, FLXATTR, 64, 0, 0), {}, cstr("user.color"), {}, {}}));
  o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3000),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_GETXATTR, 0)),
                        mdt_body_ex(le, FLXATTR, 4, 0, 0), str_bytes("blue")}),
        300);
  // 3-4
  static const char names4_c[] = "user.color\0trusted.lov\0system.posix_acl_access\0security.selinux";
  const std::string names4(names4_c, sizeof names4_c);  // with the last name's NUL
  o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x3080),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_MDS_GETXATTR, 0x00020003)),
                        mdt_body_ex(le, FLXATTRLS, 4096, 0, 0), {}, {}, {}, {}}));
  o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3080),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_GETXATTR, 0)),
                        mdt_body_ex(le, FLXATTR, std::uint32_t(names4.size()), 0, 0),
                        str_bytes(names4)}),
        300);
  // 5-6
  {
    Bytes acl = posix_acl(acl5);
    o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x3100),
          lustre_msg(true, {ptlrpc_body(true, B(RQ, LNETCAP_OPC_MDS_GETATTR, 0x00020003)),
                            mdt_body_ex(true, FLACL, 0, 0, 0), {}}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3100),
          lustre_msg(true, {ptlrpc_body(true, B(RP, LNETCAP_OPC_MDS_GETATTR, 0)),
                            mdt_body_ex(true, 0x1 | FLACL, 0, std::uint32_t(acl.size()), 0), {}, acl,
                            {}, {}, {}}),
          400);
  }
  // 7-8
  static const char names2_c[] = "user.color\0system.posix_acl_access";
  const std::string names2(names2_c, sizeof names2_c);
  Bytes acl3b = posix_acl(acl3);
  Bytes vals = str_bytes("blue");
  vals.insert(vals.end(), acl3b.begin(), acl3b.end());
  o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x3180),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_LDLM_ENQUEUE, 0x00040003)),
                        ldlm_request(le, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_IBITS, res, 4,
                                     LNETCAP_MDS_INODELOCK_XATTR, 0, {}),
                        u64buf(le, 0x80 /* IT_GETXATTR */),
                        mdt_body_ex(le, FLXATTR | FLXATTRLS, 65536, 0, 0), {}, {}}));
  o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3180),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_ENQUEUE, 0)),
                        ldlm_reply(le, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_IBITS, res, 4,
                                   LNETCAP_MDS_INODELOCK_XATTR, 0, 0x5e7f1, 0),
                        mdt_body_ex(le, FLXATTR, std::uint32_t(names2.size()),
                                    std::uint32_t(vals.size()), 2),
                        {}, Bytes(260, 0) /* RMF_ACL reserved, LUSTRE_POSIX_ACL_MAX_SIZE_OLD */,
                        str_bytes(names2), vals, u32s(le, {4, std::uint32_t(acl3b.size())})}),
        500);
  // 9-10
  {
    W r = reint(le, LNETCAP_REINT_OPEN);
    r.u32(OFF(lnetcap_mdt_rec_create, cr_flags_l), 0x2 /* O_RDWR */);
    o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x3200),
          lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_LDLM_ENQUEUE, 0x00040003)),
                          ldlm_request(le, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_IBITS, res, 4,
                                       0x1 | 0x4 | 0x8 | 0x40, 0, {}),
                          u64buf(le, 0x1 /* IT_OPEN */), r.b, {}, {}, cstr("small"), {}}));
    Bytes acl = posix_acl(acl3);
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3200),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_ENQUEUE, 0)),
                          ldlm_reply(le, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_IBITS, res, 4,
                                     0x1 | 0x4 | 0x8 | 0x40, 0, 0x5e7f2, 0x1 | 0x2 | 0x8 | 0x20),
                          mdt_body_ex(le, 0x1 | FLACL | LNETCAP_OBD_MD_DOM_SIZE, 0,
                                      std::uint32_t(acl.size()), 0, 11),
                          {}, acl, {}, {}, niobuf_inline(le, 0, 11, str_bytes("hello world")), {},
                          {}, {}}),
          600);
  }
  // 11: 2.15 (no DEFAULT_MDT_MD), no ACL (OBD_MD_FLACL clear), file tail.
  o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3280),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_ENQUEUE, 0)),
                        ldlm_reply(le, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_IBITS, res, 4, 0x40, 0,
                                   0x5e7f3, 0x1 | 0x2 | 0x8 | 0x20),
                        mdt_body_ex(le, 0x1 | LNETCAP_OBD_MD_DOM_SIZE, 0, 0, 0, 4101), {}, {}, {},
                        {}, niobuf_inline(le, 4096, 5, str_bytes("tail\n")), {}, {}}),
        600);
  // 12-13
  o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x3300),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_LDLM_ENQUEUE, 0x00040003)),
                        ldlm_request(le, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_IBITS, res, 16,
                                     LNETCAP_MDS_INODELOCK_LAYOUT, 0, {}),
                        u64buf(le, 0x400 /* IT_LAYOUT */), layout_intent(le, 2, 0, 0, 1048576), {}}));
  o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3300),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_ENQUEUE, 0)),
                        ldlm_reply(le, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_IBITS, res, 16,
                                   LNETCAP_MDS_INODELOCK_LAYOUT, 0, 0x5e7f4, 0),
                        lov_md(le, "", 0x200000401ULL, 9, 1048576, {{0x240000400ULL, 0}})}),
        700);
  // 14
  o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x3380),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_LDLM_ENQUEUE, 0x00040003)),
                        ldlm_request(le, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_IBITS, res, 16,
                                     LNETCAP_MDS_INODELOCK_LAYOUT, 0, {}),
                        u64buf(le, 0x400), layout_intent(le, 4, 0x1, 4096, ~0ULL), {}}));
  // 15-16: mdc_close_pack(): mdt_ioepoch, then a setattr record.
  {
    W e(sizeof(struct lnetcap_mdt_ioepoch), le);
    e.u64(OFF(lnetcap_mdt_ioepoch, mio_open_handle), 0x6a6b6c6d6e6f7071ULL);
    e.u64(OFF(lnetcap_mdt_ioepoch, mio_unused1), 0x1111111111111111ULL);
    e.u32(OFF(lnetcap_mdt_ioepoch, mio_unused2), 0x22222222);
    e.u32(OFF(lnetcap_mdt_ioepoch, mio_padding), 0x33333333);
    o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x3400),
          lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_MDS_CLOSE, 0x00020003)), e.b,
                          reint(le, LNETCAP_REINT_SETATTR).b, {}}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3400),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_CLOSE, 0)),
                          mdt_body_ex(le, 0x1, 0, 0, 0), {}, {}, {}, {}}),
          300);
  }
  // 17: lengths 4 and 100, but EAVALS holds 4 + 28 bytes.
  o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3480),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_ENQUEUE, 0)),
                        ldlm_reply(le, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_IBITS, res, 4,
                                   LNETCAP_MDS_INODELOCK_XATTR, 0, 0x5e7f5, 0),
                        mdt_body_ex(le, FLXATTR, std::uint32_t(names2.size()),
                                    std::uint32_t(vals.size()), 2),
                        {}, Bytes(260, 0), str_bytes(names2), vals, u32s(le, {4, 100})}));
  // 18: 2000 bytes of DoM data, the record cut 300 bytes into them.
  {
    Bytes data(2000);
    for (std::size_t k = 0; k < data.size(); ++k) data[k] = std::uint8_t('a' + k % 26);
    Bytes m = lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_ENQUEUE, 0)),
                              ldlm_reply(le, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_IBITS, res, 4,
                                         0x40, 0, 0x5e7f6, 0x1 | 0x2 | 0x8 | 0x20),
                              mdt_body_ex(le, 0x1 | LNETCAP_OBD_MD_DOM_SIZE, 0, 0, 0, 2000), {}, {},
                              {}, {}, niobuf_inline(le, 0, 2000, data), {}, {}, {}});
    // Where the data starts: search for its first bytes.
    std::size_t at = 0;
    while (at + data.size() <= m.size() && std::memcmp(&m[at], data.data(), data.size()) != 0) ++at;
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3500), m, 1000, nullptr, at + 300);
  }
  // 19
  o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3580),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_GETATTR, 0)),
                        mdt_body_ex(le, FLACL, 0, 28, 0), {}, posix_acl(acl3, 1), {}, {}, {}}));
  // 20: the ACL's 5 entries, the record cut after the second.
  {
    Bytes acl = posix_acl(acl5);
    Bytes m = lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_GETATTR, 0)),
                              mdt_body_ex(le, FLACL, 0, std::uint32_t(acl.size()), 0), {}, acl, {},
                              {}, {}});
    std::size_t at = 0;  // where the ACL starts
    while (at + acl.size() <= m.size() && std::memcmp(&m[at], acl.data(), acl.size()) != 0) ++at;
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3600), m, 1000, nullptr, at + 4 + 2 * 8);
  }
  // 21
  o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3680),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_GETXATTR, 0)),
                        mdt_body_ex(le, FLXATTR, 4, 0, 0), str_bytes("blue")}));
  // 22: rnb_len 500, 11 data bytes.
  o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3700),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_ENQUEUE, 0)),
                        ldlm_reply(le, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_IBITS, res, 4, 0x40, 0,
                                   0x5e7f7, 0x1 | 0x2 | 0x8 | 0x20),
                        mdt_body_ex(le, 0x1 | LNETCAP_OBD_MD_DOM_SIZE, 0, 0, 0, 500), {}, {}, {}, {},
                        niobuf_inline(le, 0, 500, str_bytes("hello world")), {}, {}, {}}));
  // 23
  o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3780),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_GETATTR, 0)),
                        mdt_body_ex(le, 0x1, 0, 28, 0), {}, posix_acl(acl3), {}, {}, {}}));
  // 24: an ACL as lnetcap --anon-key leaves it: zeroed.
  o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3800),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_GETATTR, 0)),
                        mdt_body_ex(le, FLACL, 0, 28, 0), {}, Bytes(28, 0), {}, {}, {}}));
  // 25-26: a getxattr size probe (request mbo_eadatasize 0): the reply
  // says how long the value is and carries none of it.
  o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x3880),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_MDS_GETXATTR, 0x00020003)),
                        mdt_body_ex(le, FLXATTR, 0, 0, 0), {}, cstr("security.selinux"), {}, {}}));
  o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3880),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_GETXATTR, 0)),
                        mdt_body_ex(le, FLXATTR, 37, 0, 0), {}}),
        200);
}

// Early lock cancels outside MDS_REINT, laid out as the 2.16 client packs
// them (ldlm_prep_elc_req(), _ldlm_cancel_pack(), ldlm_request_bufsize():
// the DLM_REQ buffer is offsetof(ldlm_request, lock_handle[max(n, 2)]),
// n counting the enqueued lock's own slot for LDLM_ENQUEUE):
//  1-2 OST_DESTROY (RQF_OST_DESTROY: OST_BODY, DLM_REQ, CAPA1) cancelling
//      two PW extent locks on the object (osc_destroy());
//  3-4 OST_DESTROY cancelling nothing: lock_count 0 in a 104-byte buffer;
//  5-6 LDLM_ENQUEUE of an extent lock whose ldlm_request carries its own
//      handle in slot 0 and three LRU locks in slots 1-3 (lock_count 4,
//      LDLM_ENQUEUE_CANCEL_OFF);
//  7-8 LDLM_ENQUEUE with no early cancel (lock_count 1, the default
//      104-byte buffer);
//  9-10 LDLM_CANCEL of three locks (ldlm_cli_cancel_req()).
void elc_records(Out& o) {
  const bool le = false;
  const std::uint64_t res_ost[4] = {0x7, 0x240000400ULL, 0, 0};
  auto destroy = [&](std::uint64_t xid, std::vector<std::uint64_t> cancels) {
    Bytes dlm = ldlm_request(le, 0, LNETCAP_LDLM_PLAIN, res_ost, 0, 0, 0, cancels);
    o.msg(req(CL, SV, LNETCAP_PORTAL_OST_IO, xid),
          lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_OST_DESTROY, 0x00030003)),
                          ost_body(le, 0x7, 0), dlm, {}}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_OSC_REPLY, xid),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_OST_DESTROY, 0)), ost_body(le, 0x7, 0)}),
          300);
  };
  destroy(0x3000, {0x5e7e10, 0x5e7e11});
  destroy(0x3080, {});
  auto enqueue = [&](std::uint64_t xid, std::vector<std::uint64_t> handles) {
    o.msg(req(CL, SV, LNETCAP_PORTAL_OST_REQUEST, xid),
          lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_LDLM_ENQUEUE, 0x00040003)),
                          ldlm_request(le, 0, LNETCAP_LDLM_EXTENT, res_ost, 2, 0, ~0ULL, handles)}));
    o.msg(rep(CL, SV, LNETCAP_PORTAL_OSC_REPLY, xid),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_ENQUEUE, 0)),
                          ldlm_reply(le, 0, LNETCAP_LDLM_EXTENT, res_ost, 2, 0, ~0ULL, 0x5e7e20, 0),
                          ost_lvb(le, 0)}),
          400);
  };
  enqueue(0x3100, {0xc0ffee10, 0x5e7e12, 0x5e7e13, 0x5e7e14});
  enqueue(0x3180, {0xc0ffee11});
  o.msg(req(CL, SV, LNETCAP_PORTAL_LDLM_CANCEL_REQUEST, 0x3200),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_LDLM_CANCEL, 0x00040003)),
                        ldlm_request(le, 0, LNETCAP_LDLM_PLAIN, res_ost, 0, 0, 0,
                                     {0x5e7e15, 0x5e7e16, 0x5e7e17})}));
  o.msg(rep(CL, SV, LNETCAP_PORTAL_LDLM_CANCEL_REPLY, 0x3200),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_CANCEL, 0))}), 200);
  // 11-12 MDS_SWAP_LAYOUTS (RQF_MDS_SWAP_LAYOUTS: MDT_BODY, SWAP_LAYOUTS,
  //       CAPA1, CAPA2, DLM_REQ) with CHECK_DV1|KEEP_MTIME, cancelling two
  //       locks (mdc_swap_layouts() -> ldlm_prep_elc_req()); the reply is
  //       the ptlrpc_body alone.
  o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x3280),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_MDS_SWAP_LAYOUTS, 0x00040003)),
                        mdt_body(le, 0x200000401ULL, 7, 0),
                        u64buf(le, LNETCAP_SWAP_LAYOUTS_CHECK_DV1 | LNETCAP_SWAP_LAYOUTS_KEEP_MTIME),
                        {}, {},
                        ldlm_request(le, 0, LNETCAP_LDLM_PLAIN, res_ost, 0, 0, 0, {0x5e7e18, 0x5e7e19})}));
  o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3280),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_SWAP_LAYOUTS, 0))}), 200);
}

// OBD_PINGs to 300 servers (10.1.0.1@tcp ... 10.1.1.44@tcp), each answered:
// more targets than the SRT keeps tables for (lnetcap-stats.c, 256).
void srt_target_records(Out& o) {
  const bool le = false;
  for (int k = 0; k < 300; ++k) {
    const std::string sv = "10.1." + std::to_string((k + 1) / 256) + "." + std::to_string((k + 1) % 256) + "@tcp";
    const std::uint64_t xid = 0x4000 + 0x80 * std::uint64_t(k);
    o.msg(req(CL, sv.c_str(), LNETCAP_PORTAL_OST_REQUEST, xid),
          lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_OBD_PING, 0x00010003))}));
    o.msg(rep(CL, sv.c_str(), LNETCAP_PORTAL_OSC_REPLY, xid),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_OBD_PING, 0))}), 100);
  }
}

void random_records(Out& o, int n, unsigned seed) {
  std::mt19937 rng(seed);
  for (int i = 0; i < n; ++i) {
    // A real record header (so the plugin gets past the magic), then
    // random LNet header and payload bytes, with random length fields.
    Lnet l = req(CL, SV, rng() % 40, rng());
    l.type = rng() % 6;
    l.large = rng() % 2;
    Bytes payload(rng() % 600);
    for (auto& b : payload) b = std::uint8_t(rng());
    if (payload.size() >= 12 && rng() % 2) {
      // Make most of them look like lustre_msg so PtlRPC code is exercised.
      std::uint32_t magic = rng() % 4 ? LNETCAP_LUSTRE_MSG_MAGIC_V2 : LNETCAP_LUSTRE_MSG_MAGIC_V2_SWABBED;
      std::memcpy(&payload[OFF(lnetcap_lustre_msg_v2, lm_magic)], &magic, sizeof(magic));
      // A small lm_bufcount (its low byte random, the rest zero).
      std::uint32_t bufcount = rng() % 12;
      std::memcpy(&payload[OFF(lnetcap_lustre_msg_v2, lm_bufcount)], &bufcount, sizeof(bufcount));
    }
    if (l.type == LNETCAP_MSG_PUT && payload.size() > 200 && rng() % 2) {
      Body b = B(rng() % 2 ? RQ : RP, lnetcap_opcodes_sample(rng), 0x3);
      Bytes body = ptlrpc_body(false, b);
      std::vector<Bytes> bufs{body};
      for (int k = rng() % 6; k > 0; --k) {
        Bytes x(rng() % 300);
        for (auto& c : x) c = std::uint8_t(rng());
        bufs.push_back(x);
      }
      payload = lustre_msg(false, bufs);
      for (int k = rng() % 8; k > 0; --k) payload[rng() % payload.size()] = std::uint8_t(rng());
    }
    o.msg(l, payload, 10, nullptr, rng() % 3 ? SIZE_MAX : rng() % 700);
  }
}

// Classic pcap (Ethernet/IPv4/TCP) replicated K times for the benchmark:
// copy k gets its client-side TCP ports shifted by k and its timestamps
// moved past the previous copy, so every copy is a distinct TCP
// conversation and Wireshark reassembles each one (plain concatenation
// would look like retransmissions).  TCP checksums are left stale;
// Wireshark does not verify them by default.
int replicate_pcap(const char* in, const char* out, int copies, std::uint16_t server_port) {
  FILE* f = std::fopen(in, "rb");
  if (!f) return 1;
  Bytes data;
  std::uint8_t buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) data.insert(data.end(), buf, buf + n);
  std::fclose(f);
  if (data.size() < 24 || load_le32(data.data()) != 0xa1b2c3d4u) return 2;  // LE usec pcap only
  FILE* o = std::fopen(out, "wb");
  if (!o) return 1;
  std::fwrite(data.data(), 1, 24, o);
  std::uint32_t first = 0, last = 0;
  for (std::size_t p = 24; p + 16 <= data.size(); p += 16 + load_le32(&data[p + 8])) {
    if (p == 24) first = load_le32(&data[p]);
    last = load_le32(&data[p]);
  }
  const std::uint32_t span = last - first + 1;
  for (int k = 0; k < copies; ++k) {
    for (std::size_t p = 24; p + 16 <= data.size();) {
      std::uint32_t caplen = load_le32(&data[p + 8]);
      Bytes rec(data.begin() + p, data.begin() + p + 16 + caplen);
      store_le32(&rec[0], load_le32(&rec[0]) + k * span);
      std::uint8_t* eth = &rec[16];
      if (caplen >= 14 + 20 + 4 && eth[12] == 0x08 && eth[13] == 0x00 && eth[14 + 9] == 6) {
        std::uint8_t* tcp = eth + 14 + (eth[14] & 0xf) * 4;
        if (tcp + 4 <= eth + caplen) {
          for (int side = 0; side < 2; ++side) {
            std::uint16_t port = load_be16(tcp + 2 * side);
            if (port != server_port) store_be16(tcp + 2 * side, std::uint16_t(port + 7 * k));
          }
        }
      }
      std::fwrite(rec.data(), 1, rec.size(), o);
      p += 16 + caplen;
    }
  }
  return std::fclose(o) == 0 ? 0 : 1;
}

// NID printing cross-check: one PUT per NID pair, in the nid16 header (any
// NID) and, when both fit, the nid4 header too; EXPECTED gets one line per
// record, "src|dest" as the agent's Nid::to_string() prints them.
int nid_vectors(const char* out_path, const char* expected_path) {
  std::vector<Nid> nids;
  for (const char* t : {"10.0.0.1@tcp", "192.168.1.2@tcp1", "10.1.2.3@o2ib", "10.1.2.3@o2ib65535",
                        "0@lo", "16@kfi", "4294967295@kfi7", "27@gni3", "3@ptlf", "5@bxi3f",
                        "172.16.0.9@gip", "10.9.8.7@efa2", "fe80::1@tcp", "2001:db8::42@o2ib2",
                        "::ffff:10.0.0.1@efa", "c0a80102@<99:0>", "1:2:3:4@<200:5>", "<?>"})
    nids.push_back(*Nid::parse(t));
  // Types Lustre has no printer for (removed LNDs, TOFU) and odd sizes.
  Nid n = *Nid::parse("c0a80102@<99:0>");
  for (std::uint8_t type : {1, 3, 6, 17, 255 - 1}) {
    n.type = type;
    nids.push_back(n);
  }
  Nid big = *Nid::parse("1:2:3:4@<200:5>");
  big.type = LNETCAP_LND_KFILND;  // numeric LND with a 16-byte address
  nids.push_back(big);
  big.type = LNETCAP_LND_SOCKLND;
  big.size = 4;  // 8-byte address on an IP LND: hex words
  nids.push_back(big);

  Out o(out_path);
  FILE* e = std::fopen(expected_path, "w");
  if (!e) return 1;
  for (std::size_t i = 0; i < nids.size(); ++i) {
    Lnet l;
    l.src = nids[i];
    l.dst = nids[(i + 1) % nids.size()];
    l.portal = LNETCAP_PORTAL_MDS_REQUEST;
    l.mbits = 0x100 + i;
    l.large = true;
    o.msg(l, {});
    std::fprintf(e, "%s|%s\n", l.src.to_string().c_str(), l.dst.to_string().c_str());
    if (l.src.is_nid4_compatible() && l.dst.is_nid4_compatible() && !l.src.is_any() && !l.dst.is_any()) {
      l.large = false;
      o.msg(l, {});
      std::fprintf(e, "%s|%s\n", l.src.to_string().c_str(), l.dst.to_string().c_str());
    }
  }
  o.close();
  return std::fclose(e) == 0 ? 0 : 1;
}

// Payload notes: one record cut by the snap length, and one per reason a
// live capture could not read a payload (record flags PAYLOAD_*).
int unreadable_vectors(const char* out_path) {
  Out o(out_path);
  Lnet l = req("10.0.0.1@tcp", "10.0.0.2@tcp", LNETCAP_PORTAL_OST_REQUEST, 0x2000);
  Bytes payload(300, 0x5a);
  o.msg(l, payload, 1000, nullptr, 100);  // snap length
  for (int why : {0, int{LNETCAP_REC_F_PAYLOAD_NO_PAGE_MAP}, int{LNETCAP_REC_F_PAYLOAD_FAULT},
                  int{LNETCAP_REC_F_PAYLOAD_PAGE_LIMIT}, int{LNETCAP_REC_F_PAYLOAD_DEVICE_MEMORY},
                  int{LNETCAP_REC_F_PAYLOAD_DISCARDED}}) {
    RecordHeader h = o.rh(l.src, l.dst, LNETCAP_DIR_SEND);
    h.seq = o.seq_;
    h.flags = static_cast<std::uint16_t>(h.flags | LNETCAP_REC_F_PAYLOAD_UNREADABLE | why);
    o.msg(l, payload, 1000, &h, 0);
  }
  o.close();
  return 0;
}

// --- FLD, quota, OUT_UPDATE and MDS_BATCH (test-fld.sh, test-quota.sh,
// test-out.sh).  Layouts: Lustre 2.16.1 lustre/ptlrpc/layout.c and
// lustre_idl.h / lustre_user.h, as include/lnetcap/fld.h, quota.h and
// out_update.h restate them (their static asserts pin every offset used
// here).  Each list has a record whose count runs past its buffer and one
// cut by the snap length.

Bytes seq_range(bool be, std::uint64_t start, std::uint64_t end, std::uint32_t index,
                std::uint32_t flags) {
  W w(sizeof(struct lnetcap_lu_seq_range), be);
  w.u64(OFF(lnetcap_lu_seq_range, lsr_start), start);
  w.u64(OFF(lnetcap_lu_seq_range, lsr_end), end);
  w.u32(OFF(lnetcap_lu_seq_range, lsr_index), index);
  w.u32(OFF(lnetcap_lu_seq_range, lsr_flags), flags);
  return w.b;
}

// lu_seq_range_array of an FLD_READ reply: always little-endian
// (fld_index.c range_array_cpu_to_le()), whatever the message's order.
Bytes seq_range_array(std::uint32_t count, const std::vector<Bytes>& ranges) {
  W w(sizeof(struct lnetcap_lu_seq_range_array) + 24 * ranges.size(), false);
  w.u32(OFF(lnetcap_lu_seq_range_array, lsra_count), count);
  for (std::size_t k = 0; k < ranges.size(); ++k) w.raw(8 + 24 * k, ranges[k].data(), 24);
  return w.b;
}

// Lustre 2.17 ping REPLYs with the NID metadata trailer (the METADATA
// feature; api-ni.c lnet_ping_target_install_locked()), built by
// tests/support/lnet_builders.h ping_info():
//  1 LARGE_ADDR + METADATA: the trailer after the large list, where
//    pi_ni[0].ns_msg_size says the NI part ends;
//  2 nid4 + METADATA, buffers of 0x5a as CFS_FAIL_TEST_PING_MD fills them;
//  3 the same cut by the snap length inside the second entry;
//  4 a count of 0xffffffff behind one entry.
void ping_md_records(Out& o) {
  const char* EA = "10.0.0.5@efa";
  const char* EB = "10.0.0.6@efa";
  test::PingMetadataSpec ma{N(EA), {}}, mb{N(EB), {}};
  for (std::size_t i = 0; i < ma.buffer.size(); ++i) {
    ma.buffer[i] = std::uint8_t(0xa0 + i);
    mb.buffer[i] = 0x5a;
  }
  Lnet r;
  r.src = N(EA);
  r.dst = N(EB);
  r.type = LNETCAP_MSG_REPLY;
  test::PingInfoSpec large;
  large.nis = {{N("0@lo"), 5}, {N(EA)}, {N("fe80::5@tcp1")}};
  large.metadata = {ma};
  o.msg(r, test::ping_info(large), 80);
  test::PingInfoSpec nid4;
  nid4.nis = {{N("0@lo"), 6}, {N(EA)}, {N(EB), LNETCAP_LNET_NI_STATUS_DOWN}};
  nid4.metadata = {mb, mb};
  nid4.metadata[0].nid = N(EA);
  const Bytes two = test::ping_info(nid4);
  o.msg(r, two, 80);
  o.msg(r, two, 80, nullptr, two.size() - 8);
  test::PingInfoSpec hostile;
  hostile.nis = {{N("0@lo"), 7}, {N(EA)}};
  hostile.metadata = {ma};
  hostile.md_count = 0xffffffffu;
  o.msg(r, test::ping_info(hostile), 80);
}

//  1-2 FLD_QUERY FLD_LOOKUP of sequence 0x200000401, answered with
//      [0x200000400-0x240000400) on MDT 0;
//  3-4 FLD_READ from 0x200000400, the reply in a big-endian lustre_msg with
//      its little-endian array of 3 ranges (MDT0, MDT1, OST0);
//  5   FLD_READ reply whose lsra_count (1000) is past its 2-range buffer;
//  6   FLD_READ reply of 3 ranges cut by the snap length after the first.
void fld_records(Out& o) {
  const bool le = false, be = true;
  const char* MD1 = "10.0.0.3@tcp";
  W opc(4, le);
  opc.u32(0, 2);  // FLD_LOOKUP
  o.msg(req(MD1, SV, LNETCAP_PORTAL_FLD_REQUEST, 0x3000),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_FLD_QUERY, 0x00020003)), opc.b,
                        seq_range(le, 0x200000401ULL, 0, 0, 3 /* LU_SEQ_RANGE_ANY */)}));
  o.msg(rep(MD1, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3000),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_FLD_QUERY, 0)),
                        seq_range(le, 0x200000400ULL, 0x240000400ULL, 0, 0)}),
        200);
  const std::vector<Bytes> three = {seq_range(false, 0x200000400ULL, 0x240000400ULL, 0, 0),
                                    seq_range(false, 0x240000400ULL, 0x280000400ULL, 1, 0),
                                    seq_range(false, 0x100000000ULL, 0x100010000ULL, 0, 1)};
  o.msg(req(MD1, SV, LNETCAP_PORTAL_FLD_REQUEST, 0x3080),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_FLD_READ, 0x00020003)),
                        seq_range(le, 0x200000400ULL, 0, 0, 0)}));
  o.msg(rep(MD1, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3080),
        lustre_msg(be, {ptlrpc_body(be, B(RP, LNETCAP_OPC_FLD_READ, 0)), seq_range_array(3, three)}),
        200);
  o.msg(rep(MD1, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3100),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_FLD_READ, 0)),
                        seq_range_array(1000, {three[0], three[1]})}),
        200);
  Bytes cut = lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_FLD_READ, 0)),
                              seq_range_array(3, three)});
  o.msg(rep(MD1, SV, LNETCAP_PORTAL_MDC_REPLY, 0x3180), cut, 200, nullptr, cut.size() - 2 * 24);
}

Bytes quota_body(bool be, std::uint32_t qtype, std::uint32_t res, std::uint64_t id,
                 std::uint32_t flags, std::uint64_t count, std::uint64_t usage) {
  W w(sizeof(struct lnetcap_quota_body), be);
  // qb_fid: the global index, as lquota_generate_fid() builds it.
  fid(w, OFF(lnetcap_quota_body, qb_fid), LNETCAP_FID_SEQ_QUOTA_GLB, qtype << 24 | res << 16);
  w.u64(OFF(lnetcap_quota_body, qb_id), id);
  w.u32(OFF(lnetcap_quota_body, qb_flags), flags);
  w.u64(OFF(lnetcap_quota_body, qb_count), count);
  w.u64(OFF(lnetcap_quota_body, qb_usage), usage);
  w.u64(OFF(lnetcap_quota_body, qb_slv_ver), 7);
  w.u64(OFF(lnetcap_quota_body, qb_lockh), 0xabc0001ULL);
  w.u64(OFF(lnetcap_quota_body, qb_glb_lockh), 0xdef0002ULL);
  return w.b;
}

Bytes quotactl(bool be, std::uint32_t cmd, std::uint32_t type, std::uint32_t id,
               const std::string& pool = "") {
  W w(sizeof(struct lnetcap_obd_quotactl) + (pool.empty() ? 0 : LNETCAP_LOV_MAXPOOLNAME + 1), be);
  w.u32(OFF(lnetcap_obd_quotactl, qc_cmd), cmd);
  w.u32(OFF(lnetcap_obd_quotactl, qc_type), type);
  w.u32(OFF(lnetcap_obd_quotactl, qc_id), id);
  if (!pool.empty()) w.str(sizeof(struct lnetcap_obd_quotactl), pool);
  return w.b;
}

//  1-2 QUOTA_DQACQ: user 1000 acquires 4096 kbytes of block quota (ACQ,
//      REPORT), the master grants them with a qunit of 65536;
//  3-4 MDS_QUOTACTL LUSTRE_Q_GETQUOTA of user 1000, the reply with its
//      limits and usage and a 16-byte RMF_OBD_QUOTA_ITER (2.16);
//  5   OST_QUOTACTL LUSTRE_Q_GETQUOTAPOOL of group 100 in pool "flash";
//  6-7 LDLM_ENQUEUE of a per-ID quota lock with IT_QUOTA_DQACQ: quota_body
//      in the request (PREACQ) and, after the lquota_lvb, in the reply;
//  8   LDLM_ENQUEUE with IT_QUOTA_CONN of the group inode index;
//  9   QUOTA_DQACQ whose quota_body is cut by the snap length.
void quota_records(Out& o) {
  const bool le = false;
  const char* OS = "10.0.0.4@tcp";
  o.msg(req(OS, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x4000),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_QUOTA_DQACQ, 0x00020003)),
                        quota_body(le, 0 /* USR */, 2 /* DT */, 1000, 0x1 | 0x8, 4096, 1024)}));
  o.msg(rep(OS, SV, LNETCAP_PORTAL_MDC_REPLY, 0x4000),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_QUOTA_DQACQ, 0)),
                        quota_body(le, 0, 2, 1000, 0x1, 4096, 65536)}),
        200);
  o.msg(req(CL, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x4080),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_MDS_QUOTACTL, 0x00020003)),
                        quotactl(le, 0x800007 /* LUSTRE_Q_GETQUOTA */, 0 /* USRQUOTA */, 1000)}));
  {
    W q(0, le);
    q.b = quotactl(le, 0x800007, 0, 1000);
    const std::size_t d = OFF(lnetcap_obd_quotactl, qc_dqblk);
    q.u64(d + OFF(lnetcap_obd_dqblk, dqb_bhardlimit), 1048576);
    q.u64(d + OFF(lnetcap_obd_dqblk, dqb_bsoftlimit), 524288);
    q.u64(d + OFF(lnetcap_obd_dqblk, dqb_curspace), 123456789);
    q.u64(d + OFF(lnetcap_obd_dqblk, dqb_curinodes), 42);
    q.u32(d + OFF(lnetcap_obd_dqblk, dqb_valid), 0x3f);
    q.u64(OFF(lnetcap_obd_quotactl, qc_dqinfo) + OFF(lnetcap_obd_dqinfo, dqi_bgrace), 604800);
    o.msg(rep(CL, SV, LNETCAP_PORTAL_MDC_REPLY, 0x4080),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_QUOTACTL, 0)), q.b, Bytes(16, 0x11)}),
          200);
  }
  o.msg(req(CL, "10.0.0.4@tcp", LNETCAP_PORTAL_OST_REQUEST, 0x4100),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_OST_QUOTACTL, 0x00030003)),
                        quotactl(le, 0x80000f /* LUSTRE_Q_GETQUOTAPOOL */, 1 /* GRPQUOTA */, 100,
                                 "flash")}));
  // Per-ID lock: resource [FID_SEQ_QUOTA_GLB, f_oid, id] (qmt_lock.c).
  std::uint64_t res_id[4] = {LNETCAP_FID_SEQ_QUOTA_GLB, 0x20000, 1000, 0};
  o.msg(req(OS, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x4180),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_LDLM_ENQUEUE, 0x00040003)),
                        ldlm_request(le, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_PLAIN, res_id, 4,
                                     0, 0, {}),
                        u64buf(le, LNETCAP_IT_QUOTA_DQACQ),
                        quota_body(le, 0, 2, 1000, 0x2 /* PREACQ */, 0, 2048)}));
  {
    W q(sizeof(struct lnetcap_lquota_lvb), le);
    q.u64(OFF(lnetcap_lquota_lvb, lvb_id_qunit), 65536);
    o.msg(rep(OS, SV, LNETCAP_PORTAL_MDC_REPLY, 0x4180),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_LDLM_ENQUEUE, 0)),
                          ldlm_reply(le, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_PLAIN, res_id, 4, 0,
                                     0, 0x5e7e8, 0),
                          q.b, quota_body(le, 0, 2, 1000, 0x2, 8192, 65536)}),
          200);
  }
  std::uint64_t res_glb[4] = {LNETCAP_FID_SEQ_QUOTA_GLB, 0x1010000, 0, 0};
  o.msg(req(OS, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x4200),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_LDLM_ENQUEUE, 0x00040003)),
                        ldlm_request(le, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_PLAIN, res_glb, 4,
                                     0, 0, {}),
                        u64buf(le, LNETCAP_IT_QUOTA_CONN),
                        quota_body(le, 1 /* GRP */, 1 /* MD */, 0, 0, 0, 0)}));
  Bytes cut = lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_QUOTA_DQACQ, 0x00020003)),
                              quota_body(le, 0, 2, 1001, 0x1, 4096, 0)});
  o.msg(req(OS, SV, LNETCAP_PORTAL_MDS_REQUEST, 0x4280), cut, 1000, nullptr, cut.size() - 64);
}

// object_update with its parameters (obj_update.h packing: each parameter
// 8 bytes of header + oup_len, rounded up to 8).
Bytes object_update(bool be, std::uint16_t type, std::uint32_t flags, std::uint64_t fseq,
                    std::uint32_t foid, const std::vector<Bytes>& params,
                    std::uint16_t params_count_override = 0) {
  std::size_t n = sizeof(struct lnetcap_object_update);
  const std::size_t phdr = sizeof(struct lnetcap_object_update_param);  // oup_buf follows
  for (const auto& p : params) n += LNETCAP_LUSTRE_MSG_ROUND8(phdr + p.size());
  W w(n, be);
  w.u16(OFF(lnetcap_object_update, ou_type), type);
  w.u16(OFF(lnetcap_object_update, ou_params_count),
        params_count_override ? params_count_override : std::uint16_t(params.size()));
  w.u32(OFF(lnetcap_object_update, ou_result_size), 64);
  w.u32(OFF(lnetcap_object_update, ou_flags), flags);
  w.u64(OFF(lnetcap_object_update, ou_batchid), 0x1000000abULL);
  fid(w, OFF(lnetcap_object_update, ou_fid), fseq, foid);
  std::size_t pos = sizeof(struct lnetcap_object_update);
  for (const auto& p : params) {
    w.u16(pos, std::uint16_t(p.size()));
    if (!p.empty()) w.raw(pos + phdr, p.data(), p.size());
    pos += LNETCAP_LUSTRE_MSG_ROUND8(phdr + p.size());
  }
  return w.b;
}

// out_update_header with the object_update_request inline
// (osp_trans.c osp_prep_inline_update_req()); inline_len 0: its real size.
Bytes out_update_inline(bool be, std::uint16_t count, const std::vector<Bytes>& updates,
                        std::uint32_t inline_len = 0) {
  std::size_t body = sizeof(struct lnetcap_object_update_request);
  for (const auto& u : updates) body += u.size();
  W w(sizeof(struct lnetcap_out_update_header) + body, be);
  w.u32(OFF(lnetcap_out_update_header, ouh_magic), LNETCAP_OUT_UPDATE_HEADER_MAGIC);
  w.u32(OFF(lnetcap_out_update_header, ouh_count), 1);
  w.u32(OFF(lnetcap_out_update_header, ouh_inline_length), inline_len ? inline_len : std::uint32_t(body));
  w.u32(OFF(lnetcap_out_update_header, ouh_reply_size), 4096);
  std::size_t r = sizeof(struct lnetcap_out_update_header);
  w.u32(r + OFF(lnetcap_object_update_request, ourq_magic), LNETCAP_UPDATE_REQUEST_MAGIC_V2);
  w.u16(r + OFF(lnetcap_object_update_request, ourq_count), count);
  std::size_t pos = r + sizeof(struct lnetcap_object_update_request);
  for (const auto& u : updates) {
    w.raw(pos, u.data(), u.size());
    pos += u.size();
  }
  return w.b;
}

// object_update_reply: ourp_lens[], padded to 8, then each result
// (our_rc, our_datalen, data) padded to 8 (object_update_result_get()).
Bytes out_update_reply(bool be, std::uint16_t count,
                       const std::vector<std::pair<std::int32_t, Bytes>>& results) {
  const std::size_t lens = sizeof(struct lnetcap_object_update_reply);    // ourp_lens[] follow
  const std::size_t rhdr = sizeof(struct lnetcap_object_update_result);  // our_data follows
  std::size_t n = LNETCAP_LUSTRE_MSG_ROUND8(lens + 2 * results.size());
  for (const auto& r : results) n += LNETCAP_LUSTRE_MSG_ROUND8(rhdr + r.second.size());
  W w(n, be);
  w.u32(OFF(lnetcap_object_update_reply, ourp_magic), LNETCAP_UPDATE_REPLY_MAGIC_V2);
  w.u16(OFF(lnetcap_object_update_reply, ourp_count), count);
  std::size_t pos = LNETCAP_LUSTRE_MSG_ROUND8(lens + 2 * results.size());
  for (std::size_t k = 0; k < results.size(); ++k) {
    const auto& r = results[k];
    w.u16(lens + 2 * k, std::uint16_t(rhdr + r.second.size()));
    w.u32(pos + OFF(lnetcap_object_update_result, our_rc), std::uint32_t(r.first));
    w.u16(pos + OFF(lnetcap_object_update_result, our_datalen), std::uint16_t(r.second.size()));
    if (!r.second.empty()) w.raw(pos + rhdr, r.second.data(), r.second.size());
    pos += LNETCAP_LUSTRE_MSG_ROUND8(rhdr + r.second.size());
  }
  return w.b;
}

// A batched sub-message: a whole lustre_msg_v2 whose lm_opc is the
// sub-request's batch_update_cmd or the sub-reply's result (lm_result).
Bytes sub_msg(bool be, std::uint32_t opc_or_rc, const std::vector<Bytes>& bufs) {
  W w(0, be);
  w.b = lustre_msg(be, bufs);
  w.u32(OFF(lnetcap_lustre_msg_v2, lm_opc), opc_or_rc);
  return w.b;
}

// but_update_header with the batch_update_request inline
// (batch.c batch_prep_inline_update_req()).
Bytes batch_inline(bool be, std::uint32_t update_count, std::uint16_t count,
                   const std::vector<Bytes>& msgs) {
  std::size_t body = sizeof(struct lnetcap_batch_update_request);
  for (const auto& m : msgs) body += m.size();
  W w(sizeof(struct lnetcap_but_update_header) + body, be);
  w.u32(OFF(lnetcap_but_update_header, buh_magic), LNETCAP_BUT_HEADER_MAGIC);
  w.u32(OFF(lnetcap_but_update_header, buh_count), 1);
  w.u32(OFF(lnetcap_but_update_header, buh_inline_length), std::uint32_t(body));
  w.u32(OFF(lnetcap_but_update_header, buh_reply_size), 65536);
  w.u32(OFF(lnetcap_but_update_header, buh_update_count), update_count);
  std::size_t r = sizeof(struct lnetcap_but_update_header);
  w.u32(r + OFF(lnetcap_batch_update_request, burq_magic), LNETCAP_BUT_REQUEST_MAGIC);
  w.u16(r + OFF(lnetcap_batch_update_request, burq_count), count);
  std::size_t pos = r + sizeof(struct lnetcap_batch_update_request);
  for (const auto& m : msgs) {
    w.raw(pos, m.data(), m.size());
    pos += m.size();
  }
  return w.b;
}

Bytes batch_reply(bool be, std::uint16_t count, const std::vector<Bytes>& msgs) {
  std::size_t n = sizeof(struct lnetcap_batch_update_reply);
  for (const auto& m : msgs) n += m.size();
  W w(n, be);
  w.u32(OFF(lnetcap_batch_update_reply, burp_magic), LNETCAP_BUT_REPLY_MAGIC);
  w.u16(OFF(lnetcap_batch_update_reply, burp_count), count);
  std::size_t pos = sizeof(struct lnetcap_batch_update_reply);
  for (const auto& m : msgs) {
    w.raw(pos, m.data(), m.size());
    pos += m.size();
  }
  return w.b;
}

// A BUT_GETATTR sub-request (layout.c mds_batch_getattr_client: DLM_REQ,
// LDLM_INTENT, MDT_BODY, CAPA1, NAME, FILE_SECCTX_NAME).
Bytes but_getattr(bool be, const std::string& name, std::uint32_t oid) {
  std::uint64_t res[4] = {0x200000401ULL, oid, 0, 0};
  return sub_msg(be, 1 /* BUT_GETATTR */,
                 {ldlm_request(be, LNETCAP_LDLM_FL_HAS_INTENT, LNETCAP_LDLM_IBITS, res, 4, 0x1 | 0x2,
                               0, {}),
                  u64buf(be, 0x8 /* IT_GETATTR */), mdt_body(be, 0x200000401ULL, oid, 0), {},
                  cstr(name), {}});
}

//  1-2  OUT_UPDATE from MDT1 to MDT0: three updates inline (OUT_CREATE with
//       one parameter, OUT_INDEX_INSERT with a name, a FID and a type,
//       OUT_ATTR_SET flagged SYNC), and the reply's three results (0; 0
//       with 16 bytes of data; -EEXIST);
//  3    OUT_UPDATE whose ourq_count (500) runs past its one update;
//  4    OUT_UPDATE whose update declares 300 parameters and holds one;
//  5    OUT_UPDATE reply whose ourp_count (1000) runs past its buffer;
//  6    OUT_UPDATE whose ouh_inline_length is past the end of its buffer;
//  7    OUT_UPDATE cut by the snap length inside its second update;
//  8-9  MDS_BATCH (2.16+) of two BUT_GETATTR sub-requests ("file1",
//       "file2"), the reply's two sub-replies (0, -ENOENT);
//  10   MDS_BATCH whose burq_count (100) runs past its one sub-request;
//  11   MDS_BATCH reply whose burp_count (50) runs past its empty buffer;
//  12   MDS_BATCH whose sub-request declares 1000 buffers;
//  13   OUT_UPDATE sent in bulk (ouh_inline_length 0): ouh_count 3, the
//       RMF_OUT_UPDATE_BUF holding two sizes (osp_trans.c
//       osp_prep_update_req());
//  14   MDS_BATCH sent in bulk: buh_count 2, RMF_BUT_BUF holding one size.
void out_records(Out& o) {
  const bool le = false;
  const char* M1 = "10.0.0.3@tcp";
  const std::uint64_t d0 = 0x200000400ULL;
  W ty(4, le);
  ty.u32(0, 0040000);  // S_IFDIR
  const Bytes child = [&] {
    W f(16, le);
    fid(f, 0, 0x240000401ULL, 0x9);
    return f.b;
  }();
  const std::vector<Bytes> three = {
      object_update(le, 1 /* OUT_CREATE */, 0, 0x240000401ULL, 0x9, {Bytes(16, 0x42)}),
      object_update(le, 10 /* OUT_INDEX_INSERT */, 0, d0, 0x5, {cstr("dir2"), child, ty.b}),
      object_update(le, 5 /* OUT_ATTR_SET */, 0x2 /* UPDATE_FL_SYNC */, 0x240000401ULL, 0x9,
                    {Bytes(8, 0x07)})};
  o.msg(req(M1, SV, LNETCAP_PORTAL_OUT, 0x5000),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_OUT_UPDATE, 0x00040003)),
                        out_update_inline(le, 3, three), W(8, le).b}));
  o.msg(rep(M1, SV, LNETCAP_PORTAL_MDC_REPLY, 0x5000),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_OUT_UPDATE, 0)),
                        out_update_reply(le, 3, {{0, {}}, {0, Bytes(16, 0x33)}, {-17, {}}})}),
        300);
  o.msg(req(M1, SV, LNETCAP_PORTAL_OUT, 0x5080),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_OUT_UPDATE, 0x00040003)),
                        out_update_inline(le, 500, {three[0]})}));
  o.msg(req(M1, SV, LNETCAP_PORTAL_OUT, 0x5100),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_OUT_UPDATE, 0x00040003)),
                        out_update_inline(le, 1,
                                          {object_update(le, 7 /* OUT_XATTR_SET */, 0, d0, 0x5,
                                                         {cstr("trusted.lmv")}, 300)})}));
  {
    // magic, count 1000, then the first lens only
    const std::size_t lens = sizeof(struct lnetcap_object_update_reply);
    W r(2 * lens, le);
    r.u32(OFF(lnetcap_object_update_reply, ourp_magic), LNETCAP_UPDATE_REPLY_MAGIC_V2);
    r.u16(OFF(lnetcap_object_update_reply, ourp_count), 1000);
    r.u16(lens, sizeof(struct lnetcap_object_update_result));  // ourp_lens[0]
    o.msg(rep(M1, SV, LNETCAP_PORTAL_MDC_REPLY, 0x5180),
          lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_OUT_UPDATE, 0)), r.b}), 200);
  }
  o.msg(req(M1, SV, LNETCAP_PORTAL_OUT, 0x5200),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_OUT_UPDATE, 0x00040003)),
                        out_update_inline(le, 1, {three[0]}, 4096)}));
  {
    Bytes m = lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_OUT_UPDATE, 0x00040003)),
                              out_update_inline(le, 3, three)});
    // lustre_msg header (40) + ptlrpc_body v3 (184), out_update_header 16,
    // object_update_request 8, the first update (40 + 24), 20 bytes of the
    // second.
    o.msg(req(M1, SV, LNETCAP_PORTAL_OUT, 0x5280), m, 1000, nullptr,
          LNETCAP_LUSTRE_MSG_HDR_SIZE(2) + LNETCAP_LUSTRE_MSG_ROUND8(sizeof(struct lnetcap_ptlrpc_body)) +
              16 + 8 + 64 + 20);
  }
  o.msg(req(CL, SV, LNETCAP_PORTAL_OUT, 0x5300),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_MDS_BATCH, 0x00020003)),
                        batch_inline(le, 2, 2, {but_getattr(le, "file1", 0x11), but_getattr(le, "file2", 0x12)}),
                        W(8, le).b}));
  o.msg(rep(CL, SV, LNETCAP_PORTAL_OSC_REPLY, 0x5300),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_BATCH, 0)),
                        batch_reply(le, 2, {sub_msg(le, 0, {ldlm_reply(le, 0, LNETCAP_LDLM_IBITS,
                                                                       std::array<std::uint64_t, 4>{0x200000401ULL, 0x11, 0, 0}.data(),
                                                                       4, 0x1 | 0x2, 0, 0x5e7e9, 0),
                                                            mdt_body(le, 0x200000401ULL, 0x11, 100)}),
                                            sub_msg(le, std::uint32_t(-2), {Bytes(8, 0)})})}),
        300);
  o.msg(req(CL, SV, LNETCAP_PORTAL_OUT, 0x5380),
        lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_MDS_BATCH, 0x00020003)),
                        batch_inline(le, 100, 100, {but_getattr(le, "file3", 0x13)})}));
  o.msg(rep(CL, SV, LNETCAP_PORTAL_OSC_REPLY, 0x5400),
        lustre_msg(le, {ptlrpc_body(le, B(RP, LNETCAP_OPC_MDS_BATCH, 0)), batch_reply(le, 50, {})}),
        200);
  {
    Bytes s = but_getattr(le, "file4", 0x14);
    W w(0, le);
    w.b = s;
    w.u32(OFF(lnetcap_lustre_msg_v2, lm_bufcount), 1000);
    o.msg(req(CL, SV, LNETCAP_PORTAL_OUT, 0x5480),
          lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_MDS_BATCH, 0x00020003)),
                          batch_inline(le, 1, 1, {w.b})}));
  }
  {
    W h(sizeof(struct lnetcap_out_update_header), le);
    h.u32(OFF(lnetcap_out_update_header, ouh_magic), LNETCAP_OUT_UPDATE_HEADER_MAGIC);
    h.u32(OFF(lnetcap_out_update_header, ouh_count), 3);
    h.u32(OFF(lnetcap_out_update_header, ouh_reply_size), 8192);
    W sizes(2 * sizeof(struct lnetcap_update_buffer), le);
    sizes.u32(OFF(lnetcap_update_buffer, size), 4096);
    sizes.u32(sizeof(struct lnetcap_update_buffer) + OFF(lnetcap_update_buffer, size), 1200);
    o.msg(req(M1, SV, LNETCAP_PORTAL_OUT, 0x5500),
          lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_OUT_UPDATE, 0x00040003)), h.b, sizes.b}));
    W bh(sizeof(struct lnetcap_but_update_header), le);
    bh.u32(OFF(lnetcap_but_update_header, buh_magic), LNETCAP_BUT_HEADER_MAGIC);
    bh.u32(OFF(lnetcap_but_update_header, buh_count), 2);
    bh.u32(OFF(lnetcap_but_update_header, buh_reply_size), 65536);
    bh.u32(OFF(lnetcap_but_update_header, buh_update_count), 40);
    W bsize(sizeof(struct lnetcap_update_buffer), le);
    bsize.u32(0, 8192);
    o.msg(req(CL, SV, LNETCAP_PORTAL_OUT, 0x5580),
          lustre_msg(le, {ptlrpc_body(le, B(RQ, LNETCAP_OPC_MDS_BATCH, 0x00020003)), bh.b, bsize.b}));
  }
}

}  // namespace

// Picks an opcode the body dissectors handle, most of the time.
std::uint32_t lnetcap_opcodes_sample(std::mt19937& rng) {
  static const std::uint32_t ops[] = {
#define X(name, value, str) value,
      LNETCAP_OPCODE_LIST(X)
#undef X
  };
  return ops[rng() % (sizeof(ops) / sizeof(ops[0]))];
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.pcapng [random N SEED]\n", argv[0]);
    return 2;
  }
  if (argc >= 4 && std::string(argv[1]) == "nids") {
    try {
      return nid_vectors(argv[2], argv[3]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
      return 1;
    }
  }
  if (argc >= 3 && std::string(argv[1]) == "unreadable") return unreadable_vectors(argv[2]);
  if (argc >= 3 && (std::string(argv[1]) == "routed" || std::string(argv[1]) == "phases")) {
    try {
      return std::string(argv[1]) == "routed" ? routed_vectors(argv[2]) : phases_vectors(argv[2]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
      return 1;
    }
  }
  if (argc >= 5 && std::string(argv[1]) == "replicate-pcap")
    return replicate_pcap(argv[2], argv[3], std::atoi(argv[4]), 988);
  try {
    Out o(argv[1]);
    if (argc >= 5 && std::string(argv[2]) == "random")
      random_records(o, std::atoi(argv[3]), unsigned(std::atoi(argv[4])));
    else if (argc >= 3 && std::string(argv[2]) == "hostile")
      hostile_records(o);
    else if (argc >= 3 && std::string(argv[2]) == "lvb")
      lvb_records(o);
    else if (argc >= 3 && std::string(argv[2]) == "mdt")
      mdt_records(o);
    else if (argc >= 3 && std::string(argv[2]) == "elc")
      elc_records(o);
    else if (argc >= 3 && std::string(argv[2]) == "srt-targets")
      srt_target_records(o);
    else if (argc >= 3 && std::string(argv[2]) == "fld")
      fld_records(o);
    else if (argc >= 3 && std::string(argv[2]) == "ping-md")
      ping_md_records(o);
    else if (argc >= 3 && std::string(argv[2]) == "quota")
      quota_records(o);
    else if (argc >= 3 && std::string(argv[2]) == "out")
      out_records(o);
    else
      vectors(o);
    o.close();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
  return 0;
}
