// SPDX-License-Identifier: GPL-2.0-or-later
#include "percentile.h"

#include <algorithm>
#include <cmath>

namespace lnetcap::report {
namespace {

// Index of the nearest-rank percentile in a sorted vector of n > 0 samples.
std::size_t rank_index(std::size_t n, double p) {
  if (p <= 0) return 0;
  if (p >= 100) return n - 1;
  // ceil() of a product such as 0.9 * 10 must give 9, not 10: subtract a
  // tiny epsilon so binary rounding of p/100 cannot push it up a rank.
  double rank = std::ceil(p / 100.0 * static_cast<double>(n) - 1e-9);
  if (rank < 1) rank = 1;
  return std::min(n, static_cast<std::size_t>(rank)) - 1;
}

}  // namespace

std::optional<std::uint64_t> percentile(std::vector<std::uint64_t> samples, double p) {
  if (samples.empty()) return std::nullopt;
  std::sort(samples.begin(), samples.end());
  return samples[rank_index(samples.size(), p)];
}

LatencyFigures latency_figures(std::vector<std::uint64_t> samples) {
  LatencyFigures f;
  f.count = samples.size();
  if (samples.empty()) return f;
  std::sort(samples.begin(), samples.end());
  f.p50 = samples[rank_index(samples.size(), 50)];
  f.p90 = samples[rank_index(samples.size(), 90)];
  f.p99 = samples[rank_index(samples.size(), 99)];
  f.max = samples.back();
  return f;
}

}  // namespace lnetcap::report
