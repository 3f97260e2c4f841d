// SPDX-License-Identifier: GPL-2.0-or-later
// filter.cpp - lexer, recursive-descent parser and evaluator of the filter
// language described in filter.h.
#include "filter.h"
#include "filter_ast.h"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <functional>
#include <variant>

#include "../body_fields.h"
#include "../error.h"
#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/record.h"

namespace lnetcap::filter {

// ---------------------------------------------------------------------------
// Lexer
namespace {

enum class Tok { kWord, kString, kOp, kLParen, kRParen, kAnd, kOr, kNot, kEnd };

struct Token {
  Tok kind;
  std::string text;
  std::size_t column;  // 1-based, for error messages
};

bool is_op_char(char c) { return c == '<' || c == '>' || c == '=' || c == '!'; }

std::vector<Token> lex(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    const std::size_t col = i + 1;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
    } else if (c == '(') {
      out.push_back({Tok::kLParen, "(", col});
      ++i;
    } else if (c == ')') {
      out.push_back({Tok::kRParen, ")", col});
      ++i;
    } else if (c == '"' || c == '\'') {
      const std::size_t end = s.find(c, i + 1);
      if (end == std::string_view::npos)
        throw Error("filter: unterminated quoted string at column " + std::to_string(col));
      out.push_back({Tok::kString, std::string(s.substr(i + 1, end - i - 1)), col});
      i = end + 1;
    } else if (s.substr(i, 2) == "&&") {
      out.push_back({Tok::kAnd, "&&", col});
      i += 2;
    } else if (s.substr(i, 2) == "||") {
      out.push_back({Tok::kOr, "||", col});
      i += 2;
    } else if (s.substr(i, 3) == "<?>") {  // LNET_NID_ANY
      out.push_back({Tok::kWord, "<?>", col});
      i += 3;
    } else if (is_op_char(c)) {
      std::size_t n = (i + 1 < s.size() && s[i + 1] == '=') ? 2 : 1;
      std::string op(s.substr(i, n));
      if (op == "!") {
        out.push_back({Tok::kNot, op, col});
      } else {
        if (op == "=") op = "==";
        out.push_back({Tok::kOp, op, col});
      }
      i += n;
    } else {
      // A word runs to whitespace or a parenthesis.  Comparison characters
      // end it too, except inside a NID after '@' ("c0a80102@<99:0>").
      std::size_t j = i;
      bool in_nid = false;
      // (Not strchr: it finds the terminating NUL, so a NUL byte in the
      // text made an empty word and the lexer never advanced.)
      constexpr std::string_view kWordEnd = " \t\n\r()";
      while (j < s.size() && kWordEnd.find(s[j]) == std::string_view::npos &&
             (in_nid || !is_op_char(s[j]))) {
        if (s[j] == '@') in_nid = true;
        ++j;
      }
      std::string w(s.substr(i, j - i));
      Tok kind = Tok::kWord;
      if (strcasecmp(w.c_str(), "and") == 0) kind = Tok::kAnd;
      else if (strcasecmp(w.c_str(), "or") == 0) kind = Tok::kOr;
      else if (strcasecmp(w.c_str(), "not") == 0) kind = Tok::kNot;
      out.push_back({kind, w, col});
      i = j;
    }
  }
  out.push_back({Tok::kEnd, "", s.size() + 1});
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------
// Evaluation of the syntax tree (filter_ast.h)

namespace {

// Signed fields compare as int64 (every field up to 32 bits fits); xid is
// the one unsigned 64-bit field and must compare unsigned.
template <typename T>
bool compare_as(T a, Cmp c, T b) {
  switch (c) {
    case Cmp::kEq: return a == b;
    case Cmp::kNe: return a != b;
    case Cmp::kLt: return a < b;
    case Cmp::kLe: return a <= b;
    case Cmp::kGt: return a > b;
    case Cmp::kGe: return a >= b;
  }
  return false;
}

bool compare(std::int64_t a, Cmp c, std::int64_t b) { return compare_as(a, c, b); }

bool eval_term(const Term& t, const Message& m) {
  const LnetFields& l = m.lnet;
  const PtlrpcFields& r = m.rpc;
  const RecordHeader& h = m.rec.hdr;
  switch (t.field) {
    case Field::kType: return l.present && compare(l.type, t.cmp, t.number);
    case Field::kPortal: return l.portal && compare(*l.portal, t.cmp, t.number);
    case Field::kNid: return l.present && (l.src_nid == t.nid || l.dest_nid == t.nid);
    case Field::kSrcNid: return l.present && l.src_nid == t.nid;
    case Field::kDstNid: return l.present && l.dest_nid == t.nid;
    case Field::kNet: return l.present && (l.src_nid.net() == t.net || l.dest_nid.net() == t.net);
    case Field::kSrcNet: return l.present && l.src_nid.net() == t.net;
    case Field::kDstNet: return l.present && l.dest_nid.net() == t.net;
    case Field::kNi: return t.ni_is_net ? h.local_nid.net() == t.net : h.local_nid == t.nid;
    case Field::kOpcode: return r.present && r.body_len && compare(r.opc, t.cmp, t.number);
    case Field::kXid: {
      auto x = m.xid();
      return x && compare_as<std::uint64_t>(*x, t.cmp, t.xid);
    }
    case Field::kJobid: return r.present && r.jobid == t.text;
    case Field::kJobidPresent: return r.present && !r.jobid.empty();
    case Field::kStatus:
      // A request's pb_status carries the sender's pid: only replies and
      // errors have a status.
      return r.present && r.body_len && r.type != LNETCAP_PTL_RPC_MSG_REQUEST &&
             compare(r.status, t.cmp, t.number);
    case Field::kProjid: return r.present && r.body_len && compare(r.projid, t.cmp, t.number);
    case Field::kLen: return l.present && compare(l.payload_length, t.cmp, t.number);
    case Field::kPid:
      return (h.flags & LNETCAP_REC_F_TASK_VALID) && compare(h.pid, t.cmp, t.number);
    case Field::kRetries: return compare(h.retry_count, t.cmp, t.number);
    case Field::kDir: return compare(h.direction, t.cmp, t.number);
    case Field::kRpc: return r.present && r.body_len && compare(r.type, t.cmp, t.number);
    case Field::kHealth: return compare(h.health_status, t.cmp, t.number);
    case Field::kDrop:
      return h.direction == LNETCAP_DIR_DROP && (t.number < 0 || h.drop_reason == t.number);
    // LNet's completion status, where the hook knew it (printed as "rc").
    case Field::kRc: return (h.flags & LNETCAP_REC_F_STATUS_VALID) && compare(h.status, t.cmp, t.number);
    case Field::kQueue:
      return (h.flags & LNETCAP_REC_F_QUEUE_VALID) && compare_as<std::uint64_t>(h.queue_ns, t.cmp, t.xid);
    case Field::kBody: {
      // Only messages whose format carries the field, with it valid.
      const auto v = body_field_value(m, body_field(t.body_field));
      return v && compare_as<std::uint64_t>(*v, t.cmp, t.xid);
    }
  }
  return false;
}

// Recurses only as deep as the tree is (at most Limits::kMaxDepth): a
// list of alternatives is one node with many children (filter_ast.h).
bool eval(const Node& n, const Message& m) {
  switch (n.kind) {
    case Node::kAnd:
      for (const auto& c : n.children)
        if (!eval(*c, m)) return false;
      return true;
    case Node::kOr:
      for (const auto& c : n.children)
        if (eval(*c, m)) return true;
      return false;
    case Node::kNot: return !eval(*n.children.front(), m);
    case Node::kTerm: return eval_term(n.term, m);
  }
  return false;
}

std::string print(const Node& n) {
  switch (n.kind) {
    case Node::kAnd:
    case Node::kOr: {
      std::string out = "(";
      for (std::size_t i = 0; i < n.children.size(); ++i)
        out += (i ? (n.kind == Node::kAnd ? " and " : " or ") : "") + print(*n.children[i]);
      return out + ")";
    }
    case Node::kNot: return "not " + print(*n.children.front());
    case Node::kTerm: return n.term.source;
  }
  return "";
}

// ---------------------------------------------------------------------------
// Parser

struct NamedValue {
  const char* name;
  std::int64_t value;
};

// The values a field can hold: a number the user types outside them is
// refused with the range, never wrapped or truncated.
struct Bounds {
  std::int64_t min;
  std::uint64_t max;
};
constexpr Bounds kU8{0, UINT8_MAX}, kU32{0, UINT32_MAX}, kS32{INT32_MIN, INT32_MAX},
    kU64{0, UINT64_MAX};

class Parser {
 public:
  Parser(std::string_view text, std::string_view origin) : text_(text), origin_(origin) {
    if (text.size() > Limits::kMaxBytes)
      throw Error("filter: " + std::to_string(text.size()) + " bytes, more than the limit of " +
                      std::to_string(Limits::kMaxBytes),
                  "a filter is a few terms: name many NIDs by their net, or split the work");
    try {
      tokens_ = lex(text);
    } catch (const Error& e) {
      throw Error(located(e.what()));
    }
  }

