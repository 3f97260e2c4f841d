// SPDX-License-Identifier: GPL-2.0-or-later
// chart_mermaid.cpp - --chart=mermaid: a sequenceDiagram that GitHub,
// GitLab and mermaid.live render as is.
#include <cstdio>

#include "chart.h"
#include "text_escape.h"

namespace lnetcap::report {
namespace {

// Solid arrows for requests, dotted for replies, a cross for errors, open
// (async) arrows for LNet-level traffic such as bulk data.
const char* mermaid_arrow(ArrowKind k) {
  switch (k) {
    case ArrowKind::kRequest: return "->>";
    case ArrowKind::kReply: return "-->>";
    case ArrowKind::kError: return "--x";
    case ArrowKind::kEarly: return "--)";
    case ArrowKind::kLnet: return "-)";
  }
  return "->>";
}

std::string rel_time(std::uint64_t ts, std::uint64_t first) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "+%.6f", ts >= first ? (ts - first) / 1e9 : 0.0);
  return buf;
}

}  // namespace

std::string render_mermaid(const ChartModel& m) {
  std::string out = "sequenceDiagram\n";
  out += "    %% lnetcap: " + std::to_string(m.arrows.size()) + " messages shown";
  if (m.omitted) out += ", " + std::to_string(m.omitted) + " omitted";
  out += "; times in seconds from the first\n";
  for (std::size_t i = 0; i < m.participants.size(); ++i)
    out += "    participant P" + std::to_string(i) + " as " + mermaid_text(m.participants[i]) + "\n";
  for (const Arrow& a : m.arrows) {
    out += "    P" + std::to_string(a.from) + mermaid_arrow(a.kind) + "P" + std::to_string(a.to) +
           ": " + rel_time(a.ts_ns, m.first_ts_ns) + " " + mermaid_text(a.label) + "\n";
  }
  if (m.omitted) {
    const std::string last = m.participants.empty() ? "P0" : "P" + std::to_string(m.participants.size() - 1);
    out += "    Note over P0," + last + ": " + std::to_string(m.omitted) +
           " more messages not shown (the chart stops at " + std::to_string(m.max_arrows) +
           " arrows; narrow it with a filter)\n";
  }
  return out;
}

}  // namespace lnetcap::report
