// SPDX-License-Identifier: GPL-2.0-or-later
#include "latency_samples.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace lnetcap::report {

std::size_t LatencySamples::bucket_of(std::uint64_t ns) {
  if (ns < kLinear) return static_cast<std::size_t>(ns);
  const unsigned e = static_cast<unsigned>(std::bit_width(ns)) - 1;  // 8..63
  const std::uint64_t sub = (ns >> (e - kSubBits)) & ((1u << kSubBits) - 1);
  return kLinear + (e - 8) * (std::size_t{1} << kSubBits) + static_cast<std::size_t>(sub);
}

std::uint64_t LatencySamples::bucket_top(std::size_t b) {
  if (b < kLinear) return b;
  const std::size_t i = b - kLinear;
  const unsigned e = static_cast<unsigned>(i >> kSubBits) + 8;
  const std::uint64_t sub = i & ((1u << kSubBits) - 1);
  const std::uint64_t low = (std::uint64_t{1} << e) | (sub << (e - kSubBits));
  return low + ((std::uint64_t{1} << (e - kSubBits)) - 1);
}

void LatencySamples::count_in_bucket(std::uint64_t ns, std::uint64_t n) {
  const std::size_t b = bucket_of(ns);
  if (buckets_.size() <= b) buckets_.resize(b + 1, 0);
  buckets_[b] += n;
}

void LatencySamples::to_histogram() {
  for (std::uint64_t ns : samples_) count_in_bucket(ns, 1);
  std::vector<std::uint64_t>().swap(samples_);  // give the memory back
}

void LatencySamples::push_back(std::uint64_t ns) {
  count_++;
  sum_ns_ += ns;
  max_ = std::max(max_, ns);
  if (exact()) {
    samples_.push_back(ns);
    if (samples_.size() > kExact) to_histogram();
  } else {
    count_in_bucket(ns, 1);
  }
}

void LatencySamples::merge(const LatencySamples& other) {
  if (other.exact()) {
    for (std::uint64_t ns : other.samples_) push_back(ns);
    return;
  }
  if (exact()) to_histogram();
  for (std::size_t b = 0; b < other.buckets_.size(); b++)
    if (other.buckets_[b]) {
      if (buckets_.size() <= b) buckets_.resize(b + 1, 0);
      buckets_[b] += other.buckets_[b];
    }
  count_ += other.count_;
  sum_ns_ += other.sum_ns_;
  max_ = std::max(max_, other.max_);
}

std::uint64_t LatencySamples::count_at_most(std::uint64_t ns) const {
  if (exact())
    return static_cast<std::uint64_t>(
        std::count_if(samples_.begin(), samples_.end(), [ns](std::uint64_t s) { return s <= ns; }));
  std::uint64_t n = 0;
  for (std::size_t b = 0; b < buckets_.size() && bucket_top(b) <= ns; b++) n += buckets_[b];
  return n;
}

std::optional<std::uint64_t> LatencySamples::percentile(double p) const {
  if (empty()) return std::nullopt;
  if (exact()) return report::percentile(samples_, p);
  // The nearest rank, as percentile.h defines it, then its bucket.
  double rank = p <= 0 ? 1 : std::ceil(p / 100.0 * static_cast<double>(count_) - 1e-9);
  const std::uint64_t want = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::max(rank, 1.0)), 1, count_);
  std::uint64_t seen = 0;
  for (std::size_t b = 0; b < buckets_.size(); b++) {
    seen += buckets_[b];
    if (seen >= want) return std::min(bucket_top(b), max_);
  }
  return max_;
}

LatencyFigures LatencySamples::figures() const {
  if (exact()) return latency_figures(samples_);
  LatencyFigures f;
  f.count = count_;
  f.p50 = *percentile(50);
  f.p90 = *percentile(90);
  f.p99 = *percentile(99);
  f.max = max_;
  return f;
}

}  // namespace lnetcap::report
