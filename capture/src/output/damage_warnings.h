// SPDX-License-Identifier: GPL-2.0-or-later
// damage_warnings.h - the warnings `lnetcap -r` prints for the damaged
// records it steps over (LnetcapFileSource::skip_damaged), and the closing
// count.  One line per damaged record up to a bound, then one line saying
// the rest are only counted: a file of garbage holds thousands of damaged
// "records", and a warning per record would bury the output.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "../source.h"

namespace lnetcap::output {

class DamageWarnings {
 public:
  static constexpr std::uint64_t kDefaultMaxLines = 20;

  explicit DamageWarnings(std::FILE* out, std::uint64_t max_lines = kDefaultMaxLines)
      : out_(out), max_lines_(max_lines) {}

  /// Writes the record's warning line, or after max_lines of them, once,
  /// the line saying further ones are only counted.
  void report(const DamagedRecord& d);
  std::uint64_t reported() const { return reported_; }

 private:
  std::FILE* out_;
  std::uint64_t max_lines_;
  std::uint64_t reported_ = 0;
};

/// "lnetcap: warning: FILE: offset O: record N: WHY; skipped"
std::string damage_warning_line(const DamagedRecord& d);

/// The closing statistics line for a file with damaged records:
/// "lnetcap: 894 records read, 1 damaged record skipped (...)"; empty when
/// none was damaged.
std::string damage_count_line(std::uint64_t read, std::uint64_t damaged, std::uint64_t listed_at_most);

}  // namespace lnetcap::output
