// SPDX-License-Identifier: GPL-2.0-or-later
// latency_split.h - where an RPC's time went, for a capture merged from its
// client and its server (docs/REPORTS.md "Latency split"): the client's
// LNet queue, the request's transit, the server's time without its bulk
// phase, the bulk phase (the server's first bulk GET/PUT to its last REPLY
// or ACK), and the reply's transit; for all RPCs and per opcode, jobid,
// client NID and target (server NID).
//
// The two nodes' clocks differ.  Per (client, server) pair the offset
// theta (server clock - client clock) must satisfy, for every RPC both saw,
//   request transit = s_recv - c_send - theta >= 0   (theta <= min(s_recv - c_send))
//   reply transit   = c_recv - s_send + theta >= 0   (theta >= max(s_send - c_recv))
// so theta is taken as the middle of that interval, and no transit is
// negative.  When the interval is empty (the clocks drifted during the
// capture), its middle still, and the negative transits are counted as 0;
// the RPCs that had one are counted (negative_transits) and reported, so a
// split that needed it never looks exact.  An RPC whose client and server
// are one node (over 0@lo) is timed by one clock: its offset is 0.
//
// Memory is bounded however long the run (a week of --summary, --top or
// lnetcapd): each group's parts are LatencySamples (exact up to 4096, then
// a histogram), at most kMaxGroups groups per dimension (later keys are
// "(other)"), kMaxPairs client/server pairs (RPCs of later pairs are
// counted, not split), and the transits wait for their offset in a batch
// of at most kBatch RPCs: a capture of fewer RPCs is split with the offset
// of all of them, as the middle of the interval above; past that, each
// batch is split with the offset known when it fills (by then the interval
// of a pair has long narrowed to its final width).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bulk_linker.h"
#include "latency_samples.h"
#include "message.h"

namespace lnetcap::report {

/// The parts of the RPCs of one group, in ns, one sample per RPC (bulk:
/// RPCs with a bulk phase; client_queue: requests whose record has a
/// queue time).
struct LatencySplitStats {
  LatencySamples client_queue, request_transit, server, bulk, reply_transit;
  std::uint64_t rpcs() const { return request_transit.size(); }
};

enum class SplitBy { kOpcode = 0, kJobid, kClient, kTarget };
inline constexpr std::array<SplitBy, 4> kSplitDimensions = {SplitBy::kOpcode, SplitBy::kJobid,
                                                            SplitBy::kClient, SplitBy::kTarget};
/// "opcode", "jobid", "client", "target": table headings, JSON keys, labels.
const char* split_dimension_name(SplitBy d);
/// The group of the RPCs past kMaxGroups distinct keys of a dimension.
inline constexpr const char* kOtherSplitGroup = "(other)";

struct LatencySplitReport {
  LatencySplitStats total;
  std::array<std::map<std::string, LatencySplitStats>, kSplitDimensions.size()> groups;
  /// (client, server) -> estimated server clock minus client clock, ns.
  std::map<std::pair<std::string, std::string>, std::int64_t> clock_offset_ns;
  /// RPCs both ends saw, of client/server pairs past kMaxPairs: not split.
  std::uint64_t rpcs_not_split = 0;
  /// Split RPCs with a transit below 0 after the offset (shown as 0): the
  /// clocks drifted during the capture, or a batch was split before its
  /// pair's interval settled.
  std::uint64_t negative_transits = 0;
  const std::map<std::string, LatencySplitStats>& by(SplitBy d) const {
    return groups[static_cast<int>(d)];
  }
  bool empty() const { return total.rpcs() == 0; }
};

/// One RPC both ends saw: its client's and its server's times (each end's
/// clock), in ns.
struct SplitRpc {
  std::uint32_t opc = 0;
  Nid client, server;
  std::string jobid;  // the request's, as on the wire ("" without one)
  std::uint64_t c_send = 0, s_recv = 0, s_send = 0, c_recv = 0;
  bool has_queue = false;
  std::uint64_t queue = 0;                       // the client's LNet queue time
  std::uint64_t bulk_first = 0, bulk_last = 0;   // the server's bulk phase (0: none)
};

/// The figures of the RPCs both ends saw, in bounded groups.  Copyable,
/// so lnetcapd takes a copy under its lock and reports without it.
class LatencySplitFigures {
 public:
  static constexpr std::size_t kBatch = 1u << 16;      // RPCs awaiting their offset
  static constexpr std::size_t kMaxGroups = 256;       // per dimension, then "(other)"
  static constexpr std::size_t kMaxPairs = 4096;       // client/server pairs
  void add(const SplitRpc& r);
  LatencySplitReport report() const;

 private:
  // A pair's interval [lo, hi] for its offset (ns), as at the top of this file.
  struct Pair {
    Nid client, server;
    std::int64_t lo, hi;
    bool one_clock;  // client and server are one node (0@lo)
  };
  // An RPC's parts that need no offset, and the two differences that do.
  struct Done {
    std::uint32_t pair;
    std::array<std::uint32_t, kSplitDimensions.size()> group;
    std::int64_t to_server, to_client;  // s_recv - c_send, c_recv - s_send
    std::uint64_t server, bulk, queue;
    bool has_bulk, has_queue;
  };
  using Groups = std::array<std::vector<LatencySplitStats>, kSplitDimensions.size()>;
  std::uint32_t group_of(std::size_t d, const std::string& key);
  std::int64_t offset(std::uint32_t pair) const;
  /// Adds d's parts to total and its groups; true when a transit was below 0.
  bool bin(const Done& d, LatencySplitStats& total, Groups& groups) const;

  std::map<std::pair<Nid, Nid>, std::uint32_t> pair_index_;
  std::vector<Pair> pairs_;
  std::array<std::map<std::string, std::uint32_t>, kSplitDimensions.size()> group_index_;
  std::array<std::vector<std::string>, kSplitDimensions.size()> group_names_;
  LatencySplitStats total_;  // the batches split so far
  Groups groups_;
  std::vector<Done> batch_;  // at most kBatch
  std::uint64_t not_split_ = 0;
  std::uint64_t negative_ = 0;  // of the batches split so far
};

class LatencySplit {
 public:
  static constexpr std::size_t kMaxPending = 1u << 16;  // RPCs seen by one node so far
  /// Every message (a resend or outcome is not a message), with what the
  /// bulk linker found for it.
  void add(const Message& m, const std::optional<BulkLink>& link);
  LatencySplitReport report() const { return figures_.report(); }
  const LatencySplitFigures& figures() const { return figures_; }

 private:
  struct Rpc {
    SplitRpc t;
    std::vector<std::tuple<Nid, Nid, std::uint64_t>> keys;
  };
  void finish(const std::shared_ptr<Rpc>& r);

  std::map<std::tuple<Nid, Nid, std::uint64_t>, std::shared_ptr<Rpc>> by_key_;
  std::deque<std::weak_ptr<Rpc>> order_;
  LatencySplitFigures figures_;
};

}  // namespace lnetcap::report
