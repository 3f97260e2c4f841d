// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <unistd.h>

#include "error.h"
#include "output/overwrite_guard.h"
#include "output/post_rotate.h"
#include "output/rotation.h"

using namespace lnetcap::output;
using Action = RotationPolicy::Action;

namespace {

RotationOptions opts(std::optional<std::uint64_t> c, std::optional<std::uint32_t> g,
                     std::optional<std::uint32_t> w, std::string base = "trace.pcapng") {
  RotationOptions o;
  o.base = std::move(base);
  o.max_bytes = c;
  o.seconds = g;
  o.file_count = w;
  return o;
}

// Runs the policy over a sequence of file sizes seen before each write and
// returns every file name opened.
std::vector<std::string> names_for_sizes(RotationPolicy& p, int writes, std::uint64_t grow) {
  std::vector<std::string> names{p.first_file()};
  std::uint64_t size = 0;
  for (int i = 0; i < writes; ++i) {
    if (p.before_write(size) == Action::kRotate) {
      names.push_back(p.next_file());
      size = 0;
    }
    size += grow;
  }
  return names;
}

struct UtcZone {
  UtcZone() { setenv("TZ", "UTC", 1); tzset(); }
};

}  // namespace

TEST(RotationNaming, WidthIsDigitsOfCountMinusOne) {
  EXPECT_EQ(file_number_width(1), 0);
  EXPECT_EQ(file_number_width(2), 1);
  EXPECT_EQ(file_number_width(10), 1);
  EXPECT_EQ(file_number_width(11), 2);
  EXPECT_EQ(file_number_width(100), 2);
  EXPECT_EQ(file_number_width(101), 3);
}

TEST(RotationNaming, SizeOnlyGivesFileThenFile1File2) {
  RotationPolicy p(opts(1000, std::nullopt, std::nullopt));
  // 400 bytes per record: a file holds 3 records (400, 800, 1200 > 1000 rotates).
  const auto names = names_for_sizes(p, 9, 400);
  EXPECT_EQ(names, (std::vector<std::string>{"trace.pcapng", "trace.pcapng1", "trace.pcapng2"}));
}

TEST(RotationNaming, RotatesOnlyWhenTheFileIsLargerThanSize) {
  RotationPolicy p(opts(1000, std::nullopt, std::nullopt));
  p.first_file();
  EXPECT_EQ(p.before_write(1000), Action::kWrite);  // not larger yet
  EXPECT_EQ(p.before_write(1001), Action::kRotate);
}

TEST(RotationNaming, RingWithFileCountIsZeroPaddedAndWraps) {
  RotationPolicy p(opts(1000, std::nullopt, 3));
  const auto names = names_for_sizes(p, 10, 1001);  // every write after the first rotates
  // -W 3: width of "2" is 1; FILE0 FILE1 FILE2 FILE0 ...
  ASSERT_GE(names.size(), 5u);
  EXPECT_EQ(names[0], "trace.pcapng0");
  EXPECT_EQ(names[1], "trace.pcapng1");
  EXPECT_EQ(names[2], "trace.pcapng2");
  EXPECT_EQ(names[3], "trace.pcapng0");
  EXPECT_EQ(names[4], "trace.pcapng1");

  RotationPolicy wide(opts(10, std::nullopt, 12));
  const auto w = names_for_sizes(wide, 3, 11);
  EXPECT_EQ(w[0], "trace.pcapng00");
  EXPECT_EQ(w[1], "trace.pcapng01");
}

