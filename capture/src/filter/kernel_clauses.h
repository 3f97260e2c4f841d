// SPDX-License-Identifier: GPL-2.0-or-later
// kernel_clauses.h - what of a filter the eBPF programs can test: a
// disjunction of clauses (struct lnetcap_clause, evaluated by
// bpf/lnetcap_clause.h) that accepts every message the filter accepts.
// The one translator from the filter language to the kernel, for the
// direct capture's fixed table (cfg.clause, with -i) and for lnetcapd's
// subscriber table.
//
// The clauses are a sound over-approximation, never exact: a term the
// kernel cannot test (opcode, jobid, status...) becomes "true" or, where
// it implies one, the LNet type that carries it (PtlRPC travels in PUTs);
// a "not" over a term that is not a type or direction becomes "true"; a
// filter that needs more than the table holds passes everything.  lnetcap
// and the daemon still evaluate every filter on every record they receive,
// so the clauses only decide what is worth sending up from the kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "../nid.h"
#include "filter.h"
#include "lnetcap_abi.h"

namespace lnetcap::filter {

/// One clause: a conjunction of kernel-testable terms (empty optionals and
/// full masks mean "any").
struct KernelClause {
  static constexpr std::uint32_t kAll = 0xffffffffu;
  std::uint32_t type_mask = kAll;  // bit t: LNet type t; bit 31: types >= 31
  std::uint32_t dir_mask = kAll;   // bit d: record direction d; bit 31: d >= 31
  std::optional<std::uint32_t> portal;  // a PUT or GET on this portal
  std::optional<Nid> src, dst, any;     // src NID, dest NID, either
  std::optional<Net> net;               // src or dest NID in the net
  std::optional<Nid> ni;                // the local NI's NID
  std::optional<Net> ni_net;            // the local NI's NID in the net

  bool operator==(const KernelClause&) const = default;
  /// Every message this clause accepts, `wider` accepts too.
  bool implies(const KernelClause& wider) const;
  /// Accepts every message (no term at all).
  bool is_true() const;
};

/// A disjunction of clauses; pass_all admits everything (then `clauses`
/// is empty).  No clause and not pass_all admits nothing.
struct KernelClauseSet {
  bool pass_all = false;
  std::vector<KernelClause> clauses;

  bool operator==(const KernelClauseSet&) const = default;
  static KernelClauseSet everything() { return {true, {}}; }
};

struct ClauseOptions {
  std::size_t max_clauses = LNETCAP_SUB_CLAUSES;
  /// The filter runs on pseudonymous records (forced anonymization): NIDs
  /// in it are pseudonyms and cannot be tested on the real ones.  (Nets,
  /// types, portals and directions are kept by the anonymizer.)
  bool nids_are_pseudonyms = false;
};

/// The clauses for one filter (an empty filter passes everything).
KernelClauseSet kernel_clauses(const Filter& f, const ClauseOptions& opts = {});
/// The union of several sets, at most max_clauses clauses (else pass_all);
/// clauses implied by another are left out.
KernelClauseSet unite(const std::vector<KernelClauseSet>& sets,
                      std::size_t max_clauses = LNETCAP_SUB_CLAUSES);
/// What both accept: every clause of `set` and `also` (-i), at most
/// max_clauses of them.  Exact: no clause is widened.
KernelClauseSet restrict_to(const KernelClauseSet& set, const KernelClause& also);
/// The table the programs read (gen is left alone: the writer owns it).
/// Requires set.clauses.size() <= LNETCAP_SUB_CLAUSES.
void fill_table(const KernelClauseSet& set, lnetcap_subfilter& table);
/// One clause as the programs read it.
void fill_clause(const KernelClause& c, lnetcap_clause& out);

}  // namespace lnetcap::filter
