// SPDX-License-Identifier: GPL-2.0-or-later
#include "serving_limits.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace lnetcap::daemon {

FairShares fair_shares(const ServingLimits& limits) {
  FairShares f;
  const unsigned kept = limits.max_subscribers >= 2 ? std::max(1u, limits.max_subscribers / 16) : 0;
  f.unprivileged_subscribers = limits.max_subscribers - kept;
  f.terms_per_user = std::max<std::size_t>(1, limits.max_filter_terms / 2);
  f.unprivileged_terms = std::max<std::size_t>(1, limits.max_filter_terms - limits.max_filter_terms / 4);
  return f;
}

int queue_messages(const ServingLimits& limits, int queue, std::size_t max_message_bytes) {
  const std::uint64_t share = limits.memory_budget / std::max(1u, limits.max_subscribers);
  const std::uint64_t fit = share / std::max<std::size_t>(1, max_message_bytes);
  // At least two: one being read while the next is queued.
  return static_cast<int>(std::clamp<std::uint64_t>(fit, 2, static_cast<std::uint64_t>(std::max(queue, 2))));
}

std::uint64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "re");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0;
  const int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

void add_status(subscribe::Status& st, const ServingLimits& limits, const ServingUse& use) {
  auto item = [&](const std::string& name, std::uint64_t v) { st.items.emplace_back(name, std::to_string(v)); };
  // Measured, not estimated: everything the daemon holds (queues, dumps,
  // recorder, trigger windows, metrics) is in it.
  item("memory resident (bytes)", resident_bytes());
  item("memory budget (bytes)", limits.memory_budget);
  item("queue per subscriber (messages)", static_cast<std::uint64_t>(use.queue_messages));
  item("queue per subscriber at most (bytes)",
       static_cast<std::uint64_t>(use.queue_messages) * use.max_message_bytes);
  item("connections", use.connections);
  item("connections at most", use.max_connections);
  item("connections kept for root and lnetcapd's user", ServingLimits::kPrivilegedConnections);
  item("connections refused", use.connections_refused);
  item("subscriptions at most", limits.max_subscribers);
  item("subscriptions of one user at most", limits.max_per_user);
  const FairShares shares = fair_shares(limits);
  item("subscriptions of other users than root and lnetcapd's at most", shares.unprivileged_subscribers);
  item("subscriptions refused", use.subscriptions_refused);
  item("filter terms", use.filter_terms);
  item("filter terms at most", limits.max_filter_terms);
  item("filter terms of one user at most", shares.terms_per_user);
  item("filter terms of other users than root and lnetcapd's at most", shares.unprivileged_terms);
  item("connections of one local user at most", use.max_connections_per_user);
}

}  // namespace lnetcap::daemon
