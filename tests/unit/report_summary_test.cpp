// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/summary.h"

#include <gtest/gtest.h>

#include "report/percentile.h"
#include "report/rpc_matcher.h"
#include "report_messages.h"

using namespace lnetcap;
using namespace lnetcap::report;
using lnetcap::test::rpc_scenario;

namespace {

constexpr std::uint64_t kMs = 1000000;

SummaryReport scenario_report() {
  Summary s;
  for (const Message& m : rpc_scenario()) s.add(m);
  return s.report();
}

}  // namespace

TEST(ReportRpcMatcher, MatchesByNidPairAndXidAndByRepMbits) {
  RpcMatcher m;
  std::vector<std::uint64_t> latencies;
  for (const Message& msg : rpc_scenario())
    if (auto match = m.observe(msg)) latencies.push_back(match->latency_ns);
  // The early reply does not complete the first ENQUEUE; the OST_WRITE reply
  // comes back on pb_mbits 0x1201 and still matches.
  EXPECT_EQ(latencies, (std::vector<std::uint64_t>{2 * kMs, 4 * kMs, 1 * kMs, 8 * kMs}));
  ASSERT_EQ(m.pending().size(), 1u);
  EXPECT_EQ(m.pending()[0].opc, LNETCAP_OPC_OBD_PING);
}

TEST(ReportRpcMatcher, ReplyFromAnotherServerDoesNotMatch) {
  RpcMatcher m;
  m.observe(test::rpc_request(0, "10.0.3.2@tcp", "10.0.3.1@tcp", 0x80, LNETCAP_OPC_OBD_PING,
                              LNETCAP_PORTAL_MDS_REQUEST));
  EXPECT_FALSE(m.observe(test::rpc_reply(5, "10.0.3.2@tcp", "10.0.3.9@tcp", 0x80,
                                         LNETCAP_OPC_OBD_PING, LNETCAP_PORTAL_MDC_REPLY)));
  EXPECT_TRUE(m.observe(test::rpc_reply(6, "10.0.3.2@tcp", "10.0.3.1@tcp", 0x80,
                                        LNETCAP_OPC_OBD_PING, LNETCAP_PORTAL_MDC_REPLY)));
  EXPECT_TRUE(m.pending().empty());
}

TEST(ReportRpcMatcher, ResendOfABulkRpcReplacesTheOldRequestSafely) {
  // A resent bulk RPC reuses the XID of a request still pending whose
  // match bits (pb_mbits) differ from its XID: the new request's first key
  // displaces the old entry, which is filed under two keys.  The old entry
  // used to be freed while forget() still walked its keys (ASan:
  // heap-use-after-free, issue 33).
  RpcMatcher m;
  auto request = [](std::uint64_t ts, std::uint64_t mbits) {
    Message r = test::rpc_request(ts, "10.0.3.2@tcp", "10.0.3.1@tcp", 0x1200,
                                  LNETCAP_OPC_OST_WRITE, LNETCAP_PORTAL_OST_IO);
    r.rpc.mbits = mbits;
    return r;
  };
  EXPECT_FALSE(m.observe(request(1 * kMs, 0x1201)));
  EXPECT_FALSE(m.observe(request(3 * kMs, 0x1241)));  // the resend, new bulk match bits
  ASSERT_EQ(m.pending().size(), 1u);
  EXPECT_EQ(m.pending()[0].ts_ns, 3 * kMs);
  // The old request's second key is gone with it; the new one answers.
  EXPECT_FALSE(m.observe(test::rpc_reply(4 * kMs, "10.0.3.2@tcp", "10.0.3.1@tcp", 0x1201,
                                         LNETCAP_OPC_OST_WRITE, LNETCAP_PORTAL_OSC_REPLY)));
  auto match = m.observe(test::rpc_reply(5 * kMs, "10.0.3.2@tcp", "10.0.3.1@tcp", 0x1241,
                                         LNETCAP_OPC_OST_WRITE, LNETCAP_PORTAL_OSC_REPLY));
  ASSERT_TRUE(match);
  EXPECT_EQ(match->latency_ns, 2 * kMs);
  EXPECT_TRUE(m.pending().empty());
}

