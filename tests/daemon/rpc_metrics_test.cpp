// SPDX-License-Identifier: GPL-2.0-or-later
// lnetcapd's metrics (daemon/rpc_metrics.h) give --summary's numbers: fed
// the bundled sample, every opcode's request count, latency count and
// histogram buckets equal what report::Summary computes from the same
// records; and label cardinality stays within its bound.
#include <gtest/gtest.h>

#include <regex>
#include <set>

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

}  // namespace
}  // namespace lnetcap::daemon
