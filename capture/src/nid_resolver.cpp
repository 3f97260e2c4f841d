// SPDX-License-Identifier: GPL-2.0-or-later
#include "nid_resolver.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cctype>
#include <condition_variable>
#include <cstring>
#include <thread>

#include "lnetcap/lnet.h"

namespace lnetcap {
namespace {

// The address part of an IP NID's text ("10.0.1.1" of "10.0.1.1@tcp").
std::string addr_text(const Nid& nid) {
  const std::string s = nid.to_string();
  return s.substr(0, s.rfind('@'));
}

// A DNS answer is input like any other: a PTR record can hold any bytes.
// Accept a host name's characters only, so a name cannot forge output
// ("@", spaces, control characters) or grow a line without bound.
bool plausible_host_name(const std::string& n) {
  if (n.empty() || n.size() > 253) return false;
  for (unsigned char c : n)
    if (!(std::isalnum(c) || c == '-' || c == '.' || c == '_')) return false;
  return true;
}

// One look-up's answer, shared with the thread that makes it: the thread
// may still be in getnameinfo when the waiter has given up and gone.
struct Pending {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  std::optional<std::string> answer;
};

}  // namespace

NidResolver::NidResolver(LookupFn lookup, Limits limits, std::FILE* warnings)
    : lookup_(std::move(lookup)), limits_(limits), warnings_(warnings) {}

bool NidResolver::resolvable(const Nid& nid) {
  if (nid.is_any() || (nid.size != 0 && nid.size != LNETCAP_NID_SIZE_IPV6)) return false;
  // The LNDs whose NIDs carry an IP address, from the one LND table.
  switch (nid.type) {
#define LNETCAP_X_(name, value, str, style) \
  case value:                               \
    return style == LNETCAP_ADDR_STYLE_IP;
    LNETCAP_LND_LIST(LNETCAP_X_)
#undef LNETCAP_X_
    default:
      return false;
  }
}

std::optional<std::string> NidResolver::system_lookup(const std::string& address) {
  sockaddr_storage ss{};
  socklen_t len = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&ss);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&ss);
  if (inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    len = sizeof(*v4);
  } else if (inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    len = sizeof(*v6);
  } else {
    return std::nullopt;
  }
  char host[NI_MAXHOST];
  if (getnameinfo(reinterpret_cast<sockaddr*>(&ss), len, host, sizeof(host), nullptr, 0, NI_NAMEREQD) != 0)
    return std::nullopt;
  return std::string(host);
}

std::size_t NidResolver::lookups() const {
  std::lock_guard lock(mutex_);
  return lookups_;
}

bool NidResolver::gave_up() const {
  std::lock_guard lock(mutex_);
  return gave_up_;
}

void NidResolver::give_up(const std::string& why) {
  if (gave_up_) return;
  gave_up_ = true;
  if (warnings_)
    std::fprintf(warnings_,
                 "lnetcap: warning: %s; IP NIDs not resolved so far are shown as numbers from now on "
                 "(a names file, --nid-names, does not depend on the resolver)\n",
                 why.c_str());
}

std::optional<std::string> NidResolver::name(const Nid& nid) {
  if (!resolvable(nid)) return std::nullopt;
  const std::string address = addr_text(nid);
  std::lock_guard lock(mutex_);
  if (auto it = cache_.find(address); it != cache_.end()) return it->second;
  if (gave_up_) return std::nullopt;
  if (waited_ >= limits_.total) {
    give_up("name look-ups took more than " + std::to_string(limits_.total.count()) + " ms in all");
    return std::nullopt;
  }
  if (lookups_ >= limits_.max_lookups) {
    give_up("more than " + std::to_string(limits_.max_lookups) + " addresses to resolve");
    return std::nullopt;
  }
  const auto left = std::chrono::duration_cast<std::chrono::steady_clock::duration>(limits_.total) - waited_;
  const auto wait = std::min<std::chrono::steady_clock::duration>(limits_.per_lookup, left);
  ++lookups_;

  auto pending = std::make_shared<Pending>();
  std::thread([pending, lookup = lookup_, address] {
    std::optional<std::string> answer = lookup(address);
    std::lock_guard l(pending->mutex);
    pending->answer = std::move(answer);
    pending->done = true;
    pending->done_cv.notify_one();
  }).detach();

  const auto start = std::chrono::steady_clock::now();
  std::unique_lock wait_lock(pending->mutex);
  const bool answered = pending->done_cv.wait_for(wait_lock, wait, [&] { return pending->done; });
  waited_ += std::chrono::steady_clock::now() - start;
  if (!answered) {
    // The answer is not kept even if it comes later: a NID prints the
    // same on every line of the run.
    cache_[address] = std::nullopt;
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(wait).count();
    give_up(wait < limits_.per_lookup
                ? "name look-ups took more than " + std::to_string(limits_.total.count()) + " ms in all"
                : "no answer from the system resolver for " + address + " within " + std::to_string(ms) +
                      " ms");
    return std::nullopt;
  }
  std::optional<std::string> answer = std::move(pending->answer);
  if (answer && !plausible_host_name(*answer)) answer.reset();
  cache_[address] = answer;
  return answer;
}

}  // namespace lnetcap
