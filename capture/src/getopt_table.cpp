// SPDX-License-Identifier: GPL-2.0-or-later
#include "getopt_table.h"

namespace lnetcap {
namespace {

// getopt_long returns a row's short option, or this plus its index.
constexpr int kRowValue = 1000;

}  // namespace

GetoptTable::GetoptTable(const std::vector<GetoptRow>& rows) : rows_(rows) {
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const GetoptRow& r = rows_[i];
    if (r.short_option) short_options_ += std::string(1, r.short_option) + (r.has_arg == required_argument ? ":" : "");
    if (r.option)
      long_options_.push_back({r.option, r.has_arg, nullptr, r.short_option ? r.short_option : kRowValue + static_cast<int>(i)});
  }
  long_options_.push_back({nullptr, 0, nullptr, 0});
}

int GetoptTable::row(int c) const {
  if (c >= kRowValue && c - kRowValue < static_cast<int>(rows_.size())) return c - kRowValue;
  for (std::size_t i = 0; i < rows_.size(); ++i)
    if (rows_[i].short_option && rows_[i].short_option == c) return static_cast<int>(i);
  return -1;
}

std::string GetoptTable::refused(char** argv) const {
  // optopt is a short option's letter, or a long option's row value (then
  // the option is named as written, as it is when getopt knows nothing).
  if (optopt && optopt < kRowValue) return std::string("-") + static_cast<char>(optopt);
  return argv[optind - 1];
}

bool GetoptTable::missing_value() const {
  const int i = optopt ? row(optopt) : -1;
  return i >= 0 && rows_[static_cast<std::size_t>(i)].has_arg == required_argument;
}

}  // namespace lnetcap
