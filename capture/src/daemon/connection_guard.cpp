// SPDX-License-Identifier: GPL-2.0-or-later
#include "connection_guard.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "accept_gate.h"
#include "log_text.h"

namespace lnetcap::daemon {

std::uint64_t raise_fd_limit() {
  rlimit l{};
  if (::getrlimit(RLIMIT_NOFILE, &l) != 0) return 1024;
  if (l.rlim_cur < l.rlim_max) {
    rlimit raised = l;
    raised.rlim_cur = l.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) l = raised;
  }
  return l.rlim_cur == RLIM_INFINITY ? UINT64_MAX : l.rlim_cur;
}

namespace {
std::string monitor_endpoint() {
  static std::atomic<unsigned> n{0};
  return "inproc://lnetcapd-connections-" + std::to_string(n++);
}
}  // namespace

unsigned open_descriptors() {
  std::error_code ec;
  unsigned n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++n;
  return n;
}

ConnectionGuard::ConnectionGuard(zmq::context_t& context, zmq::socket_t& router, const ServingLimits& limits)
    : router_(router), monitor_(context, zmq::socket_type::pair) {
  // Every descriptor libzmq and lnetcapd hold now (the source, the
  // context's threads, its sockets' mailboxes, the log) stays; the running
  // daemon needs ServingLimits::kRuntimeFds more at most (metrics clients,
  // trigger files, the monitor, reloads); the rest serves connections,
  // with kPrivilegedConnections of it kept for root and lnetcapd's user.
  const std::uint64_t fds = raise_fd_limit();
  const std::uint64_t taken = open_descriptors() + ServingLimits::kRuntimeFds +
                              ServingLimits::kPrivilegedConnections;
  const std::uint64_t usable = fds > taken + 4 ? fds - taken : 4;
  max_connections_ = static_cast<unsigned>(std::min<std::uint64_t>(limits.max_connections, usable));
  if (max_connections_ < limits.max_connections)
    std::fprintf(stderr,
                 "lnetcapd: serving at most %u connections (--max-connections %u is more than the "
                 "file descriptor limit of %llu allows)\n",
                 max_connections_, limits.max_connections, static_cast<unsigned long long>(fds));
  // A user may hold its subscriptions' connections and a few more (a
  // merge, a --status), never everyone's: at most a quarter of them.
  max_per_uid_ = std::max(limits.max_per_user * 2 + 8, 16u);
  max_per_uid_ = std::max(1u, std::min(max_per_uid_, max_connections_ / 4));
  accept_gate::Limits gate;
  gate.max_connections = max_connections_;
  gate.max_per_user = max_per_uid_;
  gate.privileged_reserve = ServingLimits::kPrivilegedConnections;
  gate.privileged_uid = static_cast<long>(::geteuid());
  accept_gate::arm(gate);
  const std::string endpoint = monitor_endpoint();
  if (zmq_socket_monitor(router_.handle(), endpoint.c_str(),
                         ZMQ_EVENT_DISCONNECTED) != 0)
    throw zmq::error_t();
  // Unbounded: an event dropped would leave a descriptor counted for ever,
  // and the monitor's sender would wait for room in libzmq's I/O thread.
  monitor_.set(zmq::sockopt::rcvhwm, 0);
  monitor_.connect(endpoint);
}

void ConnectionGuard::close() {
  if (!monitor_) return;
  if (router_) zmq_socket_monitor(router_.handle(), nullptr, 0);
  monitor_.close();
}

void ConnectionGuard::forget_key(int fd) {
  const auto it = key_of_.find(fd);
  if (it == key_of_.end()) return;
  if (--per_key_[it->second] == 0) per_key_.erase(it->second);
  key_of_.erase(it);
}

bool ConnectionGuard::admit_key(int fd, const std::string& key) {
  if (fd < 0 || key.empty()) return true;
  const auto known = key_of_.find(fd);
  if (known != key_of_.end() && known->second == key) return true;
  forget_key(fd);  // a descriptor reused before its DISCONNECTED was read
  if (per_key_[key] >= max_per_uid_) {
    ::shutdown(fd, SHUT_RDWR);  // libzmq drops it (as in handle_events)
    ++refused_;
    refusals_.refused("lnetcapd: refused a connection of key " + log_text(key, 100) +
                      ": that user's connections reached (" + std::to_string(max_per_uid_) + "); " +
                      std::to_string(refused_) + " refused so far");
    return false;
  }
  key_of_[fd] = key;
  ++per_key_[key];
  return true;
}

unsigned ConnectionGuard::handle_events() {
  zmq::message_t event, address;
  for (;;) {
    try {
      if (!monitor_.recv(event, zmq::recv_flags::dontwait)) break;
      if (event.more()) (void)monitor_.recv(address);
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) break;  // a signal: the next turn of the loop reads on
      throw;
    }
    if (event.size() < 6) continue;
    std::uint16_t type;
    std::int32_t fd;
    std::memcpy(&type, event.data(), 2);
    std::memcpy(&fd, static_cast<const char*>(event.data()) + 2, 4);
    if (type == ZMQ_EVENT_DISCONNECTED) forget_key(fd);
  }
  // The gate refused these in libzmq's I/O thread; they are logged here.
  const accept_gate::Counts c = accept_gate::counts();
  unsigned refused_now = 0;
  const struct {
    std::uint64_t now, before;
    const char* why;
  } kinds[] = {{c.refused_total, gate_seen_.refused_total, "--max-connections reached"},
               {c.refused_user, gate_seen_.refused_user, "that user's connections reached"},
               {c.refused_descriptors, gate_seen_.refused_descriptors, "no file descriptor free"}};
  for (const auto& k : kinds)
    for (std::uint64_t i = k.before; i < k.now; ++i) {
      ++refused_;
      ++refused_now;
      refusals_.refused("lnetcapd: refused a connection" +
                        (c.last_refused_uid >= 0 ? " of uid " + std::to_string(c.last_refused_uid) : std::string()) +
                        ": " + k.why + " (" + std::to_string(k.why[0] == 't' ? max_per_uid_ : max_connections_) +
                        "); " + std::to_string(refused_) + " refused so far");
    }
  refusals_.tick();
  gate_seen_ = c;
  return refused_now;
}

unsigned ConnectionGuard::open_connections() const { return accept_gate::counts().open; }

}  // namespace lnetcap::daemon
