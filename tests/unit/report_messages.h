// SPDX-License-Identifier: GPL-2.0-or-later
// report_messages.h - decoded Messages built field by field for the report
// tests (summaries, assertions, charts need only the decoded form).
#pragma once

#include <string>
#include <vector>

#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/record.h"
#include "message.h"
#include "nid.h"

namespace lnetcap::test {

inline Nid nid(const char* s) { return *Nid::parse(s); }

/// A request PUT from client to server, as seen on the client (send).
inline Message rpc_request(std::uint64_t ts_ns, const char* client, const char* server,
                           std::uint64_t xid, std::uint32_t opc, std::uint32_t portal,
                           std::uint32_t bytes = 400, const std::string& jobid = {}) {
  Message m;
  m.ts_ns = ts_ns;
  m.rec.hdr.direction = LNETCAP_DIR_SEND;
  m.rec.hdr.local_nid = nid(client);
  m.rec.hdr.peer_nid = nid(server);
  m.rec.hdr.payload_len = bytes;
  m.lnet.present = true;
  m.lnet.type = LNETCAP_MSG_PUT;
  m.lnet.src_nid = nid(client);
  m.lnet.dest_nid = nid(server);
  m.lnet.payload_length = bytes;
  m.lnet.portal = portal;
  m.lnet.match_bits = xid;
  m.rpc.present = true;
  m.rpc.body_len = 184;
  m.rpc.type = LNETCAP_PTL_RPC_MSG_REQUEST;
  m.rpc.opc = opc;
  m.rpc.status = 4242;  // a request's pb_status holds the sender's pid
  m.rpc.jobid = jobid;
  return m;
}

/// The reply PUT from server to client, as received on the client.
inline Message rpc_reply(std::uint64_t ts_ns, const char* client, const char* server,
                         std::uint64_t mbits, std::uint32_t opc, std::uint32_t portal,
                         std::int32_t status = 0, std::uint32_t bytes = 300) {
  Message m;
  m.ts_ns = ts_ns;
  m.rec.hdr.direction = LNETCAP_DIR_RECV;
  m.rec.hdr.local_nid = nid(client);
  m.rec.hdr.peer_nid = nid(server);
  m.rec.hdr.payload_len = bytes;
  m.lnet.present = true;
  m.lnet.type = LNETCAP_MSG_PUT;
  m.lnet.src_nid = nid(server);
  m.lnet.dest_nid = nid(client);
  m.lnet.payload_length = bytes;
  m.lnet.portal = portal;
  m.lnet.match_bits = mbits;
  m.lnet.offset = 224;
  m.rpc.present = true;
  m.rpc.body_len = 184;
  m.rpc.type = status < 0 ? LNETCAP_PTL_RPC_MSG_ERR : LNETCAP_PTL_RPC_MSG_REPLY;
  m.rpc.opc = opc;
  m.rpc.status = status;
  return m;
}

/// A bulk GET (no RPC payload), e.g. the server pulling OST_WRITE data.
inline Message bulk_get(std::uint64_t ts_ns, const char* from, const char* to, std::uint64_t mbits,
                        std::uint32_t portal, std::uint32_t bytes) {
  Message m;
  m.ts_ns = ts_ns;
  m.rec.hdr.direction = LNETCAP_DIR_RECV;
  m.lnet.present = true;
  m.lnet.type = LNETCAP_MSG_GET;
  m.lnet.src_nid = nid(from);
  m.lnet.dest_nid = nid(to);
  m.lnet.payload_length = 0;  // a GET asks for data: its size is the sink length
  m.lnet.sink_length = bytes;
  m.lnet.portal = portal;
  m.lnet.match_bits = mbits;
  return m;
}

/// The RPC traffic most report tests use, client 10.0.3.2@tcp, server
/// 10.0.3.1@tcp (times in ns; 1 ms = 1000000):
///   LDLM_ENQUEUE  xid 0x1000 jobid dd.0  at  1 ms, early reply at 2 ms, reply at  3 ms (2 ms)
///   LDLM_ENQUEUE  xid 0x1080 jobid dd.0  at 10 ms,                      reply at 14 ms (4 ms)
///   MDS_GETATTR   xid 0x1100             at 20 ms, error reply -2 (ENOENT) at 21 ms (1 ms)
///   OBD_PING      xid 0x1180             at 30 ms, never answered
///   OST_WRITE     xid 0x1200 pb_mbits 0x1201 (REP_MBITS) at 40 ms, bulk GET 1 MiB at 41 ms,
///                 reply on match bits 0x1201 at 48 ms (8 ms)
/// Matched latencies: 1, 2, 4, 8 ms.
inline std::vector<Message> rpc_scenario() {
  const char* c = "10.0.3.2@tcp";
  const char* s = "10.0.3.1@tcp";
  constexpr std::uint64_t ms = 1000000;
  std::vector<Message> v;
  v.push_back(rpc_request(1 * ms, c, s, 0x1000, LNETCAP_OPC_LDLM_ENQUEUE, LNETCAP_PORTAL_MDS_REQUEST, 400, "dd.0"));
  Message early = rpc_reply(2 * ms, c, s, 0x1000, LNETCAP_OPC_LDLM_ENQUEUE, LNETCAP_PORTAL_MDC_REPLY, 0, 224);
  early.rpc.early_reply = true;
  early.lnet.offset = 0;
  v.push_back(early);
  v.push_back(rpc_reply(3 * ms, c, s, 0x1000, LNETCAP_OPC_LDLM_ENQUEUE, LNETCAP_PORTAL_MDC_REPLY));
  v.push_back(rpc_request(10 * ms, c, s, 0x1080, LNETCAP_OPC_LDLM_ENQUEUE, LNETCAP_PORTAL_MDS_REQUEST, 400, "dd.0"));
  v.push_back(rpc_reply(14 * ms, c, s, 0x1080, LNETCAP_OPC_LDLM_ENQUEUE, LNETCAP_PORTAL_MDC_REPLY));
  v.push_back(rpc_request(20 * ms, c, s, 0x1100, LNETCAP_OPC_MDS_GETATTR, LNETCAP_PORTAL_MDS_REQUEST));
  v.push_back(rpc_reply(21 * ms, c, s, 0x1100, LNETCAP_OPC_MDS_GETATTR, LNETCAP_PORTAL_MDC_REPLY, -2));
  v.push_back(rpc_request(30 * ms, c, s, 0x1180, LNETCAP_OPC_OBD_PING, LNETCAP_PORTAL_MDS_REQUEST));
  Message write = rpc_request(40 * ms, c, s, 0x1200, LNETCAP_OPC_OST_WRITE, LNETCAP_PORTAL_OST_IO);
  write.rpc.mbits = 0x1201;
  v.push_back(write);
  v.push_back(bulk_get(41 * ms, s, c, 0x1201, LNETCAP_PORTAL_OST_BULK, 1048576));
  v.push_back(rpc_reply(48 * ms, c, s, 0x1201, LNETCAP_OPC_OST_WRITE, LNETCAP_PORTAL_OSC_REPLY));
  return v;
}

}  // namespace lnetcap::test
