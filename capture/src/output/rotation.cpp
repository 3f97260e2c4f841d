// SPDX-License-Identifier: GPL-2.0-or-later
#include "rotation.h"

#include <climits>
#include <cstdio>

#include "error.h"

namespace lnetcap::output {

void validate_rotation(const RotationOptions& o, bool has_post_rotate_command) {
  if (o.file_count && !o.enabled())
    throw Error("-W needs -C or -G", "e.g. -w trace.pcapng -C 100 -W 10 (a ring of 10 files)");
  if (has_post_rotate_command && !o.enabled())
    throw Error("-z runs after each rotation: give -C or -G as well",
                "e.g. -w trace.pcapng -C 100 -z gzip");
  if (!o.enabled()) return;
  if (o.base.empty()) throw Error("-C and -G rotate -w files: give -w FILE");
  if (o.base == "-") throw Error("-C and -G cannot rotate standard output (-w -)");
}

int file_number_width(std::uint32_t n) {
  int c = 0;
  for (std::uint32_t x = n ? n - 1 : 0; x > 0; x /= 10) ++c;
  return c;
}

std::string make_file_name(const RotationOptions& o, std::time_t t, std::uint32_t n) {
  std::string name = o.base;
  if (o.seconds) {
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[PATH_MAX];
    const std::size_t len = std::strftime(buf, sizeof buf, o.base.c_str(), &tm);
    // strftime returns 0 both for an empty result and for overflow.
    if (len == 0) throw Error("-w " + o.base + ": the strftime pattern gives an empty or too long name");
    name.assign(buf, len);
  }
  const int width = o.file_count && o.max_bytes ? file_number_width(*o.file_count) : 0;
  if (!o.max_bytes || (n == 0 && width == 0)) return name;
  char num[16];
  std::snprintf(num, sizeof num, "%0*u", width, n);
  return name + num;
}

RotationPolicy::RotationPolicy(RotationOptions o, Clock clock)
    : o_(std::move(o)), clock_(std::move(clock)) {
  if (!clock_) clock_ = [] { return std::time(nullptr); };
}

std::string RotationPolicy::first_file() {
  period_start_ = clock_();
  opened_ = 1;
  return make_file_name(o_, period_start_, 0);
}

RotationPolicy::Action RotationPolicy::before_write(std::uint64_t current_file_bytes) {
  if (o_.seconds) {
    const std::time_t now = clock_();
    if (now - period_start_ >= static_cast<std::time_t>(*o_.seconds)) {
      period_start_ = now;
      ++time_count_;
      // -W counts whole files only when -C is not numbering them.
      if (!o_.max_bytes && o_.file_count && time_count_ >= *o_.file_count) return Action::kStop;
      size_count_ = 0;
      next_ = make_file_name(o_, period_start_, 0);
      ++opened_;
      return Action::kRotate;
    }
  }
  if (o_.max_bytes && current_file_bytes > *o_.max_bytes) {
    ++size_count_;
    if (o_.file_count && size_count_ >= *o_.file_count) size_count_ = 0;
    next_ = make_file_name(o_, period_start_, size_count_);
    ++opened_;
    return Action::kRotate;
  }
  return Action::kWrite;
}

}  // namespace lnetcap::output
