// SPDX-License-Identifier: GPL-2.0-or-later
// assertion.cpp - recursive-descent parser for the --assert language.
#include "assertion.h"

#include <cctype>
#include <charconv>
#include <cstring>

#include "error.h"

namespace lnetcap::report {

const char* cmp_op_text(CmpOp op) {
  switch (op) {
    case CmpOp::kEq: return "==";
    case CmpOp::kNe: return "!=";
    case CmpOp::kLt: return "<";
    case CmpOp::kLe: return "<=";
    case CmpOp::kGt: return ">";
    case CmpOp::kGe: return ">=";
  }
  return "?";
}

const char* metric_name(Metric m) {
  switch (m) {
    case Metric::kCount: return "count";
    case Metric::kBytes: return "bytes";
    case Metric::kErrors: return "errors";
    case Metric::kLatencyP50: return "latency_p50";
    case Metric::kLatencyP90: return "latency_p90";
    case Metric::kLatencyP99: return "latency_p99";
    case Metric::kLatencyMax: return "latency_max";
  }
  return "?";
}

bool compare(double l, CmpOp op, double r) {
  switch (op) {
    case CmpOp::kEq: return l == r;
    case CmpOp::kNe: return l != r;
    case CmpOp::kLt: return l < r;
    case CmpOp::kLe: return l <= r;
    case CmpOp::kGt: return l > r;
    case CmpOp::kGe: return l >= r;
  }
  return false;
}

std::string MetricCall::text() const {
  return std::string(metric_name(metric)) + "(" + filter_text + ")";
}

namespace {

struct Unit {
  const char* suffix;
  double scale;
};
// Times scale to milliseconds, the unit latency functions answer in.
constexpr Unit kUnits[] = {{"ns", 1e-6}, {"us", 1e-3}, {"ms", 1},       {"s", 1000},
                           {"KiB", 1024}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
                           {"k", 1e3},    {"M", 1e6},   {"G", 1e9}};

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

class AssertionParser {
 public:
  explicit AssertionParser(std::string_view text) : s_(text) {}

  Assertion run() {
    Assertion a;
    a.text_ = std::string(s_);
    out_ = &a;
    skip_space();
    if (pos_ == s_.size()) fail("empty assertion", pos_);
    a.root_ = parse_or();
    skip_space();
    if (pos_ != s_.size()) fail("unexpected '" + word_at(pos_) + "'", pos_);
    return a;
  }

 private:
  [[noreturn]] void fail(const std::string& what, std::size_t col) const {
    throw Error("assertion '" + std::string(s_) + "': " + what + " at column " +
                    std::to_string(col + 1),
                "e.g. --assert 'count(opcode LDLM_ENQUEUE) <= 2' (see docs/REPORTS.md)");
  }

  std::string word_at(std::size_t p) const {
    if (p >= s_.size()) return "end of text";
    std::size_t e = p;
    if (ident_char(s_[e]))
      while (e < s_.size() && ident_char(s_[e])) ++e;
    else
      ++e;
    return std::string(s_.substr(p, e - p));
  }

  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }

  // Accepts a keyword (whole word) or a symbol at the current position.
  bool accept(std::string_view tok) {
    skip_space();
    if (s_.substr(pos_, tok.size()) != tok) return false;
    const std::size_t end = pos_ + tok.size();
    if (ident_char(tok.back()) && end < s_.size() && ident_char(s_[end])) return false;
    pos_ = end;
    return true;
  }

  std::unique_ptr<AssertNode> binary(AssertNode::Kind k, std::unique_ptr<AssertNode> l,
                                     std::unique_ptr<AssertNode> r) {
    auto n = std::make_unique<AssertNode>();
    n->kind = k;
    n->left = std::move(l);
    n->right = std::move(r);
    return n;
  }

  std::unique_ptr<AssertNode> parse_or() {
    auto l = parse_and();
    while (accept("or") || accept("||")) l = binary(AssertNode::kOr, std::move(l), parse_and());
    return l;
  }

  std::unique_ptr<AssertNode> parse_and() {
    auto l = parse_unary();
    while (accept("and") || accept("&&")) l = binary(AssertNode::kAnd, std::move(l), parse_unary());
    return l;
  }

  std::unique_ptr<AssertNode> parse_unary() {
    skip_space();
    // "!=" is an operator, never a negation.
    if (accept("not") || (s_.substr(pos_, 2) != "!=" && accept("!")))
      return binary(AssertNode::kNot, parse_unary(), nullptr);
    if (accept("(")) {
      auto n = parse_or();
      if (!accept(")")) fail("expected ')' but found '" + word_at(pos_) + "'", pos_);
      return n;
    }
    auto n = std::make_unique<AssertNode>();
    n->cmp.lhs = parse_operand();
    n->cmp.op = parse_op();
    n->cmp.rhs = parse_operand();
    return n;
  }

