// SPDX-License-Identifier: GPL-2.0-or-later
// latency_split.h - where an RPC's time went, for a capture merged from its
// client and its server (docs/REPORTS.md "Latency split"): the client's
// LNet queue, the request's transit, the server's time without its bulk
// phase, the bulk phase (the server's first bulk GET/PUT to its last REPLY
// or ACK), and the reply's transit.
//
// The two nodes' clocks differ.  Per (client, server) pair the offset
// theta (server clock - client clock) must satisfy, for every RPC both saw,
//   request transit = s_recv - c_send - theta >= 0   (theta <= min(s_recv - c_send))
//   reply transit   = c_recv - s_send + theta >= 0   (theta >= max(s_send - c_recv))
// so theta is taken as the middle of that interval, and no transit is
// negative.  When the interval is empty (the clocks drifted during the
// capture), its middle still, and the negative transits are counted as 0.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "bulk_linker.h"
#include "message.h"

namespace lnetcap::report {

/// The components of the RPCs of one opcode, in ns, one sample per RPC.
struct LatencySplitStats {
  std::vector<std::uint64_t> client_queue, request_transit, server, bulk, reply_transit;
};

struct LatencySplitReport {
  std::map<std::string, LatencySplitStats> by_opcode;
  /// "CLIENT -> SERVER" -> estimated server clock minus client clock, ns.
  std::map<std::string, std::int64_t> clock_offset_ns;
  bool empty() const { return by_opcode.empty(); }
};

class LatencySplit {
 public:
  static constexpr std::size_t kMaxPending = 1u << 16;  // RPCs seen by one node so far
  static constexpr std::size_t kMaxSamples = 1u << 18;  // RPCs seen by both
  /// Every message (a resend or outcome is not a message), with what the
  /// bulk linker found for it.
  void add(const Message& m, const std::optional<BulkLink>& link);
  LatencySplitReport report() const;

 private:
  struct Rpc {
    std::uint32_t opc = 0;
    Nid client, server;
    std::uint64_t c_send = 0, s_recv = 0, s_send = 0, c_recv = 0, queue = 0;
    bool has_queue = false;
    std::uint64_t bulk_first = 0, bulk_last = 0;
    std::vector<std::tuple<Nid, Nid, std::uint64_t>> keys;
  };
  void finish(const std::shared_ptr<Rpc>& r);

  std::map<std::tuple<Nid, Nid, std::uint64_t>, std::shared_ptr<Rpc>> by_key_;
  std::deque<std::weak_ptr<Rpc>> order_;
  std::vector<Rpc> samples_;
};

}  // namespace lnetcap::report
