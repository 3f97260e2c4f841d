// SPDX-License-Identifier: GPL-2.0-or-later
#include "status_line.h"

#include "text_escape.h"

namespace lnetcap::report {

std::string format_status_line(const StatusCounts& c) {
  std::string s = "lnetcap: " + std::to_string(c.messages) + " messages, " +
                  std::to_string(c.dropped) + " dropped, " + std::to_string(c.filtered) +
                  " filtered";
  if (c.bytes_written) s += ", " + format_bytes(*c.bytes_written) + " written";
  if (c.damaged) s += ", " + std::to_string(c.damaged) + " damaged";
  return s + "\n";
}

}  // namespace lnetcap::report
