// SPDX-License-Identifier: GPL-2.0-or-later
// log_text.h - text a peer chose (a client description, a filter, a key or
// address, a path), as lnetcapd's log may hold it (issue 34): escaped so
// that it can never start a line of its own or carry terminal controls, and
// cut so that it never takes more than a line.  A newline in a client's
// description used to start a forged log line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace lnetcap::daemon {

/// As report::wire_text() makes wire strings safe (one rule for every
/// string lnetcap prints): printable ASCII stays, a backslash is doubled,
/// every other byte - a newline included - is a backslash and three octal
/// digits (\012).  At most `max` bytes of `text` are shown, then
/// "... (N bytes)".
std::string log_text(std::string_view text, std::size_t max = 200);

}  // namespace lnetcap::daemon
