// SPDX-License-Identifier: GPL-2.0-or-later
#include "checked_write.h"

#include <cerrno>
#include <cstring>

#include "../error.h"

namespace lnetcap::text {
void write_failed(std::FILE* out, const std::string& what, int err) {
  throw Error("cannot write " + what + " to " + stream_name(out) + ": " +
                  std::strerror(err ? err : EIO),
              "check the disk or the program reading lnetcap's output");
}

std::string stream_name(std::FILE* out) {
  if (out == stdout) return "standard output";
  if (out == stderr) return "standard error";
  return "the output";
}

void write_all(std::FILE* out, std::string_view text, const std::string& what, bool flush) {
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), out) != text.size()) write_failed(out, what, errno);
  if (flush) flush_checked(out, what);
}

void flush_checked(std::FILE* out, const std::string& what) {
  errno = 0;
  if (std::fflush(out) != 0 || std::ferror(out)) write_failed(out, what, errno);
}

}  // namespace lnetcap::text