  std::unique_ptr<Node> parse() {
    if (peek().kind == Tok::kEnd) return nullptr;
    auto n = parse_or();
    if (peek().kind == Tok::kRParen) fail(peek(), "unbalanced ')'");
    if (peek().kind != Tok::kEnd)
      fail(peek(), "expected 'and', 'or' or the end of the expression");
    if (tree_depth(*n) > Limits::kMaxDepth) too_deep(peek());
    return n;
  }

  // The terms parsed, for Filter::terms().
  std::size_t terms() const { return terms_; }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  const Token& take() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }

  [[noreturn]] void fail(const Token& t, const std::string& what) const {
    const std::string where = t.kind == Tok::kEnd ? "at the end of the expression"
                                                  : "at column " + std::to_string(t.column) +
                                                        " ('" + t.text + "')";
    throw Error(located("filter: " + what + " " + where), "see the filter syntax in lnetcap -h");
  }

  // With an origin (-F FILE), "at column N" (an offset in the whole text)
  // becomes "at line L, column C of FILE".
  std::string located(const std::string& message) const {
    static const std::string kAt = "at column ";
    const std::size_t at = message.find(kAt);
    if (origin_.empty() || at == std::string::npos) return message;
    std::size_t end = at + kAt.size();
    std::size_t column = 0;
    while (end < message.size() && std::isdigit(static_cast<unsigned char>(message[end])))
      column = column * 10 + static_cast<std::size_t>(message[end++] - '0');
    const std::size_t offset = std::min(column ? column - 1 : 0, text_.size());
    const std::string_view before = text_.substr(0, offset);
    const std::size_t newline = before.rfind('\n');
    const auto line = 1 + std::count(before.begin(), before.end(), '\n');
    const std::size_t col = newline == std::string_view::npos ? offset + 1 : offset - newline;
    return message.substr(0, at) + "at line " + std::to_string(line) + ", column " +
           std::to_string(col) + " of " + std::string(origin_) + message.substr(end);
  }