TEST(RotationNaming, TimeRotationExpandsStrftimeAndStopsAfterFileCount) {
  UtcZone utc;
  std::time_t now = 1700000000;  // 2023-11-14 22:13:20 UTC
  RotationPolicy p(opts(std::nullopt, 60, 3, "lnet-%Y%m%d-%H%M%S.pcapng"), [&] { return now; });
  EXPECT_EQ(p.first_file(), "lnet-20231114-221320.pcapng");
  now += 59;
  EXPECT_EQ(p.before_write(1u << 30), Action::kWrite);  // size does not matter without -C
  now += 1;
  ASSERT_EQ(p.before_write(0), Action::kRotate);
  EXPECT_EQ(p.next_file(), "lnet-20231114-221420.pcapng");
  now += 60;
  ASSERT_EQ(p.before_write(0), Action::kRotate);
  EXPECT_EQ(p.next_file(), "lnet-20231114-221520.pcapng");
  now += 60;
  EXPECT_EQ(p.before_write(0), Action::kStop);  // -W 3 files written
}

TEST(RotationNaming, TimeAndSizeRestartTheCountEveryPeriod) {
  UtcZone utc;
  std::time_t now = 1700000000;
  RotationPolicy p(opts(100, 3600, std::nullopt, "t-%H.pcapng"), [&] { return now; });
  EXPECT_EQ(p.first_file(), "t-22.pcapng");
  ASSERT_EQ(p.before_write(101), Action::kRotate);
  EXPECT_EQ(p.next_file(), "t-22.pcapng1");
  now += 3600;
  ASSERT_EQ(p.before_write(5), Action::kRotate);
  EXPECT_EQ(p.next_file(), "t-23.pcapng");
  ASSERT_EQ(p.before_write(101), Action::kRotate);
  EXPECT_EQ(p.next_file(), "t-23.pcapng1");
}

TEST(RotationNaming, WithoutGTheNameIsNotAStrftimePattern) {
  RotationPolicy p(opts(10, std::nullopt, std::nullopt, "a%Yb"));
  EXPECT_EQ(p.first_file(), "a%Yb");
}

