// SPDX-License-Identifier: GPL-2.0-or-later
// chart.h - the model behind --chart: who sent what to whom, in capture
// order, as a sequence diagram.  Participants are NIDs; a client NID with a
// jobid becomes "NID jobid", so the processes behind the RPCs show as their
// own lifelines.  The reply goes back to the lifeline that sent the request.
// Renderers: chart_mermaid.cpp (Mermaid text), chart_html.cpp (HTML+SVG).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "message.h"
#include "rpc_matcher.h"

namespace lnetcap::report {

enum class ArrowKind {
  kRequest,  // PtlRPC request
  kReply,    // final reply, status 0
  kError,    // final reply with a non-zero status
  kEarly,    // early reply (adaptive timeouts)
  kLnet,     // anything else: bulk PUT/GET, ACK, REPLY, LNet ping
};

struct Arrow {
  std::uint64_t ts_ns = 0;
  std::size_t from = 0, to = 0;  // participant indexes
  ArrowKind kind = ArrowKind::kLnet;
  std::string label;   // short: "LDLM_ENQUEUE x1712345678" / "ok 1.23ms"
  std::string detail;  // long, for tooltips: every field worth knowing
};

struct ChartModel {
  std::vector<std::string> participants;  // in order of first appearance
  std::vector<Arrow> arrows;              // at most max_arrows
  std::uint64_t omitted = 0;              // messages beyond the cap
  std::size_t max_arrows = 0;
  std::uint64_t first_ts_ns = 0;
};

class ChartBuilder {
 public:
  /// Default cap: a few hundred arrows is what a sequence diagram can show
  /// before it stops being readable (and Mermaid renderers slow down).
  static constexpr std::size_t kDefaultMaxArrows = 500;
  explicit ChartBuilder(std::size_t max_arrows = kDefaultMaxArrows);

  void add(const Message& m);
  const ChartModel& model() const { return model_; }

 private:
  std::size_t participant(const std::string& name);
  void push(Arrow a);

  ChartModel model_;
  std::map<std::string, std::size_t> index_;
  RpcMatcher matcher_;
  // Which lifeline sent each pending request, so its replies (early and
  // final) return there: client, server, reply match bits.
  std::map<std::tuple<Nid, Nid, std::uint64_t>, std::size_t> sender_;
  // Messages drawn from one end (SEND or RECV) by their whole LNet header,
  // with the time drawn: in a capture merged from several nodes the other
  // end's record of the same message (n-th to n-th, within kSameMessageNs)
  // is the same arrow, not a second one.
  std::map<std::vector<std::uint8_t>, std::deque<std::uint64_t>> drawn_;
  bool drawn_before(const Message& m);
};

/// Mermaid sequenceDiagram text.
std::string render_mermaid(const ChartModel& m);
/// A complete HTML page with inline SVG and CSS: no scripts, no external files.
std::string render_html(const ChartModel& m);

}  // namespace lnetcap::report
