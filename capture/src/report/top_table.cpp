// SPDX-License-Identifier: GPL-2.0-or-later
#include "top_table.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "percentile.h"
#include "text_escape.h"

namespace lnetcap::report {

void TopWindows::close_window(double seconds) {
  last_ = window_.report();
  last_seconds_ = seconds;
  window_.reset_figures();
}

const char* top_panel_name(TopPanel p) {
  switch (p) {
    case TopPanel::kJobs: return "jobs";
    case TopPanel::kClients: return "clients";
    case TopPanel::kOpcodes: return "opcodes";
    case TopPanel::kTargets: return "targets";
    case TopPanel::kNis: return "nis";
  }
  return "?";
}

const char* top_sort_name(TopSort s) {
  switch (s) {
    case TopSort::kRate: return "rate";
    case TopSort::kBytes: return "bytes";
    case TopSort::kLatency: return "latency";
    case TopSort::kErrors: return "errors";
  }
  return "?";
}

std::string compact_bytes(double b) {
  char buf[32];
  if (b < 1000) std::snprintf(buf, sizeof buf, "%.0fB", b);
  else if (b < 1e6) std::snprintf(buf, sizeof buf, "%.1fkB", b / 1e3);
  else if (b < 1e9) std::snprintf(buf, sizeof buf, "%.1fMB", b / 1e6);
  else std::snprintf(buf, sizeof buf, "%.1fGB", b / 1e9);
  return buf;
}

namespace {

std::string num(std::uint64_t v) { return std::to_string(v); }

std::string rate(std::uint64_t n, double seconds) {
  if (seconds <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", n / seconds);
  return buf;
}

std::string byte_rate(std::uint64_t n, double seconds) {
  return seconds <= 0 ? "-" : compact_bytes(n / seconds);
}

std::string duration(const LatencyFigures& f, std::uint64_t LatencyFigures::*field) {
  return f.count ? format_duration(f.*field) : "-";
}

// A row with what it sorts by (largest first), then its key.
struct Row {
  std::vector<std::string> cells;
  std::uint64_t by[5] = {};  // indexed by TopSort, then kByMessages
};
constexpr int kByMessages = 4;  // ties, and the rate of rows without RPCs

Dimension dimension_of(TopPanel p) {
  switch (p) {
    case TopPanel::kJobs: return Dimension::kJobid;
    // The peer dimension: on a server, the clients it serves (summary.h).
    case TopPanel::kClients: return Dimension::kPeer;
    case TopPanel::kOpcodes: return Dimension::kOpcode;
    case TopPanel::kTargets: return Dimension::kTarget;
    case TopPanel::kNis: break;
  }
  return Dimension::kOpcode;
}

std::vector<Row> rpc_rows(const SummaryReport& r, double seconds, TopPanel panel) {
  std::vector<Row> rows;
  for (const auto& [key, g] : r.by(dimension_of(panel))) {
    const LatencyFigures f = latency_figures(g.latencies_ns);
    Row row;
    row.cells = {key,
                 rate(g.requests, seconds),
                 rate(g.messages, seconds),
                 byte_rate(g.bytes, seconds),
                 num(g.requests),
                 num(g.messages),
                 num(g.bytes),
                 num(g.bulk_bytes),
                 num(g.errors),
                 duration(f, &LatencyFigures::p50),
                 duration(f, &LatencyFigures::p99)};
    // Rate: RPCs first (lljobstat's ops), messages for rows without RPCs.
    row.by[static_cast<int>(TopSort::kRate)] = g.requests;
    row.by[static_cast<int>(TopSort::kBytes)] = g.bytes;
    row.by[static_cast<int>(TopSort::kLatency)] = f.p99;
    row.by[static_cast<int>(TopSort::kErrors)] = g.errors;
    row.by[kByMessages] = g.messages;
    rows.push_back(std::move(row));
  }
  return rows;
}

// Health and queue time of one kind of NI ("ni" local, "peer" remote),
// keyed alike in --summary's maps.
void ni_rows(std::vector<Row>& rows, const char* kind, const std::map<std::string, NiHealth>& health,
             const std::map<std::string, LatencySamples>& queue, double seconds) {
  std::set<std::string> keys;
  for (const auto& e : health) keys.insert(e.first);
  for (const auto& e : queue) keys.insert(e.first);
  static const NiHealth kNone;
  static const LatencySamples kNoSamples;
  for (const std::string& k : keys) {
    const auto h = health.find(k);
    const auto q = queue.find(k);
    const NiHealth& n = h == health.end() ? kNone : h->second;
    const LatencyFigures f = latency_figures(q == queue.end() ? kNoSamples : q->second);
    Row row;
    row.cells = {std::string(kind) + " " + k, rate(n.attempts, seconds), num(n.attempts),
                 num(n.resends), num(n.failures), num(n.recovery_pings), num(f.count),
                 duration(f, &LatencyFigures::p50), duration(f, &LatencyFigures::p99)};
    row.by[static_cast<int>(TopSort::kRate)] = n.attempts;
    row.by[static_cast<int>(TopSort::kBytes)] = f.count;  // no bytes per NI: messages queued
    row.by[static_cast<int>(TopSort::kLatency)] = f.p99;
    row.by[static_cast<int>(TopSort::kErrors)] = n.failures + n.resends + n.recovery_pings;
    row.by[kByMessages] = n.attempts;
    rows.push_back(std::move(row));
  }
}

}  // namespace

TopTable top_table(const SummaryReport& r, double seconds, TopPanel panel, TopSort sort,
                   const std::string& filter) {
  TopTable t;
  t.title = std::string(top_panel_name(panel)) + " by " + top_sort_name(sort);
  std::vector<Row> rows;
  if (panel == TopPanel::kNis) {
    t.headings = {"NI/PEER", "SEND/s", "ATTEMPTS", "RESENDS", "FAILED", "RECOVERY", "QUEUED", "QP50", "QP99"};
    ni_rows(rows, "ni", r.lnet.by_local_ni, r.lnet.queue_by_ni, seconds);
    ni_rows(rows, "peer", r.lnet.by_peer_ni, r.lnet.queue_by_peer, seconds);
  } else {
    const char* key = panel == TopPanel::kJobs      ? "JOBID"
                      : panel == TopPanel::kClients ? "CLIENT"
                      : panel == TopPanel::kOpcodes ? "OPCODE"
                                                    : "TARGET";
    t.headings = {key, "RPC/s", "MSG/s", "BYTES/s", "RPCS", "MSGS", "BYTES", "BULK", "ERRORS",
                  "P50", "P99"};
    rows = rpc_rows(r, seconds, panel);
  }
  const int s = static_cast<int>(sort);
  // Ties (and the rate of rows without RPCs) by messages, then by key.
  const int tie = kByMessages;
  std::stable_sort(rows.begin(), rows.end(), [s, tie](const Row& a, const Row& b) {
    if (a.by[s] != b.by[s]) return a.by[s] > b.by[s];
    if (a.by[tie] != b.by[tie]) return a.by[tie] > b.by[tie];
    return a.cells[0] < b.cells[0];
  });
  for (Row& row : rows)
    if (filter.empty() || row.cells[0].find(filter) != std::string::npos)
      t.rows.push_back(std::move(row.cells));
  return t;
}

std::string top_totals_line(const SummaryReport& r, double seconds) {
  const GroupStats& t = r.total;
  const LatencyFigures f = latency_figures(t.latencies_ns);
  std::uint64_t n_drops = 0;
  for (const auto& [why, n] : r.lnet.drops_by_reason) n_drops += n;
  return rate(t.messages, seconds) + " msg/s " + rate(t.requests, seconds) + " RPC/s " +
         byte_rate(t.bytes, seconds) + "/s | " + num(t.messages) + " msgs " + num(t.requests) +
         " RPCs " + num(t.bytes) + " bytes " + num(t.errors) + " errors " + num(n_drops) +
         " drops | p50 " + duration(f, &LatencyFigures::p50) + " p99 " +
         duration(f, &LatencyFigures::p99);
}

std::string render_top_text(const TopTable& t, std::size_t max_rows) {
  std::vector<std::size_t> w(t.headings.size(), 0);
  const std::size_t n = std::min(max_rows, t.rows.size());
  for (std::size_t c = 0; c < w.size(); ++c) {
    w[c] = t.headings[c].size();
    for (std::size_t i = 0; i < n; ++i) w[c] = std::max(w[c], t.rows[i][c].size());
  }
  auto line = [&w](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string fill(w[c] - cells[c].size(), ' ');
      // The key left-aligned, the figures right-aligned.
      out += c == 0 ? cells[c] + fill : "  " + fill + cells[c];
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(t.headings);
  for (std::size_t i = 0; i < n; ++i) out += line(t.rows[i]);
  return out;
}

}  // namespace lnetcap::report
