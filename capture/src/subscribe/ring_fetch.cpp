// SPDX-License-Identifier: GPL-2.0-or-later
#include "ring_fetch.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace lnetcap::subscribe {

std::string ring_socket_path(const std::string& uri) {
  if (uri.rfind("ipc://", 0) != 0) return "";
  return uri.substr(6) + ".ring";
}

std::optional<std::pair<Fd, Fd>> fetch_ring(const std::string& path, const RingOffer& offer,
                                            std::chrono::milliseconds timeout, std::string* why) {
  auto fail = [&](const std::string& what) {
    *why = what + (errno ? std::string(": ") + std::strerror(errno) : std::string());
    return std::nullopt;
  };
  errno = 0;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path) return fail("no ring socket for this endpoint");
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return fail("socket");
  // Every step waits at most `timeout`: the daemon answers from its loop.
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  (void)::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  (void)::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return fail("connect to " + path);
  // A stop and continue (Ctrl-Z, kill -STOP) ends a call on a socket with
  // a timeout with EINTR even without a handler (signal(7)): try again, a
  // few times (each call waits at most `timeout`).
  constexpr int kTries = 3;
  ssize_t sent = -1;
  for (int i = 0; i < kTries && sent < 0; ++i) {
    sent = ::send(fd.get(), offer.token.data(), offer.token.size(), MSG_NOSIGNAL);
    if (sent < 0 && errno != EINTR) break;
  }
  if (sent != static_cast<ssize_t>(offer.token.size())) return fail("sending the token");
  char byte = 0;
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n = -1;
  for (int i = 0; i < kTries && n < 0; ++i) {
    msg.msg_controllen = sizeof control;
    n = ::recvmsg(fd.get(), &msg, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno != EINTR) break;
  }
  // Whatever descriptors came are taken over first, so none leaks below.
  Fd got[2];
  int count = 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t fds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < fds; ++i) {
      int f;
      std::memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof f);
      Fd owned(f);
      if (count < 2) got[count] = std::move(owned);
      ++count;
    }
  }
  if (n != 1) return fail("no answer from the ring socket");
  errno = 0;
  if (count != 2 || (msg.msg_flags & MSG_CTRUNC)) return fail("the ring socket did not send the ring");
  return std::make_pair(std::move(got[0]), std::move(got[1]));
}

}  // namespace lnetcap::subscribe
