// SPDX-License-Identifier: GPL-2.0-or-later
// assertion.h - the --assert language: RPC-level checks on what a command
// (or a stored trace) caused.
//
//   assertion  := or
//   or         := and (("or" | "||") and)*
//   and        := unary (("and" | "&&") unary)*
//   unary      := ("not" | "!") unary | "(" or ")" | comparison
//   comparison := operand OP operand          OP := == != < <= > >=  ("=" is "==")
//   operand    := NUMBER[unit] | FUNCTION "(" [filter expression | "*"] ")"
//   FUNCTION   := count | bytes | errors | latency_p50 | latency_p90
//               | latency_p99 | latency_max
//   unit       := ns | us | ms | s           (times; latencies compare in ms)
//               | k | M | G                 (x1000, x10^6, x10^9)
//               | KiB | MiB | GiB           (x1024, ...)
//
// count(F):   messages matching the filter F (Filter::parse; empty or * = all)
// bytes(F):   sum of the LNet payload lengths of those messages
// errors(F):  final replies matching F that report a failure (negative
//             errno or error reply; see is_rpc_error)
// latency_pNN(F), latency_max(F): request->reply latency in milliseconds of
//   the RPCs whose request matches F (nearest-rank percentiles).  With no
//   such RPC the value is "none" and every comparison with it is false.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "filter/filter.h"

namespace lnetcap::report {

enum class CmpOp { kEq, kNe, kLt, kLe, kGt, kGe };
enum class Metric { kCount, kBytes, kErrors, kLatencyP50, kLatencyP90, kLatencyP99, kLatencyMax };

const char* cmp_op_text(CmpOp op);  // "=="
const char* metric_name(Metric m);  // "count"
bool compare(double lhs, CmpOp op, double rhs);

/// One function call in an assertion; the engine feeds it messages.
struct MetricCall {
  Metric metric = Metric::kCount;
  std::string filter_text;  // as written, for the report
  filter::Filter filter;    // empty = every message
  std::string text() const;  // "count(opcode LDLM_ENQUEUE)"
};

struct Operand {
  std::optional<double> number;  // a literal (already scaled by its unit)
  std::string literal;           // the literal as written ("5ms")
  std::size_t call = 0;          // index into Assertion::calls when !number
};

struct Comparison {
  Operand lhs, rhs;
  CmpOp op = CmpOp::kEq;
};

/// An expression tree over comparisons.
struct AssertNode {
  enum Kind { kCompare, kAnd, kOr, kNot } kind = kCompare;
  Comparison cmp;                                 // kCompare
  std::unique_ptr<AssertNode> left, right;        // kAnd/kOr (right), kNot (left)
};

class Assertion {
 public:
  /// Parses one --assert argument.  Throws Error naming the bad token and
  /// its column, e.g. "assertion 'count(x) =< 2': unexpected '<' at column 11".
  static Assertion parse(std::string_view text);

  const std::string& text() const { return text_; }
  std::vector<MetricCall>& calls() { return calls_; }
  const std::vector<MetricCall>& calls() const { return calls_; }
  const AssertNode& root() const { return *root_; }

 private:
  friend class AssertionParser;
  std::string text_;
  std::vector<MetricCall> calls_;
  std::unique_ptr<AssertNode> root_;
};

}  // namespace lnetcap::report
