// SPDX-License-Identifier: GPL-2.0-or-later
// wire_builders.h - the PtlRPC framing Lustre puts on the wire, built field
// by field at the offsets include/lnetcap/*.h pins (docs/protocol.md 3.1, 3.3):
// lustre_msg_v2 with its 8-byte-padded buffers and ptlrpc_body v2/v3, in
// either byte order.  Shared by the test-vector generator of the plugin
// tests and the builders of the unit tests and synthetic sample.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lnetcap/ptlrpc.h"

namespace lnetcap::test::wire {

using Bytes = std::vector<std::uint8_t>;

// A buffer of fixed size written field by field in one byte order.
struct W {
  Bytes b;
  bool be;
  W(std::size_t n, bool big_endian = false) : b(n, 0), be(big_endian) {}
  void u8(std::size_t off, std::uint8_t v) { b.at(off) = v; }
  void u16(std::size_t off, std::uint16_t v) {
    for (int i = 0; i < 2; ++i) b.at(off + (be ? 1 - i : i)) = std::uint8_t(v >> (8 * i));
  }
  void u32(std::size_t off, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b.at(off + (be ? 3 - i : i)) = std::uint8_t(v >> (8 * i));
  }
  void u64(std::size_t off, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) b.at(off + (be ? 7 - i : i)) = std::uint8_t(v >> (8 * i));
  }
  void str(std::size_t off, const std::string& s) { std::memcpy(&b.at(off), s.data(), s.size()); }
  void raw(std::size_t off, const std::uint8_t* p, std::size_t n) { std::memcpy(&b.at(off), p, n); }
};

#define OFF(s, f) LNETCAP_OFFSETOF(struct s, f)

inline Bytes cstr(const std::string& s) {  // NUL-terminated name buffer
  Bytes b(s.begin(), s.end());
  b.push_back(0);
  return b;
}

// lustre_msg_v2: header, buflens, buffers each padded to 8 (docs/protocol.md 3.1).
inline Bytes lustre_msg(bool be, const std::vector<Bytes>& bufs, std::uint32_t lm_flags = 1,
                 std::uint32_t cksum = 0, std::uint32_t secflvr = 0) {
  const std::size_t n = bufs.size();
  std::size_t size = LNETCAP_LUSTRE_MSG_HDR_SIZE(n);
  for (const auto& x : bufs) size += LNETCAP_LUSTRE_MSG_ROUND8(x.size());
  W w(size, be);
  w.u32(OFF(lnetcap_lustre_msg_v2, lm_bufcount), std::uint32_t(n));
  w.u32(OFF(lnetcap_lustre_msg_v2, lm_secflvr), secflvr);
  w.u32(OFF(lnetcap_lustre_msg_v2, lm_magic), LNETCAP_LUSTRE_MSG_MAGIC_V2);
  w.u32(OFF(lnetcap_lustre_msg_v2, lm_repsize), 1024);
  w.u32(OFF(lnetcap_lustre_msg_v2, lm_cksum), cksum);
  w.u32(OFF(lnetcap_lustre_msg_v2, lm_flags), lm_flags);
  std::size_t off = LNETCAP_LUSTRE_MSG_HDR_SIZE(n);
  for (std::size_t i = 0; i < n; ++i) {
    w.u32(32 + 4 * i, std::uint32_t(bufs[i].size()));
    if (!bufs[i].empty()) w.raw(off, bufs[i].data(), bufs[i].size());
    off += LNETCAP_LUSTRE_MSG_ROUND8(bufs[i].size());
  }
  return w.b;
}

struct Body {
  std::uint32_t type = LNETCAP_PTL_RPC_MSG_REQUEST;
  std::uint32_t opc = 0;
  std::uint32_t version = 0x00010003;
  std::int32_t status = 0;
  std::uint32_t flags = 0;
  std::uint32_t op_flags = 0;
  std::uint64_t mbits = 0;
  std::uint64_t transno = 0;
  std::string jobid;
  bool v3 = true;
  std::uint32_t uid = 1000, gid = 1000, projid = 7;
  std::uint32_t limit = 0;
  std::uint64_t slv = 0;
};

inline Bytes ptlrpc_body(bool be, const Body& p) {
  W w(p.v3 ? LNETCAP_PTLRPC_BODY_V3_LEN : LNETCAP_PTLRPC_BODY_V2_LEN, be);
  w.u64(OFF(lnetcap_ptlrpc_body, pb_handle), 0x1122334455667788ULL);
  w.u32(OFF(lnetcap_ptlrpc_body, pb_type), p.type);
  w.u32(OFF(lnetcap_ptlrpc_body, pb_version), p.version);
  w.u32(OFF(lnetcap_ptlrpc_body, pb_opc), p.opc);
  w.u32(OFF(lnetcap_ptlrpc_body, pb_status), std::uint32_t(p.status));
  w.u64(OFF(lnetcap_ptlrpc_body, pb_last_xid), 0xf80);
  w.u16(OFF(lnetcap_ptlrpc_body, pb_tag), 1);
  w.u32(OFF(lnetcap_ptlrpc_body, pb_projid), p.projid);
  w.u64(OFF(lnetcap_ptlrpc_body, pb_last_committed), 0x100);
  w.u64(OFF(lnetcap_ptlrpc_body, pb_transno), p.transno);
  w.u32(OFF(lnetcap_ptlrpc_body, pb_flags), p.flags);
  w.u32(OFF(lnetcap_ptlrpc_body, pb_op_flags), p.op_flags);
  w.u32(OFF(lnetcap_ptlrpc_body, pb_conn_cnt), 1);
  w.u32(OFF(lnetcap_ptlrpc_body, pb_timeout), 33);
  w.u32(OFF(lnetcap_ptlrpc_body, pb_service_time), 2);
  w.u32(OFF(lnetcap_ptlrpc_body, pb_limit), p.limit);
  w.u64(OFF(lnetcap_ptlrpc_body, pb_slv), p.slv);
  w.u64(OFF(lnetcap_ptlrpc_body, pb_mbits), p.mbits);
  w.u32(OFF(lnetcap_ptlrpc_body, pb_uid), p.uid);
  w.u32(OFF(lnetcap_ptlrpc_body, pb_gid), p.gid);
  if (p.v3) w.str(OFF(lnetcap_ptlrpc_body, pb_jobid), p.jobid);
  return w.b;
}


}  // namespace lnetcap::test::wire
