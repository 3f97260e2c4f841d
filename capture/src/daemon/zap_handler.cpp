// SPDX-License-Identifier: GPL-2.0-or-later
#include "zap_handler.h"

#include <zmq.h>

#include <cstdio>
#include <vector>

namespace lnetcap::daemon {

ZapHandler::ZapHandler(zmq::context_t& context, std::set<std::string> authorized_z85)
    : context_(context), socket_(context, zmq::socket_type::rep), authorized_(std::move(authorized_z85)) {
  socket_.set(zmq::sockopt::linger, 0);
  socket_.bind("inproc://zeromq.zap.01");
  thread_ = std::thread([this] { serve(); });
}

ZapHandler::~ZapHandler() {
  // The thread ends when the context is shut down (ETERM); shutting it
  // down here too makes an early exit (an exception) not wait forever.
  zmq_ctx_shutdown(context_.handle());
  if (thread_.joinable()) thread_.join();
}

void ZapHandler::set_authorized(std::set<std::string> authorized_z85) {
  std::lock_guard<std::mutex> lock(authorized_mutex_);
  authorized_ = std::move(authorized_z85);
}

void ZapHandler::serve() {
  try {
    for (;;) {
      // A request: version, request id, domain, address, identity,
      // mechanism, then the mechanism's credentials (CURVE: the 32-byte
      // client public key).
      std::vector<zmq::message_t> request;
      do {
        request.emplace_back();
        if (!socket_.recv(request.back())) return;
      } while (request.back().more());
      std::string status = "400", text = "malformed ZAP request", user;
      if (request.size() >= 7 && request[5].to_string() == "CURVE" && request[6].size() == 32) {
        char z85[41];
        zmq_z85_encode(z85, static_cast<const std::uint8_t*>(request[6].data()), 32);
        bool authorized;
        {
          std::lock_guard<std::mutex> lock(authorized_mutex_);
          authorized = authorized_.count(z85) != 0;
        }
        if (authorized) {
          status = "200";
          text = "OK";
          user = z85;
        } else {
          text = "key not in the authorized-keys file";
          std::fprintf(stderr, "lnetcapd: refused a CurveZMQ client from %s: key %s is not authorized\n",
                       request[3].to_string().c_str(), z85);
        }
      }
      const std::string version = request.empty() ? "1.0" : request[0].to_string();
      const std::string id = request.size() > 1 ? request[1].to_string() : "";
      socket_.send(zmq::buffer(version), zmq::send_flags::sndmore);
      socket_.send(zmq::buffer(id), zmq::send_flags::sndmore);
      socket_.send(zmq::buffer(status), zmq::send_flags::sndmore);
      socket_.send(zmq::buffer(text), zmq::send_flags::sndmore);
      socket_.send(zmq::buffer(user), zmq::send_flags::sndmore);
      socket_.send(zmq::message_t(), zmq::send_flags::none);
    }
  } catch (const zmq::error_t&) {
    // ETERM: the daemon is closing its context.
  }
  socket_.close();
}

}  // namespace lnetcap::daemon
