// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/percentile.h"

#include <gtest/gtest.h>

using lnetcap::report::latency_figures;
using lnetcap::report::percentile;

// Nearest rank: sorted[ceil(p/100 * n) - 1].
TEST(ReportPercentile, NearestRankOnTenSamples) {
  std::vector<std::uint64_t> v = {10, 3, 7, 1, 9, 2, 8, 4, 6, 5};  // unsorted on purpose
  EXPECT_EQ(percentile(v, 50), 5u);   // ceil(5.0) = rank 5
  EXPECT_EQ(percentile(v, 90), 9u);   // ceil(9.0) = rank 9, not 10
  EXPECT_EQ(percentile(v, 99), 10u);  // ceil(9.9) = rank 10
  EXPECT_EQ(percentile(v, 100), 10u);
  EXPECT_EQ(percentile(v, 0), 1u);
  EXPECT_EQ(percentile(v, 51), 6u);   // ceil(5.1) = rank 6
}

TEST(ReportPercentile, HundredSamples) {
  std::vector<std::uint64_t> v;
  for (std::uint64_t i = 100; i >= 1; --i) v.push_back(i);
  const auto f = latency_figures(v);
  EXPECT_EQ(f.count, 100u);
  EXPECT_EQ(f.p50, 50u);
  EXPECT_EQ(f.p90, 90u);
  EXPECT_EQ(f.p99, 99u);
  EXPECT_EQ(f.max, 100u);
}

TEST(ReportPercentile, OneAndNoSamples) {
  EXPECT_FALSE(percentile({}, 50).has_value());
  const auto none = latency_figures({});
  EXPECT_EQ(none.count, 0u);
  EXPECT_EQ(none.max, 0u);
  const auto one = latency_figures({42});
  EXPECT_EQ(one.p50, 42u);
  EXPECT_EQ(one.p99, 42u);
  EXPECT_EQ(one.max, 42u);
}
