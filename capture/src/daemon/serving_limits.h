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
  // hard limit at start) less kReservedFds.  Connections beyond it are
  // closed at once and counted ("connections refused" in --status).
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

  // Descriptors kept for everything but subscribers (the source, the
  // recorder's trigger files, metrics clients, libzmq's own).
  static constexpr unsigned kReservedFds = 128;
  // The largest message a subscriber may send (ZMQ_MAXMSGSIZE): a
  // SUBSCRIBE carries a filter (filter::Limits::kMaxBytes) and a client
  // name.  A larger one closes its connection before it is read whole.
  static constexpr std::int64_t kMaxRequestBytes = 128 * 1024;
};

/// Messages one subscriber's queue may hold (ZMQ_SNDHWM): --queue, but no
/// more than its share of the memory budget at max_message_bytes each.
int queue_messages(const ServingLimits& limits, int queue, std::size_t max_message_bytes);

/// The process's resident memory (bytes), from /proc/self/statm.
std::uint64_t resident_bytes();

/// What --status says about the bounds and their use.
struct ServingUse {
  unsigned connections = 0, max_connections = 0;
  std::uint64_t connections_refused = 0, subscriptions_refused = 0;
  std::size_t filter_terms = 0;
  int queue_messages = 0;
  std::size_t max_message_bytes = 0;
};
void add_status(subscribe::Status& st, const ServingLimits& limits, const ServingUse& use);

}  // namespace lnetcap::daemon
