// SPDX-License-Identifier: GPL-2.0-or-later
#include "ring_handover.h"

#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "../error.h"
#include "ipc_socket.h"
#include "log_text.h"

namespace lnetcap::daemon {

RingHandover::~RingHandover() { close(); }

void RingHandover::listen(const std::string& path, gid_t gid) {
  subscribe::Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  try {
    if (!fd) throw Error(std::string("socket: ") + std::strerror(errno));
    bind_unix_listener(fd.get(), path, gid);
  } catch (const Error& e) {
    std::fprintf(stderr, "lnetcapd: no shared-memory ring for local subscribers at %s: %s\n",
                 log_text(path).c_str(), log_text(e.what(), 500).c_str());
    return;
  }
  listeners_.emplace_back(std::move(fd), path);
}

void RingHandover::close() {
  for (auto& [fd, path] : listeners_) remove_ipc_socket(path);
  listeners_.clear();
  pending_.clear();
  offers_.clear();
}

bool RingHandover::offer(const std::string& routing_id, long uid, std::uint64_t ring_id, subscribe::Fd ring,
                         subscribe::Fd tail, Token* token) {
  revoke(routing_id);
  expire(Clock::now());
  if (offers_.size() >= kMaxTokens) return false;
  // Whoever learns the token may fetch the ring: 128 random bits, sent
  // only to this subscriber, one use, a few seconds.
  if (::getrandom(token->data(), token->size(), 0) != static_cast<ssize_t>(token->size())) return false;
  Offer o;
  o.routing_id = routing_id;
  o.uid = uid;
  o.ring_id = ring_id;
  o.ring = std::move(ring);
  o.tail = std::move(tail);
  o.expires = Clock::now() + std::chrono::seconds(kTokenSeconds);
  offers_[*token] = std::move(o);
  return true;
}

void RingHandover::revoke(const std::string& routing_id) {
  for (auto it = offers_.begin(); it != offers_.end();)
    it = it->second.routing_id == routing_id ? offers_.erase(it) : std::next(it);
}

void RingHandover::revoke_all() { offers_.clear(); }

void RingHandover::expire(Clock::time_point now) {
  for (auto it = offers_.begin(); it != offers_.end();) it = it->second.expires <= now ? offers_.erase(it) : std::next(it);
}

void RingHandover::add_poll_items(std::vector<zmq::pollitem_t>& items) const {
  for (const auto& [fd, path] : listeners_) items.push_back({nullptr, fd.get(), ZMQ_POLLIN, 0});
  for (const auto& p : pending_) items.push_back({nullptr, p.fd.get(), ZMQ_POLLIN, 0});
}

void RingHandover::accept_from(int listener, Clock::time_point now) {
  // A bounded number per turn: a flood of connections cannot hold the loop.
  for (int i = 0; i < 64; ++i) {
    subscribe::Fd fd(::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd) return;  // EAGAIN, or out of descriptors: the rest wait in the backlog
    if (pending_.size() >= kMaxPending) {
      refusals_.refused("lnetcapd: closed a connection to the ring socket: " + std::to_string(kMaxPending) +
                        " handovers are in progress already");
      continue;  // closed
    }
    pending_.push_back(Pending{std::move(fd), now + std::chrono::seconds(kConnectionSeconds), {}, 0});
  }
}

bool RingHandover::read_token(Pending& p, Clock::time_point now) {
  const ssize_t n = ::recv(p.fd.get(), p.got.data() + p.have, p.got.size() - p.have, MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
    if (now < p.deadline) return false;
    refusals_.refused("lnetcapd: closed a connection to the ring socket that sent no token within " +
                      std::to_string(kConnectionSeconds) + " s");
    return true;
  }
  if (n <= 0) return true;  // gone, or an error: nothing to say
  p.have += static_cast<std::size_t>(n);
  if (p.have < p.got.size()) return now >= p.deadline;
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(p.fd.get(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return true;
  auto it = offers_.find(p.got);
  if (it == offers_.end() || it->second.expires <= now) {
    refusals_.refused("lnetcapd: refused a ring handover to uid " + std::to_string(cred.uid) +
                      ": no such token outstanding");
    return true;
  }
  Offer offer = std::move(it->second);
  offers_.erase(it);  // one use, whoever presents it
  if (cred.uid != 0 && static_cast<long>(cred.uid) != offer.uid) {
    refusals_.refused("lnetcapd: refused a ring handover to uid " + std::to_string(cred.uid) +
                      ": the token is another user's");
    return true;
  }
  // The descriptors, with one byte of data (SCM_RIGHTS needs some).
  char byte = 'R';
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(2 * sizeof(int));
  const int fds[2] = {offer.ring.get(), offer.tail.get()};
  std::memcpy(CMSG_DATA(c), fds, sizeof fds);
  // A fresh connection's send buffer is empty: this never waits.
  if (::sendmsg(p.fd.get(), &msg, MSG_DONTWAIT | MSG_NOSIGNAL) == 1) {
    delivered_.emplace_back(offer.routing_id, offer.ring_id);
    ++delivered_total_;
  }
  return true;
}

void RingHandover::serve(Clock::time_point now) {
  for (const auto& [fd, path] : listeners_) accept_from(fd.get(), now);
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(), [&](Pending& p) { return read_token(p, now); }),
                 pending_.end());
  expire(now);
}

std::vector<std::pair<std::string, std::uint64_t>> RingHandover::take_delivered() {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  out.swap(delivered_);
  return out;
}

}  // namespace lnetcap::daemon
