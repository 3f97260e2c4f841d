// SPDX-License-Identifier: GPL-2.0-or-later
// Bulk transfers name their RPC (report/bulk_linker.h): on socklnd and for
// o2iblnd's RDMA REPLY, as a client, a server and a router record them; in
// the text line, --summary and lnetcapd's metrics.
#include "report/bulk_linker.h"

#include <gtest/gtest.h>

#include "bulk_messages.h"
#include "daemon/rpc_metrics.h"
#include "report/command_scope.h"
#include "report/summary.h"
#include "report/summary_format.h"
#include "text/line.h"

using namespace lnetcap;
using namespace lnetcap::report;
using lnetcap::test::BulkRecords;
using lnetcap::test::Seen;

namespace {

constexpr std::uint64_t kXid = 0x6b02500e01a80;
constexpr std::pair<std::uint64_t, std::uint64_t> kGetMd{0x1111, 0x2222};
constexpr std::pair<std::uint64_t, std::uint64_t> kPutMd{0x3333, 0x4444};

// OST_WRITE: request, GET, REPLY with 1 MiB, reply; OST_READ: request, PUT
// of 1 MiB, its ACK, then a "difficult" reply on the same match bits
// (REP_MBITS: pb_mbits is the last bulk chunk's) and that reply's ACK.
void write_and_read(BulkRecords& b) {
  b.request(1, kXid, kXid, LNETCAP_OPC_OST_WRITE, "dd.500");
  b.get(2, kXid, kGetMd);
  b.data_reply(3, kGetMd);
  b.reply(4, kXid, LNETCAP_OPC_OST_WRITE);
  b.request(10, kXid + 0x80, kXid + 0x80, LNETCAP_OPC_OST_READ, "cat.0");
  b.put(11, kXid + 0x80, kPutMd);
  b.ack(12, kXid + 0x80, kPutMd);
  b.reply(13, kXid + 0x80, LNETCAP_OPC_OST_READ, true, {0x5555, 0x6666});
  b.ack(14, kXid + 0x80, {0x5555, 0x6666}, 224);
}

std::vector<std::optional<BulkLink>> links_of(const BulkRecords& b, BulkLinker& l) {
  std::vector<std::optional<BulkLink>> v;
  for (const Message* m : b.messages()) v.push_back(l.observe(*m));
  return v;
}

std::string line_of(const Message& m, const std::optional<BulkLink>& link, bool quiet = false) {
  std::string out;
  text::LineStyle st;
  st.quiet = quiet;
  text::format_line(m, st, out, link ? &*link : nullptr);
  return out.substr(out.find(' ') + 1);  // without the time of day
}

struct Case {
  const char* name;
  const char* client;
  const char* server;
  Seen seen;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class BulkOnEveryLnd : public ::testing::TestWithParam<Case> {};

// Every bulk record names its RPC, whoever recorded it and on any LND.
TEST_P(BulkOnEveryLnd, EveryBulkRecordNamesItsRpc) {
  const Case& c = GetParam();
  BulkRecords b(c.client, c.server, c.seen);
  write_and_read(b);
  BulkLinker linker;
  const auto links = links_of(b, linker);
  ASSERT_EQ(links.size(), 9u);
  for (std::size_t i : {0, 3, 4, 7}) EXPECT_FALSE(links[i]) << i;  // PtlRPC messages
  for (std::size_t i : {1, 2}) {
    ASSERT_TRUE(links[i]) << i;
    EXPECT_TRUE(links[i]->bulk());
    EXPECT_EQ(links[i]->rpc->opc, LNETCAP_OPC_OST_WRITE);
    EXPECT_EQ(links[i]->rpc->xid, kXid);
    EXPECT_EQ(links[i]->rpc->jobid, "dd.500");
    EXPECT_EQ(links[i]->bulk_portal, LNETCAP_PORTAL_OST_BULK);
    EXPECT_EQ(links[i]->rpc->server, test::nid(c.server));
  }
  for (std::size_t i : {5, 6}) {
    ASSERT_TRUE(links[i]) << i;
    EXPECT_TRUE(links[i]->bulk());
    EXPECT_EQ(links[i]->rpc->opc, LNETCAP_OPC_OST_READ);
    EXPECT_EQ(links[i]->rpc->jobid, "cat.0");
  }
  // The reply's ACK, on the same match bits as the bulk PUT's: told apart
  // by the MD it names.
  ASSERT_TRUE(links[8]);
  EXPECT_EQ(links[8]->kind, BulkLink::Kind::kReplyAck);
  EXPECT_EQ(links[8]->rpc->opc, LNETCAP_OPC_OST_READ);
  EXPECT_EQ(linker.given_up(), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Lnds, BulkOnEveryLnd,
    ::testing::Values(Case{"socklnd_client", "10.0.3.2@tcp", "10.0.3.1@tcp", Seen::kClient},
                      Case{"socklnd_server", "10.0.3.2@tcp", "10.0.3.1@tcp", Seen::kServer},
                      Case{"o2ib_client", "10.77.0.2@o2ib", "10.77.0.1@o2ib", Seen::kClient},
                      Case{"o2ib_server", "10.77.0.2@o2ib", "10.77.0.1@o2ib", Seen::kServer},
                      Case{"routed_fwd", "10.0.1.1@tcp", "192.168.2.1@o2ib", Seen::kRouter}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(BulkText, TheLineOfABulkTransferNamesItsRpc) {
  BulkRecords b("10.77.0.2@o2ib", "10.77.0.1@o2ib", Seen::kServer);
  write_and_read(b);
  BulkLinker linker;
  const auto links = links_of(b, linker);
  const auto& m = b.all();
  EXPECT_EQ(line_of(m[1].msg, links[1]),
            "SEND GET 10.77.0.1@o2ib > 10.77.0.2@o2ib OST_BULK xid 0x6b02500e01a80 sink 1048576 len 0: "
            "bulk of OST_WRITE xid 0x6b02500e01a80 jobid dd.500");
  EXPECT_EQ(line_of(m[2].msg, links[2]),
            "RECV REPLY 10.77.0.2@o2ib > 10.77.0.1@o2ib len 1048576 [1024 captured]: "
            "bulk of OST_WRITE xid 0x6b02500e01a80 jobid dd.500");
  EXPECT_EQ(line_of(m[5].msg, links[5]),
            "SEND PUT 10.77.0.1@o2ib > 10.77.0.2@o2ib OST_BULK xid 0x6b02500e01b00 len 1048576 [1024 captured]: "
            "bulk of OST_READ xid 0x6b02500e01b00 jobid cat.0");
  EXPECT_EQ(line_of(m[6].msg, links[6]),
            "RECV ACK 10.77.0.2@o2ib > 10.77.0.1@o2ib xid 0x6b02500e01b00 mlen 1048576 len 0: "
            "bulk of OST_READ xid 0x6b02500e01b00 jobid cat.0");
  EXPECT_EQ(line_of(m[8].msg, links[8]),
            "RECV ACK 10.77.0.2@o2ib > 10.77.0.1@o2ib xid 0x6b02500e01b00 mlen 224 len 0: "
            "reply ACK of OST_READ xid 0x6b02500e01b00 jobid cat.0");
  EXPECT_EQ(line_of(m[2].msg, links[2], true),
            "RECV REPLY 10.77.0.2@o2ib > 10.77.0.1@o2ib: bulk of OST_WRITE");
  // A PtlRPC message names itself, whatever link it is given.
  EXPECT_EQ(line_of(m[3].msg, links[2]), line_of(m[3].msg, std::nullopt));
}

// --- the linker's own rules -------------------------------------------------

TEST(BulkLinker, TheWholeMatchBitRangeOfARequestAndNothingElse) {
  BulkRecords b("10.0.3.2@tcp", "10.0.3.1@tcp", Seen::kClient);
  BulkRecords other("10.0.3.9@tcp", "10.0.3.1@tcp", Seen::kServer);
  BulkLinker l;
  // Four 1 MiB chunks: match bits XID .. pb_mbits.
  l.observe(b.request(1, 0x1000, 0x1003, LNETCAP_OPC_OST_WRITE, "dd.0"));
  for (std::uint64_t mb = 0x1000; mb <= 0x1003; ++mb)
    EXPECT_TRUE(l.observe(b.get(2, mb, {mb, 1}))) << std::hex << mb;
  EXPECT_FALSE(l.observe(b.get(3, 0x1004, {9, 9})));
  EXPECT_FALSE(l.observe(b.get(3, 0x0fff, {9, 9})));
  // The same match bits with another client are not this RPC's.
  EXPECT_FALSE(l.observe(other.get(3, 0x1001, {8, 8})));
  // A REPLY naming an MD no GET of this capture returned.
  EXPECT_FALSE(l.observe(b.data_reply(4, {7, 7})));
  // Without pb_mbits the XID is the bulk's match bits (older peers).
  l.observe(b.request(5, 0x2000, 0, LNETCAP_OPC_OST_READ, ""));
  EXPECT_TRUE(l.observe(b.put(6, 0x2000, {6, 6})));
  // pb_mbits in another block (a resend's bulk): that block up to pb_mbits.
  l.observe(b.request(7, 0x3000, 0x3000 + 500, LNETCAP_OPC_OST_READ, ""));
  EXPECT_TRUE(l.observe(b.put(8, 0x3000 + 500, {6, 7})));
  EXPECT_TRUE(l.observe(b.put(8, 0x3180, {6, 9})));
  EXPECT_FALSE(l.observe(b.put(8, 0x317f, {6, 10})));
  EXPECT_FALSE(l.observe(b.put(8, 0x3000 + 1, {6, 8})));
  // The last block of the 64-bit space does not wrap.
  l.observe(b.request(9, 0xffffffffffffff80ULL, ~0ULL, LNETCAP_OPC_OST_READ, ""));
  EXPECT_TRUE(l.observe(b.put(10, ~0ULL, {6, 11})));
  EXPECT_FALSE(l.observe(b.put(10, 0, {6, 12})));
}

TEST(BulkLinker, LNetPingsAndRepliesAreNotBulk) {
  BulkRecords b("10.0.3.2@tcp", "10.0.3.1@tcp", Seen::kClient);
  BulkLinker l;
  l.observe(b.request(1, 0x8000000000000000ULL, 0, LNETCAP_OPC_OST_READ, ""));
  // A ping GET on portal 0 with the ping match bits.
  EXPECT_FALSE(l.observe(b.get(2, 0x8000000000000000ULL, {1, 2}, 272, LNETCAP_PORTAL_LNET_RESERVED)));
  // The reply PUT itself is the RPC's own message, not its bulk.
  EXPECT_FALSE(l.observe(b.reply(3, 0x8000000000000000ULL, LNETCAP_OPC_OST_READ)));
}

TEST(BulkLinker, HeadersOnlyCaptureTellsRepliesByTheirPortal) {
  // -s 0: no payload, so no lustre_msg magic to tell a reply from data.
  BulkRecords b("10.0.3.2@tcp", "10.0.3.1@tcp", Seen::kClient);
  BulkLinker l;
  l.observe(b.request(1, 0x1000, 0x1000, LNETCAP_OPC_OST_READ, ""));
  Message put = b.put(2, 0x1000, {1, 1});
  put.rec.payload = {};
  put.rpc = {};
  EXPECT_TRUE(l.observe(put));  // OST_BULK: data
  Message reply = b.reply(3, 0x1000, LNETCAP_OPC_OST_READ);
  reply.rec.payload = {};
  reply.rpc = {};
  EXPECT_FALSE(l.observe(reply));  // OSC_REPLY: a reply whose body was not captured
}

TEST(BulkLinker, AResentRequestReplacesTheOldOneSafely) {
  // The RpcMatcher case of issue 33: a resend with the same XID and new
  // bulk match bits displaces an entry filed under several keys.  ASan
  // (scripts/test.sh's second stage) finds a use of the freed entry.
  BulkRecords b("10.0.3.2@tcp", "10.0.3.1@tcp", Seen::kServer);
  BulkLinker l;
  l.observe(b.request(1, 0x1200, 0x1203, LNETCAP_OPC_OST_WRITE, "dd.0"));
  ASSERT_TRUE(l.observe(b.get(2, 0x1203, kGetMd)));  // a GET of the first attempt in flight
  // The resend: same XID, its bulk in a new block of match bits.
  l.observe(b.request(3, 0x1200, 0x1603, LNETCAP_OPC_OST_WRITE, "dd.0"));
  EXPECT_EQ(l.rpcs(), 1u);
  EXPECT_FALSE(l.observe(b.get(4, 0x1201, {5, 5})));  // the first attempt's keys went with it
  const auto late = l.observe(b.get(5, 0x1601, {6, 6}));
  ASSERT_TRUE(late);
  EXPECT_EQ(late->rpc->xid, 0x1200u);
  // The first attempt's GET still names its RPC when its REPLY comes.
  const auto reply = l.observe(b.data_reply(6, kGetMd));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->rpc->opc, LNETCAP_OPC_OST_WRITE);
  // A reused XID (another RPC) takes the keys over.
  l.observe(b.request(7, 0x1200, 0x1200, LNETCAP_OPC_OST_READ, "cat.0"));
  const auto read = l.observe(b.put(8, 0x1200, kPutMd));
  ASSERT_TRUE(read);
  EXPECT_EQ(read->rpc->opc, LNETCAP_OPC_OST_READ);
  EXPECT_EQ(l.rpcs(), 1u);
  EXPECT_EQ(l.given_up(), 0u);
}

TEST(BulkLinker, MemoryIsBoundedAndWhatIsGivenUpIsCounted) {
  BulkRecords b("10.0.3.2@tcp", "10.0.3.1@tcp", Seen::kClient);
  BulkLinker l(3, 2);
  for (std::uint64_t i = 1; i <= 5; ++i)
    l.observe(b.request(i, i * 0x80, i * 0x80 + 3, LNETCAP_OPC_OST_WRITE, ""));
  EXPECT_EQ(l.rpcs(), 3u);
  EXPECT_EQ(l.given_up(), 2u);
  EXPECT_FALSE(l.observe(b.get(6, 1 * 0x80, {1, 1})));  // given up
  EXPECT_TRUE(l.observe(b.get(6, 5 * 0x80 + 3, {1, 2})));
  // GETs waiting for their REPLY: two kept, the oldest given up.
  EXPECT_TRUE(l.observe(b.get(7, 4 * 0x80, {1, 3})));
  EXPECT_TRUE(l.observe(b.get(7, 3 * 0x80, {1, 4})));
  EXPECT_EQ(l.transfers(), 2u);
  EXPECT_EQ(l.given_up(), 3u);
  EXPECT_FALSE(l.observe(b.data_reply(8, {1, 2})));
  EXPECT_TRUE(l.observe(b.data_reply(8, {1, 4})));
  // Many requests with many keys stay within the bound of keys too.
  BulkLinker big(10);
  for (std::uint64_t i = 1; i <= 100; ++i)
    big.observe(b.request(10 + i, i * 0x80, i * 0x80 + 127, LNETCAP_OPC_OST_WRITE, ""));
  EXPECT_LE(big.rpcs(), 1u);  // 128 keys each, 40 allowed: one at a time
  EXPECT_EQ(big.given_up(), 99u);
}

TEST(BulkLinker, AnsweredRpcsAreRetiredAfterAWhile) {
  BulkRecords b("10.0.3.2@tcp", "10.0.3.1@tcp", Seen::kClient);
  BulkLinker l(BulkLinker::kDefaultMaxRpcs, BulkLinker::kDefaultMaxTransfers, 1000 * BulkRecords::kMs);
  l.observe(b.request(1, 0x1000, 0x1000, LNETCAP_OPC_OST_READ, ""));
  l.observe(b.reply(2, 0x1000, LNETCAP_OPC_OST_READ));
  // A late bulk record (another node's, in a merged capture) still links...
  EXPECT_TRUE(l.observe(b.put(500, 0x1000, kPutMd)));
  EXPECT_TRUE(l.observe(b.ack(600, 0x1000, kPutMd)));
  // ... but not once the RPC is long over.
  l.observe(b.request(1600, 0x2000, 0x2000, LNETCAP_OPC_OBD_PING, ""));
  EXPECT_EQ(l.rpcs(), 1u);
  EXPECT_FALSE(l.observe(b.put(1601, 0x1000, {9, 9})));
  EXPECT_EQ(l.transfers(), 0u);
  EXPECT_EQ(l.given_up(), 0u);
}

TEST(BulkLinker, DroppedRecordsAreNamedButTeachNothing) {
  BulkRecords b("10.0.3.2@tcp", "10.0.3.1@tcp", Seen::kClient);
  BulkLinker l;
  Message req = b.request(1, 0x1000, 0x1000, LNETCAP_OPC_OST_WRITE, "");
  req.rec.hdr.direction = LNETCAP_DIR_DROP;
  l.observe(req);
  EXPECT_FALSE(l.observe(b.get(2, 0x1000, kGetMd)));
  l.observe(b.request(3, 0x1000, 0x1000, LNETCAP_OPC_OST_WRITE, ""));
  Message get = b.get(4, 0x1000, kGetMd);
  get.rec.hdr.direction = LNETCAP_DIR_DROP;
  EXPECT_TRUE(l.observe(get));  // named
  EXPECT_FALSE(l.observe(b.data_reply(5, kGetMd)));  // the dropped GET was never answered
}

// --- summary and metrics ------------------------------------------------------

TEST(BulkSummary, BytesPerOpcodeJobTargetAndPortalIncludeTheBulk) {
  BulkRecords b("10.77.0.2@o2ib", "10.77.0.1@o2ib", Seen::kServer);
  write_and_read(b);
  // Bulk whose request was not captured stays outside the RPC groups.
  b.get(20, 0x9000, {0x77, 0x77});
  b.data_reply(21, {0x77, 0x77});
  Summary s;
  std::uint64_t write_msgs = 0, read_msgs = 0;
  for (const Message* m : b.messages()) s.add(*m);
  for (int i : {0, 3}) write_msgs += b.all()[i].msg.lnet.payload_length;
  for (int i : {4, 7}) read_msgs += b.all()[i].msg.lnet.payload_length;
  const SummaryReport r = s.report();
  const GroupStats& w = r.by(Dimension::kOpcode).at("OST_WRITE");
  EXPECT_EQ(w.messages, 4u);  // request, GET, REPLY, reply
  EXPECT_EQ(w.bulk_bytes, 1048576u);
  EXPECT_EQ(w.bytes, write_msgs + 1048576u);
  EXPECT_EQ(w.requests, 1u);
  const GroupStats& rd = r.by(Dimension::kOpcode).at("OST_READ");
  EXPECT_EQ(rd.messages, 4u);  // request, PUT, ACK, reply (the reply's ACK is not bulk)
  EXPECT_EQ(rd.bulk_bytes, 1048576u);
  EXPECT_EQ(rd.bytes, read_msgs + 1048576u);
  EXPECT_EQ(r.by(Dimension::kJobid).at("dd.500").bulk_bytes, 1048576u);
  EXPECT_EQ(r.by(Dimension::kJobid).at("dd.500").bytes, write_msgs + 1048576u);
  EXPECT_EQ(r.by(Dimension::kJobid).at("cat.0").bytes, read_msgs + 1048576u);
  const GroupStats& t = r.by(Dimension::kTarget).at("10.77.0.1@o2ib");
  EXPECT_EQ(t.bulk_bytes, 2u * 1048576u);
  EXPECT_EQ(t.messages, 8u);
  // Peer: the client, everything included, the unlinked bulk too.
  EXPECT_EQ(r.by(Dimension::kPeer).at("10.77.0.2@o2ib").bulk_bytes, 2u * 1048576u);
  EXPECT_EQ(r.by(Dimension::kPeer).at("10.77.0.2@o2ib").messages, 11u);
  // Portal: the REPLY and ACK of bulk are the bulk portal's; "(none)" keeps
  // the reply's ACK and the REPLY nobody could link.
  EXPECT_EQ(r.by(Dimension::kPortal).at("OST_BULK").messages, 5u);  // GET REPLY PUT ACK, unlinked GET
  EXPECT_EQ(r.by(Dimension::kPortal).at("OST_BULK").bytes, 2u * 1048576u);
  EXPECT_EQ(r.by(Dimension::kPortal).at("(none)").messages, 2u);
  EXPECT_EQ(r.by(Dimension::kPortal).at("(none)").bytes, 1048576u);
  EXPECT_EQ(r.by(Dimension::kPortal).at("(none)").bulk_bytes, 0u);
  EXPECT_EQ(r.total.bulk_bytes, 2u * 1048576u);
  EXPECT_EQ(r.total.bytes, write_msgs + read_msgs + 3u * 1048576u + 0u);
  EXPECT_EQ(r.total.messages, 11u);
}

TEST(BulkSummary, MergedCaptureCountsEveryRecordOfTheBulk) {
  // Client and server records of the same RPCs, interleaved as mergecap does.
  BulkRecords c("10.77.0.2@o2ib", "10.77.0.1@o2ib", Seen::kClient);
  BulkRecords s("10.77.0.2@o2ib", "10.77.0.1@o2ib", Seen::kServer);
  write_and_read(c);
  write_and_read(s);
  Summary sum;
  BulkLinker l;
  std::size_t linked = 0;
  for (std::size_t i = 0; i < c.all().size(); ++i)
    for (const BulkRecords* b : {&c, &s}) {
      sum.add(b->all()[i].msg);
      linked += l.observe(b->all()[i].msg).has_value();
    }
  EXPECT_EQ(linked, 10u);  // GET, REPLY, PUT, ACK, reply ACK on both nodes
  EXPECT_EQ(sum.report().by(Dimension::kOpcode).at("OST_WRITE").bulk_bytes, 2u * 1048576u);
}

TEST(BulkMetrics, LnetcapdCountsBulkBytesPerOpcodeAndTarget) {
  BulkRecords b("10.0.3.2@tcp", "10.0.3.1@tcp", Seen::kClient);
  write_and_read(b);
  daemon::RpcMetrics metrics(16);
  Summary s;
  for (const Message* m : b.messages()) {
    metrics.add(*m);
    s.add(*m);
  }
  const std::string text = metrics.render(1);
  const SummaryReport r = s.report();
  for (const char* op : {"OST_WRITE", "OST_READ"}) {
    const GroupStats& g = r.by(Dimension::kOpcode).at(op);
    EXPECT_NE(text.find("lnetcap_opcode_bulk_bytes_total{opcode=\"" + std::string(op) + "\"} 1048576\n"),
              std::string::npos) << op;
    EXPECT_NE(text.find("lnetcap_opcode_bytes_total{opcode=\"" + std::string(op) + "\"} " +
                        std::to_string(g.bytes) + "\n"),
              std::string::npos) << op;
  }
  EXPECT_NE(text.find("lnetcap_target_bulk_bytes_total{target=\"10.0.3.1@tcp\"} 2097152\n"), std::string::npos);
  EXPECT_NE(text.find("lnetcap_bulk_bytes_total 2097152\n"), std::string::npos);
}

TEST(BulkCommandScope, TheCommandsBulkRepliesAreItsOwn) {
  // --only-command: the REPLY of a bulk GET has no match bits; it belongs
  // to the command when its GET is the bulk of one of the command's requests.
  BulkRecords b("10.77.0.2@o2ib", "10.77.0.1@o2ib", Seen::kClient);
  write_and_read(b);  // OST_WRITE by dd.500, OST_READ by cat.0
  CommandScope scope("dd.500");
  std::vector<bool> kept;
  for (const Message* m : b.messages()) kept.push_back(scope.includes(*m));
  EXPECT_EQ(kept, (std::vector<bool>{true, true, true, true, false, false, false, false, false}));
}

// --- latency split of a merged client + server capture ----------------------

TEST(LatencySplit, ClockOffsetLeavesNoTransitNegativeAndBulkApart) {
  // True times in ms; the server's clock is 5 ms ahead of the client's.
  // request sent 10, arrives 12; GET 13 (client sees it 14, REPLY 15),
  // REPLY in at 16; reply sent 20, arrives 22.
  BulkRecords c("10.77.0.2@o2ib", "10.77.0.1@o2ib", Seen::kClient);
  BulkRecords s("10.77.0.2@o2ib", "10.77.0.1@o2ib", Seen::kServer);
  const std::uint64_t xid = 0x1000;
  c.request(10, xid, xid, LNETCAP_OPC_OST_WRITE, "dd.0");
  s.request(12 + 5, xid, xid, LNETCAP_OPC_OST_WRITE, "dd.0");
  s.get(13 + 5, xid, kGetMd);
  c.get(14, xid, kGetMd);
  c.data_reply(15, kGetMd);
  s.data_reply(16 + 5, kGetMd);
  s.reply(20 + 5, xid, LNETCAP_OPC_OST_WRITE);
  c.reply(22, xid, LNETCAP_OPC_OST_WRITE);
  std::vector<Message> all;
  for (const BulkRecords* b : {&c, &s})
    for (const auto& o : b->all()) all.push_back(o.msg);
  std::stable_sort(all.begin(), all.end(), [](const Message& a, const Message& b) { return a.ts_ns < b.ts_ns; });
  all.front().rec.hdr.flags |= LNETCAP_REC_F_QUEUE_VALID;  // the client's SEND of the request
  all.front().rec.hdr.queue_ns = 300000;
  ASSERT_EQ(all.front().rec.hdr.direction, LNETCAP_DIR_SEND);
  Summary sum;
  for (const Message& m : all) sum.add(m);
  const SummaryReport r = sum.report();
  ASSERT_EQ(r.latency_split.by(SplitBy::kOpcode).size(), 1u);
  const LatencySplitStats& w = r.latency_split.by(SplitBy::kOpcode).at("OST_WRITE");
  constexpr std::uint64_t ms = BulkRecords::kMs;
  EXPECT_EQ(r.latency_split.clock_offset_ns.at({"10.77.0.2@o2ib", "10.77.0.1@o2ib"}), 5 * static_cast<std::int64_t>(ms));
  EXPECT_EQ(w.client_queue.samples(), (std::vector<std::uint64_t>{300000}));
  EXPECT_EQ(w.request_transit.samples(), (std::vector<std::uint64_t>{2 * ms}));
  EXPECT_EQ(w.bulk.samples(), (std::vector<std::uint64_t>{3 * ms}));    // GET sent 13, REPLY in 16
  EXPECT_EQ(w.server.samples(), (std::vector<std::uint64_t>{5 * ms}));  // 12..20, less the bulk
  EXPECT_EQ(w.reply_transit.samples(), (std::vector<std::uint64_t>{2 * ms}));
  // The RPC's jobid, client and target groups hold the same figures.
  EXPECT_EQ(r.latency_split.by(SplitBy::kJobid).at("dd.0").bulk.samples(), (std::vector<std::uint64_t>{3 * ms}));
  EXPECT_EQ(r.latency_split.by(SplitBy::kClient).at("10.77.0.2@o2ib").client_queue.samples(),
            (std::vector<std::uint64_t>{300000}));
  EXPECT_EQ(r.latency_split.by(SplitBy::kTarget).at("10.77.0.1@o2ib").server.samples(),
            (std::vector<std::uint64_t>{5 * ms}));
  const std::string t = render_table(r);
  EXPECT_NE(t.find("Clock offset 10.77.0.2@o2ib -> 10.77.0.1@o2ib: server +5.00ms"), std::string::npos) << t;
  EXPECT_NE(t.find("\nLatency split (p50)       rpcs     queue   request    server      bulk     reply\n"
                   "OST_WRITE                    1   300.0us    2.00ms    5.00ms    3.00ms    2.00ms\n"),
            std::string::npos)
      << t;
  // The example of docs/REPORTS.md "Latency split".
  EXPECT_NE(t.find("\nLatency split by jobid (p50)    rpcs     queue   request    server      bulk     reply\n"
                   "dd.0                               1   300.0us    2.00ms    5.00ms    3.00ms    2.00ms\n\n"
                   "Latency split by client (p50)    rpcs     queue   request    server      bulk     reply\n"
                   "10.77.0.2@o2ib                      1   300.0us    2.00ms    5.00ms    3.00ms    2.00ms\n\n"
                   "Latency split by target (p50)    rpcs     queue   request    server      bulk     reply\n"
                   "10.77.0.1@o2ib                      1   300.0us    2.00ms    5.00ms    3.00ms    2.00ms\n"
                   "Clock offset 10.77.0.2@o2ib -> 10.77.0.1@o2ib: server +5.00ms"),
            std::string::npos)
      << t;
  EXPECT_NE(render_json(r).find("\"latency_split\": {\"clock_offset_ns\": {\"10.77.0.2@o2ib -> 10.77.0.1@o2ib\": 5000000}"),
            std::string::npos);
}

TEST(LatencySplit, OneNodesCaptureHasNone) {
  BulkRecords b("10.0.3.2@tcp", "10.0.3.1@tcp", Seen::kClient);
  write_and_read(b);
  Summary s;
  for (const Message* m : b.messages()) s.add(*m);
  EXPECT_TRUE(s.report().latency_split.empty());
  EXPECT_EQ(render_table(s.report()).find("Latency split"), std::string::npos);
  EXPECT_EQ(render_json(s.report()).find("latency_split"), std::string::npos);
}

}  // namespace
