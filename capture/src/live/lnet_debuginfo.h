// SPDX-License-Identifier: GPL-2.0-or-later
// lnet_debuginfo.h - offsets from Lustre's debuginfo package when the lnet
// module has no BTF.  Distributions ship lnet.ko's DWARF separately
// (lustre-client-debuginfo on RHEL-likes, *-dbgsym on Debian-likes) under
// /usr/lib/debug; pahole turns it into BTF, which lnetcap reads as it reads
// module BTF.  Exact for the running build, where a built-in table is only
// right for the releases it was checked against.
#pragma once

#include <string>

#include "layout.h"

namespace lnetcap::live {

/// The debuginfo file of the loaded lnet module under root, or "" when
/// there is none.  First by the module's GNU build-id
/// (sys/module/lnet/notes/.note.gnu.build-id ->
/// usr/lib/debug/.build-id/ab/cdef....debug: exactly this build), then by
/// path (usr/lib/debug/lib/modules/<release>/.../lnet.ko.debug or lnet.ko).
std::string find_lnet_debuginfo(const std::string& root = "/");

/// Runs pahole on the debuginfo file and reads the offsets from the BTF it
/// makes (in a private temporary directory, removed afterwards).  Throws
/// Error when pahole is missing or fails, or the BTF lacks Lustre's structs.
Layout layout_from_debuginfo(const std::string& debuginfo_path);

}  // namespace lnetcap::live
