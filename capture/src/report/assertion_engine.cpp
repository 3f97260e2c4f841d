// SPDX-License-Identifier: GPL-2.0-or-later
#include "assertion_engine.h"

#include <cmath>
#include <cstdio>

#include "percentile.h"
#include "text_escape.h"

namespace lnetcap::report {
namespace {

bool is_latency(Metric m) {
  return m == Metric::kLatencyP50 || m == Metric::kLatencyP90 || m == Metric::kLatencyP99 ||
         m == Metric::kLatencyMax;
}

std::string show(std::optional<double> v) {
  if (!v) return "none";
  char buf[48];
  if (std::floor(*v) == *v && std::fabs(*v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", *v);
  else
    std::snprintf(buf, sizeof buf, "%.3f", *v);
  return buf;
}

}  // namespace

AssertionEngine::AssertionEngine(const std::vector<std::string>& texts, std::size_t max_pending)
    : matcher_(max_pending), max_pending_(max_pending) {
  for (const auto& t : texts) {
    assertions_.push_back(Assertion::parse(t));
    acc_.emplace_back(assertions_.back().calls().size());
  }
}

void AssertionEngine::observe(const Message& m) {
  const RecordHeader& h = m.rec.hdr;
  const bool request = is_rpc_request(m);
  const bool reply = is_rpc_reply(m);
  std::vector<std::pair<std::size_t, std::size_t>> latency_calls;
  for (std::size_t a = 0; a < assertions_.size(); ++a) {
    const auto& calls = assertions_[a].calls();
    for (std::size_t c = 0; c < calls.size(); ++c) {
      if (!calls[c].filter.empty() && !calls[c].filter.matches(m)) continue;
      Accumulator& acc = acc_[a][c];
      // Messages, not records: an outcome or a resend counts for its
      // message only when the message's first record did not match
      // (count(drop) counts failed sends once; count(type put) does not
      // count a failed send or a resent one twice).
      if (h.is_outcome() || h.is_resend()) {
        if (!acc.counted.first(h.msg_id)) continue;
      } else {
        acc.counted.note(h.msg_id);
      }
      ++acc.count;
      acc.bytes += m.lnet.present ? m.lnet.payload_length : m.rec.hdr.payload_len;
      if (is_rpc_error(m)) ++acc.errors;
      if (request && is_latency(calls[c].metric)) latency_calls.emplace_back(a, c);
    }
  }
  if (request && !latency_calls.empty())
    remember(RequestId{m.lnet.src_nid, m.lnet.dest_nid, *m.lnet.match_bits, m.ts_ns},
             std::move(latency_calls));
  if (!request && !reply) return;
  if (auto match = matcher_.observe(m)) {
    const RpcRequest& r = match->request;
    auto it = pending_.find(RequestId{r.client, r.server, r.xid, r.ts_ns});
    if (it == pending_.end()) return;
    for (auto [a, c] : it->second) acc_[a][c].latencies_ns.push_back(match->latency_ns);
    pending_.erase(it);
  }
}

void AssertionEngine::remember(const RequestId& id,
                               std::vector<std::pair<std::size_t, std::size_t>> calls) {
  if (pending_.insert_or_assign(id, std::move(calls)).second) pending_order_.push_back(id);
  while (pending_.size() > max_pending_ && !pending_order_.empty()) {
    pending_.erase(pending_order_.front());
    pending_order_.pop_front();
  }
  // Answered requests leave stale names behind: compact when they pile up
  // (amortised O(1), as in RpcMatcher).
  if (pending_order_.size() > 2 * pending_.size() + 1024)
    std::erase_if(pending_order_, [this](const RequestId& r) { return !pending_.count(r); });
}

std::optional<double> AssertionEngine::value(std::size_t a, std::size_t c) const {
  const Accumulator& acc = acc_[a][c];
  const Metric m = assertions_[a].calls()[c].metric;
  switch (m) {
    case Metric::kCount: return static_cast<double>(acc.count);
    case Metric::kBytes: return static_cast<double>(acc.bytes);
    case Metric::kErrors: return static_cast<double>(acc.errors);
    default: break;
  }
  const double p = m == Metric::kLatencyP50 ? 50 : m == Metric::kLatencyP90 ? 90
                   : m == Metric::kLatencyP99 ? 99 : 100;
  auto ns = percentile(acc.latencies_ns, p);
  if (!ns) return std::nullopt;
  return static_cast<double>(*ns) / 1e6;  // milliseconds
}

std::optional<double> AssertionEngine::operand_value(std::size_t a, const Operand& o) const {
  if (o.number) return o.number;
  return value(a, o.call);
}

bool AssertionEngine::eval(std::size_t a, const AssertNode& n,
                           std::vector<std::string>& details) const {
  switch (n.kind) {
    case AssertNode::kAnd: {
      // Evaluate both sides so the report shows every observed value.
      const bool l = eval(a, *n.left, details);
      const bool r = eval(a, *n.right, details);
      return l && r;
    }
    case AssertNode::kOr: {
      const bool l = eval(a, *n.left, details);
      const bool r = eval(a, *n.right, details);
      return l || r;
    }
    case AssertNode::kNot: return !eval(a, *n.left, details);
    case AssertNode::kCompare: break;
  }
  const Comparison& c = n.cmp;
  const auto lv = operand_value(a, c.lhs), rv = operand_value(a, c.rhs);
  const bool ok = lv && rv && compare(*lv, c.op, *rv);
  const auto& calls = assertions_[a].calls();
  auto name = [&](const Operand& o) { return o.number ? o.literal : calls[o.call].text(); };
  std::string line;
  if (!c.lhs.number && c.rhs.number) {
    line = name(c.lhs) + " = " + show(lv) + ", expected " + cmp_op_text(c.op) + " " + name(c.rhs);
  } else if (c.lhs.number && !c.rhs.number) {
    line = name(c.rhs) + " = " + show(rv) + ", expected " + name(c.lhs) + " " +
           cmp_op_text(c.op) + " it";
  } else {
    line = name(c.lhs) + " = " + show(lv) + ", " + name(c.rhs) + " = " + show(rv) +
           ", expected " + cmp_op_text(c.op);
  }
  if (!lv || !rv) line += " (no RPC matched, so the comparison is false)";
  details.push_back(line + (ok ? "" : "  <-- false"));
  return ok;
}

std::vector<AssertionResult> AssertionEngine::evaluate() const {
  std::vector<AssertionResult> out;
  for (std::size_t a = 0; a < assertions_.size(); ++a) {
    AssertionResult r;
    r.text = assertions_[a].text();
    r.passed = eval(a, assertions_[a].root(), r.details);
    out.push_back(std::move(r));
  }
  return out;
}

std::string format_results(const std::vector<AssertionResult>& results) {
  std::string out;
  std::size_t failed = 0;
  for (const auto& r : results) {
    failed += !r.passed;
    out += std::string("lnetcap: assert ") + (r.passed ? "PASS" : "FAIL") + ": " +
           wire_text(r.text) + "\n";
    // The expressions may quote jobids pasted from a trace: printable only.
    for (const auto& d : r.details) out += "    " + wire_text(d) + "\n";
  }
  out += "lnetcap: " + std::to_string(results.size() - failed) + " of " +
         std::to_string(results.size()) + " assertions passed\n";
  return out;
}

}  // namespace lnetcap::report
