// SPDX-License-Identifier: GPL-2.0-or-later
// capture_config.h - turns the command line (-s, -B, -i, -Q, -U) and the
// filter's in-kernel clauses into the BPF programs' read-only configuration.
#pragma once

#include <cstdint>
#include <optional>

#include "../filter/filter.h"
#include "../filter/kernel_clauses.h"
#include "../options.h"
#include "lnetcap_abi.h"

namespace lnetcap::live {

/// Default ring size when -B is not given.
inline constexpr std::uint32_t kDefaultRingBytes = 8u << 20;
/// Records between forced consumer wake-ups (per CPU) unless -U.
inline constexpr std::uint32_t kWakeupBatch = 64;

/// -s: payload bytes per record (default LNETCAP_DEFAULT_SNAPLEN, 0 =
/// headers only), capped at LNETCAP_MAX_SNAPLEN.
std::uint32_t effective_snaplen(const Options& opts);
/// -B KiB rounded up to a power of two of at least one page, and large
/// enough for 8 records of the largest size.
std::uint32_t ring_bytes(const Options& opts, std::uint32_t snaplen, std::uint32_t page_size);

/// The fixed in-kernel clauses: the filter's (kernel_clauses, at most
/// LNETCAP_CFG_CLAUSES) each narrowed by -i, which is exact.  -i accepts a
/// NID ("10.0.0.1@tcp"), a net ("o2ib1") or "any"; anything else throws
/// Error.
filter::KernelClauseSet fixed_clauses(const Options& opts, const filter::Filter& f);
/// The full configuration, with fixed_clauses(opts, f) in cfg.clause.
lnetcap_cfg make_cfg(const Options& opts, const filter::Filter& f, const lnetcap_layout& layout,
                     std::uint32_t snaplen);

}  // namespace lnetcap::live
