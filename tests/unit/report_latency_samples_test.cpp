// SPDX-License-Identifier: GPL-2.0-or-later
// A report group's latency samples stay exact up to kExact and bounded
// after: percentiles never below the true figure and at most 1/128 above
// it, count, sum and maximum exact (report/latency_samples.h).
#include "report/latency_samples.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using lnetcap::report::LatencySamples;
using lnetcap::report::percentile;

namespace {

std::vector<std::uint64_t> spread(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(13.0, 2.0);  // ~0.4 ms, tails to seconds
  std::vector<std::uint64_t> v;
  for (std::size_t i = 0; i < n; i++) v.push_back(static_cast<std::uint64_t>(d(rng)));
  v.push_back(3);            // below the linear range's end
  v.push_back(1ull << 40);   // ~18 minutes
  return v;
}

}  // namespace

TEST(ReportLatencySamples, ExactUpToTheLimit) {
  LatencySamples s;
  const auto v = spread(LatencySamples::kExact - 2, 1);
  for (auto ns : v) s.push_back(ns);
  ASSERT_TRUE(s.exact());
  for (double p : {0.0, 50.0, 90.0, 99.0, 100.0}) EXPECT_EQ(s.percentile(p), percentile(v, p)) << p;
  EXPECT_EQ(s.samples().size(), v.size());
}

TEST(ReportLatencySamples, BoundedAndCloseAfterIt) {
  LatencySamples s;
  const auto v = spread(200000, 2);
  for (auto ns : v) s.push_back(ns);
  ASSERT_FALSE(s.exact());
  EXPECT_TRUE(s.samples().empty());
  EXPECT_EQ(s.size(), v.size());
  EXPECT_EQ(s.max(), *std::max_element(v.begin(), v.end()));
  long double sum = 0;
  for (auto ns : v) sum += ns;
  EXPECT_NEAR(s.sum_seconds(), static_cast<double>(sum / 1e9), 1e-6);
  for (double p : {0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 100.0}) {
    const std::uint64_t truth = *percentile(v, p), got = *s.percentile(p);
    EXPECT_GE(got, truth) << p;
    EXPECT_LE(static_cast<double>(got), static_cast<double>(truth) * (1 + 1.0 / 128) + 1) << p;
  }
  for (std::uint64_t le : {1000ull, 1000000ull, 1000000000ull}) {
    const auto truth = static_cast<std::uint64_t>(std::count_if(v.begin(), v.end(), [le](auto ns) { return ns <= le; }));
    EXPECT_LE(s.count_at_most(le), truth);
    EXPECT_GE(static_cast<double>(s.count_at_most(le)), static_cast<double>(truth) * 0.98);
  }
}

TEST(ReportLatencySamples, BucketsAreNarrowAndCoverEveryValue) {
  for (std::uint64_t ns : {0ull, 1ull, 255ull, 256ull, 257ull, 1000ull, 123456789ull, ~0ull}) {
    const auto b = LatencySamples::bucket_of(ns);
    ASSERT_LT(b, LatencySamples::kBuckets) << ns;
    EXPECT_GE(LatencySamples::bucket_top(b), ns);
    EXPECT_LE(static_cast<double>(LatencySamples::bucket_top(b)), static_cast<double>(ns) * (1 + 1.0 / 128) + 1);
    if (b) EXPECT_LT(LatencySamples::bucket_top(b - 1), ns) << ns;
  }
}

TEST(ReportLatencySamples, MergeEqualsAddingAll) {
  const auto v = spread(50000, 3);
  LatencySamples all, a, b;
  for (std::size_t i = 0; i < v.size(); i++) {
    all.push_back(v[i]);
    (i % 3 ? a : b).push_back(v[i]);
  }
  a.merge(b);
  EXPECT_EQ(a.size(), all.size());
  EXPECT_EQ(a.max(), all.max());
  for (double p : {50.0, 99.0}) EXPECT_EQ(a.percentile(p), all.percentile(p)) << p;
}

// A week of --top: memory stays put however many RPCs go by.
TEST(ReportLatencySamples, MemoryDoesNotGrowWithSamples) {
  LatencySamples s;
  std::mt19937_64 rng(4);
  for (int i = 0; i < 2000000; i++) s.push_back(rng() % 10000000000ull);
  EXPECT_TRUE(s.samples().capacity() == 0);
  EXPECT_EQ(s.size(), 2000000u);
}
