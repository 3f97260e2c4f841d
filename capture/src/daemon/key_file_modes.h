// SPDX-License-Identifier: GPL-2.0-or-later
// key_file_modes.h - lnetcapd's key files checked as sshd checks its own
// (StrictModes): an authorized-keys file that users other than its owner
// may write lets them admit themselves, so one writable by group or others
// is refused; a server secret key others may read lets them pose as the
// daemon, so one readable (or writable) by group or others is refused.
#pragma once

#include <set>
#include <string>

#include "../subscribe/curve_keys.h"

namespace lnetcap::daemon {

/// Reads the authorized-keys file after checking its mode.  Throws Error.
std::set<std::string> read_checked_authorized_keys(const std::string& path);
/// Throws Error when the server's secret key file is open to group or others.
void check_secret_key_mode(const std::string& path);

}  // namespace lnetcap::daemon
