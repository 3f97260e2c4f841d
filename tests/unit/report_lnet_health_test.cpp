// SPDX-License-Identifier: GPL-2.0-or-later
// report_lnet_health_test.cpp - --summary and --assert on records with the
// LNet health fields (real record bytes, decoded): a failed send is one
// message whose outcome is a drop; queue times per peer and NI; drops by
// reason in every summary format.
#include <gtest/gtest.h>

#include "lnetcap/record.h"
#include "message_fixtures.h"
#include "report/assertion_engine.h"
#include "report/summary.h"
#include "report/summary_format.h"

using namespace lnetcap;
using namespace lnetcap::report;

namespace {

// A send held 1.5 ms, its failure (outcome), a received PUT with no MD.
std::vector<test::OwnedMessage> health_trace() {
  std::vector<test::OwnedMessage> v;
  v.push_back(test::queued_send());
  v.push_back(test::failed_send_outcome());
  v.push_back(test::unmatched_put_drop());
  return v;
}

SummaryReport summarize() {
  Summary s;
  for (const auto& m : health_trace()) s.add(m.msg);
  return s.report();
}

AssertionResult check(const std::string& text) {
  AssertionEngine e({text});
  for (const auto& m : health_trace()) e.observe(m.msg);
  return e.evaluate().at(0);
}

}  // namespace

TEST(ReportLnetHealth, SummaryCountsMessagesNotOutcomeRecords) {
  const SummaryReport r = summarize();
  EXPECT_EQ(r.total.messages, 2u);  // the send and the unmatched PUT
  EXPECT_EQ(r.lnet_types.at("PUT"), 2u);
  EXPECT_EQ(r.lnet.drops_by_reason.at("send-failed"), 1u);
  EXPECT_EQ(r.lnet.drops_by_reason.at("no-match"), 1u);
  ASSERT_EQ(r.lnet.queue_by_peer.size(), 1u);
  EXPECT_EQ(r.lnet.queue_by_peer.at("192.168.1.20@tcp").samples(), std::vector<std::uint64_t>{1500000});
  EXPECT_EQ(r.lnet.queue_by_ni.at("192.168.1.10@tcp").samples(), std::vector<std::uint64_t>{1500000});
}

TEST(ReportLnetHealth, EverySummaryFormatShowsQueueAndDrops) {
  const SummaryReport r = summarize();
  const std::string table = render_table(r);
  EXPECT_NE(table.find("lnetcap summary: 2 messages"), std::string::npos) << table;
  EXPECT_NE(table.find("LNet queue time by peer    msgs       p50       p99       max\n"
                       "192.168.1.20@tcp              1    1.50ms    1.50ms    1.50ms\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("LNet queue time by NI"), std::string::npos) << table;
  EXPECT_NE(table.find("LNet drops by reason\n  no-match                     1\n"
                       "  send-failed                  1\n"),
            std::string::npos)
      << table;
  const std::string json = render_json(r);
  EXPECT_NE(json.find("\"lnet\": {\"drops_by_reason\": {\"no-match\": 1, \"send-failed\": 1}, "
                      "\"queue_ns_by_peer\": {\"192.168.1.20@tcp\": {\"count\": 1, \"p50\": "
                      "1500000"),
            std::string::npos)
      << json;
  const std::string prom = render_prometheus(r);
  EXPECT_NE(prom.find("lnetcap_lnet_drops_total{reason=\"send-failed\"} 1\n"), std::string::npos)
      << prom;
  EXPECT_NE(prom.find("lnetcap_lnet_queue_seconds{ni=\"192.168.1.10@tcp\",quantile=\"0.99\"} 0.0015"),
            std::string::npos)
      << prom;
}

TEST(ReportLnetHealth, WithoutHealthFieldsNothingNewIsPrinted) {
  Summary s;
  s.add(test::enqueue_request().msg);
  const SummaryReport r = s.report();
  EXPECT_TRUE(r.lnet.empty());
  EXPECT_EQ(render_table(r).find("LNet queue"), std::string::npos);
  EXPECT_EQ(render_json(r).find("\"lnet\""), std::string::npos);
  EXPECT_EQ(render_prometheus(r).find("lnetcap_lnet_drops"), std::string::npos);
}

TEST(ReportLnetHealth, AssertCountsEachMessageOnce) {
  // The failed send matches "type put" by its SEND and by its outcome.
  EXPECT_TRUE(check("count(type put) == 2").passed);
  // Dropped messages: the failed send (through its outcome) and the PUT.
  EXPECT_TRUE(check("count(drop) == 2").passed);
  EXPECT_TRUE(check("count(drop send-failed) == 1").passed);
  EXPECT_TRUE(check("count(rc != 0) == 2").passed);
  EXPECT_TRUE(check("count(queue > 1ms) == 1").passed);
}

namespace {

// A ping GET sent by TASK (LNet's own ping: reserved portal 0, ping match
// bits) from 192.168.1.10@tcp to 192.168.1.20@tcp.
test::OwnedMessage ping_from(const char* task, std::uint64_t seq) {
  test::LnetHeaderSpec h;
  h.type = LNETCAP_MSG_GET;
  h.src = test::nid("192.168.1.10@tcp");
  h.dst = test::nid("192.168.1.20@tcp");
  h.portal = 0;
  h.match_bits = LNETCAP_LNET_PING_MATCHBITS;
  h.sink_length = 272;
  test::RecordSpec r;
  r.direction = LNETCAP_DIR_SEND;
  r.hook = LNETCAP_HOOK_LNET_NI_SEND;
  r.local = h.src;
  r.peer = h.dst;
  r.seq = seq;
  r.flags = LNETCAP_REC_F_TASK_VALID | LNETCAP_REC_F_HEALTH_VALID;
  r.comm = task;
  return test::make_message(r, h, {});
}

}  // namespace

// LNet health pings an NI below full health from "monitor_thread": those
// pings count per local and peer NI; discovery's and lctl's do not.
TEST(ReportLnetHealth, RecoveryPingsPerNi) {
  Summary s;
  for (auto m : {ping_from(LNETCAP_LNET_MONITOR_TASK, 1), ping_from(LNETCAP_LNET_MONITOR_TASK, 2),
                 ping_from(LNETCAP_LNET_DISCOVERY_TASK, 3), ping_from("lctl", 4)})
    s.add(m.msg);
  const SummaryReport r = s.report();
  EXPECT_EQ(r.lnet.by_local_ni.at("192.168.1.10@tcp").recovery_pings, 2u);
  EXPECT_EQ(r.lnet.by_peer_ni.at("192.168.1.20@tcp").recovery_pings, 2u);
  EXPECT_EQ(r.lnet.by_local_ni.at("192.168.1.10@tcp").attempts, 4u);
  const std::string table = render_table(r);
  EXPECT_NE(table.find("LNet health by local NI  attempts  resends  failed recovery  failures by health\n"
                       "192.168.1.10@tcp                4        0       0        2\n"),
            std::string::npos)
      << table;
  EXPECT_NE(render_json(r).find("\"recovery_pings\": 2"), std::string::npos);
}