TEST(RotationValidate, BadCombinationsNameTheOption) {
  auto msg = [](const RotationOptions& o, bool z) -> std::string {
    try {
      validate_rotation(o, z);
    } catch (const lnetcap::Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(msg(opts(std::nullopt, std::nullopt, 4), false), "-W needs -C or -G");
  EXPECT_NE(msg(opts(std::nullopt, std::nullopt, std::nullopt), true).find("-z"), std::string::npos);
  EXPECT_NE(msg(opts(100, std::nullopt, std::nullopt, ""), false).find("-w FILE"), std::string::npos);
  EXPECT_NE(msg(opts(100, std::nullopt, std::nullopt, "-"), false).find("standard output"),
            std::string::npos);
  EXPECT_EQ(msg(opts(100, std::nullopt, 4), true), "");
}

TEST(RotationPostRotate, UnknownCommandIsRejectedUpFront) {
  try {
    PostRotateCommand c("no-such-compressor-xyz -9");
    FAIL() << "accepted a missing program";
  } catch (const lnetcap::Error& e) {
    EXPECT_NE(std::string(e.what()).find("'no-such-compressor-xyz'"), std::string::npos);
  }
  EXPECT_THROW(PostRotateCommand("   "), lnetcap::Error);
  PostRotateCommand ok("true -x");
  EXPECT_EQ(ok.argv().size(), 2u);
}

TEST(RotationPostRotate, RunsCommandWithTheFileAndWaits) {
  char dir[] = "/tmp/lnetcap-rot-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string file = std::string(dir) + "/closed.pcapng";
  PostRotateCommand touch("touch");
  touch.run(file);
  EXPECT_EQ(touch.wait_all(), 0);
  EXPECT_EQ(access(file.c_str(), F_OK), 0);
  PostRotateCommand fails("false");
  fails.run(file);
  EXPECT_EQ(fails.wait_all(), 1);
  unlink(file.c_str());
  rmdir(dir);
}

// The overwrite guard must know every name a rotation can write, and no more.
TEST(RotationNaming, RotationNamesAreExactlyTheOnesTheRotationWrites) {
  const auto size_only = opts(1000, std::nullopt, std::nullopt, "/d/trace.pcapng");
  EXPECT_TRUE(is_rotation_name(size_only, "trace.pcapng"));
  EXPECT_TRUE(is_rotation_name(size_only, "trace.pcapng17"));
  EXPECT_FALSE(is_rotation_name(size_only, "trace.pcapngx"));
  EXPECT_FALSE(is_rotation_name(size_only, "trace_pcapng1"));  // '.' is not a wildcard
  const auto ring = opts(1000, std::nullopt, 12, "trace");
  EXPECT_TRUE(is_rotation_name(ring, "trace00"));
  EXPECT_TRUE(is_rotation_name(ring, "trace11"));
  EXPECT_FALSE(is_rotation_name(ring, "trace12"));  // a ring of 12 stops at 11
  EXPECT_FALSE(is_rotation_name(ring, "trace"));
  EXPECT_FALSE(is_rotation_name(ring, "trace1"));
  const auto hourly = opts(std::nullopt, 3600, std::nullopt, "cap-%Y%m%d-%H.pcapng");
  EXPECT_TRUE(is_rotation_name(hourly, "cap-20261124-13.pcapng"));
  EXPECT_FALSE(is_rotation_name(hourly, "cap-old-13.pcapng"));
  EXPECT_FALSE(is_rotation_name(hourly, "cap-20261124-13.pcapng1"));
  const auto both = opts(1000, 60, std::nullopt, "t-%M");
  EXPECT_TRUE(is_rotation_name(both, "t-05"));
  EXPECT_TRUE(is_rotation_name(both, "t-053"));
}

TEST(OverwriteGuard, ComparesFilesNotNames) {
  const std::string dir = ::testing::TempDir() + "/guard-" + std::to_string(getpid());
  ASSERT_EQ(system(("rm -rf " + dir + " && mkdir -p " + dir + "/sub && echo x > " + dir +
                    "/in && ln -s in " + dir + "/sym && ln " + dir + "/in " + dir + "/hard")
                       .c_str()),
            0);
  const RotationOptions none;
  auto refused = [&](const std::string& out) {
    try {
      refuse_overwrites({{"-r", dir + "/in"}}, {{"-w", out}}, none);
    } catch (const lnetcap::Error& e) {
      return std::string(e.what()).find("refusing to overwrite") != std::string::npos;
    }
    return false;
  };
  EXPECT_TRUE(refused(dir + "/in"));
  EXPECT_TRUE(refused(dir + "/sub/../in"));
  EXPECT_TRUE(refused(dir + "/sym"));
  EXPECT_TRUE(refused(dir + "/hard"));
  EXPECT_FALSE(refused(dir + "/new"));
  EXPECT_FALSE(refused("-"));
  // Two outputs that do not exist yet, named differently, are one file.
  EXPECT_THROW(refuse_overwrites({}, {{"-w", dir + "/n"}, {"--chart-output", dir + "/sub/../n"}}, none),
               lnetcap::Error);
  // A dangling symbolic link: writing it creates its target.
  ASSERT_EQ(symlink("target", (dir + "/dangling").c_str()), 0);
  EXPECT_THROW(refuse_overwrites({}, {{"-w", dir + "/dangling"}, {"--anon-key", dir + "/target"}}, none),
               lnetcap::Error);
  // Rotation: a link to the input among the names -C -W 3 writes.
  ASSERT_EQ(symlink("in", (dir + "/ring2").c_str()), 0);
  EXPECT_THROW(refuse_overwrites({{"-r", dir + "/in"}}, {}, opts(1, std::nullopt, 3, dir + "/ring")),
               lnetcap::Error);
  EXPECT_NO_THROW(refuse_overwrites({{"-r", dir + "/in"}}, {}, opts(1, std::nullopt, 2, dir + "/ring")));
  EXPECT_EQ(system(("rm -rf " + dir).c_str()), 0);
}
