// SPDX-License-Identifier: GPL-2.0-or-later
// filter.h - the lnetcap filter language.
//
//   expr    := or
//   or      := and ("or" and)*
//   and     := unary ("and" unary)*        (juxtaposition is NOT an "and")
//   unary   := "not" unary | "(" expr ")" | term
//   term    := "type" NAME | "portal" NUM|NAME | ["src"|"dst"] "nid" NID
//            | "net" NET | "opcode" NUM|NAME | "xid" NUM | "jobid" STRING
//            | "dir" send|recv|forward|drop | "rpc" request|reply|error
//            | "health" [OP] NAME | "drop" [REASON] | "queue" OP DURATION
//            | FIELD OP NUM
//   FIELD   := status | rc | uid | gid | projid | len | pid | retries | xid | portal | opcode
//            | a body field's keyword (include/lnetcap/fields.h, lnetcap -h)
//   DURATION:= NUM[ns|us|ms|s]   (LNet's queue time, records with QUEUE_VALID)
//   (status: the PtlRPC reply status; rc: LNet's completion status)
//   OP      := == | != | < | <= | > | >=    ("=" is accepted for "==")
//
// "!" / "&&" / "||" are accepted for not / and / or, as in tcpdump.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../message.h"
#include "../nid.h"

namespace lnetcap::filter {

struct Node;

/// What a filter may be, checked by Filter::parse before and while it
/// parses: lnetcapd evaluates every subscriber's filter on its one loop
/// thread for every record, so the size of a filter is what a subscriber
/// could otherwise spend of everyone's time (and, nested deeply enough,
/// of the parser's stack).  Far above any filter a person writes: a
/// thousand NIDs is about 25 KB.
struct Limits {
  static constexpr std::size_t kMaxBytes = 64 * 1024;  // of text
  static constexpr std::size_t kMaxTerms = 1024;       // terms ("type put", "nid X")
  static constexpr std::size_t kMaxDepth = 64;         // nested "(" and "not"
};

class Filter {
 public:
  Filter();  // matches everything
  ~Filter();
  Filter(Filter&&) noexcept;
  Filter& operator=(Filter&&) noexcept;

  /// Parses an expression.  Throws Error naming the bad token and its column:
  ///   filter: unknown LNet message type 'pot' at column 6 (expected put, get,
  ///   ack, reply or hello)
  /// origin: the -F file the text was read from; errors then give the
  /// line and column in that file instead of the column in the text.
  /// Text beyond Limits is refused with an Error naming the limit.
  static Filter parse(std::string_view text, std::string_view origin = {});
  /// Its number of terms (what evaluating it can cost, per record).
  std::size_t terms() const { return terms_; }

  bool matches(const Message& m) const;
  bool empty() const { return root_ == nullptr; }
  /// The parsed form (filter_ast.h), nullptr when empty; for
  /// kernel_clauses.h, which makes the in-kernel part of a filter.
  const Node* syntax_tree() const { return root_.get(); }
  /// Canonical text, fully parenthesised (for tests and pcapng comments).
  std::string to_string() const;

 private:
  std::unique_ptr<Node> root_;
  std::size_t terms_ = 0;
};

}  // namespace lnetcap::filter
