// SPDX-License-Identifier: GPL-2.0-or-later
// serving_limits.h - what lnetcapd grants its subscribers at most: the
// bounds that keep one careless or hostile subscriber (or a crowd of
// them) from taking the daemon, and with it the node's capture, down.
// docs/DAEMON.md, "What is bounded".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../subscribe/protocol.h"

namespace lnetcap::daemon {

struct ServingLimits {
  // Connections to every endpoint together (--max-connections); never more
  // than the file descriptors the daemon has (RLIMIT_NOFILE, raised to its
  // hard limit at start) less those it holds and kRuntimeFds.  Connections
  // beyond it are closed as they are accepted, before libzmq sees them, and
  // counted ("connections refused" in --status; accept_gate.h).
  unsigned max_connections = 1024;
  // Subscriptions and dumps together (--max-subscribers), and of one user
  // (--max-subscribers-per-user): a local uid, a CurveZMQ key, or for
  // insecure TCP one address.  More are REFUSEd naming the limit.
  unsigned max_subscribers = 64;
  unsigned max_per_user = 16;
  // What queued messages (every subscriber's queue at its fullest) and
  // dumps in progress may hold (--memory-budget).  Each subscriber's queue
  // is bounded to its share (budget / max_subscribers) in bytes; a dump
  // pins the recorder's records until it is read, so dumps in progress are
  // limited to what the budget holds of them.
  std::uint64_t memory_budget = 1ull << 30;
  // Filter terms of every subscriber together (evaluated for every record
  // on the one loop thread): beyond it a SUBSCRIBE is refused.  One
  // filter is bounded by filter::Limits.
  std::size_t max_filter_terms = 4096;

  // Descriptors the running daemon may open beyond those it holds once it
  // listens (metrics clients and listener 33, open trigger windows 16 and
  // their files being named, a reload's files, /proc reads, the accept
  // gate's reserve): connections get what is left of RLIMIT_NOFILE.
  static constexpr unsigned kRuntimeFds = 64;
  // Connections beyond --max-connections that only root and lnetcapd's own
  // user may open: the admin's --status, --dump or subscription is never
  // shut out by other users' connections.
  static constexpr unsigned kPrivilegedConnections = 8;
  // The largest message a subscriber may send (ZMQ_MAXMSGSIZE): a
  // SUBSCRIBE carries a filter (filter::Limits::kMaxBytes) and a client
  // name.  A larger one closes its connection before it is read whole.
  static constexpr std::int64_t kMaxRequestBytes = 128 * 1024;
};

/// What one user, and all users but root and lnetcapd's own together, may
/// take of the budgets above (issue 34): no user can take what another
/// needs, and the admin always finds room.
struct FairShares {
  unsigned unprivileged_subscribers;  // max_subscribers less a 16th (at least 1) kept back
  std::size_t terms_per_user;         // half of max_filter_terms
  std::size_t unprivileged_terms;     // three quarters of it
};
FairShares fair_shares(const ServingLimits& limits);

/// Messages one subscriber's queue may hold (ZMQ_SNDHWM): --queue, but no
/// more than its share of the memory budget at max_message_bytes each.
int queue_messages(const ServingLimits& limits, int queue, std::size_t max_message_bytes);

/// The process's resident memory (bytes), from /proc/self/statm.
std::uint64_t resident_bytes();

/// What --status says about the bounds and their use.
struct ServingUse {
  unsigned connections = 0, max_connections = 0, max_connections_per_user = 0;
  std::uint64_t connections_refused = 0, subscriptions_refused = 0;
  std::size_t filter_terms = 0;
  int queue_messages = 0;
  std::size_t max_message_bytes = 0;
};
void add_status(subscribe::Status& st, const ServingLimits& limits, const ServingUse& use);

}  // namespace lnetcap::daemon
