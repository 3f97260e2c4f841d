// SPDX-License-Identifier: GPL-2.0-or-later
// rotation.h - when to start a new -w file and what to call it, with
// tcpdump's rules (tcpdump(1), -C, -W and -G):
//   -C SIZE  before writing a record, if the current file is already larger
//            than SIZE bytes, close it and open the next one.  Files are
//            FILE, FILE1, FILE2...; with -W N the numbers are zero-padded to
//            the digits of N-1 and the first file is FILE0 (FILE00...).
//   -W N     with -C: a ring of N files (after FILE<N-1> comes FILE0 again);
//            with -G alone: stop after N files.
//   -G SECS  rotate when SECS seconds have passed since the current file was
//            opened (checked when a record arrives, like tcpdump); FILE is an
//            strftime(3) pattern expanded in local time at each opening.
//            With -C as well, the count restarts at 0 in every period.
// The clock is injectable so the tests need not sleep.
#pragma once

#include <cstdint>
#include <ctime>
#include <functional>
#include <optional>
#include <string>

namespace lnetcap::output {

struct RotationOptions {
  std::string base;                        // -w FILE
  std::optional<std::uint64_t> max_bytes;  // -C, in bytes
  std::optional<std::uint32_t> seconds;    // -G
  std::optional<std::uint32_t> file_count; // -W
  bool enabled() const { return max_bytes || seconds; }
};

/// Checks the combination (throws Error naming the option): -W or -z need
/// -C or -G; rotation needs a -w file that is not standard output.
void validate_rotation(const RotationOptions& o, bool has_post_rotate_command);

/// Digits the file number gets with -W N: those of N-1 (tcpdump's rule).
int file_number_width(std::uint32_t file_count);

/// The file name for period start time t (used with -G) and number n.
/// number is omitted when n == 0 and width == 0 (the plain "FILE").
std::string make_file_name(const RotationOptions& o, std::time_t t, std::uint32_t n);

class RotationPolicy {
 public:
  using Clock = std::function<std::time_t()>;
  explicit RotationPolicy(RotationOptions o, Clock clock = {});

  /// Name of the first file (starts the first -G period).
  std::string first_file();

  enum class Action { kWrite, kRotate, kStop };
  /// Asked before each record is written, with the current file's size.
  /// kRotate: close the file and open next_file(); kStop: -G -W limit reached.
  Action before_write(std::uint64_t current_file_bytes);
  /// Name of the file to open after kRotate.
  const std::string& next_file() const { return next_; }
  /// Files opened so far (including the current one).
  std::uint64_t files_opened() const { return opened_; }

 private:
  RotationOptions o_;
  Clock clock_;
  int width_ = 0;
  std::time_t period_start_ = 0;
  std::uint32_t size_count_ = 0;  // tcpdump's Cflag_count
  std::uint32_t time_count_ = 0;  // tcpdump's Gflag_count
  std::uint64_t opened_ = 0;
  std::string next_;
};

}  // namespace lnetcap::output
