// SPDX-License-Identifier: GPL-2.0-or-later
// progress_meter.h - "lnetcap: reading trace.pcapng  42%" on a terminal
// while a large file is read.  Shown only when stderr is a terminal, redrawn
// at most every 250 ms (and only when the percentage changed), erased by
// finish() so that it never ends up in logs or mixes with the report.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace lnetcap::report {

class ProgressMeter {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  /// enabled defaults to isatty(fileno(out)); total 0 disables the meter.
  ProgressMeter(std::string label, std::uint64_t total, std::FILE* out = stderr,
                int enabled = -1, Clock clock = {});
  ~ProgressMeter();

  /// Cheap when nothing needs drawing: call it for every record.
  void update(std::uint64_t done);
  /// Erases the meter line (idempotent).
  void finish();

  bool enabled() const { return enabled_; }

 private:
  std::string label_;
  std::uint64_t total_;
  std::FILE* out_;
  bool enabled_;
  Clock clock_;
  std::chrono::steady_clock::time_point last_draw_{};
  int last_percent_ = -1;
  bool drawn_ = false;
};

}  // namespace lnetcap::report
