// SPDX-License-Identifier: GPL-2.0-or-later
// accept_gate.h - lnetcapd's bound on connections, applied where libzmq
// accepts them (issue 34).
//
// libzmq 4.3 accepts every connection to a listening socket in its I/O
// thread, and its ipc listener aborts the process when accept() fails with
// EMFILE (src/ipc_listener.cpp: EMFILE is not among the errors it
// tolerates; its TCP listener tolerates it but then spins on the listening
// socket).  Shutting connections down after libzmq's ACCEPTED event (what
// lnetcapd did before) comes too late: a burst of connections is accepted
// faster than the daemon's loop reads the events, and at a low descriptor
// limit (a hard `nofile` of 256) libzmq ran out and aborted.
//
// So the gate sits in front of libzmq: lnetcapd defines accept4(), accept()
// and close() itself (the executable's definitions come first in symbol
// lookup, so libzmq's calls land here).  While armed, every connection
// libzmq accepts is checked before libzmq sees it - the total, one local
// uid's share, a reserve that only root and lnetcapd's own user may use -
// and a connection beyond them is closed at once (libzmq is told EAGAIN,
// which it takes as "nothing to accept").  When accept() itself fails for
// want of descriptors, the gate frees the one descriptor it keeps in
// reserve, accepts and closes the waiting connection, and takes the
// reserve back: libzmq never sees EMFILE.  close() only updates the counts
// of the connections the gate admitted.  Disarmed (any other program
// linking this code), all three just call the kernel.
#pragma once

#include <cstdint>

namespace lnetcap::daemon::accept_gate {

struct Limits {
  unsigned max_connections = 1024;  // of everyone but the privileged
  unsigned max_per_user = 40;       // of one local uid
  unsigned privileged_reserve = 8;  // more, for root and lnetcapd's own user only
  long privileged_uid = 0;          // lnetcapd's own user (its euid)
};

/// The gate applies from now on (again: with the new limits).
void arm(const Limits& limits);
/// Back to plain accept(); the counts stay.
void disarm();
/// Connections accepted on the listening socket `fd` pass ungated (the
/// metrics server's own).
void ungated_listener(int fd);

struct Counts {
  unsigned open = 0;                     // connections the gate admitted, not closed yet
  std::uint64_t refused_total = 0;       // beyond max_connections (and the reserve)
  std::uint64_t refused_user = 0;        // beyond one uid's share
  std::uint64_t refused_descriptors = 0; // accept() found no descriptor free
  long last_refused_uid = -1;
};
Counts counts();
/// Whether the connection on descriptor fd is one the gate admitted.
bool admitted(int fd);

}  // namespace lnetcap::daemon::accept_gate