  [[noreturn]] void too_deep(const Token& t) const {
    fail(t, "nests 'and', 'or', 'not' and '(' more than " + std::to_string(Limits::kMaxDepth) +
                " levels deep (the limit)");
  }

  // The depth of the tree built (a "not" or an and/or inside another);
  // parse_unary bounds the recursion, this bounds what to_string() prints,
  // so that its text parses again.
  static std::size_t tree_depth(const Node& n) {
    std::size_t d = 0;
    for (const auto& c : n.children) d = std::max(d, tree_depth(*c));
    return n.kind == Node::kTerm ? 0 : d + 1;
  }

  // "a or b or c" (and "a and b and c") makes one node (filter_ast.h).
  std::unique_ptr<Node> parse_or() {
    auto left = parse_and();
    if (peek().kind != Tok::kOr) return left;
    auto n = std::make_unique<Node>();
    n->kind = Node::kOr;
    n->children.push_back(std::move(left));
    while (peek().kind == Tok::kOr) {
      take();
      n->children.push_back(parse_and());
    }
    return n;
  }

  std::unique_ptr<Node> parse_and() {
    auto left = parse_unary();
    if (peek().kind != Tok::kAnd) return left;
    auto n = std::make_unique<Node>();
    n->kind = Node::kAnd;
    n->children.push_back(std::move(left));
    while (peek().kind == Tok::kAnd) {
      take();
      n->children.push_back(parse_unary());
    }
    return n;
  }

