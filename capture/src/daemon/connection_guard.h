// SPDX-License-Identifier: GPL-2.0-or-later
// connection_guard.h - lnetcapd's bound on connections.  libzmq accepts
// every connection to a ROUTER socket and aborts the process when accept()
// fails with EMFILE (issues 25 and 34).  The guard raises RLIMIT_NOFILE to
// its hard limit, works out how many connections the descriptors left
// allow, and arms the accept gate (accept_gate.h), which refuses every
// connection beyond them - overall, or of one local uid - before libzmq
// sees it, and never lets libzmq's accept() fail for want of a descriptor.
// A CurveZMQ key is one user too: its connections are known by their
// first message (the key is learnt from the handshake, after the accept),
// and one beyond the key's share is shut down (shutdown(2), never close:
// the descriptor stays libzmq's) so libzmq drops it.
#pragma once

#include <zmq.hpp>

#include <cstdint>
#include <map>
#include <string>

#include "accept_gate.h"
#include "refusal_log.h"
#include "serving_limits.h"

namespace lnetcap::daemon {

class ConnectionGuard {
 public:
  /// Watches `router` (before it binds).  limits.max_connections is
  /// lowered to what the file descriptor limit allows.
  ConnectionGuard(zmq::context_t& context, zmq::socket_t& router, const ServingLimits& limits);
  ~ConnectionGuard() { close(); }
  /// Stops watching; before the context is closed (which waits for every
  /// socket, the monitor's too).
  void close();
  /// At exit: the refusal log's summary.
  void finish_log() { refusals_.finish(); }

  /// The socket to poll for events (ZMQ_POLLIN).
  zmq::socket_t& events() { return monitor_; }
  /// Handles the events queued and logs the gate's refusals; returns how
  /// many connections were refused since the last call.
  unsigned handle_events();
  /// A message arrived on connection `fd` from CurveZMQ key `key` (its
  /// Z85 text): false when that key already holds its share of
  /// connections - this one is then shut down, counted and logged, and the
  /// message must be ignored.
  bool admit_key(int fd, const std::string& key);
  /// Connections one user (a local uid, a CurveZMQ key) may hold.
  unsigned max_per_user() const { return max_per_uid_; }

  unsigned open_connections() const;
  unsigned max_connections() const { return max_connections_; }
  std::uint64_t refused() const { return refused_; }

 private:
  void forget_key(int fd);

  zmq::socket_t& router_;
  zmq::socket_t monitor_;
  unsigned max_connections_;
  unsigned max_per_uid_;
  accept_gate::Counts gate_seen_;        // the gate's refusals logged so far
  RefusalLog refusals_{"connections"};   // a flood logs a few lines and a count
  std::map<int, std::string> key_of_;    // descriptor -> CurveZMQ key (once it spoke)
  std::map<std::string, unsigned> per_key_;  // open connections of each key
  std::uint64_t refused_ = 0;
};

/// Raises RLIMIT_NOFILE's soft limit to its hard one; returns the new soft limit.
std::uint64_t raise_fd_limit();

}  // namespace lnetcap::daemon
