// SPDX-License-Identifier: GPL-2.0-or-later
#include "nid.h"

#include <gtest/gtest.h>

#include "lnetcap/lnet.h"

using lnetcap::Net;
using lnetcap::Nid;

TEST(Nid, Nid4EncodingMatchesLustreExamples) {
  // Values checked by compiling against Lustre's lnet-types.h (docs/protocol.md 1.6).
  EXPECT_EQ(Nid::parse("192.168.1.2@tcp1")->to_nid4(), 0x00020001C0A80102ULL);
  EXPECT_EQ(Nid::parse("0@lo")->to_nid4(), 0x0009000000000000ULL);
  EXPECT_EQ(Nid::parse("16@kfi")->to_nid4(), 0x0010000000000010ULL);
  EXPECT_EQ(Nid::from_nid4(0x00020001C0A80102ULL).to_string(), "192.168.1.2@tcp1");
}

TEST(Nid, RoundTripsForEveryPrintableLnd) {
  const char* samples[] = {"10.0.0.1@tcp",  "10.0.0.1@tcp7", "10.1.2.3@o2ib",  "10.1.2.3@o2ib3",
                           "0@lo",          "27@gni",        "27@gni3",        "10.9.8.7@gip",
                           "5@ptlf",        "16@kfi",        "16@kfi2",        "10.0.0.9@efa",
                           "fe80::1@efa",   "7@bxi3f",       "2001:db8::5@tcp", "c0a80102@<99:0>",
                           "1:2:3:4@<17:2>", "<?>"};
  for (const char* s : samples) {
    auto n = Nid::parse(s);
    ASSERT_TRUE(n) << s;
    EXPECT_EQ(n->to_string(), s);
    std::uint8_t raw[20];
    n->to_lnet_nid(raw);
    EXPECT_EQ(Nid::from_lnet_nid(raw), *n) << s;
    if (n->is_nid4_compatible() && !n->is_any()) {
      EXPECT_EQ(Nid::from_nid4(n->to_nid4()), *n) << s;
    }
  }
}

TEST(Nid, LargeNidWireFormIsBigEndian) {
  auto n = Nid::parse("10.0.3.1@tcp2");
  std::uint8_t raw[20];
  n->to_lnet_nid(raw);
  const std::uint8_t want[8] = {0, LNETCAP_LND_SOCKLND, 0, 2, 10, 0, 3, 1};
  EXPECT_EQ(0, memcmp(raw, want, 8));
  auto v6 = Nid::parse("fe80::1@tcp");
  EXPECT_EQ(v6->size, LNETCAP_NID_SIZE_IPV6);
  EXPECT_FALSE(v6->is_nid4_compatible());
}

TEST(Nid, RejectsMalformedText) {
  for (const char* s : {"", "10.0.0.1", "10.0.0.1@", "10.0.0.1@bogus", "1.2.3@tcp", "x@kfi",
                        "0@lo1", "10.0.0.1@tcp99999", "zz@<99:0>", "1:2@<99:0>"})
    EXPECT_FALSE(Nid::parse(s)) << s;
}

TEST(Net, ParsesAndPrints) {
  EXPECT_EQ(Net::parse("o2ib1")->to_string(), "o2ib1");
  EXPECT_EQ(Net::parse("tcp")->num, 0);
  EXPECT_EQ(Net::parse("tcp0")->to_string(), "tcp");
  EXPECT_EQ(Net::parse("<99:3>")->to_string(), "<99:3>");
  EXPECT_EQ(Net::parse("elan"), std::nullopt);  // removed LND: no string functions
  EXPECT_EQ(Nid::from_nid4(0x0001000000000005ULL).to_string(), "5@<1:0>");
}

// Found by fuzz_filter (tests/fuzz/regressions/filter/numbered-loopback-net):
// <9:3> printed as "lo3", which Net::parse (like Lustre) refuses.
TEST(Net, ANumberedLoopbackNetPrintsAsTextThatParsesBack) {
  const Net lo3{LNETCAP_LND_LOLND, 3};
  EXPECT_EQ(lo3.to_string(), "<9:3>");
  EXPECT_EQ(Net::parse(lo3.to_string()), lo3);
  EXPECT_EQ(Net::parse("lo")->to_string(), "lo");
  EXPECT_EQ(Nid::parse("0@<9:3>")->to_string(), "0@<9:3>");
}
