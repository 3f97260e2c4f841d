// SPDX-License-Identifier: GPL-2.0-or-later
#include "progress_meter.h"

#include <unistd.h>

#include "text_escape.h"

namespace lnetcap::report {
namespace {
constexpr auto kRedrawEvery = std::chrono::milliseconds(250);
}

ProgressMeter::ProgressMeter(std::string label, std::uint64_t total, std::FILE* out, int enabled,
                             Clock clock)
    : label_(wire_text(label)), total_(total), out_(out), clock_(std::move(clock)) {
  enabled_ = total_ > 0 && (enabled < 0 ? isatty(fileno(out_)) != 0 : enabled != 0);
  if (!clock_) clock_ = [] { return std::chrono::steady_clock::now(); };
}

ProgressMeter::~ProgressMeter() { finish(); }

void ProgressMeter::update(std::uint64_t done) {
  if (!enabled_) return;
  const int percent = static_cast<int>(done >= total_ ? 100 : done * 100 / total_);
  if (percent == last_percent_) return;
  const auto now = clock_();
  if (drawn_ && now - last_draw_ < kRedrawEvery) return;
  last_draw_ = now;
  last_percent_ = percent;
  // \r and "erase to end of line" redraw in place without scrolling.
  std::fprintf(out_, "\rlnetcap: reading %s %3d%%\033[K", label_.c_str(), percent);
  std::fflush(out_);
  drawn_ = true;
}

void ProgressMeter::finish() {
  if (!drawn_) return;
  std::fputs("\r\033[K", out_);
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace lnetcap::report
