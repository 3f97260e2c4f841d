// SPDX-License-Identifier: GPL-2.0-or-later
#include "capture_config.h"

#include <bit>
#include <cstddef>
#include <cstring>

#include "../error.h"
#include "../nid.h"

namespace lnetcap::live {
namespace {

// -i as a clause term: a local NID ("10.0.0.1@tcp") or net ("o2ib1").
filter::KernelClause interface_clause(const Options& opts) {
  filter::KernelClause c;
  if (opts.interface.empty() || opts.interface == "any" || opts.interface == "all") return c;
  if (auto nid = Nid::parse(opts.interface); nid && opts.interface.find('@') != std::string::npos)
    c.ni = *nid;
  else if (auto net = Net::parse(opts.interface))
    c.ni_net = *net;
  else
    throw Error("-i " + opts.interface + ": not an LNet NID or net",
                "use a local NID such as 10.0.0.1@tcp, a net such as o2ib1, or any; "
                "lnetcap -D lists the local NIs");
  return c;
}

// The hooks' direction gate (cfg.dir_mask) for the directions some clause
// accepts: a DROP record is kept by its side's bit.
std::uint32_t hook_dirs(const filter::KernelClauseSet& set) {
  std::uint32_t any = 0;
  for (const auto& c : set.clauses) any |= c.dir_mask;
  std::uint32_t m = any & 0xffu;
  if (any & (1u << LNETCAP_DIR_DROP)) m |= LNETCAP_DIRMASK_DROP_RX | LNETCAP_DIRMASK_DROP_TX;
  return m;
}

}  // namespace

std::uint32_t effective_snaplen(const Options& opts) {
  std::uint32_t s = opts.snaplen.value_or(LNETCAP_DEFAULT_SNAPLEN);
  return s > LNETCAP_MAX_SNAPLEN ? LNETCAP_MAX_SNAPLEN : s;
}

std::uint32_t ring_bytes(const Options& opts, std::uint32_t snaplen, std::uint32_t page_size) {
  std::uint64_t want = opts.buffer_kib ? std::uint64_t{*opts.buffer_kib} * 1024 : kDefaultRingBytes;
  std::uint64_t min = 8 * (std::uint64_t{LNETCAP_RING_FIXED} + snaplen + 8);
  if (want < min) want = min;
  if (want < page_size) want = page_size;
  if (want > (1ull << 30)) want = 1ull << 30;
  return static_cast<std::uint32_t>(std::bit_ceil(want));
}

filter::KernelClauseSet fixed_clauses(const Options& opts, const filter::Filter& f) {
  filter::ClauseOptions co;
  co.max_clauses = LNETCAP_CFG_CLAUSES;
  const filter::KernelClause ni = interface_clause(opts);
  filter::KernelClauseSet set = filter::restrict_to(filter::kernel_clauses(f, co), ni);
  // Narrowed by -i, the filter's clauses cannot grow in number; -i alone
  // is one clause.  So this only guards the table's size.
  if (!set.pass_all && set.clauses.size() > LNETCAP_CFG_CLAUSES)
    set = ni.is_true() ? filter::KernelClauseSet::everything() : filter::KernelClauseSet{false, {ni}};
  return set;
}

lnetcap_cfg make_cfg(const Options& opts, const filter::Filter& f, const lnetcap_layout& layout,
                     std::uint32_t snaplen) {
  lnetcap_cfg c{};
  c.lo = layout;
  c.snaplen = snaplen;
  c.wakeup_batch = opts.packet_buffered ? 1 : kWakeupBatch;

  // -Q counts messages: a received message LNet dropped is "in", a send
  // it dropped (or a failed send's outcome) "out".
  const std::uint32_t in = (1u << LNETCAP_DIR_RECV) | LNETCAP_DIRMASK_DROP_RX;
  const std::uint32_t out = (1u << LNETCAP_DIR_SEND) | (1u << LNETCAP_DIR_FORWARD) |
                            LNETCAP_DIRMASK_DROP_TX;
  switch (opts.direction) {
    case Direction::kIn: c.dir_mask = in; break;
    case Direction::kOut: c.dir_mask = out; break;
    case Direction::kBoth: c.dir_mask = in | out | (1u << LNETCAP_DIR_DROP); break;
  }

  // The filter and -i as clauses (filter/kernel_clauses.h): the same
  // translator and evaluator as lnetcapd's subscriber table.
  const filter::KernelClauseSet set = fixed_clauses(opts, f);
  if (!set.pass_all) {
    c.filter_clauses = 1;
    c.clause_count = static_cast<std::uint8_t>(set.clauses.size());
    // cfg is packed: each clause is built apart and copied in.
    auto* table = reinterpret_cast<std::uint8_t*>(&c) + offsetof(lnetcap_cfg, clause);
    for (std::size_t i = 0; i < set.clauses.size(); ++i) {
      lnetcap_clause k;
      filter::fill_clause(set.clauses[i], k);
      std::memcpy(table + i * sizeof(k), &k, sizeof(k));
    }
    // Directions no clause accepts are not worth a hook's reads.
    c.dir_mask &= hook_dirs(set);
  }
  return c;
}

}  // namespace lnetcap::live
