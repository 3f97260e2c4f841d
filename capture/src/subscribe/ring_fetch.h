// SPDX-License-Identifier: GPL-2.0-or-later
// ring_fetch.h - the subscriber's half of the ring handover
// (daemon/ring_handover.h): connects to the daemon's PATH.ring, sends the
// RING_OFFER's token and receives the ring's and the tail page's
// descriptors (SCM_RIGHTS), waiting at most `timeout`.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "batch_ring.h"

namespace lnetcap::subscribe {

/// The ring socket of the local endpoint `uri` (ipc://PATH -> PATH.ring);
/// "" for any other endpoint.
std::string ring_socket_path(const std::string& uri);

/// (ring, tail) descriptors, or nullopt with *why.
std::optional<std::pair<Fd, Fd>> fetch_ring(const std::string& path, const RingOffer& offer,
                                            std::chrono::milliseconds timeout, std::string* why);

}  // namespace lnetcap::subscribe
