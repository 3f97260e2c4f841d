// SPDX-License-Identifier: GPL-2.0-or-later
// filter_ast.h - the parsed form of a filter (filter.cpp builds and
// evaluates it; kernel_clauses.cpp turns it into in-kernel clauses).
// Internal to capture/src/filter.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../nid.h"

namespace lnetcap::filter {

enum class Field {
  kType, kPortal, kNid, kSrcNid, kDstNid, kNet, kSrcNet, kDstNet, kNi, kOpcode, kXid,
  kJobid, kJobidPresent, kStatus, kProjid, kLen, kPid, kRetries, kDir, kRpc, kHealth,
  kDrop, kRc, kQueue,
  kBody  // a row of include/lnetcap/fields.h (Term::body_field)
};
enum class Cmp { kEq, kNe, kLt, kLe, kGt, kGe };

struct Term {
  Field field;
  Cmp cmp = Cmp::kEq;
  std::int64_t number = 0;  // numeric fields and enumerations (all fit in 32 bits)
  std::uint64_t xid = 0;    // xid, queue (ns), body fields: compared unsigned
  std::size_t body_field = 0;  // kBody: the row (LNETCAP_BF_*)
  std::string text;         // jobid
  Nid nid;                  // NID fields
  Net net;                  // net fields; also ni when given as a net
  bool ni_is_net = false;
  std::string source;       // original text, for to_string()
};

// "a or b or c" is one kOr node with three children, not a chain of
// binary ones: a long list of alternatives (the usual big filter) is then
// a wide tree, never a deep one, and evaluating or freeing it recurses
// only as deep as the parentheses and "not"s nest (at most kMaxDepth,
// filter.h).
struct Node {
  enum Kind { kAnd, kOr, kNot, kTerm } kind;
  std::vector<std::unique_ptr<Node>> children;  // and, or: two or more; not: one
  Term term;
};

}  // namespace lnetcap::filter
