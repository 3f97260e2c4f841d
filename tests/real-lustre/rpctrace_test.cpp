// SPDX-License-Identifier: GPL-2.0-or-later
// The file-system run's rpctrace check (rpctrace.h) must read Lustre's
// "Handled RPC" lines as ptlrpc prints them, and fail when a capture lacks
// one of the four records of a handled RPC or carries another value.
#include <gtest/gtest.h>

#include "lnetcap/ptlrpc.h"
#include "lnetcap/record.h"
#include "rpctrace.h"

using namespace lnetcap;
using namespace lnetcap::real_lustre;

namespace {

const char* kClient = "10.77.0.1@tcp";
const char* kServer = "10.77.0.2@tcp";

// The format of ptlrpc_server_handle_request (lustre/ptlrpc/service.c,
// 2.15-2.17) behind lctl dk's own prefix.
std::string handled_line(std::uint64_t xid, const std::string& peer, std::uint32_t opc,
                         const std::string& job, std::uint64_t transno, int rc) {
  return "00000100:00100000:1.0:1764200000.123456:0:1234:0:(service.c:2379:"
         "ptlrpc_server_handle_request()) Handled RPC req@00000000c0ffee00 "
         "pname:cluuid+ref:pid:xid:nid:opc:job mdt00_002:6f1c2a3e-1b2c-4d5e-8f90-0123456789ab+7:"
         "4321:x" + std::to_string(xid) + ":12345-" + peer + ":" + std::to_string(opc) + ":" +
         job + " Request processed in 812us (901us total) trans " + std::to_string(transno) +
         " rc " + std::to_string(rc) + "/" + std::to_string(rc);
}

Captured rec(std::uint8_t dir, bool request, const std::string& src, const std::string& dst,
             std::uint64_t xid, std::uint32_t opc) {
  Captured c;
  c.direction = dir;
  c.src = src;
  c.dst = dst;
  c.xid = xid;
  c.rpc.present = true;
  c.rpc.type = request ? LNETCAP_PTL_RPC_MSG_REQUEST : LNETCAP_PTL_RPC_MSG_REPLY;
  c.rpc.opc = opc;
  if (request) {
    c.rpc.jobid = "touch.0";
    c.rpc.status = 4321;
  } else {
    c.rpc.transno = 0x100000007;
  }
  return c;
}

// A client RPC handled by the server, recorded on both nodes.
std::vector<TraceNode> one_rpc() {
  const std::uint64_t x = 1850000000000064;
  const std::uint32_t opc = 36;  // MDS_REINT
  TraceNode client{kClient, {}, {}}, server{kServer, {}, {}};
  client.capture = {rec(LNETCAP_DIR_SEND, true, kClient, kServer, x, opc),
                    rec(LNETCAP_DIR_RECV, false, kServer, kClient, x, opc)};
  server.capture = {rec(LNETCAP_DIR_RECV, true, kClient, kServer, x, opc),
                    rec(LNETCAP_DIR_SEND, false, kServer, kClient, x, opc)};
  server.handled = {*parse_handled(handled_line(x, kClient, opc, "touch.0", 0x100000007, 0))};
  return {client, server};
}

TEST(Rpctrace, ReadsTheHandledLine) {
  auto h = parse_handled(handled_line(77, kClient, 101, "ls.0", 5, -2));
  ASSERT_TRUE(h);
  EXPECT_EQ(h->thread, "mdt00_002");
  EXPECT_EQ(h->peer, kClient);
  EXPECT_EQ(h->xid, 77u);
  EXPECT_EQ(h->opc, 101u);
  EXPECT_EQ(h->jobid, "ls.0");
  EXPECT_EQ(h->req_status, 4321);
  EXPECT_EQ(h->transno, 5u);
  EXPECT_EQ(h->rq_status, -2);
  EXPECT_EQ(h->reply_status, -2);
  EXPECT_EQ(h->total_us, 901);
  EXPECT_FALSE(parse_handled("... Handling RPC req@00000000c0ffee00 pname:cluuid+ref:pid:xid"));
  EXPECT_FALSE(parse_handled("Handled RPC req@ pname:cluuid+ref:pid:xid:nid:opc:job a:b Request processed in 1us"));
}

TEST(Rpctrace, PassesWhenBothCapturesHoldTheRpc) {
  const auto v = compare_rpctrace(one_rpc());
  EXPECT_TRUE(v.passed()) << format_trace_verdict(v);
  EXPECT_EQ(v.nodes[1].found, 1u);
}

TEST(Rpctrace, FailsOnEachMissingRecord) {
  for (std::size_t node = 0; node < 2; node++) {
    for (std::size_t i = 0; i < 2; i++) {
      auto n = one_rpc();
      n[node].capture.erase(n[node].capture.begin() + static_cast<long>(i));
      const auto v = compare_rpctrace(n);
      EXPECT_FALSE(v.passed()) << "node " << node << " record " << i;
      EXPECT_NE(format_trace_verdict(v).find("example: missing"), std::string::npos);
    }
  }
}

// A requester that timed out has unlinked its reply buffer (and resends):
// the reply arrives and LNet drops it, no-match.  That DROP is the
// requester's record of the reply; any other drop is not.
TEST(Rpctrace, AReplyDroppedByATimedOutRequesterIsItsRecord) {
  auto n = one_rpc();
  n[0].capture[1].direction = LNETCAP_DIR_DROP;  // the client's received reply
  n[0].capture[1].drop_reason = LNETCAP_DROP_RECV_NO_MATCH;
  n[0].capture[1].rpc = {};  // nothing landed: no PtlRPC body
  n[0].capture[1].lnet.portal = LNETCAP_PORTAL_OSC_REPLY;
  auto v = compare_rpctrace(n);
  EXPECT_TRUE(v.passed()) << format_trace_verdict(v);
  EXPECT_EQ(v.nodes[1].missing_recv_reply, 0u);
  n[0].capture[1].drop_reason = LNETCAP_DROP_RECV_REFUSED;
  v = compare_rpctrace(n);
  EXPECT_EQ(v.nodes[1].missing_recv_reply, 1u);
}

// A request resent with new bulk match bits (pb_mbits) is answered on those
// bits (REP_MBITS): its reply is found under the request's XID.
TEST(Rpctrace, AReplyOnTheRequestsMatchBitsIsItsReply) {
  auto n = one_rpc();
  const std::uint64_t bits = *n[0].capture[0].xid + 0x800;
  for (auto& node : n)
    for (auto& c : node.capture) {
      if (c.rpc.type == LNETCAP_PTL_RPC_MSG_REQUEST) c.rpc.mbits = bits;
      else c.xid = bits;  // the reply PUT's match bits
    }
  auto v = compare_rpctrace(n);
  EXPECT_TRUE(v.passed()) << format_trace_verdict(v);
  EXPECT_EQ(v.nodes[1].missing_send_reply, 0u);
  EXPECT_EQ(v.nodes[1].missing_recv_reply, 0u);
}

TEST(Rpctrace, FailsOnAWrongField) {
  auto n = one_rpc();
  n[0].capture[1].rpc.transno = 1;  // the client's received reply
  auto v = compare_rpctrace(n);
  EXPECT_FALSE(v.passed());
  EXPECT_EQ(v.nodes[1].wrong_fields["requester's received reply.transno"], 1u);
  n = one_rpc();
  n[1].capture[0].rpc.jobid = "other.0";
  v = compare_rpctrace(n);
  EXPECT_EQ(v.nodes[1].wrong_fields["handler's received request.jobid"], 1u);
}

// XIDs are counted per node: the server's callback to the client may
// carry the XID of a client request without being confused with it.
TEST(Rpctrace, KnowsARequestByItsRequesterToo) {
  auto n = one_rpc();
  const std::uint64_t x = *n[0].capture[0].xid;
  const std::uint32_t bl = 104;  // LDLM_BL_CALLBACK
  n[1].capture.push_back(rec(LNETCAP_DIR_SEND, true, kServer, kClient, x, bl));
  n[0].capture.push_back(rec(LNETCAP_DIR_RECV, true, kServer, kClient, x, bl));
  n[0].handled = {*parse_handled(handled_line(x, kServer, bl, "touch.0", 0, 0))};
  auto v = compare_rpctrace(n);
  EXPECT_FALSE(v.passed()) << "the callback's reply is in neither capture";
  EXPECT_EQ(v.nodes[0].missing_send_reply, 1u);
  EXPECT_EQ(v.nodes[0].missing_recv_reply, 1u);
  // A callback's reply carries no transno (the line says trans 0).
  n[0].capture.push_back(rec(LNETCAP_DIR_SEND, false, kClient, kServer, x, bl));
  n[0].capture.back().rpc.transno = 0;
  n[1].capture.push_back(rec(LNETCAP_DIR_RECV, false, kClient, kServer, x, bl));
  n[1].capture.back().rpc.transno = 0;
  v = compare_rpctrace(n);
  EXPECT_TRUE(v.passed()) << format_trace_verdict(v);
}

// A server talking to itself (MDT to OST, targets to the MGS) over 0@lo:
// all four records are in its own capture.
TEST(Rpctrace, FindsRpcsOverLoInTheHandlersCapture) {
  TraceNode server{kServer, {}, {}};
  const std::uint64_t x = 99;
  const std::uint32_t opc = 400;  // OBD_PING
  for (auto dir : {LNETCAP_DIR_SEND, LNETCAP_DIR_RECV}) {
    server.capture.push_back(rec(dir, true, "0@lo", "0@lo", x, opc));
    server.capture.push_back(rec(dir, false, "0@lo", "0@lo", x, opc));
  }
  server.handled = {*parse_handled(handled_line(x, "0@lo", opc, "touch.0", 0x100000007, 0))};
  auto v = compare_rpctrace({server});
  EXPECT_TRUE(v.passed()) << format_trace_verdict(v);
  EXPECT_EQ(v.nodes[0].over_lo, 1u);
  server.capture.pop_back();
  EXPECT_FALSE(compare_rpctrace({server}).passed());
}

// The server's records of one_rpc() at times (us): request received at
// RECV, reply handed to the LND at SEND after QUEUE in LNet.
std::vector<TraceNode> timed_rpc(std::uint64_t recv_us, std::uint64_t send_us,
                                 std::uint64_t queue_us) {
  auto n = one_rpc();
  n[1].capture[0].ts_ns = recv_us * 1000;
  n[1].capture[1].ts_ns = send_us * 1000;
  if (queue_us) n[1].capture[1].queue_ns = queue_us * 1000;
  return n;
}

// rpctrace's total for one_rpc() is 901 us.
TEST(Rpctrace, ComparesTheServerTimeWithTheTotal) {
  auto v = compare_rpctrace(timed_rpc(1000, 1900, 0));
  EXPECT_TRUE(v.passed()) << format_trace_verdict(v);
  EXPECT_EQ(v.nodes[1].timed, 1u);
  ASSERT_EQ(v.nodes[1].total_minus_server_us.size(), 1u);
  EXPECT_EQ(v.nodes[1].total_minus_server_us[0], 1);
  EXPECT_NE(format_trace_verdict(v).find("server time against rpctrace total: timed=1 outside=0"),
            std::string::npos);
  // 60 ms of server time against a 0.9 ms total: beyond 5 ms and 10%.
  v = compare_rpctrace(timed_rpc(1000, 61000, 0));
  EXPECT_FALSE(v.passed());
  EXPECT_EQ(v.nodes[1].time_outside, 1u);
  EXPECT_NE(format_trace_verdict(v).find("example: server time 60000us, rpctrace total 901us"),
            std::string::npos);
}

// A reply that waited in LNet behind a bulk transfer was handed over when
// lnet_send took it, not when the LND did (the record's time).
TEST(Rpctrace, TheRepliesQueueTimeIsNotServerTime) {
  auto v = compare_rpctrace(timed_rpc(1000, 61900, 60000));
  EXPECT_TRUE(v.passed()) << format_trace_verdict(v);
  EXPECT_EQ(v.nodes[1].total_minus_server_us[0], 1);
}

TEST(Rpctrace, ServerTimeToleranceIsAbsoluteOrRelative) {
  const ServerTimeTolerance t;
  EXPECT_TRUE(t.within(901, 5901));
  EXPECT_FALSE(t.within(901, 5902));
  EXPECT_TRUE(t.within(1000000, 1100000));  // 10% of the longer
  EXPECT_FALSE(t.within(1000000, 1112000));
  EXPECT_TRUE(t.within(1100000, 1000000));
}

// A few RPCs apart (work after the reply, a request that waited for a
// buffer) are allowed; more than 5% are not.
TEST(Rpctrace, MostRpcsMustAgreeOnServerTime) {
  auto n = timed_rpc(1000, 1900, 0);
  auto& server = n[1];
  const auto request = server.capture[0], reply = server.capture[1];
  const auto line = server.handled[0];
  for (std::uint64_t i = 1; i < 20; i++) {  // 20 RPCs, the first 1 apart
    auto q = request, r = reply;
    q.xid = r.xid = *request.xid + i;
    q.ts_ns = i * 10000000;
    r.ts_ns = q.ts_ns + 900000;
    server.capture.push_back(q);
    server.capture.push_back(r);
    auto h = line;
    h.xid = *q.xid;
    server.handled.push_back(h);
  }
  server.capture[1].ts_ns = 100000000;  // the first RPC's reply 99 ms late
  auto v = compare_rpctrace(n);
  EXPECT_EQ(v.nodes[1].time_outside, 1u);
  EXPECT_FALSE(v.passed()) << "the other 19 RPCs are in no client capture";
  v = compare_rpctrace({n[1]});
  EXPECT_EQ(v.nodes[0].timed, 20u);
  // The other records live in the client's capture: check the server alone.
  EXPECT_EQ(v.nodes[0].missing_send_request, 20u);
  ServerTimeTolerance strict;
  strict.min_within = 1.0;
  n[0].capture.clear();
  for (const auto& c : server.capture) {  // the client's mirror of each record
    auto m = c;
    m.direction = c.direction == LNETCAP_DIR_RECV ? LNETCAP_DIR_SEND : LNETCAP_DIR_RECV;
    n[0].capture.push_back(m);
  }
  v = compare_rpctrace(n);
  EXPECT_TRUE(v.passed()) << format_trace_verdict(v);  // 19 of 20 within
  EXPECT_FALSE(compare_rpctrace(n, strict).passed());
  server.capture[3].ts_ns += 99000000;  // a second one: 18 of 20 is 90%
  EXPECT_FALSE(compare_rpctrace(n).passed());
}

TEST(Rpctrace, NothingHandledIsNoPass) {
  auto n = one_rpc();
  n[1].handled.clear();
  EXPECT_FALSE(compare_rpctrace(n).passed());
}

}  // namespace
