// SPDX-License-Identifier: GPL-2.0-or-later
// lnetcap --top's windowed figures (report/top_table.h, top/top_view.h):
// a window spanning a whole sample equals --summary=json for the same
// records, windows split a capture without losing an RPC whose reply
// falls in a later window, and the table and keys do what they say.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "file_source.h"
#include "record.h"
#include "report/summary.h"
#include "report/summary_format.h"
#include "report/top_table.h"
#include "report/percentile.h"
#include "report/text_escape.h"
#include "top/top_view.h"

using namespace lnetcap;
using namespace lnetcap::report;

namespace {

const char* const kSamples[] = {"lustre-fs-part1.pcapng", "synthetic-rpcs.pcapng",
                                "lnet-routed-3node.pcapng", "lnet-socklnd.pcapng"};

// Every record of a bundled sample, decoded, handed to fn in file order
// (a Message points into its record: use it before the next one).
void replay(const std::string& name, const std::function<void(const Message&)>& fn) {
  LnetcapFileSource src(std::string(LNETCAP_SOURCE_DIR) + "/samples/" + name);
  CapturedRecord rec;
  while (src.next(rec)) {
    std::string why;
    auto view = parse_record(rec.bytes, &why);
    ASSERT_TRUE(view) << why;
    fn(decode_message(*view, rec.ts_ns, rec.interface_id));
  }
}

double span(const SummaryReport& r) { return (r.last_ts_ns - r.first_ts_ns) / 1e9; }

// The table's cells of one row, by heading.
std::string cell(const TopTable& t, const std::string& key, const std::string& heading) {
  std::size_t col = 0;
  while (col < t.headings.size() && t.headings[col] != heading) ++col;
  for (const auto& row : t.rows)
    if (row[0] == key && col < row.size()) return row[col];
  return "(no row " + key + ")";
}

std::string dur(const LatencySamples& v, std::uint64_t LatencyFigures::*f) {
  const LatencyFigures l = latency_figures(v);
  return l.count ? format_duration(l.*f) : "-";
}

}  // namespace

TEST(ReportTop, OneWindowOverASampleEqualsTheSummaryJson) {
  for (const char* sample : kSamples) {
    SCOPED_TRACE(sample);
    Summary summary;
    TopWindows top;
    replay(sample, [&](const Message& m) {
      summary.add(m);
      top.add(m);
    });
    top.close_window(1.0);
    const SummaryReport want = summary.report();
    ASSERT_GT(want.total.messages, 0u);
    // The same aggregation: the window's report renders to --summary=json's
    // text, byte for byte, and so does the whole run's.
    EXPECT_EQ(render_json(top.last()), render_json(want));
    EXPECT_EQ(render_json(top.total()), render_json(want));

    // And the table shows those numbers, row for row.
    const struct {
      TopPanel panel;
      Dimension dim;
    } panels[] = {{TopPanel::kJobs, Dimension::kJobid}, {TopPanel::kClients, Dimension::kPeer},
                  {TopPanel::kOpcodes, Dimension::kOpcode}, {TopPanel::kTargets, Dimension::kTarget}};
    for (const auto& p : panels) {
      const TopTable t = top_table(top.last(), span(want), p.panel, TopSort::kRate, "");
      ASSERT_EQ(t.rows.size(), want.by(p.dim).size());
      for (const auto& [key, g] : want.by(p.dim)) {
        SCOPED_TRACE(key);
        EXPECT_EQ(cell(t, key, "RPCS"), std::to_string(g.requests));
        EXPECT_EQ(cell(t, key, "MSGS"), std::to_string(g.messages));
        EXPECT_EQ(cell(t, key, "BYTES"), std::to_string(g.bytes));
        EXPECT_EQ(cell(t, key, "BULK"), std::to_string(g.bulk_bytes));
        EXPECT_EQ(cell(t, key, "ERRORS"), std::to_string(g.errors));
        EXPECT_EQ(cell(t, key, "P50"), dur(g.latencies_ns, &LatencyFigures::p50));
        EXPECT_EQ(cell(t, key, "P99"), dur(g.latencies_ns, &LatencyFigures::p99));
      }
    }
    const TopTable nis = top_table(top.last(), 1.0, TopPanel::kNis, TopSort::kRate, "");
    for (const auto& [ni, h] : want.lnet.by_local_ni) {
      EXPECT_EQ(cell(nis, "ni " + ni, "ATTEMPTS"), std::to_string(h.attempts));
      EXPECT_EQ(cell(nis, "ni " + ni, "RESENDS"), std::to_string(h.resends));
      EXPECT_EQ(cell(nis, "ni " + ni, "FAILED"), std::to_string(h.failures));
    }
    for (const auto& [peer, q] : want.lnet.queue_by_peer)
      EXPECT_EQ(cell(nis, "peer " + peer, "QUEUED"), std::to_string(q.size()));
  }
}

