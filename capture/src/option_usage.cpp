// SPDX-License-Identifier: GPL-2.0-or-later
#include "option_usage.h"

#include <sstream>

namespace lnetcap {

std::string usage_row(char short_option, const char* long_option, const std::string& argument, const char* help) {
  constexpr std::size_t kHelpColumn = 27;
  std::string names = short_option ? std::string("  -") + short_option : std::string("    ");
  if (long_option) names += std::string(short_option ? ", --" : "  --") + long_option;
  names += argument;
  names += names.size() < kHelpColumn ? std::string(kHelpColumn - names.size(), ' ') : std::string("  ");
  std::string out;
  std::istringstream lines(help ? help : "");
  bool first = true;
  for (std::string line; std::getline(lines, line); first = false)
    out += (first ? names : std::string(kHelpColumn, ' ')) + line + "\n";
  if (first) out += names + "\n";
  return out;
}

}  // namespace lnetcap
