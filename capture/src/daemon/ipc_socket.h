// SPDX-License-Identifier: GPL-2.0-or-later
// ipc_socket.h - how lnetcapd puts its local (ipc) socket at a path
// without trusting the path's directory.
//
// The daemon usually runs as root, and the socket's directory may be one
// other users can write (the docs once used /tmp/lnetcap).  Changing the
// socket's group by path after bind would let such a user swap a symlink
// in between and have root give any file (e.g. /etc/shadow) to the group.
// So the socket is bound in a fresh private directory (mkdtemp, 0700, made
// by the daemon: nobody else can write there), given its group and mode
// there, and only then renamed into place (rename is atomic and does not
// follow a symlink at the target).
//
// What is at the path already is never removed blindly: a file that is not
// a socket is refused, a socket another lnetcapd answers on is refused; a
// socket nobody answers on (a daemon that was killed) is replaced.
#pragma once

#include <sys/types.h>

#include <string>

#include <zmq.hpp>

namespace lnetcap::daemon {

/// Checks `path` (see above), binds `router` at it through a private
/// directory, gives it group `gid` (unless gid is -1) and mode 0660, and
/// moves it to `path`.  Throws Error naming the path and what to do.
void bind_ipc_socket(zmq::socket_t& router, const std::string& path, gid_t gid);

/// The same for a Unix stream socket `fd` (socket(), not yet bound): bound
/// and placed at `path` the same way, then listening.
void bind_unix_listener(int fd, const std::string& path, gid_t gid);

/// Removes the socket at `path` when it is still the one this process
/// bound there (not a successor's).  Called at exit.
void remove_ipc_socket(const std::string& path);

}  // namespace lnetcap::daemon
