// SPDX-License-Identifier: GPL-2.0-or-later
#include "option_values.h"

#include <charconv>
#include <cstdlib>

namespace lnetcap {

std::optional<std::uint64_t> parse_whole_number(const std::string& text, std::uint64_t min, std::uint64_t max) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || v < min || v > max)
    return std::nullopt;
  return v;
}

std::optional<std::uint64_t> parse_size(const std::string& text, std::uint64_t plain_unit) {
  if (text.empty()) return std::nullopt;
  std::uint64_t unit = plain_unit;
  std::string digits = text;
  switch (text.back()) {
    case 'k': case 'K': unit = 1024; digits.pop_back(); break;
    case 'm': case 'M': unit = 1024 * 1024; digits.pop_back(); break;
    case 'g': case 'G': unit = 1024ULL * 1024 * 1024; digits.pop_back(); break;
    default: break;
  }
  // At most kMaxSize / unit, so the product cannot wrap (to 0: a file per record).
  const auto v = parse_whole_number(digits, 1, kMaxSize / unit);
  if (!v) return std::nullopt;
  return *v * unit;
}

std::optional<std::uint64_t> parse_seconds_ns(const std::string& text, double max_seconds) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v > 0) || v > max_seconds) return std::nullopt;
  return static_cast<std::uint64_t>(v * 1e9 + 0.5);
}

std::string number_range_text(std::uint64_t min, std::uint64_t max) {
  return "a number from " + std::to_string(min) + " to " + std::to_string(max);
}

}  // namespace lnetcap
