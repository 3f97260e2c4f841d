// SPDX-License-Identifier: GPL-2.0-or-later
// kernel_clauses.cpp - a filter's syntax tree to a disjunction of in-kernel
// clauses (kernel_clauses.h).  Negations are pushed down to the terms (De
// Morgan); "and" is the product of the two sides' clauses, "or" their
// union.  Each step may only widen what is accepted.
#include "kernel_clauses.h"

#include <algorithm>
#include <cstring>

#include "filter_ast.h"
#include "lnetcap/lnet.h"
#include "lnetcap/record.h"

namespace lnetcap::filter {
namespace {

constexpr std::uint32_t bit(std::uint32_t v) { return 1u << (v < 31 ? v : 31); }
constexpr std::uint32_t kPutGet = bit(LNETCAP_MSG_PUT) | bit(LNETCAP_MSG_GET);

bool holds(std::uint64_t a, Cmp c, std::int64_t b) {
  const auto x = static_cast<std::int64_t>(a);
  switch (c) {
    case Cmp::kEq: return x == b;
    case Cmp::kNe: return x != b;
    case Cmp::kLt: return x < b;
    case Cmp::kLe: return x <= b;
    case Cmp::kGt: return x > b;
    case Cmp::kGe: return x >= b;
  }
  return false;
}

// The mask of values v (a u32 field) for which "v CMP n" is `want`: bits
// 0..30 exactly; bit 31 when some v >= 31 qualifies.  Over v >= 31 the
// comparison changes only around n, so a few samples decide.
std::uint32_t mask_of(Cmp c, std::int64_t n, bool want) {
  std::uint32_t m = 0;
  for (std::uint32_t v = 0; v < 31; ++v)
    if (holds(v, c, n) == want) m |= 1u << v;
  const std::int64_t samples[] = {31, n - 1, n, n + 1, 0xffffffffLL};
  for (std::int64_t v : samples)
    if (v >= 31 && v <= 0xffffffffLL && holds(static_cast<std::uint64_t>(v), c, n) == want)
      m |= 1u << 31;
  return m;
}

struct Dnf {
  bool any = false;                   // "true": every message
  std::vector<KernelClause> clauses;  // else their disjunction (none: false)
};

Dnf yes() { return Dnf{true, {}}; }
Dnf one(const KernelClause& c) { return c.is_true() ? yes() : Dnf{false, {c}}; }

// The clause accepting what both accept, or nothing when they conflict.
// Two different "either NID" or net terms can both hold (src one, dest the
// other): one is kept, which is wider.
std::optional<KernelClause> intersect(const KernelClause& a, const KernelClause& b) {
  KernelClause c = a;
  c.type_mask &= b.type_mask;
  c.dir_mask &= b.dir_mask;
  if (b.portal) {
    if (c.portal && *c.portal != *b.portal) return std::nullopt;
    c.portal = b.portal;
  }
  if (c.portal) c.type_mask &= kPutGet;
  if (b.src) {
    if (c.src && *c.src != *b.src) return std::nullopt;
    c.src = b.src;
  }
  if (b.dst) {
    if (c.dst && *c.dst != *b.dst) return std::nullopt;
    c.dst = b.dst;
  }
  if (!c.any) c.any = b.any;
  if (!c.net) c.net = b.net;
  // A message has one local NI: two different ones (or nets) never hold.
  if (b.ni) {
    if (c.ni && *c.ni != *b.ni) return std::nullopt;
    c.ni = b.ni;
  }
  if (b.ni_net) {
    if (c.ni_net && *c.ni_net != *b.ni_net) return std::nullopt;
    c.ni_net = b.ni_net;
  }
  if (c.type_mask == 0 || c.dir_mask == 0) return std::nullopt;
  return c;
}

// Two clauses that differ only in their type (or direction) mask are one
// clause with both masks: exact, and it keeps "type put or type get" small.
bool merge_masks(KernelClause& a, const KernelClause& b) {
  KernelClause x = a, y = b;
  x.type_mask = y.type_mask = 0;
  if (x == y) {
    a.type_mask |= b.type_mask;
    return true;
  }
  x = a, y = b;
  x.dir_mask = y.dir_mask = 0;
  if (x == y) {
    a.dir_mask |= b.dir_mask;
    return true;
  }
  return false;
}

// Drops clauses another one implies (and duplicates), merges masks.
void simplify(std::vector<KernelClause>& cs) {
  for (bool merged = true; merged;) {
    merged = false;
    for (std::size_t i = 0; i < cs.size() && !merged; ++i)
      for (std::size_t j = i + 1; j < cs.size() && !merged; ++j)
        if (merge_masks(cs[i], cs[j])) {
          cs.erase(cs.begin() + static_cast<std::ptrdiff_t>(j));
          merged = true;
        }
  }
  std::vector<KernelClause> out;
  for (std::size_t i = 0; i < cs.size(); ++i) {
    bool redundant = false;
    for (std::size_t j = 0; j < cs.size() && !redundant; ++j) {
      if (i == j || !cs[i].implies(cs[j])) continue;
      // Equal clauses imply each other: keep the first of them.
      redundant = !cs[j].implies(cs[i]) || j < i;
    }
    if (!redundant) out.push_back(cs[i]);
  }
  cs = std::move(out);
}

// Merged masks can make a clause that accepts everything.
bool has_true_clause(const std::vector<KernelClause>& cs) {
  return std::any_of(cs.begin(), cs.end(), [](const KernelClause& c) { return c.is_true(); });
}

class Approximator {
 public:
  explicit Approximator(const ClauseOptions& o) : o_(o) {}

