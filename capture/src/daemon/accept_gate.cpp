// SPDX-License-Identifier: GPL-2.0-or-later
#include "accept_gate.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <map>
#include <memory>
#include <mutex>

namespace lnetcap::daemon::accept_gate {
namespace {

constexpr long kFree = LONG_MIN;
constexpr std::size_t kMaxSlots = 1u << 20;  // descriptors beyond are refused
constexpr int kMaxUngated = 8;

int sys_accept4(int s, sockaddr* addr, socklen_t* len, int flags) {
  return static_cast<int>(::syscall(SYS_accept4, s, addr, len, flags));
}
int sys_close(int fd) { return static_cast<int>(::syscall(SYS_close, fd)); }

struct Gate {
  std::atomic<bool> armed{false};
  std::mutex mutex;  // the rest; taken by accept (libzmq's I/O thread) and close of an admitted fd
  Limits limits;
  std::unique_ptr<std::atomic<long>[]> slots;  // descriptor -> uid of its connection (-1: not local), or kFree
  std::atomic<std::size_t> slot_count{0};
  std::map<long, unsigned> per_uid;
  unsigned open = 0, open_privileged = 0;
  Counts counts;
  int reserve_fd = -1;
  std::atomic<int> ungated[kMaxUngated];
  Gate() {
    for (auto& u : ungated) u.store(-1);
  }
};
Gate& gate() {
  static Gate* g = new Gate;  // never destroyed: close() may run during exit
  return *g;
}

long peer_uid(int fd) {
  sockaddr_storage local{};
  socklen_t local_len = sizeof local;
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) == 0 && local.ss_family == AF_UNIX &&
      ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0)
    return static_cast<long>(cred.uid);
  return -1;
}

bool is_ungated(int listener) {
  for (auto& u : gate().ungated)
    if (u.load(std::memory_order_relaxed) == listener) return true;
  return false;
}

// accept() found no descriptor: close the waiting connection with the
// reserve's, so it does not wait (and wake libzmq) for ever.
int out_of_descriptors(int listener, int err) {
  Gate& g = gate();
  std::lock_guard lock(g.mutex);
  ++g.counts.refused_descriptors;
  if (g.reserve_fd >= 0) {
    sys_close(g.reserve_fd);
    g.reserve_fd = -1;
    const int fd = sys_accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) sys_close(fd);
    g.reserve_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  }
  (void)err;
  errno = EAGAIN;  // libzmq: nothing to accept now
  return -1;
}

int admit(int fd) {
  Gate& g = gate();
  const long uid = peer_uid(fd);
  std::lock_guard lock(g.mutex);
  const bool privileged = uid == 0 || (uid >= 0 && uid == g.limits.privileged_uid);
  bool refuse = static_cast<std::size_t>(fd) >= g.slot_count;
  bool over_user = false;
  if (!refuse) {
    const unsigned others = g.open - g.open_privileged;
    if (privileged)
      refuse = g.open >= g.limits.max_connections + g.limits.privileged_reserve;
    else
      refuse = others >= g.limits.max_connections || g.open >= g.limits.max_connections + g.limits.privileged_reserve;
    if (!refuse && !privileged && uid >= 0) {
      const auto it = g.per_uid.find(uid);
      over_user = refuse = it != g.per_uid.end() && it->second >= g.limits.max_per_user;
    }
  }
  if (refuse) {
    ++(over_user ? g.counts.refused_user : g.counts.refused_total);
    g.counts.last_refused_uid = uid;
    sys_close(fd);
    errno = EAGAIN;
    return -1;
  }
  g.slots[fd].store(uid);
  ++g.open;
  if (privileged) ++g.open_privileged;
  if (uid >= 0) ++g.per_uid[uid];
  return fd;
}

int gated_accept(int listener, sockaddr* addr, socklen_t* len, int flags) {
  const int fd = sys_accept4(listener, addr, len, flags);
  Gate& g = gate();
  if (!g.armed.load(std::memory_order_acquire) || is_ungated(listener)) return fd;
  if (fd < 0) {
    const int err = errno;
    if (err == EMFILE || err == ENFILE) return out_of_descriptors(listener, err);
    errno = err;
    return fd;
  }
  return admit(fd);
}

void closing(int fd) {
  Gate& g = gate();
  if (fd < 0 || static_cast<std::size_t>(fd) >= g.slot_count.load(std::memory_order_acquire)) return;
  if (g.slots[fd].load(std::memory_order_relaxed) == kFree) return;
  std::lock_guard lock(g.mutex);
  const long uid = g.slots[fd].exchange(kFree);
  if (uid == kFree) return;
  const bool privileged = uid == 0 || (uid >= 0 && uid == g.limits.privileged_uid);
  --g.open;
  if (privileged) --g.open_privileged;
  if (uid >= 0) {
    auto it = g.per_uid.find(uid);
    if (it != g.per_uid.end() && --it->second == 0) g.per_uid.erase(it);
  }
}

}  // namespace

void arm(const Limits& limits) {
  Gate& g = gate();
  {
    std::lock_guard lock(g.mutex);
    if (!g.slots) {
      rlimit l{};
      std::size_t n = kMaxSlots;
      if (::getrlimit(RLIMIT_NOFILE, &l) == 0 && l.rlim_cur != RLIM_INFINITY)
        n = std::min<std::size_t>(n, static_cast<std::size_t>(l.rlim_cur));
      g.slots.reset(new std::atomic<long>[n]);
      for (std::size_t i = 0; i < n; ++i) g.slots[i].store(kFree);
      g.slot_count.store(n, std::memory_order_release);
    }
    g.limits = limits;
    if (g.reserve_fd < 0) g.reserve_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  }
  g.armed.store(true, std::memory_order_release);
}

void disarm() { gate().armed.store(false, std::memory_order_release); }

void ungated_listener(int fd) {
  for (auto& u : gate().ungated) {
    int expected = -1;
    if (u.compare_exchange_strong(expected, fd)) return;
  }
}

Counts counts() {
  Gate& g = gate();
  std::lock_guard lock(g.mutex);
  Counts c = g.counts;
  c.open = g.open;
  return c;
}

bool admitted(int fd) {
  Gate& g = gate();
  return fd >= 0 && static_cast<std::size_t>(fd) < g.slot_count.load() && g.slots[fd].load() != kFree;
}

}  // namespace lnetcap::daemon::accept_gate

// The process's own accept4/accept/close: libzmq's calls land here (the
// executable's symbols come first).  Disarmed they are the kernel's.
extern "C" int accept4(int fd, struct sockaddr* __restrict addr, socklen_t* __restrict len, int flags) {
  return lnetcap::daemon::accept_gate::gated_accept(fd, addr, len, flags);
}

extern "C" int accept(int fd, struct sockaddr* __restrict addr, socklen_t* __restrict len) {
  return lnetcap::daemon::accept_gate::gated_accept(fd, addr, len, 0);
}

extern "C" int close(int fd) {
  lnetcap::daemon::accept_gate::closing(fd);  // armed or not: the counts stay true
  return lnetcap::daemon::accept_gate::sys_close(fd);
}
