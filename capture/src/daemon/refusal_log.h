// SPDX-License-Identifier: GPL-2.0-or-later
// refusal_log.h - logs repeated events (refusals of CurveZMQ handshakes,
// connections and subscriptions; bad messages; subscribers coming and
// going) without letting a peer flood the log: in each interval the first
// few are logged one by one, the rest are counted and summed up in one line
// when the interval ends ("refused 2995 more subscriptions in the last
// 10 s; the last: ...").  One unauthenticated peer retrying as fast as it
// can made 600 lines a second before.  Lines given to it must hold peer
// text escaped already (log_text.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace lnetcap::daemon {

class RefusalLog {
 public:
  using Clock = std::chrono::steady_clock;
  /// what: "CurveZMQ handshakes" (the summary's noun); verb: what
  /// happened to them ("refused", "ignored"; empty: the noun says it).
  /// out: where lines go.
  RefusalLog(std::string what, std::chrono::seconds interval = std::chrono::seconds(10),
             unsigned lines_per_interval = 5, std::FILE* out = stderr, std::string verb = "refused");
  /// One event; `line` is logged unless the interval's lines are used up.
  void refused(const std::string& line, Clock::time_point now = Clock::now());
  void event(const std::string& line, Clock::time_point now = Clock::now()) { refused(line, now); }
  /// Call now and then (and at exit): writes the summary of an interval
  /// that has ended with refusals not logged one by one.
  void tick(Clock::time_point now = Clock::now());
  /// At exit: the summary of the current interval, if it has one.
  void finish() {
    if (in_interval_) summarise();
  }
  std::uint64_t total() const { return total_; }

 private:
  void summarise();
  std::string what_, verb_;
  std::chrono::seconds interval_;
  unsigned lines_per_interval_;
  std::FILE* out_;
  Clock::time_point interval_start_{};
  bool in_interval_ = false;
  unsigned logged_ = 0;
  std::uint64_t suppressed_ = 0, total_ = 0;
  std::string last_;
};

}  // namespace lnetcap::daemon