  Dnf node(const Node& n, bool negated) const {
    switch (n.kind) {
      case Node::kNot: return node(*n.children.front(), !negated);
      case Node::kAnd:
      case Node::kOr: {
        // "a and b and c" as ((a and b) and c); under "not", De Morgan.
        const bool conjunction = (n.kind == Node::kAnd) != negated;
        Dnf acc = node(*n.children.front(), negated);
        for (std::size_t i = 1; i < n.children.size(); ++i)
          acc = conjunction ? both(std::move(acc), node(*n.children[i], negated))
                            : either(std::move(acc), node(*n.children[i], negated));
        return acc;
      }
      case Node::kTerm: return term(n.term, negated);
    }
    return yes();
  }

 private:
  Dnf either(Dnf a, Dnf b) const {
    if (a.any || b.any) return yes();
    a.clauses.insert(a.clauses.end(), b.clauses.begin(), b.clauses.end());
    simplify(a.clauses);
    if (a.clauses.size() > o_.max_clauses || has_true_clause(a.clauses)) return yes();
    return a;
  }

  Dnf both(Dnf a, Dnf b) const {
    if (a.any) return b;
    if (b.any) return a;
    // Too many products: either side alone is wider than the "and".
    if (a.clauses.size() * b.clauses.size() > o_.max_clauses)
      return a.clauses.size() <= b.clauses.size() ? a : b;
    Dnf out;
    for (const auto& x : a.clauses)
      for (const auto& y : b.clauses)
        if (auto c = intersect(x, y)) out.clauses.push_back(*c);
    simplify(out.clauses);
    if (has_true_clause(out.clauses)) return yes();
    return out;
  }

  // A NID the programs can compare: a 4-byte or 16-byte address, real
  // (`ni none`, the unset NID, is left to the user-space filter).
  bool testable(const Nid& n) const {
    return !o_.nids_are_pseudonyms && !n.is_any() && !n.is_unset() && (n.size == 0 || n.size == 12);
  }

  Dnf term(const Term& t, bool negated) const {
    KernelClause c;
    switch (t.field) {
      case Field::kType:
        c.type_mask = mask_of(t.cmp, t.number, !negated);
        return c.type_mask ? one(c) : Dnf{};
      case Field::kDir:
        c.dir_mask = mask_of(t.cmp, t.number, !negated);
        return c.dir_mask ? one(c) : Dnf{};
      case Field::kDrop:
        if (negated && t.number >= 0) return yes();  // any record but this reason's drops
        c.dir_mask = negated ? ~bit(LNETCAP_DIR_DROP) : bit(LNETCAP_DIR_DROP);
        return one(c);
      default: break;
    }
    // Every other term, negated, holds for messages it says nothing about.
    if (negated) return yes();
    switch (t.field) {
      case Field::kPortal:
        c.type_mask = kPutGet;  // only PUT and GET have a portal
        if (t.cmp == Cmp::kEq) c.portal = static_cast<std::uint32_t>(t.number);
        return one(c);
      case Field::kNid:
        if (testable(t.nid)) c.any = t.nid;
        return one(c);
      case Field::kSrcNid:
        if (testable(t.nid)) c.src = t.nid;
        return one(c);
      case Field::kDstNid:
        if (testable(t.nid)) c.dst = t.nid;
        return one(c);
      case Field::kNi:
        if (t.ni_is_net) {
          if (t.net.type != LNETCAP_NID_TYPE_ANY) c.ni_net = t.net;
        } else if (testable(t.nid)) {
          c.ni = t.nid;
        }
        return one(c);
      case Field::kNet:
      case Field::kSrcNet:  // a src net implies "src or dest" in it
      case Field::kDstNet:
        if (t.net.type != LNETCAP_NID_TYPE_ANY) c.net = t.net;
        return one(c);
      // PtlRPC is decoded only from PUTs (message.cpp, decode_message).
      case Field::kOpcode:
      case Field::kJobid:
      case Field::kJobidPresent:
      case Field::kStatus:
      case Field::kProjid:
      case Field::kRpc:
      case Field::kBody:
        c.type_mask = bit(LNETCAP_MSG_PUT);
        return one(c);
      // An XID is the match bits of an ACK, PUT or GET.
      case Field::kXid:
        c.type_mask = bit(LNETCAP_MSG_ACK) | kPutGet;
        return one(c);
      default: return yes();  // not testable in the kernel
    }
  }

