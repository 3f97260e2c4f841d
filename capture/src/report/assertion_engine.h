// SPDX-License-Identifier: GPL-2.0-or-later
// assertion_engine.h - evaluates --assert expressions over the messages of
// a capture (live or stored) and reports observed against expected.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "assertion.h"
#include "latency_samples.h"
#include "message.h"
#include "recent_messages.h"
#include "rpc_matcher.h"

namespace lnetcap::report {

struct AssertionResult {
  std::string text;
  bool passed = false;
  /// One line per comparison: "count(opcode LDLM_ENQUEUE) = 21, expected <= 2".
  std::vector<std::string> details;
};

class AssertionEngine {
 public:
  /// Parses every assertion up front, so bad syntax stops lnetcap before
  /// capture starts.  Throws Error.
  /// max_pending bounds the requests remembered for their latency, as
  /// RpcMatcher bounds its own (tests pass a small one).
  explicit AssertionEngine(const std::vector<std::string>& texts,
                           std::size_t max_pending = RpcMatcher::kDefaultMaxPending);

  void observe(const Message& m);
  std::vector<AssertionResult> evaluate() const;

  /// Requests remembered for a latency call until their reply (bounded).
  std::size_t waiting_for_latency() const { return pending_.size(); }

  /// The value of one call so far (nullopt: a latency without samples).
  std::optional<double> value(std::size_t assertion, std::size_t call) const;

 private:
  struct Accumulator {
    std::uint64_t count = 0, bytes = 0, errors = 0;
    LatencySamples latencies_ns;
    RecentMessages counted;  // messages counted, for their outcome records
  };
  std::optional<double> operand_value(std::size_t a, const Operand& o) const;
  bool eval(std::size_t a, const AssertNode& n, std::vector<std::string>& details) const;

  std::vector<Assertion> assertions_;
  std::vector<std::vector<Accumulator>> acc_;  // [assertion][call]
  RpcMatcher matcher_;
  // Which latency calls a pending request matched, by request identity.
  using RequestId = std::tuple<Nid, Nid, std::uint64_t, std::uint64_t>;  // client, server, xid, ts
  // A request the matcher gives up or replaces never gets its reply here:
  // pending_ is capped at the matcher's own bound, oldest first.  That is
  // exact: the matcher holds at most max_pending_ requests, all among the
  // newest max_pending_ it saw, so an entry older than those is gone there.
  void remember(const RequestId& id, std::vector<std::pair<std::size_t, std::size_t>> calls);
  std::map<RequestId, std::vector<std::pair<std::size_t, std::size_t>>> pending_;
  std::deque<RequestId> pending_order_;  // insertion order; may name erased entries
  std::size_t max_pending_;
};

/// "lnetcap: assert PASS: ..." lines for every result, plus a final verdict.
std::string format_results(const std::vector<AssertionResult>& results);

}  // namespace lnetcap::report
