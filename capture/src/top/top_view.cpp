// SPDX-License-Identifier: GPL-2.0-or-later
#include "top_view.h"

#include <cstdio>

namespace lnetcap::top {

using report::TopPanel;
using report::TopSort;

namespace {

constexpr int kEscape = 27;
// ncurses' codes for Enter and Backspace, without including ncurses here.
constexpr int kKeyEnter = 0527, kKeyBackspace = 0407;

constexpr TopPanel kPanels[] = {TopPanel::kJobs, TopPanel::kClients, TopPanel::kOpcodes,
                                TopPanel::kTargets, TopPanel::kNis};

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", s);
  return buf;
}

}  // namespace

TopView::Action TopView::key(int ch) {
  if (editing_) {
    // A filter being typed takes every key until Enter (apply) or Escape.
    if (ch == '\n' || ch == '\r' || ch == kKeyEnter) {
      filter_ = draft_;
      editing_ = false;
    } else if (ch == kEscape) {
      editing_ = false;
    } else if (ch == kKeyBackspace || ch == 127 || ch == 8) {
      if (!draft_.empty()) draft_.pop_back();
    } else if (ch >= 0x20 && ch < 0x7f) {
      draft_ += static_cast<char>(ch);
    } else {
      return Action::kNone;
    }
    return Action::kRedraw;
  }
  switch (ch) {
    case 'q': case 'Q': return Action::kQuit;
    case 'j': panel_ = TopPanel::kJobs; break;
    case 'c': panel_ = TopPanel::kClients; break;
    case 'o': panel_ = TopPanel::kOpcodes; break;
    case 't': panel_ = TopPanel::kTargets; break;
    case 'n': panel_ = TopPanel::kNis; break;
    case 'r': sort_ = TopSort::kRate; break;
    case 'b': sort_ = TopSort::kBytes; break;
    case 'l': sort_ = TopSort::kLatency; break;
    case 'e': sort_ = TopSort::kErrors; break;
    case 'p': case ' ': paused_ = !paused_; break;
    case 'a': total_ = !total_; break;
    case '/': editing_ = true; draft_ = filter_; break;
    case kEscape: filter_.clear(); break;
    default: return Action::kNone;
  }
  return Action::kRedraw;
}

std::vector<std::string> TopView::lines(const report::TopWindows& w, const TopStatus& s, int rows,
                                        int cols) const {
  const report::SummaryReport total = total_ ? w.total() : report::SummaryReport{};
  const report::SummaryReport& r = total_ ? total : w.last();
  // The whole run's rate: over the span of its records.
  const double seconds = total_ ? (r.last_ts_ns > r.first_ts_ns ? (r.last_ts_ns - r.first_ts_ns) / 1e9 : 0)
                                : w.last_seconds();
  std::vector<std::string> out;
  std::string head = "lnetcap top - " + s.source + " - ";
  head += total_ ? "total over " + seconds_text(seconds) + " s"
                 : "window " + s.window_at + " (" + seconds_text(seconds) + " s)";
  if (s.ended) head += " - input ended";
  if (paused_) head += " - PAUSED";
  out.push_back(head);
  out.push_back(report::top_totals_line(r, seconds));
  out.push_back("j jobs  c clients  o opcodes  t targets  n NIs/peers | sort r rate  b bytes  "
                "l latency  e errors | / filter  a window/total  p pause  q quit");
  out.push_back(editing_ ? "filter: " + draft_ + "_"
                         : filter_.empty() ? std::string() : "filter: " + filter_ + " (Esc clears)");
  const report::TopTable t = report::top_table(r, seconds, panel_, sort_, filter_);
  out.push_back("[" + t.title + "] " + std::to_string(t.rows.size()) + " rows");
  const int room = rows - static_cast<int>(out.size()) - 1;  // the heading line too
  const std::string table = report::render_top_text(t, room > 0 ? static_cast<std::size_t>(room) : 0);
  std::size_t at = 0;
  while (at < table.size()) {
    const std::size_t nl = table.find('\n', at);
    out.push_back(table.substr(at, nl - at));
    at = nl + 1;
  }
  if (static_cast<int>(out.size()) > rows) out.resize(rows > 0 ? static_cast<std::size_t>(rows) : 0);
  for (std::string& l : out)
    if (static_cast<int>(l.size()) > cols) l.resize(cols > 0 ? static_cast<std::size_t>(cols) : 0);
  return out;
}

std::string top_block(const report::SummaryReport& r, double seconds, const std::string& label) {
  std::string out = "--- lnetcap top: " + label + " (" + seconds_text(seconds) + " s) ---\n";
  out += report::top_totals_line(r, seconds) + "\n";
  for (TopPanel p : kPanels) {
    const report::TopTable t = report::top_table(r, seconds, p, TopSort::kRate, "");
    out += "[" + t.title + "]\n" + report::render_top_text(t);
  }
  return out + "\n";
}

}  // namespace lnetcap::top
