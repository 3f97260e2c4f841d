// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include "report/summary.h"
#include "report/summary_format.h"
#include "report/text_escape.h"
#include "report_messages.h"

using namespace lnetcap;
using namespace lnetcap::report;

namespace {

SummaryReport scenario_report() {
  Summary s;
  for (const Message& m : test::rpc_scenario()) s.add(m);
  return s.report();
}

bool contains(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

}  // namespace

TEST(ReportFormat, TableShowsTotalsGroupsAndErrors) {
  const std::string t = render_table(scenario_report());
  EXPECT_TRUE(contains(t, "lnetcap summary: 11 messages, 3424 bytes (3.4 kB) over 0.047 s\n"));
  EXPECT_TRUE(contains(t, "RPCs: 5 requests, 4 replies, 4 matched, 1 errors, 1 unanswered\n"));
  EXPECT_TRUE(contains(t, "LNet types: GET 1 PUT 10\n"));
  EXPECT_TRUE(contains(t, "Latency (request->reply, nearest-rank): p50 2.00ms, p90 8.00ms, p99 8.00ms, max 8.00ms\n"));
  EXPECT_TRUE(contains(t, "\nBy opcode"));
  EXPECT_TRUE(contains(t, "\nBy portal"));
  EXPECT_TRUE(contains(t, "\nBy peer"));
  EXPECT_TRUE(contains(t, "\nBy jobid"));
  EXPECT_TRUE(contains(t, "\nBy target"));
  // LDLM_ENQUEUE: 5 msgs, 1624 bytes, no bulk, 2 reqs, 2 replies, 0 errors, 0 unanswered, 2/4/4/4 ms.
  EXPECT_TRUE(contains(t, "LDLM_ENQUEUE           5         1624            0       2       2       0       0    2.00ms    4.00ms    4.00ms    4.00ms\n"))
      << t;
  EXPECT_TRUE(contains(t, "OBD_PING               1          400            0       1       0       0       1         -         -         -         -\n"))
      << t;
  // OST_WRITE: request, bulk GET (linked, 0 bytes: a GET has no payload), reply.
  EXPECT_TRUE(contains(t, "OST_WRITE              3          700            0       1       1       0       0    8.00ms    8.00ms    8.00ms    8.00ms\n"))
      << t;
  EXPECT_TRUE(contains(t, "  MDS_GETATTR                  -2 (ENOENT)                  1\n")) << t;
}

TEST(ReportFormat, JsonCarriesEveryFigure) {
  const std::string j = render_json(scenario_report());
  EXPECT_TRUE(contains(j, "\"percentile\": \"nearest-rank\""));
  EXPECT_TRUE(contains(j, "\"total\": {\"messages\": 11, \"bytes\": 3424, \"bulk_bytes\": 0, \"requests\": 5, "
                          "\"replies\": 4, \"errors\": 1, \"unanswered\": 1, \"latency_ns\": "
                          "{\"count\": 4, \"p50\": 2000000, \"p90\": 8000000, \"p99\": 8000000, "
                          "\"max\": 8000000}, \"errors_by_status\": [{\"status\": -2, \"name\": "
                          "\"-2 (ENOENT)\", \"count\": 1}]}"))
      << j;
  EXPECT_TRUE(contains(j, "{\"opcode\": \"OBD_PING\", \"messages\": 1, \"bytes\": 400, \"bulk_bytes\": 0, "
                          "\"requests\": 1, \"replies\": 0, \"errors\": 0, \"unanswered\": 1, "
                          "\"latency_ns\": {\"count\": 0, \"p50\": null, \"p90\": null, \"p99\": "
                          "null, \"max\": null}, \"errors_by_status\": []}"))
      << j;
  EXPECT_TRUE(contains(j, "\"by_jobid\": [\n    {\"jobid\": \"(none)\""));
  EXPECT_TRUE(contains(j, "\"by_target\": [\n    {\"target\": \"10.0.3.1@tcp\""));
  EXPECT_TRUE(contains(j, "\"lnet_types\": {\"GET\": 1, \"PUT\": 10}"));
}

TEST(ReportFormat, JsonEscapesWireStrings) {
  EXPECT_EQ(json_string("a\"b\\c\nd\x01"), "\"a\\\"b\\\\c\\nd\\u0001\"");
  EXPECT_EQ(json_string("caf\xc3\xa9"), "\"caf\xc3\xa9\"");  // valid UTF-8 kept
  EXPECT_EQ(json_string("bad\xff"), "\"bad\\u00ff\"");       // invalid byte escaped
}

TEST(ReportFormat, PrometheusExposition) {
  const std::string p = render_prometheus(scenario_report());
  EXPECT_TRUE(contains(p, "# TYPE lnetcap_messages_total counter\nlnetcap_messages_total 11\n"));
  EXPECT_TRUE(contains(p, "lnetcap_opcode_messages_total{opcode=\"LDLM_ENQUEUE\"} 5\n"));
  EXPECT_TRUE(contains(p, "lnetcap_opcode_rpc_errors_total{opcode=\"MDS_GETATTR\",status=\"-2\"} 1\n"));
  EXPECT_TRUE(contains(p, "lnetcap_opcode_rpc_unanswered{opcode=\"OBD_PING\"} 1\n"));
  EXPECT_TRUE(contains(p, "# TYPE lnetcap_opcode_rpc_latency_seconds histogram\n"));
  // ENQUEUE latencies 2 ms and 4 ms: 1 below 2.5 ms, both below 5 ms.
  EXPECT_TRUE(contains(p, "lnetcap_opcode_rpc_latency_seconds_bucket{opcode=\"LDLM_ENQUEUE\",le=\"0.001\"} 0\n"));
  EXPECT_TRUE(contains(p, "lnetcap_opcode_rpc_latency_seconds_bucket{opcode=\"LDLM_ENQUEUE\",le=\"0.0025\"} 1\n"));
  EXPECT_TRUE(contains(p, "lnetcap_opcode_rpc_latency_seconds_bucket{opcode=\"LDLM_ENQUEUE\",le=\"0.005\"} 2\n"));
  EXPECT_TRUE(contains(p, "lnetcap_opcode_rpc_latency_seconds_bucket{opcode=\"LDLM_ENQUEUE\",le=\"+Inf\"} 2\n"));
  EXPECT_TRUE(contains(p, "lnetcap_opcode_rpc_latency_seconds_sum{opcode=\"LDLM_ENQUEUE\"} 0.006\n"));
  EXPECT_TRUE(contains(p, "lnetcap_opcode_rpc_latency_seconds_count{opcode=\"LDLM_ENQUEUE\"} 2\n"));
  EXPECT_TRUE(contains(p, "lnetcap_peer_bytes_total{peer=\"10.0.3.1@tcp\"} 3424\n"));
  EXPECT_TRUE(contains(p, "lnetcap_lnet_type_messages_total{type=\"GET\"} 1\n"));
  // Every line is a comment or "name{labels} value" with an lnetcap_ name.
  std::size_t start = 0;
  while (start < p.size()) {
    const std::size_t end = p.find('\n', start);
    const std::string line = p.substr(start, end - start);
    start = end + 1;
    if (line.rfind("# HELP lnetcap_", 0) == 0 || line.rfind("# TYPE lnetcap_", 0) == 0) continue;
    ASSERT_EQ(line.rfind("lnetcap_", 0), 0u) << line;
    ASSERT_NE(line.find(' '), std::string::npos) << line;
  }
}

TEST(ReportFormat, PrometheusEscapesLabelValues) {
  EXPECT_EQ(prom_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
}

TEST(ReportFormat, HumanUnits) {
  EXPECT_EQ(format_duration(850), "850ns");
  EXPECT_EQ(format_duration(12300), "12.3us");
  EXPECT_EQ(format_duration(4560000), "4.56ms");
  EXPECT_EQ(format_duration(1230000000), "1.23s");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(2100000), "2.1 MB");
}

// One escaping function for every wire string, before any format's quoting.
TEST(ReportFormat, WireTextKeepsOnlyPrintableAscii) {
  EXPECT_EQ(wire_text("dd.500"), "dd.500");
  EXPECT_EQ(wire_text("\x1b]0;X\x07"), "\\033]0;X\\007");
  EXPECT_EQ(wire_text("a\r\nb\t"), "a\\015\\012b\\011");
  EXPECT_EQ(wire_text("back\\slash"), "back\\\\slash");  // unambiguous
  EXPECT_EQ(wire_text(std::string("nul\0x\x7f\xc3\xa9", 8)), "nul\\000x\\177\\303\\251");
  for (int c = 0; c < 256; ++c) {
    const std::string out = wire_text(std::string(1, static_cast<char>(c)));
    for (char o : out) EXPECT_TRUE(o >= 0x20 && o < 0x7f) << "byte " << c;
  }
}
