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
// A file can be written all at once (write_incident_file) or over time
// (IncidentFile: a trigger window streams its records into it as they
// arrive, so the window holds no records in memory).
#pragma once

#include <functional>
#include <string>

namespace lnetcap::daemon {

/// Checks (or makes) the trigger directory.  Throws Error naming it.
void prepare_incident_directory(const std::string& dir);

/// An incident file being written: made at once under a temporary name
/// (O_EXCL, mode 0600, never through a symlink); commit() syncs it and
/// gives it its name; destroyed without commit() it is removed.
class IncidentFile {
 public:
  /// Throws Error when the file cannot be made.
  IncidentFile(std::string dir, std::string name);
  ~IncidentFile();
  IncidentFile(const IncidentFile&) = delete;
  IncidentFile& operator=(const IncidentFile&) = delete;

  /// Where a writer opens the file: the very file made (/proc/self/fd/N),
  /// not whatever its name might point to by then.
  const std::string& path() const { return fd_path_; }
  /// Syncs the file and links it to `dir/NAME.pcapng` (NAME-2.pcapng, ...
  /// if taken); returns that path.  On failure (an empty file, a full
  /// disk) the file is removed and Error is thrown.
  std::string commit();

 private:
  std::string dir_, name_, temporary_, fd_path_;
  int fd_ = -1;
};

/// Writes `dir/NAME.pcapng` (or NAME-2.pcapng, ... if taken): fill() gets
/// a path to write the whole file to.  Returns the final path.  On any
/// failure nothing is left behind and Error is thrown.
std::string write_incident_file(const std::string& dir, const std::string& name,
                                const std::function<void(const std::string& path)>& fill);

}  // namespace lnetcap::daemon
