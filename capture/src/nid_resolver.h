// SPDX-License-Identifier: GPL-2.0-or-later
// nid_resolver.h - host names for IP NIDs from the system resolver
// (--resolve-nids; docs/REPORTS.md "Names for NIDs"): getnameinfo with
// NI_NAMEREQD, so /etc/hosts, DNS and whatever nsswitch.conf lists.
//
// Only NIDs of IP-addressed LNDs (lnet.h's LNETCAP_ADDR_STYLE_IP: tcp, o2ib,
// gip, efa) are looked up; kfi DFAs, gni numbers and 0@lo never are.  Each address is looked up once and
// its answer (a name, or "none") kept for the whole run, so a NID prints the
// same on every line and groups under one row in the summaries.
//
// A dead DNS server must not stall a live capture: a look-up runs on its
// own thread and the caller waits at most Limits::per_lookup for it; the
// time spent waiting over the run is capped by Limits::total and the number
// of look-ups by Limits::max_lookups.  The first time a bound is hit the
// resolver says so once on the warning stream and from then on answers
// "no name" for every address it has not resolved yet (numbers, as -n).
#pragma once

#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "nid.h"

namespace lnetcap {

struct NidResolverLimits {
  std::chrono::milliseconds per_lookup{1000};  // wait for one answer
  std::chrono::milliseconds total{5000};       // wait for all answers, over the run
  std::size_t max_lookups = 4096;              // distinct addresses looked up
};

class NidResolver {
 public:
  /// Looks up one address given as text ("10.0.0.1", "fe80::1"): its host
  /// name, or nullopt when it has none.  May block; may be called on a
  /// thread that outlives the resolver (so it must own what it uses).
  using LookupFn = std::function<std::optional<std::string>(const std::string& address)>;

  using Limits = NidResolverLimits;

  explicit NidResolver(LookupFn lookup = system_lookup, Limits limits = {}, std::FILE* warnings = stderr);

  /// The host name of nid's address (no "@NET"), if the resolver gives one
  /// within the bounds.  nullopt for a NID that is not IP-addressed.
  std::optional<std::string> name(const Nid& nid);

  /// True when nid's address is an IP address (tcp, o2ib, gip, efa).
  static bool resolvable(const Nid& nid);
  /// getnameinfo(NI_NAMEREQD): the system resolver.
  static std::optional<std::string> system_lookup(const std::string& address);

  std::size_t lookups() const;  // look-ups started
  bool gave_up() const;         // a bound was hit: numbers from now on

 private:
  void give_up(const std::string& why);

  LookupFn lookup_;
  Limits limits_;
  std::FILE* warnings_;
  mutable std::mutex mutex_;
  std::map<std::string, std::optional<std::string>> cache_;  // address text -> answer
  std::size_t lookups_ = 0;
  std::chrono::steady_clock::duration waited_{};
  bool gave_up_ = false;
};

}  // namespace lnetcap
