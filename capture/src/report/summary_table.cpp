// SPDX-License-Identifier: GPL-2.0-or-later
// summary_table.cpp - the human-readable --summary output.
#include <algorithm>
#include <cstdio>

#include "percentile.h"
#include "summary_format.h"
#include "text_escape.h"

namespace lnetcap::report {
namespace {

std::string pad(std::string s, std::size_t w, bool right) {
  if (s.size() >= w) return s;
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

std::string lat(const LatencyFigures& f, std::uint64_t LatencyFigures::*field) {
  return f.count ? format_duration(f.*field) : "-";
}

void section(std::string& out, Dimension d, const std::map<std::string, GroupStats>& groups) {
  if (groups.empty()) return;
  std::size_t kw = 16;
  for (const auto& [k, g] : groups) kw = std::max(kw, k.size());
  std::string heading = std::string("By ") + dimension_name(d);
  out += "\n" + pad(heading, kw, false);
  for (const char* h : {"msgs", "bytes", "bulk", "reqs", "replies", "errors", "unans"})
    out += " " + pad(h, h[0] == 'b' ? 12 : 7, true);
  for (const char* h : {"p50", "p90", "p99", "max"}) out += " " + pad(h, 9, true);
  out += "\n";
  // Busiest first, then by name, so the interesting rows lead.
  std::vector<const std::pair<const std::string, GroupStats>*> rows;
  for (const auto& e : groups) rows.push_back(&e);
  std::stable_sort(rows.begin(), rows.end(),
                   [](auto* a, auto* b) { return a->second.messages > b->second.messages; });
  for (const auto* e : rows) {
    const GroupStats& g = e->second;
    LatencyFigures f = latency_figures(g.latencies_ns);
    out += pad(e->first, kw, false);
    out += " " + pad(std::to_string(g.messages), 7, true);
    out += " " + pad(std::to_string(g.bytes), 12, true);
    out += " " + pad(std::to_string(g.bulk_bytes), 12, true);
    out += " " + pad(std::to_string(g.requests), 7, true);
    out += " " + pad(std::to_string(g.replies), 7, true);
    out += " " + pad(std::to_string(g.errors), 7, true);
    out += " " + pad(std::to_string(g.unanswered), 7, true);
    out += " " + pad(lat(f, &LatencyFigures::p50), 9, true);
    out += " " + pad(lat(f, &LatencyFigures::p90), 9, true);
    out += " " + pad(lat(f, &LatencyFigures::p99), 9, true);
    out += " " + pad(lat(f, &LatencyFigures::max), 9, true);
    out += "\n";
  }
}

void queue_section(std::string& out, const char* by,
                   const std::map<std::string, LatencySamples>& q) {
  if (q.empty()) return;
  const std::string heading = std::string("LNet queue time by ") + by;
  std::size_t kw = heading.size();
  for (const auto& [k, v] : q) kw = std::max(kw, k.size());
  out += "\n" + pad(heading, kw, false) + " " + pad("msgs", 7, true);
  for (const char* h : {"p50", "p99", "max"}) out += " " + pad(h, 9, true);
  out += "\n";
  for (const auto& [k, v] : q) {
    const LatencyFigures f = latency_figures(v);
    out += pad(k, kw, false) + " " + pad(std::to_string(f.count), 7, true);
    for (auto field : {&LatencyFigures::p50, &LatencyFigures::p99, &LatencyFigures::max})
      out += " " + pad(lat(f, field), 9, true);
    out += "\n";
  }
}

// LNet's side: how long messages waited before the LND (credits, delay
// rules), and what LNet dropped, by reason.  Absent when the capture has
// none of it (files converted from TCP, older captures).
// Attempts, resends and failures by health status per NI: a flapping
// interface is the row whose failures and resends stand out.
void ni_section(std::string& out, const char* heading, const std::map<std::string, NiHealth>& m) {
  if (m.empty()) return;
  std::size_t kw = std::string(heading).size();
  for (const auto& [k, v] : m) kw = std::max(kw, k.size());
  out += "\n" + pad(heading, kw, false) + " " + pad("attempts", 9, true) + " " +
         pad("resends", 8, true) + " " + pad("failed", 7, true) + " " + pad("recovery", 8, true) +
         "  failures by health\n";
  for (const auto& [k, v] : m) {
    out += pad(k, kw, false) + " " + pad(std::to_string(v.attempts), 9, true) + " " +
           pad(std::to_string(v.resends), 8, true) + " " + pad(std::to_string(v.failures), 7, true) +
           " " + pad(std::to_string(v.recovery_pings), 8, true);
    if (!v.failures_by_health.empty()) out += " ";
    for (const auto& [why, n] : v.failures_by_health) out += " " + why + " " + std::to_string(n);
    out += "\n";
  }
}

void lnet_health_sections(std::string& out, const LnetHealth& l) {
  ni_section(out, "LNet health by local NI", l.by_local_ni);
  ni_section(out, "LNet health by peer NI", l.by_peer_ni);
  queue_section(out, "peer", l.queue_by_peer);
  queue_section(out, "NI", l.queue_by_ni);
  if (!l.drops_by_reason.empty()) {
    out += "\nLNet drops by reason\n";
    for (const auto& [why, n] : l.drops_by_reason)
      out += "  " + pad(why, 28, false) + " " + std::to_string(n) + "\n";
  }
}

// Where the time of RPCs seen by both ends went (latency_split.h): one
// block per dimension, p50 of each part (JSON and Prometheus have the rest).
void split_block(std::string& out, const std::string& heading,
                 const std::map<std::string, LatencySplitStats>& groups) {
  std::size_t kw = std::max<std::size_t>(22, heading.size());
  for (const auto& [k, v] : groups) kw = std::max(kw, k.size());
  out += "\n" + pad(heading, kw, false) + " " + pad("rpcs", 7, true);
  for (const char* h : {"queue", "request", "server", "bulk", "reply"}) out += " " + pad(h, 9, true);
  out += "\n";
  // Busiest first, then by name, as the groups above.
  std::vector<const std::pair<const std::string, LatencySplitStats>*> rows;
  for (const auto& e : groups) rows.push_back(&e);
  std::stable_sort(rows.begin(), rows.end(),
                   [](auto* a, auto* b) { return a->second.rpcs() > b->second.rpcs(); });
  for (const auto* e : rows) {
    const LatencySplitStats& s = e->second;
    out += pad(e->first, kw, false) + " " + pad(std::to_string(s.rpcs()), 7, true);
    for (const auto* v : {&s.client_queue, &s.request_transit, &s.server, &s.bulk, &s.reply_transit}) {
      const LatencyFigures f = latency_figures(*v);
      out += " " + pad(lat(f, &LatencyFigures::p50), 9, true);
    }
    out += "\n";
  }
}

void split_section(std::string& out, const LatencySplitReport& l) {
  if (l.empty()) return;
  for (SplitBy d : kSplitDimensions)
    split_block(out,
                d == SplitBy::kOpcode ? std::string("Latency split (p50)")
                                      : std::string("Latency split by ") + split_dimension_name(d) + " (p50)",
                l.by(d));
  for (const auto& [pair, ns] : l.clock_offset_ns) {
    const std::uint64_t mag = ns < 0 ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
    out += "Clock offset " + pair.first + " -> " + pair.second + ": server " + (ns < 0 ? "-" : "+") +
           format_duration(mag) +
           (pair.first == pair.second ? " (one node, one clock)\n" : " (estimated so that no transit is negative)\n");
  }
  if (l.negative_transits)
    out += std::to_string(l.negative_transits) +
           " RPCs had a transit below 0 after the clock estimate (the clocks drifted during the capture), "
           "shown as 0\n";
  if (l.rpcs_not_split)
    out += std::to_string(l.rpcs_not_split) + " RPCs of further client/server pairs not split (at most " +
           std::to_string(LatencySplitFigures::kMaxPairs) + " pairs)\n";
}

}  // namespace

std::string render_table(const SummaryReport& r) {
  const GroupStats& t = r.total;
  std::string out;
  char line[256];
  const double secs = r.last_ts_ns > r.first_ts_ns ? (r.last_ts_ns - r.first_ts_ns) / 1e9 : 0;
  std::snprintf(line, sizeof line,
                "lnetcap summary: %llu messages, %llu bytes (%s) over %.3f s\n",
                static_cast<unsigned long long>(t.messages),
                static_cast<unsigned long long>(t.bytes), format_bytes(t.bytes).c_str(), secs);
  out += line;
  std::snprintf(line, sizeof line,
                "RPCs: %llu requests, %llu replies, %llu matched, %llu errors, %llu unanswered\n",
                static_cast<unsigned long long>(t.requests),
                static_cast<unsigned long long>(t.replies),
                static_cast<unsigned long long>(t.latencies_ns.size()),
                static_cast<unsigned long long>(t.errors),
                static_cast<unsigned long long>(t.unanswered));
  out += line;
  if (!r.lnet_types.empty()) {
    out += "LNet types:";
    for (const auto& [name, n] : r.lnet_types) out += " " + name + " " + std::to_string(n);
    out += "\n";
  }
  const LatencyFigures f = latency_figures(t.latencies_ns);
  if (f.count) {
    out += "Latency (request->reply, nearest-rank): p50 " + format_duration(f.p50) + ", p90 " +
           format_duration(f.p90) + ", p99 " + format_duration(f.p99) + ", max " +
           format_duration(f.max) + "\n";
  }
  for (Dimension d : kDimensions) section(out, d, r.by(d));
  split_section(out, r.latency_split);
  lnet_health_sections(out, r.lnet);
  if (t.errors) {
    out += "\nErrors by status\n";
    for (const auto& [opc, g] : r.by(Dimension::kOpcode))
      for (const auto& [status, n] : g.errors_by_status)
        out += "  " + pad(opc, 28, false) + " " + pad(status_string(status), 28, false) + " " +
               std::to_string(n) + "\n";
  }
  return out;
}

}  // namespace lnetcap::report
