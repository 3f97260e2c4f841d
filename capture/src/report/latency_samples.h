// SPDX-License-Identifier: GPL-2.0-or-later
// latency_samples.h - the latency samples of one report group, in bounded
// memory however long the capture runs.
//
// Up to kExact samples are kept as they are, and every figure is exact
// (nearest rank, percentile.h).  The next sample folds them into a
// log-linear histogram: values below 256 ns in buckets of their own, above
// that 128 buckets per power of two, so a bucket is at most 1/128 (0.8%)
// of its values wide.  From then on a percentile is the top of its
// nearest-rank bucket, clamped to the largest sample: never below the true
// figure, at most 0.8% above it; the count, the sum and the maximum stay
// exact.  A group holds at most kExact samples (32 KiB) or the histogram
// (at most kBuckets counters, ~58 KiB, usually a few KiB).  Why not keep
// every sample: `lnetcap --summary` on a live server or `--top` for a week
// would hold ~8 bytes per RPC per group it counts in, without bound.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "percentile.h"

namespace lnetcap::report {

class LatencySamples {
 public:
  static constexpr std::size_t kExact = 4096;
  static constexpr std::size_t kLinear = 256;     // values below: a bucket each
  static constexpr unsigned kSubBits = 7;         // 128 buckets per power of two above
  static constexpr std::size_t kBuckets = kLinear + (64 - 8) * (1u << kSubBits);

  void push_back(std::uint64_t ns);
  void merge(const LatencySamples& other);

  std::uint64_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  /// True while every sample is kept (every figure exact).
  bool exact() const { return buckets_.empty(); }
  std::uint64_t max() const { return max_; }
  /// Sum of all samples in seconds (exact up to double rounding).
  double sum_seconds() const { return static_cast<double>(sum_ns_) / 1e9; }
  /// Samples <= ns: exact while exact(); then the buckets wholly at or below
  /// ns (a bucket straddling ns counts as above it).
  std::uint64_t count_at_most(std::uint64_t ns) const;
  /// Nearest-rank percentile (see the top of this file); nullopt when empty.
  std::optional<std::uint64_t> percentile(double p) const;
  LatencyFigures figures() const;
  /// The samples themselves, while exact() (empty after).
  const std::vector<std::uint64_t>& samples() const { return samples_; }

  static std::size_t bucket_of(std::uint64_t ns);
  /// The largest value that falls in bucket b.
  static std::uint64_t bucket_top(std::size_t b);

 private:
  void to_histogram();
  void count_in_bucket(std::uint64_t ns, std::uint64_t n);

  std::uint64_t count_ = 0, max_ = 0;
  unsigned __int128 sum_ns_ = 0;
  std::vector<std::uint64_t> samples_;  // while exact
  std::vector<std::uint64_t> buckets_;  // after: counts, grown to the highest bucket used
};

}  // namespace lnetcap::report

namespace lnetcap::report {

/// The figures and percentiles of percentile.h, for a group's samples.
inline LatencyFigures latency_figures(const LatencySamples& s) { return s.figures(); }
inline std::optional<std::uint64_t> percentile(const LatencySamples& s, double p) {
  return s.percentile(p);
}

}  // namespace lnetcap::report