TEST(ReportTop, WindowsAddUpAndKeepRequestsAcrossThem) {
  // One-second windows of record time over the real file-system sample
  // (58 s long, RPCs whose reply comes in the next second): per opcode the
  // windows' messages, bytes and matched latencies add up to the whole.
  constexpr std::uint64_t kSecond = 1000000000ull;
  Summary whole;
  TopWindows top;
  std::map<std::string, GroupStats> sum;
  auto add_window = [&] {
    for (const auto& [op, g] : top.last().by(Dimension::kOpcode)) {
      sum[op].messages += g.messages;
      sum[op].bytes += g.bytes;
      sum[op].bulk_bytes += g.bulk_bytes;
      sum[op].requests += g.requests;
      sum[op].errors += g.errors;
      sum[op].latencies_ns.merge(g.latencies_ns);
    }
  };
  std::uint64_t window_end = 0;
  int windows = 0;
  replay("lustre-fs-part1.pcapng", [&](const Message& m) {
    if (!window_end) window_end = m.ts_ns + kSecond;
    while (m.ts_ns >= window_end) {
      top.close_window(1.0);
      add_window();
      ++windows;
      window_end += kSecond;
    }
    whole.add(m);
    top.add(m);
  });
  top.close_window(1.0);
  add_window();
  const SummaryReport want = whole.report();
  EXPECT_GT(windows, 10);
  for (const auto& [op, g] : want.by(Dimension::kOpcode)) {
    SCOPED_TRACE(op);
    EXPECT_EQ(sum[op].messages, g.messages);
    EXPECT_EQ(sum[op].bytes, g.bytes);
    EXPECT_EQ(sum[op].bulk_bytes, g.bulk_bytes);
    EXPECT_EQ(sum[op].requests, g.requests);
    EXPECT_EQ(sum[op].errors, g.errors);
    auto a = sum[op].latencies_ns.samples(), b = g.latencies_ns.samples();
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b);  // every reply matched, whichever window it fell in
  }
  EXPECT_EQ(render_json(top.total()), render_json(want));
}

TEST(ReportTop, RatesSortAndFilter) {
  Summary s;
  replay("lustre-fs-part1.pcapng", [&](const Message& m) { s.add(m); });
  const SummaryReport r = s.report();
  TopTable t = top_table(r, 2.0, TopPanel::kOpcodes, TopSort::kBytes, "");
  ASSERT_GE(t.rows.size(), 3u);
  EXPECT_EQ(t.title, "opcodes by bytes");
  EXPECT_EQ(t.rows[0][0], "OST_WRITE");  // 1052344 bytes
  EXPECT_EQ(t.rows[1][0], "OST_READ");   // 1049504
  t = top_table(r, 2.0, TopPanel::kOpcodes, TopSort::kRate, "");
  EXPECT_EQ(t.rows[0][0], "LDLM_ENQUEUE");  // 21 RPCs
  EXPECT_EQ(cell(t, "LDLM_ENQUEUE", "RPC/s"), "10.5");
  EXPECT_EQ(cell(t, "LDLM_ENQUEUE", "MSG/s"), "21.0");
  t = top_table(r, 2.0, TopPanel::kOpcodes, TopSort::kRate, "LLOG");
  EXPECT_EQ(t.rows.size(), 3u);
  for (const auto& row : t.rows) EXPECT_NE(row[0].find("LLOG"), std::string::npos);
  t = top_table(r, 0, TopPanel::kOpcodes, TopSort::kLatency, "");
  EXPECT_EQ(t.rows[0][0], "OST_WRITE");  // p99 217.48 ms
  EXPECT_EQ(cell(t, "OST_WRITE", "RPC/s"), "-");
  t = top_table(r, 1, TopPanel::kOpcodes, TopSort::kErrors, "");
  EXPECT_EQ(t.rows[0][0], "LLOG_ORIGIN_HANDLE_CREATE");
  EXPECT_EQ(compact_bytes(999), "999B");
  EXPECT_EQ(compact_bytes(37400), "37.4kB");
}

TEST(ReportTop, KeysSwitchPanelSortFilterPauseAndQuit) {
  top::TopView v;
  EXPECT_EQ(v.panel(), TopPanel::kJobs);
  EXPECT_EQ(v.key('o'), top::TopView::Action::kRedraw);
  EXPECT_EQ(v.panel(), TopPanel::kOpcodes);
  v.key('n');
  EXPECT_EQ(v.panel(), TopPanel::kNis);
  v.key('b');
  EXPECT_EQ(v.sort(), TopSort::kBytes);
  v.key('e');
  EXPECT_EQ(v.sort(), TopSort::kErrors);
  // '/' starts a filter: letters are its text (not commands) until Enter.
  v.key('/');
  for (char c : std::string("qo")) EXPECT_EQ(v.key(c), top::TopView::Action::kRedraw);
  v.key(127);
  v.key('\n');
  EXPECT_EQ(v.filter(), "q");
  EXPECT_EQ(v.panel(), TopPanel::kNis);
  v.key(27);  // Escape clears it
  EXPECT_EQ(v.filter(), "");
  v.key('p');
  EXPECT_TRUE(v.paused());
  v.key('p');
  EXPECT_FALSE(v.paused());
  EXPECT_EQ(v.key('x'), top::TopView::Action::kNone);
  EXPECT_EQ(v.key('q'), top::TopView::Action::kQuit);
}

TEST(ReportTop, ScreenLinesFitAndNameTheView) {
  TopWindows w;
  replay("synthetic-rpcs.pcapng", [&](const Message& m) { w.add(m); });
  w.close_window(1.0);
  top::TopView v;
  const auto lines = v.lines(w, {"-r x", "10:00:00", false}, 12, 60);
  ASSERT_LE(lines.size(), 12u);
  for (const auto& l : lines) EXPECT_LE(l.size(), 60u);
  EXPECT_EQ(lines[4].rfind("[jobs by rate]", 0), 0u);
  EXPECT_EQ(lines[top::TopView::kHeadingLine].rfind("JOBID", 0), 0u);
  EXPECT_EQ(lines[top::TopView::kHeadingLine + 1].rfind("dd.500", 0), 0u);
  // The plain-text block has every panel.
  const std::string b = top::top_block(w.last(), 1.0, "total");
  for (const char* p : {"[jobs by rate]", "[clients by rate]", "[opcodes by rate]",
                        "[targets by rate]", "[nis by rate]", "--- lnetcap top: total (1.00 s) ---"})
    EXPECT_NE(b.find(p), std::string::npos) << p;
}
