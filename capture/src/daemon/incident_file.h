// SPDX-License-Identifier: GPL-2.0-or-later
// incident_file.h - where the trigger's pcapng files go, and how they get
// there without harm:
//  - the directory is checked when lnetcapd starts: made (mode 0700) when
//    only its last component is missing - the default
//    /var/lib/lnetcap/incidents does not exist on a fresh install, and
//    every incident would be lost - and refused when it is not a
//    directory, lnetcapd cannot write it, or other users can (they could
//    plant or remove incident files);
//  - a file is written under a temporary name made with O_EXCL (mode
//    0600: the records are the site's traffic), synced, and only then
//    linked to its name, which never replaces an existing file (a rerun
//    over the same data gets "-2", "-3"... instead of overwriting earlier
//    incidents); a write that fails (full disk) removes the temporary file,
//    so no empty or truncated file is left that looks like a valid one.
#pragma once

#include <functional>
#include <string>

namespace lnetcap::daemon {

/// Checks (or makes) the trigger directory.  Throws Error naming it.
void prepare_incident_directory(const std::string& dir);

/// Writes `dir/NAME.pcapng` (or NAME-2.pcapng, ... if taken): fill() gets
/// a path to write the whole file to.  Returns the final path.  On any
/// failure nothing is left behind and Error is thrown.
std::string write_incident_file(const std::string& dir, const std::string& name,
                                const std::function<void(const std::string& path)>& fill);

}  // namespace lnetcap::daemon
