// SPDX-License-Identifier: GPL-2.0-or-later
// session_jobid.h - what --only-command needs of Lustre (2.13 and later):
// per-session jobids.  With jobid_var=session, Lustre tags each request
// with the jobid written to jobid_this_session by a process of the
// requester's session; processes of sessions without one fall back to
// jobid_name (%e.%u by default), unless jobid_name holds %j, which
// disables the session lookup (lustre/obdclass/jobid.c).
#pragma once

#include <string>

namespace lnetcap::report {

/// Lustre's sysfs directory: /sys/fs/lustre, or $LNETCAP_LUSTRE_SYSFS
/// (the tests' stand-in).
std::string lustre_sysfs_dir();

/// Checks that per-session jobids are in effect and returns the path of
/// jobid_this_session.  Throws Error saying what to set otherwise.
std::string session_jobid_file();

/// The jobid lnetcap gives a command's session: "lnetcap.<pid>".
std::string command_jobid(int lnetcap_pid);

}  // namespace lnetcap::report
