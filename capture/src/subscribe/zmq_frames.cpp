// SPDX-License-Identifier: GPL-2.0-or-later
#include "zmq_frames.h"

#include <algorithm>

#include <sys/socket.h>

#include <cerrno>

namespace lnetcap::subscribe {

SendResult send_frames(zmq::socket_t& socket, const std::string& routing_id, const Frames& frames) {
  std::vector<ByteSpan> parts(frames.begin(), frames.end());
  return send_parts(socket, routing_id, parts);
}

SendResult send_parts(zmq::socket_t& socket, const std::string& routing_id,
                      const std::vector<ByteSpan>& frames) {
  try {
    if (!routing_id.empty()) {
      // With ROUTER_MANDATORY the routing frame is where a full pipe
      // (EAGAIN) or a vanished peer (EHOSTUNREACH) shows: nothing is queued.
      auto sent = socket.send(zmq::buffer(routing_id), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
      if (!sent) return SendResult::kQueueFull;
    }
    for (std::size_t i = 0; i < frames.size(); ++i) {
      auto flags = zmq::send_flags::dontwait;
      if (i + 1 < frames.size()) flags = flags | zmq::send_flags::sndmore;
      auto sent = socket.send(zmq::buffer(frames[i].data(), frames[i].size()), flags);
      // After the first frame of a multipart message ZeroMQ accepts the
      // rest; on a DEALER a full pipe shows at the first frame.
      if (!sent) return SendResult::kQueueFull;
    }
  } catch (const zmq::error_t& e) {
    if (e.num() == EHOSTUNREACH) return SendResult::kPeerGone;
    // A signal (a SIGHUP storm) while libzmq read its commands: nothing of
    // the first frame was queued; the caller retries or counts it as full.
    if (e.num() == EINTR) return SendResult::kQueueFull;
    throw;
  }
  return SendResult::kSent;
}

SendResult send_shared(zmq::socket_t& socket, const std::string& routing_id, ByteSpan header,
                       zmq_msg_t& body) {
  try {
    if (!routing_id.empty() &&
        !socket.send(zmq::buffer(routing_id), zmq::send_flags::sndmore | zmq::send_flags::dontwait))
      return SendResult::kQueueFull;  // as in send_parts: nothing queued
    if (!socket.send(zmq::buffer(header.data(), header.size()),
                     zmq::send_flags::sndmore | zmq::send_flags::dontwait))
      return SendResult::kQueueFull;
  } catch (const zmq::error_t& e) {
    if (e.num() == EHOSTUNREACH) return SendResult::kPeerGone;
    if (e.num() == EINTR) return SendResult::kQueueFull;
    throw;
  }
  // A reference to the body, not a copy of its bytes: libzmq counts them
  // and frees the buffer when the last peer's copy is written out.
  zmq_msg_t ref;
  zmq_msg_init(&ref);
  if (zmq_msg_copy(&ref, &body) != 0 || zmq_msg_send(&ref, socket.handle(), ZMQ_DONTWAIT) < 0) {
    const int err = zmq_errno();
    zmq_msg_close(&ref);
    // After the first frame of a multipart message libzmq takes the rest.
    if (err == EAGAIN || err == EINTR) return SendResult::kQueueFull;
    if (err == EHOSTUNREACH) return SendResult::kPeerGone;
    throw zmq::error_t();
  }
  return SendResult::kSent;
}

namespace {

// Who sent `part` (see Peer).  ZMQ_SRCFD is the connection's descriptor:
// libzmq names no local peer's credentials on Linux, the kernel does.
Peer peer_of(zmq::message_t& part) {
  Peer peer;
  auto property = [&part](const char* name) {
    const char* v = zmq_msg_gets(part.handle(), name);
    return std::string(v ? v : "");
  };
  peer.address = property("Peer-Address");
  peer.user_id = property("User-Id");
  const int fd = zmq_msg_get(part.handle(), ZMQ_SRCFD);
  peer.fd = fd;
  sockaddr_storage local{};
  socklen_t len = sizeof local;
  ucred cred{};
  socklen_t cred_len = sizeof cred;
  if (fd >= 0 && ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0 &&
      local.ss_family == AF_UNIX && ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) == 0)
    peer.uid = static_cast<long>(cred.uid);
  return peer;
}

}  // namespace

bool receive_frames(zmq::socket_t& socket, Frames& frames, std::string* routing_id, Peer* peer) {
  zmq::message_t part;
  try {
    if (!socket.recv(part, zmq::recv_flags::dontwait)) return false;
  } catch (const zmq::error_t& e) {
    if (e.num() == EINTR) return false;  // a signal: the caller's loop comes back
    throw;
  }
  // Frames are overwritten in place: a subscriber receives one message per
  // record, and reusing the buffers saves an allocation per frame.
  std::size_t n = 0;
  bool first = true;
  for (;;) {
    if (first && routing_id) {
      *routing_id = part.to_string();
    } else {
      const auto* p = static_cast<const std::uint8_t*>(part.data());
      if (n < frames.size())
        frames[n].assign(p, p + part.size());
      else
        frames.emplace_back(p, p + part.size());
      ++n;
    }
    first = false;
    if (!part.more()) {
      if (peer) *peer = peer_of(part);  // a frame read from the connection itself
      break;
    }
    (void)socket.recv(part, zmq::recv_flags::none);  // the rest is already here
  }
  frames.resize(n);
  return true;
}

bool is_ipv6_endpoint(const std::string& endpoint) {
  return endpoint.rfind("tcp://[", 0) == 0 ||
         (endpoint.rfind("tcp://", 0) == 0 && std::count(endpoint.begin(), endpoint.end(), ':') > 2);
}

std::string normalize_endpoint(const std::string& uri) {
  if (uri == "local" || uri.empty()) return std::string("ipc://") + kDefaultSocketPath;
  if (uri[0] == '/' || uri.rfind("./", 0) == 0) return "ipc://" + uri;
  return uri;
}

}  // namespace lnetcap::subscribe
