// SPDX-License-Identifier: GPL-2.0-or-later
#include "zap_handler.h"

#include "log_text.h"

#include <zmq.h>

#include <chrono>
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

bool ZapHandler::authorized(const std::string& z85) {
  std::lock_guard<std::mutex> lock(authorized_mutex_);
  return authorized_.count(z85) != 0;
}

void ZapHandler::serve() {
  try {
    for (;;) {
      // Wake up now and then to sum up refusals not logged one by one.
      zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
      try {
        zmq::poll(&item, 1, std::chrono::milliseconds(1000));
      } catch (const zmq::error_t& e) {
        if (e.num() != EINTR) throw;
      }
      refusals_.tick();
      if (!(item.revents & ZMQ_POLLIN)) continue;
      // A request: version, request id, domain, address, identity,
      // mechanism, then the mechanism's credentials (CURVE: the 32-byte
      // client public key).
      std::vector<zmq::message_t> request;
      do {
        request.emplace_back();
        if (!socket_.recv(request.back())) return;
      } while (request.back().more());
      std::string status = "400", text = "malformed ZAP request", user;
      if (request.size() >= 6 && request[5].to_string() == "NULL") {
        // A local (ipc) endpoint: its socket's mode and group admit users.
        status = "200";
        text = "OK";
      } else if (request.size() >= 7 && request[5].to_string() == "CURVE" && request[6].size() == 32) {
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
          refusals_.refused("lnetcapd: refused a CurveZMQ client from " + log_text(request[3].to_string(), 100) +
                            ": key " + z85 + " is not authorized");
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
  refusals_.tick(RefusalLog::Clock::now() + std::chrono::hours(1));  // the last summary
  socket_.close();
}

}  // namespace lnetcap::daemon
