// SPDX-License-Identifier: GPL-2.0-or-later
// privdrop.h - -Z USER: become USER once the programs are attached.
#pragma once

#include <string>

namespace lnetcap::live {

/// setgroups/initgroups, setgid, setuid to USER (a name or a numeric uid);
/// checks that root cannot be regained.  Throws Error.
void drop_privileges(const std::string& user);

}  // namespace lnetcap::live