  // Every "not" and "(" recurses once: depth_ bounds the stack.
  std::unique_ptr<Node> parse_unary() {
    const Token& t = peek();
    if (t.kind == Tok::kNot || t.kind == Tok::kLParen) {
      if (depth_ >= Limits::kMaxDepth) too_deep(t);
      ++depth_;
    }
    if (t.kind == Tok::kNot) {
      take();
      auto n = std::make_unique<Node>();
      n->kind = Node::kNot;
      n->children.push_back(parse_unary());
      --depth_;
      return n;
    }
    if (t.kind == Tok::kLParen) {
      take();
      auto n = parse_or();
      if (peek().kind != Tok::kRParen) fail(peek(), "expected ')' to close the '(' at column " +
                                                        std::to_string(t.column));
      take();
      --depth_;
      return n;
    }
    if (t.kind == Tok::kEnd) fail(t, "expected a term");
    if (t.kind != Tok::kWord) fail(t, "expected a term");
    auto n = std::make_unique<Node>();
    n->kind = Node::kTerm;
    if (++terms_ > Limits::kMaxTerms)
      fail(t, "has more than " + std::to_string(Limits::kMaxTerms) + " terms (the limit)");
    n->term = parse_term();
    return n;
  }

  const Token& expect_value(const Token& key, const char* what) {
    const Token& v = take();
    if (v.kind != Tok::kWord && v.kind != Tok::kString)
      fail(v, std::string("expected ") + what + " after '" + key.text + "'");
    return v;
  }

  // A decimal or 0x number within b; returns its two's-complement bits
  // (the caller's field type gives them their meaning).  what names the
  // value in the out-of-range message ("portal value").
  std::uint64_t number(const Token& t, const char* what, Bounds b) {
    std::string s = t.text;
    bool neg = false;
    if (!s.empty() && s[0] == '-') {
      neg = true;
      s.erase(0, 1);
    }
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      base = 16;
      s.erase(0, 2);
    }
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (s.empty() || (ec != std::errc() && ec != std::errc::result_out_of_range) ||
        p != s.data() + s.size())
      fail(t, "expected a number");
    // Magnitude of the most negative value allowed, computed without overflow.
    const std::uint64_t neg_limit = b.min < 0 ? std::uint64_t(-(b.min + 1)) + 1 : 0;
    if (ec == std::errc::result_out_of_range || (neg ? v > neg_limit : v > b.max))
      fail(t, std::string(what) + " out of range (" + std::to_string(b.min) + " to " +
                  std::to_string(b.max) + ")");
    return neg ? std::uint64_t{0} - v : v;
  }
  // A time in nanoseconds: a number with a unit, ns, us, ms or s ("1ms",
  // "250us"); a bare number is nanoseconds.
  std::uint64_t duration(const Token& t) {
    static const struct {
      const char* unit;
      std::uint64_t ns;
    } units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
    const std::string& s = t.text;
    std::size_t digits = 0;
    while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
    const std::string unit = s.substr(digits);
    std::uint64_t scale = unit.empty() ? 1 : 0;
    for (const auto& u : units)
      if (strcasecmp(unit.c_str(), u.unit) == 0) scale = u.ns;
    if (digits == 0 || scale == 0) fail(t, "expected a duration such as 500us, 2ms or 1s");
    Token n = t;
    n.text = s.substr(0, digits);
    const std::uint64_t v = number(n, "queue value", Bounds{0, UINT64_MAX / scale});
    return v * scale;
  }
  std::int64_t small_number(const Token& t, const char* what, Bounds b) {
    return static_cast<std::int64_t>(number(t, what, b));  // b is at most 32 bits wide
  }

  // NAME or number, looked up case-insensitively.
  std::int64_t enum_value(const std::string& field, const Token& t,
                          const std::vector<NamedValue>& names, const char* what,
                          const std::function<std::optional<std::uint32_t>(std::string_view)>& by_name = {}) {
    for (const auto& n : names)
      if (strcasecmp(n.name, t.text.c_str()) == 0) return n.value;
    if (by_name)
      if (auto v = by_name(t.text)) return *v;
    if (!t.text.empty() && (std::isdigit(static_cast<unsigned char>(t.text[0])) || t.text[0] == '-'))
      return small_number(t, (field + " value").c_str(), kU32);
    fail(t, std::string("unknown ") + what);
  }

