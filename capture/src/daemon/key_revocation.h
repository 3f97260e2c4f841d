// SPDX-License-Identifier: GPL-2.0-or-later
// key_revocation.h - a key taken out of the authorized-keys file (and a
// SIGHUP) ends that key's subscriptions and stops its connection from
// asking for anything more.  libzmq consults the ZAP handler once, at the
// handshake, so a connection admitted before the reload would otherwise
// keep its stream, and could subscribe again, for as long as it lives.
#pragma once

#include <string>

#include <zmq.hpp>

#include "../source.h"
#include "../subscribe/zmq_frames.h"
#include "subscriber_set.h"
#include "zap_handler.h"

namespace lnetcap::daemon {

/// A message from a peer whose CurveZMQ key is no longer authorized: true
/// after answering it with a REFUSE (nothing for BYE); false for anyone else.
bool refused_as_revoked(zmq::socket_t& router, ZapHandler* zap, const std::string& routing_id,
                        const subscribe::Frames& frames, const subscribe::Peer& peer);

/// After the authorized keys were reloaded: ends every subscription of a
/// key no longer in them.
void end_revoked_subscriptions(SubscriberSet& subscribers, ZapHandler& zap, const SourceStats& stats);

}  // namespace lnetcap::daemon
