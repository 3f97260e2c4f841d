// SPDX-License-Identifier: GPL-2.0-or-later
// zmq_frames.h - multipart send/receive of protocol.h frames over cppzmq,
// shared by lnetcapd (ROUTER, with a routing id in front) and the
// subscriber (DEALER).
#pragma once

#include <zmq.hpp>

#include <string>

#include "protocol.h"

namespace lnetcap::subscribe {

enum class SendResult { kSent, kQueueFull, kPeerGone };

/// Sends frames without blocking.  On a ROUTER with ZMQ_ROUTER_MANDATORY
/// (routing_id non-empty) a full queue is kQueueFull and an unknown or
/// disconnected peer kPeerGone; the whole multipart message is either
/// queued or not.
SendResult send_frames(zmq::socket_t& socket, const std::string& routing_id, const Frames& frames);

/// The same for frames held elsewhere (a record's bytes are not copied
/// into a Frame first).
SendResult send_parts(zmq::socket_t& socket, const std::string& routing_id,
                      const std::vector<ByteSpan>& frames);

/// A header frame (copied) and a body that libzmq shares rather than
/// copies: `body` is a message made once (zmq_msg_init_data) and sent to
/// any number of peers, each send taking a reference (zmq_msg_copy); the
/// caller still closes `body`.  Results as send_parts.
SendResult send_shared(zmq::socket_t& socket, const std::string& routing_id, ByteSpan header,
                       zmq_msg_t& body);

/// Receives one multipart message if one is waiting (never blocks).  On a
/// ROUTER, the first frame is moved to *routing_id.  `peer` (optional) gets
/// who sent it as the transport knows it: the "Peer-Address" and "User-Id"
/// properties (the CurveZMQ key) and, on a Unix socket, the peer's uid
/// from the kernel (SO_PEERCRED on the connection the message came from).
struct Peer {
  std::string address;
  std::string user_id;
  long uid = -1;  // -1: not a local peer
  int fd = -1;    // the connection's descriptor in libzmq (ZMQ_SRCFD)
};
bool receive_frames(zmq::socket_t& socket, Frames& frames, std::string* routing_id = nullptr,
                    Peer* peer = nullptr);

/// A tcp:// endpoint whose host is an IPv6 address ("tcp://[::1]:7800"):
/// libzmq reaches it only with ZMQ_IPV6 set on the socket.
bool is_ipv6_endpoint(const std::string& endpoint);
/// "local" -> the default socket; "/path" -> ipc:///path; other URIs as they are.
std::string normalize_endpoint(const std::string& uri);

inline constexpr char kDefaultSocketPath[] = "/run/lnetcap/lnetcapd.sock";

}  // namespace lnetcap::subscribe