TEST(ReportRpcMatcher, AMergedCaptureMatchesEachNodesOwnRecords) {
  // Client and server captures merged: the server's RECV of the request is
  // not a resend of the client's SEND.  Each side pairs its own records:
  // the client's latency (5 ms) and the server's service time (2 ms).
  RpcMatcher m;
  const char* c = "10.0.3.2@tcp";
  const char* s = "10.0.3.1@tcp";
  Message sent = test::rpc_request(0, c, s, 0x80, LNETCAP_OPC_MDS_GETATTR, LNETCAP_PORTAL_MDS_REQUEST);
  Message received = sent;
  received.ts_ns = 1 * kMs;
  received.rec.hdr.direction = LNETCAP_DIR_RECV;
  Message answered = test::rpc_reply(3 * kMs, c, s, 0x80, LNETCAP_OPC_MDS_GETATTR,
                                     LNETCAP_PORTAL_MDC_REPLY);
  answered.rec.hdr.direction = LNETCAP_DIR_SEND;
  Message got = test::rpc_reply(5 * kMs, c, s, 0x80, LNETCAP_OPC_MDS_GETATTR,
                                LNETCAP_PORTAL_MDC_REPLY);
  EXPECT_FALSE(m.observe(sent));
  EXPECT_FALSE(m.observe(received));
  EXPECT_EQ(m.pending().size(), 2u);
  auto server = m.observe(answered);
  ASSERT_TRUE(server);
  EXPECT_EQ(server->latency_ns, 2 * kMs);
  auto client = m.observe(got);
  ASSERT_TRUE(client);
  EXPECT_EQ(client->latency_ns, 5 * kMs);
  EXPECT_EQ(client->request.ts_ns, 0u);
  EXPECT_TRUE(m.pending().empty());
}

TEST(ReportRpcMatcher, ADropRecordIsNeitherARequestNorAReply) {
  RpcMatcher m;
  Message sent = test::rpc_request(0, "10.0.3.2@tcp", "10.0.3.1@tcp", 0x80,
                                   LNETCAP_OPC_OBD_PING, LNETCAP_PORTAL_MDS_REQUEST);
  Message dropped = sent;
  dropped.ts_ns = 1 * kMs;
  dropped.rec.hdr.direction = LNETCAP_DIR_DROP;
  EXPECT_FALSE(m.observe(sent));
  EXPECT_FALSE(m.observe(dropped));
  ASSERT_EQ(m.pending().size(), 1u);
  EXPECT_EQ(m.pending()[0].ts_ns, 0u);  // the SEND's, not replaced by its DROP
  Message reply = test::rpc_reply(4 * kMs, "10.0.3.2@tcp", "10.0.3.1@tcp", 0x80,
                                  LNETCAP_OPC_OBD_PING, LNETCAP_PORTAL_MDC_REPLY);
  Message reply_dropped = reply;
  reply_dropped.rec.hdr.direction = LNETCAP_DIR_DROP;
  EXPECT_FALSE(m.observe(reply_dropped));
  auto match = m.observe(reply);
  ASSERT_TRUE(match);
  EXPECT_EQ(match->latency_ns, 4 * kMs);
}

