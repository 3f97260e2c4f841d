// SPDX-License-Identifier: GPL-2.0-or-later
// zap_handler.h - admits CurveZMQ clients whose public key is in the
// authorized-keys file (ZeroMQ's ZAP, RFC 27, on inproc://zeromq.zap.01).
// Refusals are logged with a rate limit (refusal_log.h).
#pragma once

#include <mutex>
#include <set>
#include <string>
#include <thread>

#include <zmq.hpp>

#include "refusal_log.h"

namespace lnetcap::daemon {

class ZapHandler {
 public:
  /// Binds the ZAP endpoint in `context` (before any CURVE server socket
  /// binds, so no handshake goes unanswered) and answers on a thread until
  /// the context is closed.
  ZapHandler(zmq::context_t& context, std::set<std::string> authorized_z85);
  ~ZapHandler();
  /// Replaces the authorized keys (SIGHUP); clients connecting after it
  /// are checked against the new set.
  void set_authorized(std::set<std::string> authorized_z85);
  /// Whether a key (Z85) is authorized now: a key revoked by a reload is
  /// not, though its connection was admitted before.
  bool authorized(const std::string& z85);
  ZapHandler(const ZapHandler&) = delete;
  ZapHandler& operator=(const ZapHandler&) = delete;

 private:
  void serve();
  zmq::context_t& context_;
  zmq::socket_t socket_;
  std::mutex authorized_mutex_;
  std::set<std::string> authorized_;
  RefusalLog refusals_{"CurveZMQ handshakes"};  // the ZAP thread's only
  std::thread thread_;
};

}  // namespace lnetcap::daemon
