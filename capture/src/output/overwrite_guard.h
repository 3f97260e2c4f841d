// SPDX-License-Identifier: GPL-2.0-or-later
// overwrite_guard.h - refuses, before anything is opened for writing, a
// command line whose outputs would overwrite one of its inputs or each
// other: "-r in.pcapng -w ./in.pcapng" would truncate the capture it is
// about to read.  Files are compared, not names: the same file reached by a
// relative or absolute path, "..", a symbolic link or a hard link is caught,
// and with -C/-G every file name the rotation can produce is checked too.
#pragma once

#include <string>
#include <vector>

#include "rotation.h"

namespace lnetcap::output {

/// A file named on the command line, with the option that names it ("-r").
struct NamedFile {
  std::string option;
  std::string path;
};

/// Throws Error naming both options when a write would hit a read (or two
/// writes the same file).  Empty paths and "-" (standard streams) are
/// ignored.  rotation.base, when rotation is enabled, is checked as the
/// whole family of rotated names in its directory, and must not be listed in
/// writes as well.
void refuse_overwrites(const std::vector<NamedFile>& reads, const std::vector<NamedFile>& writes,
                       const RotationOptions& rotation);

/// True when name (a file name without directory) is one -C/-G/-W could
/// give a -w file of these options: FILE, FILE<digits>, the strftime pattern
/// with any expansion.  Only the last component of o.base is matched.
bool is_rotation_name(const RotationOptions& o, const std::string& name);

}  // namespace lnetcap::output