  CmpOp parse_op() {
    skip_space();
    static constexpr std::pair<const char*, CmpOp> ops[] = {
        {"==", CmpOp::kEq}, {"!=", CmpOp::kNe}, {"<=", CmpOp::kLe}, {">=", CmpOp::kGe},
        {"<", CmpOp::kLt},  {">", CmpOp::kGt},  {"=", CmpOp::kEq}};
    for (const auto& [text, op] : ops)
      if (s_.substr(pos_, std::strlen(text)) == text) {
        pos_ += std::strlen(text);
        return op;
      }
    fail("expected a comparison (== != < <= > >=) but found '" + word_at(pos_) + "'", pos_);
  }

  Operand parse_operand() {
    skip_space();
    const std::size_t start = pos_;
    if (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.'))
      return parse_number(start);
    std::size_t e = pos_;
    while (e < s_.size() && ident_char(s_[e])) ++e;
    if (e == pos_) fail("expected a number or a function such as count(...) but found '" +
                            word_at(pos_) + "'", pos_);
    const std::string name(s_.substr(pos_, e - pos_));
    std::optional<Metric> metric;
    for (Metric m : {Metric::kCount, Metric::kBytes, Metric::kErrors, Metric::kLatencyP50,
                     Metric::kLatencyP90, Metric::kLatencyP99, Metric::kLatencyMax})
      if (name == metric_name(m)) metric = m;
    if (!metric)
      fail("unknown function '" + name +
               "' (expected count, bytes, errors, latency_p50, latency_p90, latency_p99 or "
               "latency_max)",
           start);
    pos_ = e;
    skip_space();
    if (pos_ >= s_.size() || s_[pos_] != '(') fail("expected '(' after " + name, pos_);
    const std::size_t open = pos_++;
    const std::size_t arg_start = pos_;
    // Find the matching ')': the filter has its own parentheses and quotes.
    int depth = 1;
    char quote = 0;
    for (; pos_ < s_.size(); ++pos_) {
      const char c = s_[pos_];
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '(') {
        ++depth;
      } else if (c == ')' && --depth == 0) {
        break;
      }
    }
    if (pos_ >= s_.size()) fail("'(' is never closed", open);
    std::string arg(s_.substr(arg_start, pos_ - arg_start));
    ++pos_;
    const auto b = arg.find_first_not_of(" \t");
    arg = b == std::string::npos ? "" : arg.substr(b, arg.find_last_not_of(" \t") - b + 1);

    MetricCall call;
    call.metric = *metric;
    call.filter_text = arg;
    if (!arg.empty() && arg != "*") {
      try {
        call.filter = filter::Filter::parse(arg);
      } catch (const Error& err) {
        throw Error("assertion '" + std::string(s_) + "': in the filter of " + name + "() at column " +
                        std::to_string(arg_start + 1) + ": " + err.what(),
                    err.hint());
      }
    }
    out_->calls_.push_back(std::move(call));
    Operand o;
    o.call = out_->calls_.size() - 1;
    return o;
  }

  Operand parse_number(std::size_t start) {
    std::size_t e = pos_;
    while (e < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[e])) || s_[e] == '.')) ++e;
    double v = 0;
    auto [p, ec] = std::from_chars(s_.data() + pos_, s_.data() + e, v);
    if (ec != std::errc() || p != s_.data() + e) fail("bad number '" + word_at(start) + "'", start);
    pos_ = e;
    std::size_t u = e;
    while (u < s_.size() && std::isalpha(static_cast<unsigned char>(s_[u]))) ++u;
    if (u > e) {
      const std::string_view suffix = s_.substr(e, u - e);
      bool known = false;
      for (const Unit& unit : kUnits)
        if (suffix == unit.suffix) {
          v *= unit.scale;
          known = true;
        }
      if (!known)
        fail("unknown unit '" + std::string(suffix) + "' (expected ns, us, ms, s, k, M, G, KiB, MiB or GiB)",
             e);
      pos_ = u;
    }
    Operand o;
    o.number = v;
    o.literal = std::string(s_.substr(start, pos_ - start));
    return o;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  Assertion* out_ = nullptr;
};

Assertion Assertion::parse(std::string_view text) { return AssertionParser(text).run(); }

}  // namespace lnetcap::report