  Cmp comparison(bool allow_implicit_eq) {
    if (peek().kind == Tok::kOp) {
      const std::string op = take().text;
      if (op == "==") return Cmp::kEq;
      if (op == "!=") return Cmp::kNe;
      if (op == "<") return Cmp::kLt;
      if (op == "<=") return Cmp::kLe;
      if (op == ">") return Cmp::kGt;
      if (op == ">=") return Cmp::kGe;
    }
    if (!allow_implicit_eq) fail(peek(), "expected a comparison (==, !=, <, <=, >, >=)");
    return Cmp::kEq;
  }

  Term parse_term() {
    const std::size_t first = pos_;
    const Token& key = take();
    std::string k = key.text;
    for (auto& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    Term t;
    if (k == "src" || k == "dst") {
      const Token& what = take();
      if (strcasecmp(what.text.c_str(), "nid") == 0) {
        t.field = k == "src" ? Field::kSrcNid : Field::kDstNid;
        t.nid = parse_nid(expect_value(what, "a NID"));
      } else if (strcasecmp(what.text.c_str(), "net") == 0) {
        t.field = k == "src" ? Field::kSrcNet : Field::kDstNet;
        t.net = parse_net(expect_value(what, "a net"));
      } else {
        fail(what, "expected 'nid' or 'net' after '" + key.text + "'");
      }
    } else if (k == "nid") {
      t.field = Field::kNid;
      t.nid = parse_nid(expect_value(key, "a NID"));
    } else if (k == "net") {
      t.field = Field::kNet;
      t.net = parse_net(expect_value(key, "a net"));
    } else if (k == "ni") {
      const Token& v = expect_value(key, "a NID, a net or none");
      t.field = Field::kNi;
      if (strcasecmp(v.text.c_str(), "none") == 0) {
        t.nid = Nid{};  // no local NI: a message LNet finalized before choosing one
      } else if (auto n = Nid::parse(v.text)) {
        t.nid = *n;
      } else if (auto net = Net::parse(v.text)) {
        t.net = *net;
        t.ni_is_net = true;
      } else {
        fail(v, "invalid NID or net (e.g. 10.0.0.1@tcp, o2ib1, or none)");
      }
    } else if (k == "type") {
      t.field = Field::kType;
      t.cmp = comparison(true);
      t.number = enum_value(key.text, expect_value(key, "an LNet message type"), {},
                            "LNet message type (expected put, get, ack, reply or hello)",
                            msg_type_from_name);
    } else if (k == "portal") {
      t.field = Field::kPortal;
      t.cmp = comparison(true);
      t.number = enum_value(key.text, expect_value(key, "a portal"), {},
                            "portal (a number or a name such as MDS_REQUEST, OST_IO)",
                            portal_from_name);
    } else if (k == "opcode" || k == "opc") {
      t.field = Field::kOpcode;
      t.cmp = comparison(true);
      t.number = enum_value(key.text, expect_value(key, "an opcode"), {},
                            "opcode (a number or a name such as LDLM_ENQUEUE, OST_READ)",
                            opcode_from_name);
    } else if (k == "jobid") {
      const Tok next = peek().kind;
      if (next == Tok::kWord || next == Tok::kString) {
        t.field = Field::kJobid;
        t.text = take().text;
      } else {
        t.field = Field::kJobidPresent;
      }
    } else if (k == "dir") {
      t.field = Field::kDir;
      t.number = enum_value(key.text, expect_value(key, "a direction"),
                            {
#define X(n, v, s) {s, v},
                                LNETCAP_DIR_LIST(X)
#undef X
                                    {"in", LNETCAP_DIR_RECV},
                                {"out", LNETCAP_DIR_SEND},
                            },
                            "direction (expected send, recv, forward, drop or wire)");
    } else if (k == "rpc") {
      t.field = Field::kRpc;
      t.number = enum_value(key.text, expect_value(key, "request, reply or error"),
                            {
#define X(n, v, s) {s, v},
                                LNETCAP_PTL_RPC_MSG_LIST(X)
#undef X
                            },
                            "RPC message type (expected request, reply or error)");
    } else if (k == "health") {
      t.field = Field::kHealth;
      t.cmp = comparison(true);
      t.number = enum_value(key.text, expect_value(key, "a health status"),
                            {
#define X(n, v, s) {s, v},
                                LNETCAP_HEALTH_LIST(X)
#undef X
                            },
                            "health status (e.g. OK, LOCAL_TIMEOUT, REMOTE_DROPPED)");
    } else if (k == "drop") {
      // "drop" alone: every DROP record; "drop REASON": LNet's reason.
      t.field = Field::kDrop;
      t.number = -1;
      if (peek().kind == Tok::kWord || peek().kind == Tok::kString)
        t.number = enum_value(key.text, take(),
                              {
#define X(n, v, s, d) {s, v},
                                  LNETCAP_DROP_REASON_LIST(X)
#undef X
                              },
                              "drop reason (not-sent, send-failed, no-match, refused, recv-failed, "
                              "parse-dropped, drop-rule, malformed or response-timeout)");
    } else if (k == "queue") {
      t.field = Field::kQueue;
      t.cmp = comparison(true);
      t.xid = duration(expect_value(key, "a duration"));
    } else if (k == "xid" || k == "status" || k == "rc" || k == "projid" || k == "len" ||
               k == "pid" || k == "retries") {
      struct NumericField {
        const char* name;
        Field field;
        Bounds bounds;  // the width of the field in the record
      };
      static const NumericField fields[] = {
          {"xid", Field::kXid, kU64},       {"status", Field::kStatus, kS32},
          {"rc", Field::kRc, kS32},         // (uid, gid: rows of include/lnetcap/fields.h)
          {"projid", Field::kProjid, kU32}, {"len", Field::kLen, kU32},
          {"pid", Field::kPid, kU32},       {"retries", Field::kRetries, kU8}};
      Bounds bounds = kU32;
      for (const auto& f : fields)
        if (k == f.name) {
          t.field = f.field;
          bounds = f.bounds;
        }
      t.cmp = comparison(true);
      const Token& v = expect_value(key, "a number");
      const std::string what = k + " value";
      if (t.field == Field::kXid)
        t.xid = number(v, what.c_str(), bounds);
      else
        t.number = small_number(v, what.c_str(), bounds);
    } else if (const auto row = body_field_by_keyword(k)) {
      // A body field (include/lnetcap/fields.h): FIELD OP NUM.
      t.field = Field::kBody;
      t.body_field = *row;
      t.cmp = comparison(true);
      const std::string what = k + " value";
      t.xid = number(expect_value(key, "a number"), what.c_str(),
                     Bounds{0, body_field_max(body_field(*row))});
    } else {
      fail(key, "unknown filter keyword");
    }
    for (std::size_t i = first; i < pos_; ++i)
      t.source += (i == first ? "" : " ") + source_text(tokens_[i]);
    return t;
  }

  // A token as the user could type it again: a quoted string keeps its
  // quotes (a jobid "dd 500" must not print as two words).  The lexer ends a
  // string at its own quote character, so it never holds both kinds.
  static std::string source_text(const Token& t) {
    if (t.kind != Tok::kString) return t.text;
    const char q = t.text.find('"') == std::string::npos ? '"' : '\'';
    return q + t.text + q;
  }

  Nid parse_nid(const Token& t) {
    auto n = Nid::parse(t.text);
    if (!n) fail(t, "invalid NID (e.g. 10.0.0.1@tcp, 16@kfi, 0@lo)");
    return *n;
  }
  Net parse_net(const Token& t) {
    auto n = Net::parse(t.text);
    if (!n) fail(t, "invalid net (e.g. tcp, o2ib1, kfi)");
    return *n;
  }

  std::string_view text_;
  std::string_view origin_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  std::size_t terms_ = 0;  // parsed so far
  std::size_t depth_ = 0;  // "not"s and "("s open
};

}  // namespace

Filter::Filter() = default;
Filter::~Filter() = default;
Filter::Filter(Filter&&) noexcept = default;
Filter& Filter::operator=(Filter&&) noexcept = default;

Filter Filter::parse(std::string_view text, std::string_view origin) {
  Filter f;
  Parser parser(text, origin);
  f.root_ = parser.parse();
  f.terms_ = parser.terms();
  return f;
}

bool Filter::matches(const Message& m) const { return !root_ || eval(*root_, m); }

std::string Filter::to_string() const { return root_ ? print(*root_) : ""; }

}  // namespace lnetcap::filter
