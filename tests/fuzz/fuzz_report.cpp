// SPDX-License-Identifier: GPL-2.0-or-later
// fuzz_report - the report layer fed record sequences: the input is read as
// a sequence of LNet messages (report_input.h: requests, replies, early and
// error replies, bulk GET/PUT, ACKs, forwarded, dropped, duplicated,
// resent...), each built as a real record and decoded as `lnetcap -r` does,
// and every message goes to everything that keeps state across messages:
// an RpcMatcher with a small bound, --summary, --assert, --chart and
// lnetcapd's RPC metrics.  At the input's ticks and at the end every report
// is rendered in every format.  Besides the sanitizers, it checks what the
// reports promise: the matcher and the chart stay within their bounds, arrows
// name existing lifelines, totals are consistent, and no output carries raw
// control characters or unescaped markup from a jobid.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "daemon/rpc_metrics.h"
#include "message.h"
#include "record.h"
#include "report/assertion_engine.h"
#include "report/chart.h"
#include "report/rpc_matcher.h"
#include "report/summary.h"
#include "report/summary_format.h"
#include "report_input.h"

using namespace lnetcap;

namespace {

// Operators, units, both sides functions, every function, filters on the
// fields the generator varies.
const std::vector<std::string> kAssertions = {
    "count() >= 0",
    "latency_p99(opcode LDLM_ENQUEUE) < 5ms or errors(status < 0) == 0",
    "bytes(type put) > 1k and not count(jobid \"dd.500\") == 3",
    "latency_max() <= latency_p50(rpc request) || latency_p90(nid 10.0.3.1@tcp) > 1us",
    "errors(opcode OST_WRITE) != count(rpc reply and xid 4096) && bytes(type get) <= 1MiB",
};

// The checks scan every byte of every report: not instrumented for
// coverage, which they would only slow down (they are not what is fuzzed).
#if defined(__clang__)
#define NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define NO_COVERAGE
#endif

// Raw control characters in a report: a jobid's bytes reached it unescaped.
NO_COVERAGE void check_text(const std::string& out) {
  for (unsigned char c : out)
    if ((c < 0x20 && c != '\n') || c == 0x7f) std::abort();
}

NO_COVERAGE void check_prometheus(const std::string& out) {
  check_text(out);
  // Every line a comment or a sample: a newline inside a label value would
  // start a line that is neither.
  std::size_t at = 0;
  while (at < out.size()) {
    const std::size_t end = out.find('\n', at);
    const std::string line = out.substr(at, end - at);
    if (!line.empty() && line.compare(0, 2, "# ") != 0 && line.compare(0, 8, "lnetcap_") != 0)
      std::abort();
    if (end == std::string::npos) break;
    at = end + 1;
  }
}

void render_all(const report::Summary& summary, const report::AssertionEngine& asserts,
                const report::ChartBuilder& chart, const daemon::RpcMetrics& metrics,
                std::uint64_t scrapes) {
  const report::SummaryReport r = summary.report();
  const report::GroupStats& t = r.total;
  if (t.errors > t.replies || t.latencies_ns.size() > t.replies || t.unanswered > t.requests)
    std::abort();
  check_text(report::render_table(r));
  check_text(report::render_json(r));
  check_prometheus(report::render_prometheus(r));
  check_text(report::format_results(asserts.evaluate()));
  const report::ChartModel& m = chart.model();
  if (m.arrows.size() > m.max_arrows) std::abort();
  for (const report::Arrow& a : m.arrows)
    if (a.from >= m.participants.size() || a.to >= m.participants.size()) std::abort();
  check_text(report::render_mermaid(m));
  const std::string html = report::render_html(m);
  check_text(html);
  // The generator's markup jobid must come out escaped.
  if (html.find("<b>") != std::string::npos) std::abort();
  check_prometheus(metrics.render(scrapes));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::ReportInput in = fuzz::read_report_input(data, size);
  report::RpcMatcher matcher(in.max_pending);
  report::Summary summary;
  report::AssertionEngine asserts(kAssertions);
  report::ChartBuilder chart(in.max_arrows);
  daemon::RpcMetrics metrics(in.label_budget);
  std::size_t tick = 0;
  std::uint64_t given_up = 0;
  for (std::size_t i = 0; i <= in.records.size(); ++i) {
    for (; tick < in.ticks.size() && in.ticks[tick] == i; ++tick) {
      render_all(summary, asserts, chart, metrics, tick);
      // lnetcapd turns on pseudonyms when a subscriber's policy forces
      // anonymity, mid-capture; the mapper makes collisions on purpose.
      if (tick == 1)
        metrics.pseudonymise_labels([](const std::string& s) { return "p" + std::to_string(s.size() % 3); });
    }
    if (i == in.records.size()) break;
    const fuzz::GeneratedRecord& g = in.records[i];
    std::string why;
    const auto view = parse_record(g.bytes, &why);
    if (!view) std::abort();  // the generator makes valid records only
    const Message msg = decode_message(*view, g.ts_ns, 0);
    matcher.observe(msg);
    // The oldest waiting requests are given up past the bound, never more.
    if (matcher.pending().size() > in.max_pending || matcher.given_up() < given_up) std::abort();
    given_up = matcher.given_up();
    summary.add(msg);
    asserts.observe(msg);
    chart.add(msg);
    metrics.add(msg);
  }
  render_all(summary, asserts, chart, metrics, in.ticks.size());
  return 0;
}
