// SPDX-License-Identifier: GPL-2.0-or-later
// rpc_metrics.h - lnetcapd's Prometheus metrics: RPC counts and latency
// histograms by opcode, target and peer, LNet message types, health and
// drops, and the daemon's own counters (source, subscribers, recorder,
// triggers, scrapes).
//
// The RPC figures are the ones `lnetcap --summary` computes (the same
// RpcMatcher and BulkLinker, the same attribution rules of report/summary.h
// - bulk transfers count for their RPC's opcode and target -, the same
// metric names as --summary=prometheus), kept in bounded memory: latency
// histograms with report::kLatencyBuckets instead of every sample.
//
// Label cardinality is bounded (docs/DAEMON.md "Metrics"): opcode takes the
// names of lnetcap's opcode table, any other value is "other"; peer and
// target take the first max_label_values distinct NIDs each, later ones are
// "other"; so do the status of error replies (across all groups) and LNet
// message types and health statuses outside lnetcap's tables.  Jobids
// (unbounded) are not a label.  The latency split of RPCs whose both ends
// the daemon's source records (a replayed merged capture, a client on a
// server) is exported by opcode and target only, with the same bounds;
// its clock offsets for the pairs whose target has a label of its own, at
// most max_label_values.  When the anonymize policy forces anyone,
// peer and target values are pseudonyms (the endpoint has no access
// control).  render() formats a copy taken under the lock, so a big
// scrape does not hold up the daemon's loop adding records.
#pragma once

#include <array>
#include <functional>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "../message.h"
#include "../report/bulk_linker.h"
#include "../report/latency_split.h"
#include "../report/rpc_matcher.h"
#include "../report/summary_format.h"
#include "consumer_groups.h"

namespace lnetcap::daemon {

/// [metrics] in the config file, --metrics-* on the command line.
struct MetricsConfig {
  std::string listen;               // "[ADDR:]PORT"; empty = off (the default)
  unsigned max_label_values = 256;  // distinct peers, and targets, before "other"
  bool enabled() const { return !listen.empty(); }
};

/// The daemon's own figures, published by its loop for the next scrape.
struct DaemonGauges {
  std::uint64_t source_received = 0, source_dropped = 0;
  std::uint64_t subscribers = 0, subscriber_dropped = 0;
  bool recorder = false;
  std::uint64_t recorder_bytes = 0, recorder_records = 0, recorder_window_ns = 0;
  std::uint64_t recorder_limit_bytes = 0, recorder_limit_ns = 0;
  std::uint64_t triggers_fired = 0, trigger_files_written = 0, trigger_files_skipped = 0,
                trigger_files_failed = 0;
  GroupTotals groups;
};

class RpcMetrics {
 public:
  explicit RpcMetrics(unsigned max_label_values);
  /// Every record the source delivers, in order (the daemon's thread).
  void add(const Message& m);
  void set_gauges(const DaemonGauges& g);
  /// From now on peer and target label values are mapper(value) (NIDs as
  /// pseudonyms); what was gathered by peer and target under clear names
  /// is dropped.
  void pseudonymise_labels(std::function<std::string(const std::string&)> mapper);
  bool labels_pseudonymised() const;
  /// The text exposition format 0.0.4 (any thread).  scrapes: served so far.
  std::string render(std::uint64_t scrapes) const;

  static constexpr std::size_t kBuckets = std::size(report::kLatencyBuckets);
  struct Group {
    std::uint64_t messages = 0, bytes = 0, requests = 0, replies = 0;
    std::uint64_t bulk_bytes = 0;  // of bytes: bulk transfers linked to their RPC
    std::map<std::string, std::uint64_t> errors_by_status;  // bounded (see above)
    std::array<std::uint64_t, kBuckets> le{};  // latencies <= each bound (not cumulative here)
    std::uint64_t latency_count = 0;
    double latency_sum_s = 0;
  };
  enum Dim { kOpcode = 0, kTarget, kPeer, kDims };

 private:
  // A label value within the dimension's budget, or "other".
  const std::string& bounded(Dim d, const std::string& value);
  // The same for the status label of error replies and other open sets.
  const std::string& bounded_value(std::unordered_map<std::string, std::string>& admitted,
                                   const std::string& value);
  void add_latency(Group& g, std::uint64_t ns);
  // The split by opcode and target under bounded labels (see the top).
  report::LatencySplitReport labelled_split(const report::LatencySplitFigures& figures,
                                            const std::unordered_map<std::string, std::string>& targets,
                                            const std::function<std::string(const std::string&)>& pseudonym) const;
  // The groups of an opcode, a target NID and a message's peer.  They are
  // cached by the binary values, so the label strings are built once per
  // distinct value, not per record (the caches are bounded too).
  Group& opcode_group(std::uint32_t opc);
  Group& target_group(const Nid& server);
  Group& peer_group(const Message& m);

  mutable std::mutex mutex_;
  unsigned max_label_values_;
  report::RpcMatcher matcher_;
  report::BulkLinker bulk_;  // bulk GET/PUT/REPLY/ACK -> their RPC's opcode and target
  report::LatencySplit split_;  // RPCs both ends were recorded of (report/latency_split.h)
  Group total_;
  std::array<std::map<std::string, Group>, kDims> groups_;
  std::array<std::unordered_map<std::string, std::string>, kDims> admitted_;
  std::unordered_map<std::uint32_t, Group*> opcode_cache_;
  std::map<Nid, Group*> target_cache_;
  // (kind, NID, NID): kind 0 = the one remote NID of a send or receive,
  // 1 = a conversation seen from outside, 2 = a record without LNet header.
  std::map<std::tuple<int, Nid, Nid>, Group*> peer_cache_;
  std::map<std::string, std::uint64_t> lnet_types_, health_;
  std::unordered_map<std::string, std::string> admitted_status_, admitted_types_, admitted_health_;
  std::function<std::string(const std::string&)> pseudonym_;
  std::uint64_t lnet_dropped_ = 0, retries_ = 0;
  DaemonGauges gauges_;
};

}  // namespace lnetcap::daemon
