// SPDX-License-Identifier: GPL-2.0-or-later
#include "refusal_log.h"

#include <cinttypes>

namespace lnetcap::daemon {

RefusalLog::RefusalLog(std::string what, std::chrono::seconds interval, unsigned lines_per_interval,
                       std::FILE* out, std::string verb)
    : what_(std::move(what)),
      verb_(std::move(verb)),
      interval_(interval),
      lines_per_interval_(lines_per_interval),
      out_(out) {}

void RefusalLog::refused(const std::string& line, Clock::time_point now) {
  tick(now);
  if (!in_interval_) {
    in_interval_ = true;
    interval_start_ = now;
    logged_ = 0;
    suppressed_ = 0;
  }
  ++total_;
  if (logged_ < lines_per_interval_) {
    ++logged_;
    std::fprintf(out_, "%s\n", line.c_str());
    if (logged_ == lines_per_interval_)
      std::fprintf(out_, "lnetcapd: further %s%s%s are summed up every %lld s\n", verb_.c_str(),
                   verb_.empty() ? "" : " ", what_.c_str(), static_cast<long long>(interval_.count()));
    return;
  }
  ++suppressed_;
  last_ = line.rfind("lnetcapd: ", 0) == 0 ? line.substr(10) : line;
}

void RefusalLog::tick(Clock::time_point now) {
  if (in_interval_ && now - interval_start_ >= interval_) summarise();
}

void RefusalLog::summarise() {
  if (suppressed_)
    std::fprintf(out_, "lnetcapd: %s%s%" PRIu64 " more %s in the last %lld s; the last: %s\n", verb_.c_str(),
                 verb_.empty() ? "" : " ", suppressed_, what_.c_str(), static_cast<long long>(interval_.count()),
                 last_.c_str());
  std::fflush(out_);
  in_interval_ = false;
  suppressed_ = 0;
}

}  // namespace lnetcap::daemon
