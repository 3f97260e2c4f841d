// SPDX-License-Identifier: GPL-2.0-or-later
// option_values.h - the one reader of option and config values that are
// numbers, sizes or durations, for lnetcap's and lnetcapd's command lines
// and lnetcapd.conf alike, so that "10", "10k" and "0.5" mean the same
// wherever they are written and are refused in the same words.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace lnetcap {

/// A whole decimal number from `min` to `max`, nothing else (no sign, no
/// blanks, no suffix); nullopt otherwise.
std::optional<std::uint64_t> parse_whole_number(const std::string& text, std::uint64_t min, std::uint64_t max);

/// Parses "10", "10k", "10M", "2G" (k/m/g are binary, K/M/G... as tcpdump: -C
/// counts millions of bytes for a plain number).
/// Sizes larger than kMaxSize (an off_t's range) are refused (nullopt).
std::optional<std::uint64_t> parse_size(const std::string& text, std::uint64_t plain_unit);
inline constexpr std::uint64_t kMaxSize = INT64_MAX;

/// Seconds, fractions allowed ("300", "0.5"), more than 0 and at most
/// `max_seconds`, as nanoseconds; nullopt otherwise.
std::optional<std::uint64_t> parse_seconds_ns(const std::string& text, double max_seconds);

/// What a number option expects, for messages: "a number from 1 to 65535".
std::string number_range_text(std::uint64_t min, std::uint64_t max);

}  // namespace lnetcap
