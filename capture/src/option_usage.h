// SPDX-License-Identifier: GPL-2.0-or-later
// option_usage.h - one option's lines in lnetcap's and lnetcapd's -h:
// names from column 2, help from column 27, as tcpdump's and ip's are.
#pragma once

#include <string>

namespace lnetcap {

/// "  -r, --read FILE          read a capture...\n" and the help's further
/// lines ('\n' in `help`) under the first.  `long_option` may be null (-n);
/// `argument` follows the names as written (" FILE", "[=FMT]").
std::string usage_row(char short_option, const char* long_option, const std::string& argument, const char* help);

}  // namespace lnetcap
