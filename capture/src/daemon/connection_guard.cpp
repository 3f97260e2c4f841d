// SPDX-License-Identifier: GPL-2.0-or-later
#include "connection_guard.h"

#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

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
long local_uid(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  sockaddr_storage local{};
  socklen_t local_len = sizeof local;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) == 0 &&
      local.ss_family == AF_UNIX && ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0)
    return static_cast<long>(cred.uid);
  return -1;
}

std::string monitor_endpoint() {
  static std::atomic<unsigned> n{0};
  return "inproc://lnetcapd-connections-" + std::to_string(n++);
}
}  // namespace

ConnectionGuard::ConnectionGuard(zmq::context_t& context, zmq::socket_t& router, const ServingLimits& limits)
    : router_(router), monitor_(context, zmq::socket_type::pair) {
  const std::uint64_t fds = raise_fd_limit();
  const std::uint64_t usable = fds > 2ull * ServingLimits::kReservedFds ? fds - ServingLimits::kReservedFds
                                                                       : fds / 2;
  max_connections_ = static_cast<unsigned>(std::min<std::uint64_t>(limits.max_connections, usable));
  // A local user may hold its subscriptions' connections and a few more
  // (a merge, a --status), never everyone's.
  max_per_uid_ = std::max(limits.max_per_user * 2 + 8, 16u);
  if (max_per_uid_ > max_connections_) max_per_uid_ = max_connections_;
  const std::string endpoint = monitor_endpoint();
  if (zmq_socket_monitor(router_.handle(), endpoint.c_str(),
                         ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED) != 0)
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
    if ((refused_ & (refused_ - 1)) == 0)
      std::fprintf(stderr,
                   "lnetcapd: refused a connection of key %s: that user's connections reached (%u); "
                   "%llu refused so far\n",
                   key.c_str(), max_per_uid_, static_cast<unsigned long long>(refused_));
    return false;
  }
  key_of_[fd] = key;
  ++per_key_[key];
  return true;
}

unsigned ConnectionGuard::handle_events() {
  unsigned refused_now = 0;
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
    if (type == ZMQ_EVENT_DISCONNECTED) {
      auto it = open_.find(fd);
      if (it == open_.end()) continue;
      if (it->second >= 0 && --per_uid_[it->second] == 0) per_uid_.erase(it->second);
      open_.erase(it);
      forget_key(fd);
      continue;
    }
    if (type != ZMQ_EVENT_ACCEPTED) continue;
    const long uid = local_uid(fd);
    const bool over_all = open_.size() >= max_connections_;
    const bool over_uid = uid >= 0 && per_uid_[uid] >= max_per_uid_;
    if (over_all || over_uid) {
      // libzmq reads end-of-file, drops the connection and closes the
      // descriptor itself (its DISCONNECTED is not counted: never opened).
      ::shutdown(fd, SHUT_RDWR);
      ++refused_;
      ++refused_now;
      if ((refused_ & (refused_ - 1)) == 0)  // the 1st, 2nd, 4th, 8th...: a flood logs little
        std::fprintf(stderr,
                     "lnetcapd: refused a connection%s: %s (%u); %llu refused so far\n",
                     uid >= 0 ? (" of uid " + std::to_string(uid)).c_str() : "",
                     over_all ? "--max-connections reached" : "that user's connections reached",
                     over_all ? max_connections_ : max_per_uid_,
                     static_cast<unsigned long long>(refused_));
      continue;
    }
    open_[fd] = uid;
    if (uid >= 0) ++per_uid_[uid];
  }
  return refused_now;
}

}  // namespace lnetcap::daemon
