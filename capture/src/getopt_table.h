// SPDX-License-Identifier: GPL-2.0-or-later
// getopt_table.h - getopt_long's option string and long options, made
// from a program's option table (lnetcap's option_table.h, lnetcapd's
// daemon/daemon_settings.h), and the row getopt_long's answer names.
#pragma once

#include <getopt.h>

#include <string>
#include <vector>

namespace lnetcap {

struct GetoptRow {
  const char* option;  // long name, or nullptr
  char short_option;   // or 0
  int has_arg;         // no_argument, required_argument, optional_argument
};

class GetoptTable {
 public:
  /// '+' leads the option string: getopt stops at the first non-option,
  /// so filter terms such as "status == -2" are never taken for options.
  explicit GetoptTable(const std::vector<GetoptRow>& rows);
  const char* short_options() const { return short_options_.c_str(); }
  const option* long_options() const { return long_options_.data(); }
  /// The index of the row getopt_long's return value `c` names, or -1
  /// for an unknown option or a missing value ('?').
  int row(int c) const;
  /// After a '?': the option as the user wrote it ("-k", "--bogus").
  std::string refused(char** argv) const;
  /// After a '?': whether the option is known and its value was missing.
  bool missing_value() const;

 private:
  std::vector<GetoptRow> rows_;
  std::string short_options_ = "+";
  std::vector<option> long_options_;
};

}  // namespace lnetcap