// A dropped message delivered nothing (on o2iblnd a failed RDMA REPLY or a
// refused PUT never moved its data): it counts as a message, not in bytes.
TEST(ReportSummary, ADroppedMessageCountsNoBytes) {
  Message request = test::rpc_request(0, "10.0.3.2@tcp", "10.0.3.1@tcp", 0x80, LNETCAP_OPC_OBD_PING,
                                      LNETCAP_PORTAL_MDS_REQUEST);
  Message reply = test::rpc_reply(1 * kMs, "10.0.3.2@tcp", "10.0.3.1@tcp", 0x80, LNETCAP_OPC_OBD_PING,
                                  LNETCAP_PORTAL_MDC_REPLY);
  Message dropped = reply;
  dropped.rec.hdr.direction = LNETCAP_DIR_DROP;
  dropped.rec.hdr.drop_reason = LNETCAP_DROP_RECV_NO_MATCH;
  Summary delivered, lost;
  delivered.add(request);
  delivered.add(reply);
  lost.add(request);
  lost.add(dropped);
  const SummaryReport d = delivered.report(), l = lost.report();
  EXPECT_EQ(l.total.messages, d.total.messages);
  EXPECT_EQ(d.total.bytes, request.lnet.payload_length + reply.lnet.payload_length);
  EXPECT_EQ(l.total.bytes, request.lnet.payload_length);
}

TEST(ReportRpcMatcher, GivesUpTheOldestRequestsPastTheCap) {
  RpcMatcher m(3);
  for (std::uint64_t xid = 1; xid <= 5; ++xid)
    m.observe(test::rpc_request(xid, "10.0.3.2@tcp", "10.0.3.1@tcp", xid * 128,
                                LNETCAP_OPC_OBD_PING, LNETCAP_PORTAL_MDS_REQUEST));
  EXPECT_EQ(m.pending().size(), 3u);
  EXPECT_EQ(m.given_up(), 2u);
  EXPECT_EQ(m.pending().front().xid, 3u * 128);
  // The reply to a given-up request no longer matches; a kept one does.
  EXPECT_FALSE(m.observe(test::rpc_reply(9, "10.0.3.2@tcp", "10.0.3.1@tcp", 128,
                                         LNETCAP_OPC_OBD_PING, LNETCAP_PORTAL_MDC_REPLY)));
  EXPECT_TRUE(m.observe(test::rpc_reply(9, "10.0.3.2@tcp", "10.0.3.1@tcp", 5 * 128,
                                        LNETCAP_OPC_OBD_PING, LNETCAP_PORTAL_MDC_REPLY)));
  // Many answered RPCs behind an unanswered one keep the bookkeeping small.
  for (std::uint64_t xid = 100; xid < 5100; ++xid) {
    m.observe(test::rpc_request(xid, "10.0.3.2@tcp", "10.0.3.1@tcp", xid * 128,
                                LNETCAP_OPC_OBD_PING, LNETCAP_PORTAL_MDS_REQUEST));
    ASSERT_TRUE(m.observe(test::rpc_reply(xid, "10.0.3.2@tcp", "10.0.3.1@tcp", xid * 128,
                                          LNETCAP_OPC_OBD_PING, LNETCAP_PORTAL_MDC_REPLY)));
  }
  EXPECT_EQ(m.pending().size(), 2u);
  EXPECT_EQ(m.given_up(), 2u);
}

TEST(ReportSummary, Totals) {
  const SummaryReport r = scenario_report();
  EXPECT_EQ(r.total.messages, 11u);
  // 5 requests x 400 + early reply 224 + 4 replies x 300; a GET has no payload.
  EXPECT_EQ(r.total.bytes, 2000u + 224u + 1200u);
  EXPECT_EQ(r.total.requests, 5u);
  EXPECT_EQ(r.total.replies, 4u);  // the early reply is not a final reply
  EXPECT_EQ(r.total.errors, 1u);
  EXPECT_EQ(r.total.unanswered, 1u);
  EXPECT_EQ(r.total.errors_by_status, (std::map<std::int32_t, std::uint64_t>{{-2, 1}}));
  EXPECT_EQ(r.lnet_types.at("PUT"), 10u);
  EXPECT_EQ(r.lnet_types.at("GET"), 1u);
  EXPECT_EQ(r.first_ts_ns, 1 * kMs);
  EXPECT_EQ(r.last_ts_ns, 48 * kMs);
}

