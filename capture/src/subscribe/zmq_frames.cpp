// SPDX-License-Identifier: GPL-2.0-or-later
#include "zmq_frames.h"

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
    throw;
  }
  return SendResult::kSent;
}

bool receive_frames(zmq::socket_t& socket, Frames& frames, std::string* routing_id) {
  frames.clear();
  zmq::message_t part;
  if (!socket.recv(part, zmq::recv_flags::dontwait)) return false;
  bool first = true;
  for (;;) {
    if (first && routing_id) {
      *routing_id = part.to_string();
    } else {
      const auto* p = static_cast<const std::uint8_t*>(part.data());
      frames.emplace_back(p, p + part.size());
    }
    first = false;
    if (!part.more()) break;
    (void)socket.recv(part, zmq::recv_flags::none);  // the rest is already here
  }
  return true;
}

std::string normalize_endpoint(const std::string& uri) {
  if (uri == "local" || uri.empty()) return std::string("ipc://") + kDefaultSocketPath;
  if (uri[0] == '/' || uri.rfind("./", 0) == 0) return "ipc://" + uri;
  return uri;
}

}  // namespace lnetcap::subscribe
