// SPDX-License-Identifier: GPL-2.0-or-later
// top_table.h - the figures of lnetcap --top (docs/REPORTS.md "Top"): one
// window's (or the whole run's) SummaryReport as a sorted, filtered table
// per panel, in text that the screen and the plain-text blocks both print.
//
// The figures are not computed here: TopWindows feeds the very Summary
// that --summary uses (one for the current window, one for the whole run),
// so a window spanning a capture shows --summary's numbers by construction.
// This file only picks, divides by the window's length and formats.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "summary.h"

namespace lnetcap::report {

/// The current window's figures and the whole run's, from one stream.
class TopWindows {
 public:
  void add(const Message& m) {
    window_.add(m);
    total_.add(m);
  }
  /// Ends the current window, `seconds` long: its figures become last().
  void close_window(double seconds);
  const SummaryReport& last() const { return last_; }
  double last_seconds() const { return last_seconds_; }
  /// Every message so far (what --summary prints for the same records).
  SummaryReport total() const { return total_.report(); }

 private:
  Summary window_, total_;
  SummaryReport last_;
  double last_seconds_ = 0;
};

enum class TopPanel { kJobs, kClients, kOpcodes, kTargets, kNis };
enum class TopSort { kRate, kBytes, kLatency, kErrors };
/// "jobs", "clients", "opcodes", "targets", "nis"
const char* top_panel_name(TopPanel p);
/// "rate", "bytes", "latency", "errors"
const char* top_sort_name(TopSort s);

struct TopTable {
  std::string title;                   // "opcodes by rate"
  std::vector<std::string> headings;   // first: the key's
  // Cells; only the key (first) may hold a blank, so a line parses from the right.
  std::vector<std::vector<std::string>> rows;
};

/// One panel of `r`, whose window lasted `seconds` (rates are per second;
/// "-" when seconds is 0).  Rows whose key does not contain `filter` are
/// left out; sorted by `sort`, largest first, then by key.
/// RPC panels: KEY RPC/s MSG/s BYTES/s RPCS MSGS BYTES BULK ERRORS P50 P99
/// (RPCS: requests; BYTES: LNet payload, bulk included; P50/P99: request->
/// reply latency, nearest rank).  NIs panel: one row per local NI ("ni X")
/// and per peer NI ("peer X"): SEND/s ATTEMPTS RESENDS FAILED QUEUED QP50
/// QP99 (LNet health and queue time, as --summary's LNet sections).
TopTable top_table(const SummaryReport& r, double seconds, TopPanel panel, TopSort sort,
                   const std::string& filter);

/// "1234 msgs 56 RPCs 1.2MB 0 errors p50 1.2ms p99 3.4ms" with rates.
std::string top_totals_line(const SummaryReport& r, double seconds);

/// Aligned lines (heading line first), at most max_rows rows, each line
/// newline-terminated.
std::string render_top_text(const TopTable& t, std::size_t max_rows = SIZE_MAX);

/// "812B", "1.2kB", "3.4MB", "5.6GB": no blank, so a line splits on blanks.
std::string compact_bytes(double bytes);

}  // namespace lnetcap::report