TEST(ReportSummary, LatencyPercentilesOverAllRpcs) {
  const SummaryReport r = scenario_report();
  const LatencyFigures f = latency_figures(r.total.latencies_ns);
  // Samples 1, 2, 4, 8 ms: p50 = rank ceil(2) = 2 ms, p90 = rank ceil(3.6) = 8 ms.
  EXPECT_EQ(f.count, 4u);
  EXPECT_EQ(f.p50, 2 * kMs);
  EXPECT_EQ(f.p90, 8 * kMs);
  EXPECT_EQ(f.p99, 8 * kMs);
  EXPECT_EQ(f.max, 8 * kMs);
}

TEST(ReportSummary, ByOpcode) {
  const SummaryReport r = scenario_report();
  const auto& op = r.by(Dimension::kOpcode);
  ASSERT_EQ(op.size(), 4u);
  // The bulk GET is the OST_WRITE's (report/bulk_linker.h): 0 bytes, a GET.
  EXPECT_EQ(op.at("OST_WRITE").messages, 3u);
  EXPECT_EQ(op.at("OST_WRITE").bulk_bytes, 0u);
  const GroupStats& enq = op.at("LDLM_ENQUEUE");
  EXPECT_EQ(enq.messages, 5u);
  EXPECT_EQ(enq.bytes, 800u + 224u + 600u);
  EXPECT_EQ(enq.requests, 2u);
  EXPECT_EQ(enq.replies, 2u);
  EXPECT_EQ(enq.errors, 0u);
  EXPECT_EQ(latency_figures(enq.latencies_ns).p50, 2 * kMs);
  EXPECT_EQ(latency_figures(enq.latencies_ns).max, 4 * kMs);
  const GroupStats& getattr = op.at("MDS_GETATTR");
  EXPECT_EQ(getattr.errors, 1u);
  EXPECT_EQ(getattr.errors_by_status.at(-2), 1u);
  EXPECT_EQ(op.at("OBD_PING").unanswered, 1u);
  EXPECT_EQ(op.at("OBD_PING").latencies_ns.size(), 0u);
  EXPECT_EQ(latency_figures(op.at("OST_WRITE").latencies_ns).max, 8 * kMs);
}

TEST(ReportSummary, ByPortalAttributesLatencyToTheRequestPortal) {
  const SummaryReport r = scenario_report();
  const auto& p = r.by(Dimension::kPortal);
  EXPECT_EQ(p.at("MDS_REQUEST").messages, 4u);
  EXPECT_EQ(p.at("MDS_REQUEST").latencies_ns.size(), 3u);  // 2 ENQUEUE + GETATTR
  EXPECT_EQ(p.at("MDS_REQUEST").errors, 1u);
  EXPECT_EQ(p.at("MDS_REQUEST").unanswered, 1u);
  EXPECT_EQ(p.at("MDC_REPLY").messages, 4u);
  EXPECT_EQ(p.at("MDC_REPLY").latencies_ns.size(), 0u);
  EXPECT_EQ(p.at("OST_IO").latencies_ns.size(), 1u);
  EXPECT_EQ(p.at("OST_BULK").messages, 1u);
  EXPECT_EQ(p.at("OST_BULK").bytes, 0u);
}

TEST(ReportSummary, ByPeerAndJobid) {
  const SummaryReport r = scenario_report();
  const auto& peer = r.by(Dimension::kPeer);
  ASSERT_EQ(peer.size(), 1u);  // everything is with the server, seen from the client
  EXPECT_EQ(peer.at("10.0.3.1@tcp").messages, 11u);
  const auto& job = r.by(Dimension::kJobid);
  // Two requests with jobid dd.0 and their final replies, which inherit it.
  EXPECT_EQ(job.at("dd.0").messages, 4u);
  EXPECT_EQ(job.at("dd.0").requests, 2u);
  EXPECT_EQ(job.at("dd.0").replies, 2u);
  EXPECT_EQ(job.at("dd.0").latencies_ns.size(), 2u);
  EXPECT_EQ(job.at("(none)").requests, 3u);
  EXPECT_EQ(job.at("(unknown)").messages, 1u);  // the early reply
}

