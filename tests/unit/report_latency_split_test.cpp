// SPDX-License-Identifier: GPL-2.0-or-later
// The latency split of merged client + server captures (report/latency_split.h)
// per opcode, jobid, client and target, in bounded memory, and its table,
// JSON and Prometheus output.  (The split of one bulk RPC and a one-node
// capture without split are in report_bulk_test.cpp.)
#include "report/latency_split.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "bulk_messages.h"
#include "report/summary.h"
#include "report/summary_format.h"

using namespace lnetcap;
using namespace lnetcap::report;
using lnetcap::test::BulkRecords;
using lnetcap::test::Seen;

namespace {

constexpr std::uint64_t ms = BulkRecords::kMs;
constexpr const char* kC1 = "10.77.0.2@o2ib";
constexpr const char* kC2 = "10.77.0.3@o2ib";
constexpr const char* kS1 = "10.77.0.1@o2ib";
constexpr const char* kS2 = "10.77.0.4@o2ib";

// One RPC as its client and its server record it, in true ms; each node's
// records carry its own clock (true time + skew).
struct Node {
  const char* nid;
  std::uint64_t skew_ms;
};
void rpc(std::vector<std::unique_ptr<BulkRecords>>& keep, Node c, Node s, std::uint64_t xid,
         std::uint32_t opc, const std::string& jobid, std::uint64_t send, std::uint64_t arrive,
         std::uint64_t answer, std::uint64_t back) {
  auto& cr = *keep.emplace_back(std::make_unique<BulkRecords>(c.nid, s.nid, Seen::kClient));
  auto& sr = *keep.emplace_back(std::make_unique<BulkRecords>(c.nid, s.nid, Seen::kServer));
  cr.request(send + c.skew_ms, xid, xid, opc, jobid);
  sr.request(arrive + s.skew_ms, xid, xid, opc, jobid);
  sr.reply(answer + s.skew_ms, xid, opc);
  cr.reply(back + c.skew_ms, xid, opc);
}

// The summary of every node's records merged in time order (as mergecap).
SummaryReport summarise_merged(const std::vector<std::unique_ptr<BulkRecords>>& keep) {
  std::vector<Message> all;
  for (const auto& b : keep)
    for (const auto& o : b->all()) all.push_back(o.msg);
  std::stable_sort(all.begin(), all.end(), [](const Message& a, const Message& b) { return a.ts_ns < b.ts_ns; });
  Summary sum;
  for (const Message& m : all) sum.add(m);
  return sum.report();
}

// Three RPCs between two clients and two servers whose clocks differ:
// client 1 true time, client 2 +1 ms, server 1 +5 ms, server 2 +10 ms;
// transits are symmetric, so the offset estimated is the true one.
SummaryReport three_rpcs() {
  const Node c1{kC1, 0}, c2{kC2, 1}, s1{kS1, 5}, s2{kS2, 10};
  std::vector<std::unique_ptr<BulkRecords>> keep;
  rpc(keep, c1, s1, 0x1000, LNETCAP_OPC_OST_WRITE, "dd.0", 10, 12, 20, 22);  // 2 / 8 / 2
  rpc(keep, c2, s2, 0x2000, LNETCAP_OPC_OST_READ, "cat.1", 30, 31, 33, 34);  // 1 / 2 / 1
  rpc(keep, c1, s2, 0x3000, LNETCAP_OPC_OST_READ, "dd.0", 40, 43, 47, 50);   // 3 / 4 / 3
  return summarise_merged(keep);
}

std::vector<std::uint64_t> sorted(const LatencySamples& s) {
  std::vector<std::uint64_t> v = s.samples();
  std::sort(v.begin(), v.end());
  return v;
}

// Merged records of RPCs given as (client, server, xid, send, arrive, answer,
// back), in each node's own clock.
SummaryReport merged(const std::vector<std::tuple<Node, Node, std::uint64_t, std::uint64_t, std::uint64_t,
                                                  std::uint64_t, std::uint64_t>>& rpcs) {
  std::vector<std::unique_ptr<BulkRecords>> keep;
  for (const auto& [c, s, xid, send, arrive, answer, back] : rpcs)
    rpc(keep, c, s, xid, LNETCAP_OPC_OST_READ, "dd.0", send, arrive, answer, back);
  return summarise_merged(keep);
}

// The server's clock runs 10 ms fast over the capture: no single offset
// keeps every transit non-negative.  The RPCs that needed a 0 are counted
// and said, so the split never looks exact when it is not.
TEST(LatencySplit, TransitsBelowZeroAfterTheEstimateAreCounted) {
  const Node c{kC1, 0}, s_early{kS1, 0}, s_late{kS1, 10};
  const SummaryReport r = merged({{c, s_early, 0x1000, 10, 11, 12, 13},  // 1 / 1 / 1
                                  {c, s_late, 0x2000, 20, 21, 22, 23}});
  const LatencySplitReport& l = r.latency_split;
  ASSERT_EQ(l.total.rpcs(), 2u);
  EXPECT_EQ(l.negative_transits, 2u);
  const std::string table = render_table(r);
  EXPECT_NE(table.find("2 RPCs had a transit below 0 after the clock estimate"), std::string::npos) << table;
  EXPECT_NE(render_json(r).find("\"negative_transits\": 2"), std::string::npos);
  // Clocks that agree need none.
  EXPECT_EQ(merged({{c, s_early, 0x1000, 10, 11, 12, 13}, {c, s_early, 0x2000, 20, 21, 22, 23}})
                .latency_split.negative_transits,
            0u);
}

// Over 0@lo a node is its own client and server: one clock, offset 0
// whatever the transits (the middle of their interval would not be 0).
TEST(LatencySplit, OneNodeOverLoIsOneClock) {
  SplitRpc r;
  r.opc = LNETCAP_OPC_OST_STATFS;
  r.client = r.server = *Nid::parse("0@lo");
  r.c_send = 10 * ms, r.s_recv = 11 * ms, r.s_send = 15 * ms, r.c_recv = 18 * ms;  // 1 ms in, 3 ms back
  LatencySplitFigures f;
  f.add(r);
  SummaryReport rep;
  rep.latency_split = f.report();
  const LatencySplitReport& l = rep.latency_split;
  ASSERT_EQ(l.clock_offset_ns.size(), 1u);
  EXPECT_EQ(l.clock_offset_ns.begin()->second, 0);
  EXPECT_EQ(sorted(l.total.request_transit), (std::vector<std::uint64_t>{1 * ms}));
  EXPECT_EQ(sorted(l.total.reply_transit), (std::vector<std::uint64_t>{3 * ms}));
  EXPECT_EQ(l.negative_transits, 0u);
  EXPECT_NE(render_table(rep).find("Clock offset 0@lo -> 0@lo: server +0ns (one node, one clock)"),
            std::string::npos)
      << render_table(rep);
}

TEST(LatencySplit, GroupedByOpcodeJobClientAndTarget) {
  const LatencySplitReport l = three_rpcs().latency_split;
  ASSERT_FALSE(l.empty());
  EXPECT_EQ(l.total.rpcs(), 3u);
  EXPECT_EQ(sorted(l.total.request_transit), (std::vector<std::uint64_t>{1 * ms, 2 * ms, 3 * ms}));
  EXPECT_EQ(sorted(l.total.server), (std::vector<std::uint64_t>{2 * ms, 4 * ms, 8 * ms}));
  const auto& op = l.by(SplitBy::kOpcode);
  ASSERT_EQ(op.size(), 2u);
  EXPECT_EQ(sorted(op.at("OST_READ").server), (std::vector<std::uint64_t>{2 * ms, 4 * ms}));
  EXPECT_EQ(sorted(op.at("OST_WRITE").server), (std::vector<std::uint64_t>{8 * ms}));
  const auto& job = l.by(SplitBy::kJobid);
  ASSERT_EQ(job.size(), 2u);
  EXPECT_EQ(sorted(job.at("dd.0").request_transit), (std::vector<std::uint64_t>{2 * ms, 3 * ms}));
  EXPECT_EQ(sorted(job.at("cat.1").reply_transit), (std::vector<std::uint64_t>{1 * ms}));
  const auto& client = l.by(SplitBy::kClient);
  ASSERT_EQ(client.size(), 2u);
  EXPECT_EQ(sorted(client.at(kC1).server), (std::vector<std::uint64_t>{4 * ms, 8 * ms}));
  EXPECT_EQ(sorted(client.at(kC2).server), (std::vector<std::uint64_t>{2 * ms}));
  const auto& target = l.by(SplitBy::kTarget);
  ASSERT_EQ(target.size(), 2u);
  EXPECT_EQ(sorted(target.at(kS1).reply_transit), (std::vector<std::uint64_t>{2 * ms}));
  EXPECT_EQ(sorted(target.at(kS2).reply_transit), (std::vector<std::uint64_t>{1 * ms, 3 * ms}));
  // One offset per client and server, as before.
  ASSERT_EQ(l.clock_offset_ns.size(), 3u);
  EXPECT_EQ(l.clock_offset_ns.at({kC1, kS1}), static_cast<std::int64_t>(5 * ms));
  EXPECT_EQ(l.clock_offset_ns.at({kC1, kS2}), static_cast<std::int64_t>(10 * ms));
  EXPECT_EQ(l.clock_offset_ns.at({kC2, kS2}), static_cast<std::int64_t>(9 * ms));
  EXPECT_EQ(l.rpcs_not_split, 0u);
}

TEST(LatencySplit, TableHasABlockPerDimension) {
  const std::string t = render_table(three_rpcs());
  // Today's block first, unchanged, then job, client and target; busiest first.
  EXPECT_NE(t.find("\nLatency split (p50)       rpcs     queue   request    server      bulk     reply\n"
                   "OST_READ                     2         -    1.00ms    2.00ms         -    1.00ms\n"
                   "OST_WRITE                    1         -    2.00ms    8.00ms         -    2.00ms\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("\nLatency split by jobid (p50)    rpcs     queue   request    server      bulk     reply\n"
                   "dd.0                               2         -    2.00ms    4.00ms         -    2.00ms\n"
                   "cat.1                              1         -    1.00ms    2.00ms         -    1.00ms\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("\nLatency split by client (p50)    rpcs"), std::string::npos) << t;
  EXPECT_NE(t.find("\n10.77.0.2@o2ib                      2         -    2.00ms    4.00ms         -    2.00ms\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("\nLatency split by target (p50)    rpcs"), std::string::npos) << t;
  EXPECT_NE(t.find("\n10.77.0.4@o2ib                      2         -    1.00ms    2.00ms         -    1.00ms\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("Clock offset 10.77.0.3@o2ib -> 10.77.0.4@o2ib: server +9.00ms"), std::string::npos) << t;
}

TEST(LatencySplit, JsonKeepsByOpcodeAndAddsJobClientTarget) {
  const std::string j = render_json(three_rpcs());
  // by_opcode's elements as before this change.
  EXPECT_NE(j.find("\"by_opcode\": [\n    {\"opcode\": \"OST_READ\", \"client_queue_ns\": {\"count\": 0, "
                   "\"p50\": null, \"p90\": null, \"p99\": null, \"max\": null}, \"request_transit_ns\": "
                   "{\"count\": 2, \"p50\": 1000000, \"p90\": 3000000, \"p99\": 3000000, \"max\": 3000000}, "
                   "\"server_ns\": {\"count\": 2, \"p50\": 2000000, \"p90\": 4000000, \"p99\": 4000000, "
                   "\"max\": 4000000}, \"bulk_ns\": {\"count\": 0, \"p50\": null, \"p90\": null, \"p99\": "
                   "null, \"max\": null}, \"reply_transit_ns\": {\"count\": 2, "),
            std::string::npos)
      << j;
  EXPECT_NE(j.find("\"by_jobid\": [\n    {\"jobid\": \"cat.1\", \"client_queue_ns\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"by_client\": [\n    {\"client\": \"10.77.0.2@o2ib\", \"client_queue_ns\""), std::string::npos)
      << j;
  EXPECT_NE(j.find("\"by_target\": [\n    {\"target\": \"10.77.0.1@o2ib\", \"client_queue_ns\""), std::string::npos)
      << j;
  EXPECT_NE(j.find("\"rpcs_not_split\": 0, \"negative_transits\": 0, \"total\": {\"client_queue_ns\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"10.77.0.3@o2ib -> 10.77.0.4@o2ib\": 9000000"), std::string::npos) << j;
}

TEST(LatencySplit, PrometheusHasThePhasesPerDimensionAndTheClockOffsets) {
  const std::string p = render_prometheus(three_rpcs());
  for (const char* line :
       {"# TYPE lnetcap_rpc_phase_seconds summary\n",
        "\nlnetcap_rpc_phase_seconds{phase=\"server\",quantile=\"0.5\"} 0.004\n",
        "\nlnetcap_rpc_phase_seconds{phase=\"request_transit\",quantile=\"1\"} 0.003\n",
        "\nlnetcap_rpc_phase_seconds_count{phase=\"reply_transit\"} 3\n",
        "\nlnetcap_rpc_phase_seconds_sum{phase=\"server\"} 0.014\n",
        "# TYPE lnetcap_opcode_rpc_phase_seconds summary\n",
        "\nlnetcap_opcode_rpc_phase_seconds{opcode=\"OST_WRITE\",phase=\"server\",quantile=\"0.99\"} 0.008\n",
        "# TYPE lnetcap_jobid_rpc_phase_seconds summary\n",
        "\nlnetcap_jobid_rpc_phase_seconds_count{jobid=\"dd.0\",phase=\"request_transit\"} 2\n",
        "# TYPE lnetcap_client_rpc_phase_seconds summary\n",
        "\nlnetcap_client_rpc_phase_seconds{client=\"10.77.0.3@o2ib\",phase=\"server\",quantile=\"0.9\"} 0.002\n",
        "# TYPE lnetcap_target_rpc_phase_seconds summary\n",
        "\nlnetcap_target_rpc_phase_seconds{target=\"10.77.0.4@o2ib\",phase=\"reply_transit\",quantile=\"0.5\"} 0.001\n",
        "# TYPE lnetcap_clock_offset_seconds gauge\n",
        "\nlnetcap_clock_offset_seconds{client=\"10.77.0.2@o2ib\",server=\"10.77.0.4@o2ib\"} 0.01\n"})
    EXPECT_NE(p.find(line), std::string::npos) << line << p;
  // No queue time and no bulk in these RPCs: no such samples.
  EXPECT_EQ(p.find("phase=\"bulk\""), std::string::npos);
  EXPECT_EQ(p.find("phase=\"client_queue\""), std::string::npos);
}

TEST(LatencySplit, PrometheusLabelsAreEscaped) {
  LatencySplitFigures f;
  SplitRpc r;
  r.opc = LNETCAP_OPC_OST_WRITE;
  r.client = test::nid(kC1);
  r.server = test::nid(kS1);
  r.jobid = "a\"b\\c";
  r.c_send = 10 * ms, r.s_recv = 12 * ms, r.s_send = 20 * ms, r.c_recv = 22 * ms;
  f.add(r);
  std::string p;
  prom_latency_split(p, f.report());
  // The key is the jobid's printable text (a"b\\c, as --summary shows it),
  // then escaped for the label as every lnetcap_jobid_ family is.
  EXPECT_NE(p.find("\nlnetcap_jobid_rpc_phase_seconds_count{jobid=\"a\\\"b\\\\\\\\c\",phase=\"server\"} 1\n"),
            std::string::npos)
      << p;
}

// RPCs between the same client and server, given straight to the figures.
SplitRpc plain(std::uint64_t i, std::int64_t to_server_ms = 2, std::int64_t to_client_ms = 2) {
  SplitRpc r;
  r.opc = LNETCAP_OPC_OST_READ;
  r.client = test::nid(kC1);
  r.server = test::nid(kS1);
  r.c_send = (1000 + 100 * i) * ms;
  r.s_recv = r.c_send + to_server_ms * ms;
  r.s_send = r.s_recv + 5 * ms;
  r.c_recv = r.s_send + to_client_ms * ms;
  return r;
}

TEST(LatencySplit, GroupsPastTheBudgetShareOther) {
  LatencySplitFigures f;
  constexpr std::size_t n = LatencySplitFigures::kMaxGroups + 10;
  for (std::size_t i = 0; i < n; ++i) {
    SplitRpc r = plain(i);
    r.jobid = "job." + std::to_string(i);
    r.opc = 100000 + static_cast<std::uint32_t>(i);  // opc_N: unbounded on the wire too
    f.add(r);
  }
  // One more of an admitted job keeps its own group.
  SplitRpc again = plain(n);
  again.jobid = "job.0";
  again.opc = 100000;
  f.add(again);
  const LatencySplitReport l = f.report();
  EXPECT_EQ(l.total.rpcs(), n + 1);
  for (SplitBy d : {SplitBy::kJobid, SplitBy::kOpcode}) {
    ASSERT_EQ(l.by(d).size(), LatencySplitFigures::kMaxGroups + 1) << split_dimension_name(d);
    EXPECT_EQ(l.by(d).at(kOtherSplitGroup).rpcs(), 10u) << split_dimension_name(d);
  }
  EXPECT_EQ(l.by(SplitBy::kJobid).at("job.0").rpcs(), 2u);
  EXPECT_EQ(l.by(SplitBy::kJobid).count("job." + std::to_string(n - 1)), 0u);
  EXPECT_EQ(l.by(SplitBy::kClient).size(), 1u);
}

TEST(LatencySplit, PairsPastTheBudgetAreCountedNotSplit) {
  LatencySplitFigures f;
  constexpr std::size_t n = LatencySplitFigures::kMaxPairs + 3;
  for (std::size_t i = 0; i < n; ++i) {
    SplitRpc r = plain(i);
    r.client = Nid::from_nid4((std::uint64_t{0x20000} << 32) | (0x0a000000 + i));  // 10.x.y.z@tcp
    f.add(r);
  }
  const LatencySplitReport l = f.report();
  EXPECT_EQ(l.clock_offset_ns.size(), LatencySplitFigures::kMaxPairs);
  EXPECT_EQ(l.total.rpcs(), LatencySplitFigures::kMaxPairs);
  EXPECT_EQ(l.rpcs_not_split, 3u);
  EXPECT_EQ(l.by(SplitBy::kClient).size(), LatencySplitFigures::kMaxGroups + 1);
  SummaryReport r;
  r.latency_split = l;
  EXPECT_NE(render_table(r).find(
                "\n3 RPCs of further client/server pairs not split (at most 4096 pairs)\n"),
            std::string::npos);
}

// A week of RPCs: every one counted (the old split kept the first 2^18),
// in histograms, and each batch split with the offset known when it filled.
TEST(LatencySplit, MemoryStaysBoundedHoweverManyRpcs) {
  LatencySplitFigures f;
  constexpr std::size_t n = 300000;
  for (std::size_t i = 0; i < n; ++i) f.add(plain(i));
  const LatencySplitReport l = f.report();
  EXPECT_EQ(l.total.rpcs(), n);
  EXPECT_EQ(l.by(SplitBy::kOpcode).at("OST_READ").rpcs(), n);
  EXPECT_FALSE(l.total.server.exact());  // a histogram, not 300000 samples
  EXPECT_EQ(l.total.server.max(), 5 * ms);
  EXPECT_EQ(l.total.request_transit.max(), 2 * ms);
  EXPECT_EQ(l.total.request_transit.percentile(50), 2 * ms);  // within a bucket's 0.8%
}

TEST(LatencySplit, FewerRpcsThanABatchShareTheFinalOffset) {
  // The first RPCs leave the offset anywhere in [-2, 10] ms (middle 4:
  // transits 6 and 6); the last narrows it to [-2, 4] (middle 1).
  for (const std::size_t first : {LatencySplitFigures::kBatch - 1, LatencySplitFigures::kBatch}) {
    LatencySplitFigures f;
    for (std::size_t i = 0; i < first; ++i) f.add(plain(i, 10, 2));
    f.add(plain(first, 4, 8));
    const LatencySplitReport l = f.report();
    EXPECT_EQ(l.clock_offset_ns.begin()->second, static_cast<std::int64_t>(1 * ms));
    ASSERT_EQ(l.total.rpcs(), first + 1);
    // Within one batch all are split with the final offset: 10 - 1 = 9 ms.
    // Past a full batch, that batch kept the offset it was split with.
    const std::uint64_t early = first < LatencySplitFigures::kBatch ? 9 * ms : 6 * ms;
    EXPECT_EQ(l.total.request_transit.max(), early) << first;
    // The last: 4 - 1 = 3 ms (the histogram's bucket of 3 ms ends below 3.1).
    EXPECT_EQ(l.total.request_transit.count_at_most(3100000), 1u) << first;
  }
}

}  // namespace
