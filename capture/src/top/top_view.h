// SPDX-License-Identifier: GPL-2.0-or-later
// top_view.h - what lnetcap --top shows and how keys change it, without
// the terminal: the screen (top_terminal.h) draws these lines, and the
// plain-text mode prints top_block() (docs/REPORTS.md "Top").
#pragma once

#include <string>
#include <vector>

#include "report/top_table.h"

namespace lnetcap::top {

/// What the screen's header says about the run.
struct TopStatus {
  std::string source;      // "-r FILE", "--from URI...", "live"
  std::string window_at;   // the window's start, "10:00:01" (UTC)
  bool ended = false;      // the input ended: the view stays until q
};

class TopView {
 public:
  enum class Action { kNone, kRedraw, kQuit };
  /// One key (a character, or ncurses' KEY_* code) from the user.
  Action key(int ch);
  /// The screen's lines, at most `rows` lines of at most `cols` columns.
  std::vector<std::string> lines(const report::TopWindows& w, const TopStatus& s, int rows,
                                 int cols) const;
  bool paused() const { return paused_; }
  /// Show the whole run's figures instead of the last window's (key a;
  /// set when the input ends, since its last window is then a fragment).
  void show_total(bool on) { total_ = on; }
  bool showing_total() const { return total_; }
  report::TopPanel panel() const { return panel_; }
  report::TopSort sort() const { return sort_; }
  /// The line of lines() that holds the table's heading.
  static constexpr int kHeadingLine = 5;
  const std::string& filter() const { return filter_; }

 private:
  report::TopPanel panel_ = report::TopPanel::kJobs;
  report::TopSort sort_ = report::TopSort::kRate;
  std::string filter_;
  bool editing_ = false;  // typing a filter after '/'
  std::string draft_;
  bool paused_ = false;
  bool total_ = false;
};

/// One plain-text block (lnetcap --top when not on a terminal): a heading
/// line "--- lnetcap top: LABEL (S s) ---", the totals line, then every
/// panel as "[PANEL by rate]", its heading and its rows, then a blank line.
std::string top_block(const report::SummaryReport& r, double seconds, const std::string& label);

}  // namespace lnetcap::top
