// SPDX-License-Identifier: GPL-2.0-or-later
// lnetcapd's metrics (daemon/rpc_metrics.h) give --summary's numbers: fed
// the bundled sample, every opcode's request count, latency count and
// histogram buckets equal what report::Summary computes from the same
// records; and label cardinality stays within its bound.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "bulk_messages.h"
#include "daemon/rpc_metrics.h"
#include "file_source.h"
#include "record.h"
#include "report/summary.h"

namespace lnetcap::daemon {
namespace {

// The sample value of one series in the text format, or -1.
double sample(const std::string& text, const std::string& series) {
  const auto at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

void feed_sample(const char* name, RpcMetrics& metrics, report::Summary* summary) {
  LnetcapFileSource source(std::string(LNETCAP_SOURCE_DIR "/samples/") + name);
  CapturedRecord rec;
  while (source.next(rec)) {
    std::string why;
    const auto view = parse_record(rec.bytes, &why);
    ASSERT_TRUE(view) << why;
    const Message m = decode_message(*view, rec.ts_ns, rec.interface_id);
    metrics.add(m);
    if (summary) summary->add(m);
  }
}

class RpcMetricsOnSample : public ::testing::TestWithParam<const char*> {};

TEST_P(RpcMetricsOnSample, EqualTheSummary) {
  RpcMetrics metrics(256);
  report::Summary summary;
  feed_sample(GetParam(), metrics, &summary);
  const std::string text = metrics.render(1);
  const report::SummaryReport r = summary.report();
  ASSERT_GE(r.by(report::Dimension::kOpcode).size(), 3u);
  for (const auto& [opcode, g] : r.by(report::Dimension::kOpcode)) {
    const std::string l = "{opcode=\"" + opcode + "\"";
    EXPECT_EQ(sample(text, "lnetcap_opcode_requests_total" + l + "}"), g.requests) << opcode;
    EXPECT_EQ(sample(text, "lnetcap_opcode_replies_total" + l + "}"), g.replies) << opcode;
    EXPECT_EQ(sample(text, "lnetcap_opcode_messages_total" + l + "}"), g.messages) << opcode;
    // Bulk counts for its RPC's opcode in both (report/bulk_linker.h).
    EXPECT_EQ(sample(text, "lnetcap_opcode_bytes_total" + l + "}"), g.bytes) << opcode;
    EXPECT_EQ(sample(text, "lnetcap_opcode_bulk_bytes_total" + l + "}"), g.bulk_bytes) << opcode;
    EXPECT_EQ(sample(text, "lnetcap_opcode_rpc_latency_seconds_count" + l + "}"), g.latencies_ns.size())
        << opcode;
    for (double le : report::kLatencyBuckets) {
      std::uint64_t n = 0;
      for (std::uint64_t ns : g.latencies_ns.samples()) n += ns / 1e9 <= le;
      EXPECT_EQ(sample(text, "lnetcap_opcode_rpc_latency_seconds_bucket" + l + ",le=\"" +
                                 report::prom_number(le) + "\"}"),
                n)
          << opcode << " le " << le;
    }
  }
  EXPECT_EQ(sample(text, "lnetcap_requests_total"), r.total.requests);
  EXPECT_EQ(sample(text, "lnetcap_bulk_bytes_total"), r.total.bulk_bytes);
  for (const auto& [target, g] : r.by(report::Dimension::kTarget))
    EXPECT_EQ(sample(text, "lnetcap_target_bulk_bytes_total{target=\"" + target + "\"}"), g.bulk_bytes)
        << target;
  EXPECT_EQ(sample(text, "lnetcap_rpc_latency_seconds_count"), r.total.latencies_ns.size());
  for (const auto& [status, n] : r.total.errors_by_status)
    EXPECT_EQ(sample(text, "lnetcap_rpc_errors_total{status=\"" + std::to_string(status) + "\"}"), n);
  for (const auto& [peer, g] : r.by(report::Dimension::kPeer))
    EXPECT_EQ(sample(text, "lnetcap_peer_messages_total{peer=\"" + peer + "\"}"), g.messages) << peer;
  EXPECT_EQ(sample(text, "lnetcap_scrapes_total"), 1);
}

// lustre-fs-part1: 22 opcodes, an error reply; synthetic-rpcs: four peers.
INSTANTIATE_TEST_SUITE_P(Samples, RpcMetricsOnSample,
                         ::testing::Values("lustre-fs-part1.pcapng", "synthetic-rpcs.pcapng"));

TEST(RpcMetrics, ErrorRepliesCountedByStatus) {
  RpcMetrics metrics(256);
  report::Summary summary;
  feed_sample("lustre-fs-part1.pcapng", metrics, &summary);
  const std::string text = metrics.render(1);
  const report::SummaryReport r = summary.report();
  ASSERT_FALSE(r.total.errors_by_status.empty()) << "the sample has an error reply";
  for (const auto& [status, n] : r.total.errors_by_status)
    EXPECT_EQ(sample(text, "lnetcap_rpc_errors_total{status=\"" + std::to_string(status) + "\"}"), n);
}

TEST(RpcMetrics, LabelValuesAreBounded) {
  RpcMetrics metrics(2);
  feed_sample("synthetic-rpcs.pcapng", metrics, nullptr);
  const std::string text = metrics.render(1);
  // The sample has four peers; with a budget of two, the last two are "other".
  std::set<std::string> peers, targets;
  std::regex peer_re("lnetcap_peer_messages_total\\{peer=\"([^\"]*)\"\\}");
  std::regex target_re("lnetcap_target_messages_total\\{target=\"([^\"]*)\"\\}");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), peer_re); it != std::sregex_iterator(); ++it)
    peers.insert((*it)[1]);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), target_re); it != std::sregex_iterator(); ++it)
    targets.insert((*it)[1]);
  // The first two in arrival order keep their names; nothing is lost.
  EXPECT_EQ(peers, (std::set<std::string>{"10.0.3.1@tcp", "17@kfi", "other"}));
  double messages = 0;
  for (const auto& p : peers) messages += sample(text, "lnetcap_peer_messages_total{peer=\"" + p + "\"}");
  EXPECT_EQ(messages, sample(text, "lnetcap_messages_total"));
  EXPECT_LE(targets.size(), 3u);
  EXPECT_EQ(sample(text, "lnetcap_label_values_limit"), 2);
}

