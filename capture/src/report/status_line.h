// SPDX-License-Identifier: GPL-2.0-or-later
// status_line.h - the one-line status printed on SIGUSR1 and every
// --stats-interval seconds:
//   lnetcap: 12345 messages, 3 dropped, 17 filtered, 2.1 MB written
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace lnetcap::report {

struct StatusCounts {
  std::uint64_t messages = 0;  // delivered to the outputs (passed the filter)
  std::uint64_t dropped = 0;   // lost before user space
  std::uint64_t filtered = 0;  // rejected by the filter (in the kernel or here)
  std::optional<std::uint64_t> bytes_written;  // -w: bytes in every file so far
  std::uint64_t damaged = 0;  // -r: damaged records skipped (shown when not 0)
};

/// Newline-terminated; bytes in decimal units (kB, MB, GB) like -C.
std::string format_status_line(const StatusCounts& c);

}  // namespace lnetcap::report
