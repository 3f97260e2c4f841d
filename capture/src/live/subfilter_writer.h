// SPDX-License-Identifier: GPL-2.0-or-later
// subfilter_writer.h - rewrites lnetcapd's in-kernel clause table (struct
// lnetcap_subfilter, bpf/lnetcap_abi.h) while the programs read it.
//
// A sequence lock: gen becomes odd, the clauses are written, gen becomes
// even (and larger).  A program that reads an odd gen, or a gen that
// changed while it tested the message, lets the message pass, so a reader
// never rejects on a half-written table.  One writer only (the daemon's
// loop); nothing here needs a system call.
#pragma once

#include <cstdint>

#include "../filter/kernel_clauses.h"
#include "lnetcap_abi.h"

namespace lnetcap::live {

class SubfilterWriter {
 public:
  /// table: the mapped map value (RecordSource::kernel_clause_table()).
  explicit SubfilterWriter(lnetcap_subfilter* table) : table_(table) {}
  /// Makes the programs test `set` from now on; false when the table
  /// already held exactly that (nothing written).
  bool publish(const filter::KernelClauseSet& set);
  /// Updates written so far.
  std::uint64_t updates() const { return updates_; }

 private:
  lnetcap_subfilter* table_;
  std::uint64_t updates_ = 0;
};

}  // namespace lnetcap::live