TEST(ReportSummary, PositiveStatusesAreResultsNotErrors) {
  Summary s;
  const char* c = "10.0.3.2@tcp";
  const char* srv = "10.0.3.1@tcp";
  s.add(test::rpc_request(0, c, srv, 0x80, LNETCAP_OPC_OST_READ, LNETCAP_PORTAL_OST_IO));
  s.add(test::rpc_reply(1, c, srv, 0x80, LNETCAP_OPC_OST_READ, LNETCAP_PORTAL_OSC_REPLY, 1048576));
  s.add(test::rpc_request(2, c, srv, 0x100, LNETCAP_OPC_LDLM_ENQUEUE, LNETCAP_PORTAL_LDLM_CANCEL_REQUEST));
  s.add(test::rpc_reply(3, c, srv, 0x100, LNETCAP_OPC_LDLM_ENQUEUE, LNETCAP_PORTAL_LDLM_CANCEL_REPLY, 301));
  s.add(test::rpc_request(4, c, srv, 0x180, LNETCAP_OPC_LDLM_ENQUEUE, LNETCAP_PORTAL_LDLM_CANCEL_REQUEST));
  s.add(test::rpc_reply(5, c, srv, 0x180, LNETCAP_OPC_LDLM_ENQUEUE, LNETCAP_PORTAL_LDLM_CANCEL_REPLY, -2));
  const SummaryReport r = s.report();
  EXPECT_EQ(r.by(Dimension::kOpcode).at("OST_READ").errors, 0u);  // 1 MiB read: a byte count
  // ELDLM_LOCK_ABORTED (the answer to an intent enqueue) is an LDLM
  // "non-error return state" (lustre_dlm.h); -ENOENT is an error.
  EXPECT_EQ(r.by(Dimension::kOpcode).at("LDLM_ENQUEUE").errors, 1u);
  EXPECT_EQ(r.total.errors_by_status, (std::map<std::int32_t, std::uint64_t>{{-2, 1}}));
}

TEST(ReportSummary, WireRecordsGroupByConversation) {
  Summary s;
  Message req = test::rpc_request(0, "10.0.3.2@tcp", "10.0.3.1@tcp", 0x80, LNETCAP_OPC_OBD_PING,
                                  LNETCAP_PORTAL_MDS_REQUEST);
  Message rep = test::rpc_reply(5, "10.0.3.2@tcp", "10.0.3.1@tcp", 0x80, LNETCAP_OPC_OBD_PING,
                                LNETCAP_PORTAL_MDC_REPLY);
  req.rec.hdr.direction = rep.rec.hdr.direction = LNETCAP_DIR_WIRE;
  s.add(req);
  s.add(rep);
  const auto report = s.report();  // a snapshot: keep it alive while we look
  const auto& peer = report.by(Dimension::kPeer);
  ASSERT_EQ(peer.size(), 1u);
  EXPECT_EQ(peer.at("10.0.3.1@tcp <-> 10.0.3.2@tcp").messages, 2u);
  EXPECT_EQ(peer.at("10.0.3.1@tcp <-> 10.0.3.2@tcp").latencies_ns.size(), 1u);
}

TEST(ReportSummary, ReportIsASnapshot) {
  Summary s;
  const auto msgs = rpc_scenario();
  s.add(msgs[0]);
  EXPECT_EQ(s.report().total.unanswered, 1u);
  s.add(msgs[2]);
  EXPECT_EQ(s.report().total.unanswered, 0u);
  EXPECT_EQ(s.report().total.latencies_ns.size(), 1u);
}