  const ClauseOptions& o_;
};

void put_nid(lnetcap_nid& out, std::uint8_t& words, const Nid& n) {
  std::uint8_t raw[sizeof(lnetcap_nid)];
  n.to_lnet_nid(raw);
  std::memcpy(&out, raw, sizeof(raw));
  words = n.size == 0 ? 1 : 4;
}

// nid_num as it sits in memory: big-endian.
std::uint16_t net_num_be(std::uint16_t num) {
  std::uint8_t b[2];
  store_be16(b, num);
  std::uint16_t v;
  std::memcpy(&v, b, 2);
  return v;
}

}  // namespace

bool KernelClause::is_true() const {
  return type_mask == kAll && dir_mask == kAll && !portal && !src && !dst && !any && !net &&
         !ni && !ni_net;
}

bool KernelClause::implies(const KernelClause& w) const {
  if ((type_mask & ~w.type_mask) || (dir_mask & ~w.dir_mask)) return false;
  if (w.portal && portal != w.portal) return false;
  if (w.src && src != w.src) return false;
  if (w.dst && dst != w.dst) return false;
  // "either NID is X" follows from "src is X" or "dest is X" too.
  if (w.any && any != w.any && src != w.any && dst != w.any) return false;
  if (w.net) {
    const Net& n = *w.net;
    if (!((net && *net == n) || (src && src->net() == n) || (dst && dst->net() == n) ||
          (any && any->net() == n)))
      return false;
  }
  if (w.ni && ni != w.ni) return false;
  if (w.ni_net && !((ni_net && *ni_net == *w.ni_net) || (ni && ni->net() == *w.ni_net)))
    return false;
  return true;
}

KernelClauseSet kernel_clauses(const Filter& f, const ClauseOptions& opts) {
  const Node* root = f.syntax_tree();
  if (!root) return KernelClauseSet::everything();
  Dnf d = Approximator(opts).node(*root, false);
  if (d.any || d.clauses.size() > opts.max_clauses) return KernelClauseSet::everything();
  return KernelClauseSet{false, std::move(d.clauses)};
}

KernelClauseSet unite(const std::vector<KernelClauseSet>& sets, std::size_t max_clauses) {
  KernelClauseSet out;
  for (const auto& s : sets) {
    if (s.pass_all) return KernelClauseSet::everything();
    out.clauses.insert(out.clauses.end(), s.clauses.begin(), s.clauses.end());
  }
  simplify(out.clauses);
  if (out.clauses.size() > max_clauses || has_true_clause(out.clauses))
    return KernelClauseSet::everything();
  return out;
}

KernelClauseSet restrict_to(const KernelClauseSet& set, const KernelClause& also) {
  if (also.is_true()) return set;
  if (set.pass_all) return KernelClauseSet{false, {also}};
  KernelClauseSet out;
  for (const auto& c : set.clauses)
    if (auto both = intersect(c, also)) out.clauses.push_back(*both);
  simplify(out.clauses);
  return out;
}

void fill_clause(const KernelClause& c, lnetcap_clause& k) {
  std::memset(&k, 0, sizeof(k));
  k.type_mask = c.type_mask;
  k.dir_mask = c.dir_mask;
  if (c.portal) {
    k.terms |= LNETCAP_CL_PORTAL;
    k.portal = *c.portal;
  }
  if (c.src) {
    k.terms |= LNETCAP_CL_SRC;
    put_nid(k.src, k.src_words, *c.src);
  }
  if (c.dst) {
    k.terms |= LNETCAP_CL_DST;
    put_nid(k.dst, k.dst_words, *c.dst);
  }
  if (c.any) {
    k.terms |= LNETCAP_CL_ANY;
    put_nid(k.any, k.any_words, *c.any);
  }
  if (c.net) {
    k.terms |= LNETCAP_CL_NET;
    k.net_type = c.net->type;
    k.net_num = net_num_be(c.net->num);
  }
  if (c.ni) {
    k.terms |= LNETCAP_CL_NI;
    put_nid(k.ni, k.ni_words, *c.ni);
  }
  if (c.ni_net) {
    k.terms |= LNETCAP_CL_NI_NET;
    k.ni_net_type = c.ni_net->type;
    k.ni_net_num = net_num_be(c.ni_net->num);
  }
}

void fill_table(const KernelClauseSet& set, lnetcap_subfilter& t) {
  t.pass_all = set.pass_all ? 1 : 0;
  t.count = 0;
  std::memset(t.clause, 0, sizeof(t.clause));
  if (set.pass_all) return;
  for (const auto& c : set.clauses) {
    if (t.count >= LNETCAP_SUB_CLAUSES) {  // unite() never makes this many
      t.pass_all = 1;
      return;
    }
    fill_clause(c, t.clause[t.count++]);
  }
}

}  // namespace lnetcap::filter
