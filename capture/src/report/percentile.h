// SPDX-License-Identifier: GPL-2.0-or-later
// percentile.h - latency percentiles with one stated definition, shared by
// the summary, the Prometheus output and the assertion evaluator.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace lnetcap::report {

/// Nearest-rank percentile: the smallest sample such that at least p percent
/// of all samples are less than or equal to it, i.e. sorted[ceil(p/100*n)-1]
/// (p = 0 gives the minimum, p = 100 the maximum).  nullopt without samples.
/// Nearest rank always answers with a value that was really observed, which
/// is what one wants to quote for RPC latencies.
std::optional<std::uint64_t> percentile(std::vector<std::uint64_t> samples, double p);

/// The four figures every report shows.
struct LatencyFigures {
  std::uint64_t count = 0;
  std::uint64_t p50 = 0, p90 = 0, p99 = 0, max = 0;  // nanoseconds; 0 when count == 0
};

/// Sorts once and picks p50/p90/p99/max by nearest rank.
LatencyFigures latency_figures(std::vector<std::uint64_t> samples);

}  // namespace lnetcap::report
