// SPDX-License-Identifier: GPL-2.0-or-later
// checked_write.h - every piece of text lnetcap prints (summaries, charts,
// assertion verdicts, lines, status and counts) goes out through here, so a
// full disk or a closed stream under `--summary > /dev/full` is one clear
// error and exit status 1, never a silent success.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace lnetcap::text {

/// "standard output", "standard error" or "the output" for other streams.
std::string stream_name(std::FILE* out);

/// Writes all of text to out, then flushes it when flush is true.  Throws
/// Error("cannot write <what> to <stream>: <reason>") on a short write or a
/// failed flush.
void write_all(std::FILE* out, std::string_view text, const std::string& what, bool flush = true);

/// Flushes out; throws the same Error when it fails.
void flush_checked(std::FILE* out, const std::string& what);

/// The Error of a failed write of what to out with errno err.
[[noreturn]] void write_failed(std::FILE* out, const std::string& what, int err);

}  // namespace lnetcap::text
