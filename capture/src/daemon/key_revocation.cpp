// SPDX-License-Identifier: GPL-2.0-or-later
#include "key_revocation.h"

#include <cstdio>

#include "../error.h"
#include "../subscribe/protocol.h"

namespace lnetcap::daemon {

bool refused_as_revoked(zmq::socket_t& router, ZapHandler* zap, const std::string& routing_id,
                        const subscribe::Frames& frames, const subscribe::Peer& peer) {
  if (!zap || peer.user_id.empty() || zap->authorized(peer.user_id)) return false;
  try {
    if (subscribe::message_type(frames) == subscribe::MessageType::kBye) return true;
  } catch (const Error&) {
    return true;  // malformed, from a peer that may not ask anything: dropped
  }
  (void)subscribe::send_frames(router, routing_id,
                               subscribe::encode(subscribe::Refuse{
                                   "your CurveZMQ key (" + peer.user_id + ") is no longer authorized",
                                   "ask the admin of this lnetcapd to put it back in its authorized-keys file"}));
  return true;
}

void end_revoked_subscriptions(SubscriberSet& subscribers, ZapHandler& zap, const SourceStats& stats) {
  const std::size_t n = subscribers.end_subscribers(
      [&zap](const SubscriberSet::Subscriber& s) { return !s.peer.user_id.empty() && !zap.authorized(s.peer.user_id); },
      "its key was revoked", stats);
  if (n) std::fprintf(stderr, "lnetcapd: reload: ended %zu subscription%s of revoked keys\n", n, n == 1 ? "" : "s");
}

}  // namespace lnetcap::daemon