// Both ends of RPCs: client 10.77.0.2@o2ib on true time, each server 5 ms
// ahead; request sent 10, arrives 12, reply sent 20, arrives 22 (ms).
std::vector<Message> merged_rpcs(const std::vector<std::pair<const char*, std::uint32_t>>& to) {
  std::vector<std::unique_ptr<test::BulkRecords>> keep;
  std::vector<Message> all;
  std::uint64_t xid = 0x1000, t = 0;
  for (const auto& [server, opc] : to) {
    auto& c = *keep.emplace_back(std::make_unique<test::BulkRecords>("10.77.0.2@o2ib", server, test::Seen::kClient));
    auto& s = *keep.emplace_back(std::make_unique<test::BulkRecords>("10.77.0.2@o2ib", server, test::Seen::kServer));
    c.request(t + 10, xid, xid, opc, "dd.0");
    s.request(t + 12 + 5, xid, xid, opc, "dd.0");
    s.reply(t + 20 + 5, xid, opc);
    c.reply(t + 22, xid, opc);
    xid += 0x100, t += 100;
    for (const auto* b : {&c, &s})
      for (const auto& o : b->all()) all.push_back(o.msg);
  }
  std::stable_sort(all.begin(), all.end(), [](const Message& a, const Message& b) { return a.ts_ns < b.ts_ns; });
  return all;
}

TEST(RpcMetrics, LatencySplitByOpcodeAndTargetOnly) {
  RpcMetrics metrics(256);
  for (const Message& m : merged_rpcs({{"10.77.0.1@o2ib", LNETCAP_OPC_OST_WRITE}, {"10.77.0.1@o2ib", 4242}}))
    metrics.add(m);
  const std::string text = metrics.render(1);
  EXPECT_EQ(sample(text, "lnetcap_rpc_phase_seconds_count{phase=\"server\"}"), 2) << text;
  EXPECT_EQ(sample(text, "lnetcap_opcode_rpc_phase_seconds{opcode=\"OST_WRITE\",phase=\"server\",quantile=\"0.5\"}"),
            0.008);
  // An opcode outside lnetcap's table is "other", as in the other families.
  EXPECT_EQ(sample(text, "lnetcap_opcode_rpc_phase_seconds_count{opcode=\"other\",phase=\"request_transit\"}"), 1);
  EXPECT_EQ(sample(text, "lnetcap_target_rpc_phase_seconds{target=\"10.77.0.1@o2ib\",phase=\"reply_transit\",quantile=\"1\"}"),
            0.002);
  EXPECT_EQ(sample(text, "lnetcap_clock_offset_seconds{client=\"10.77.0.2@o2ib\",server=\"10.77.0.1@o2ib\"}"), 0.005);
  // Jobids are never a label of lnetcapd's, and clients are not a dimension.
  EXPECT_EQ(text.find("lnetcap_jobid_rpc_phase"), std::string::npos);
  EXPECT_EQ(text.find("lnetcap_client_rpc_phase"), std::string::npos);
}

TEST(RpcMetrics, LatencySplitLabelsAreBoundedAndPseudonymised) {
  RpcMetrics metrics(1);
  metrics.pseudonymise_labels([](const std::string& v) { return "anon-" + std::to_string(v.size()); });
  for (const Message& m : merged_rpcs({{"10.77.0.1@o2ib", LNETCAP_OPC_OST_WRITE}, {"10.77.0.44@o2ib", LNETCAP_OPC_OST_WRITE}}))
    metrics.add(m);
  const std::string text = metrics.render(1);
  // The second target is past the budget of one: "other", and no offset of its own.
  EXPECT_EQ(sample(text, "lnetcap_target_rpc_phase_seconds_count{target=\"anon-14\",phase=\"server\"}"), 1) << text;
  EXPECT_EQ(sample(text, "lnetcap_target_rpc_phase_seconds_count{target=\"other\",phase=\"server\"}"), 1);
  EXPECT_EQ(sample(text, "lnetcap_clock_offset_seconds{client=\"anon-14\",server=\"anon-14\"}"), 0.005);
  EXPECT_EQ(text.find("anon-15"), std::string::npos);
  EXPECT_EQ(text.find("10.77."), std::string::npos);  // no clear NID anywhere
}

TEST(RpcMetrics, NoLatencySplitFromOneEnd) {
  RpcMetrics metrics(256);
  feed_sample("lustre-fs-part1.pcapng", metrics, nullptr);
  const std::string text = metrics.render(1);
  EXPECT_EQ(text.find("phase_seconds"), std::string::npos);
  EXPECT_EQ(text.find("lnetcap_clock_offset_seconds"), std::string::npos);
}

}  // namespace
}  // namespace lnetcap::daemon
