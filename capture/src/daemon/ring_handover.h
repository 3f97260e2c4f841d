// SPDX-License-Identifier: GPL-2.0-or-later
// ring_handover.h - how a local subscriber gets the descriptors of its
// fan-out class's shared-memory ring (subscribe/batch_ring.h).  ZeroMQ
// cannot pass descriptors, so next to each local socket PATH the daemon
// listens on the Unix stream socket PATH.ring (same directory, mode and
// group).  A RING_OFFER gives the subscriber a one-use random token; it
// connects there, sends the token, and gets the ring (read-only) and its
// tail page with SCM_RIGHTS.  The token must come from the subscriber's
// own uid (SO_PEERCRED; root may fetch any) within kTokenSeconds.
//
// It never blocks the daemon's loop: the listeners and the connections in
// progress are in its poll (poll_items()), every socket is non-blocking,
// at most kMaxPending connections are in progress (the rest are closed as
// they are accepted), each for at most kConnectionSeconds, and at most
// kMaxTokens offers are outstanding (each holds two descriptors).  Beside
// those the daemon holds one descriptor per ring (a fan-out class with a
// local member) and none per member.
// Refusals go through the rate-limited, escaped log.
#pragma once

#include <sys/types.h>
#include <zmq.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "../subscribe/batch_ring.h"
#include "refusal_log.h"

namespace lnetcap::daemon {

class RingHandover {
 public:
  using Clock = std::chrono::steady_clock;
  using Token = std::array<std::uint8_t, subscribe::kRingTokenBytes>;
  RingHandover() = default;
  ~RingHandover();
  RingHandover(const RingHandover&) = delete;
  RingHandover& operator=(const RingHandover&) = delete;

  /// Listens at `path` (placed as the ipc socket is: ipc_socket.h). On
  /// failure logs why and serves no ring there (subscribers keep
  /// SHARED_BATCH).
  void listen(const std::string& path, gid_t gid);
  bool listening() const { return !listeners_.empty(); }
  /// Removes the sockets it placed (at exit).
  void close();

  /// Holds `ring` and `tail` for the subscriber `routing_id` of `uid`
  /// until it fetches them with the returned token; replaces that
  /// subscriber's earlier offer.  False when kMaxTokens are outstanding
  /// or no random token can be had.
  bool offer(const std::string& routing_id, long uid, std::uint64_t ring_id, subscribe::Fd ring,
             subscribe::Fd tail, Token* token);
  /// Forgets the subscriber's offer (it left), or every offer (rings retired).
  void revoke(const std::string& routing_id);
  void revoke_all();

  /// The daemon's poll items for the listeners and connections in progress.
  void add_poll_items(std::vector<zmq::pollitem_t>& items) const;
  /// Accepts, reads tokens, hands descriptors over, closes what is done or
  /// late. Non-blocking.
  void serve(Clock::time_point now = Clock::now());
  /// (routing id, ring id) of each handover done since the last call.
  std::vector<std::pair<std::string, std::uint64_t>> take_delivered();
  /// Handovers done and connections refused so far (logs, tests).
  std::uint64_t delivered_total() const { return delivered_total_; }
  void tick_log() { refusals_.tick(); }
  void finish_log() { refusals_.finish(); }

  static constexpr std::size_t kMaxPending = 32;
  static constexpr std::size_t kMaxTokens = 16;
  static constexpr int kConnectionSeconds = 2;
  static constexpr int kTokenSeconds = 5;

 private:
  struct Offer {
    std::string routing_id;
    long uid = -1;
    std::uint64_t ring_id = 0;
    subscribe::Fd ring, tail;
    Clock::time_point expires;
  };
  struct Pending {
    subscribe::Fd fd;
    Clock::time_point deadline;
    Token got{};
    std::size_t have = 0;
  };
  void accept_from(int listener, Clock::time_point now);
  /// True when the connection is done (handed over or refused).
  bool read_token(Pending& p, Clock::time_point now);
  void expire(Clock::time_point now);

  std::vector<std::pair<subscribe::Fd, std::string>> listeners_;  // fd, path
  std::vector<Pending> pending_;
  std::map<Token, Offer> offers_;
  std::vector<std::pair<std::string, std::uint64_t>> delivered_;
  std::uint64_t delivered_total_ = 0;
  RefusalLog refusals_{"ring handovers"};
};

}  // namespace lnetcap::daemon
