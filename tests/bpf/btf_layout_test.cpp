// SPDX-License-Identifier: GPL-2.0-or-later
// btf_layout_test.cpp - `--btf FILE`: offsets read with libbpf's btf__ API
// from a detached BTF file made by pahole from debuginfo (here of
// lustre_debuginfo.c, Lustre 2.16's declarations) equal the built-in 2.16
// table, and a BTF without Lustre's structs is refused with a hint.
#include <gtest/gtest.h>

#include <cstring>

#include "error.h"
#include "live/layout.h"

using namespace lnetcap;

TEST(BtfLayout, DetachedBtfMatchesBuiltinTable) {
  auto l = live::layout_from_btf_file(LNETCAP_TEST_BTF, "", "BTF file test");
  auto t = live::builtin_layout("2.16.1");
  ASSERT_TRUE(t);
  EXPECT_EQ(0, std::memcmp(&l.lo, &t->lo, sizeof(l.lo)));
  EXPECT_EQ(l.lo.msg_hdr, 432);
  EXPECT_EQ(l.lo.msg_routing_byte, 170);
  EXPECT_EQ(l.lo.msg_routing_bit, 4);
}

// fexit lnet_drop_rule_match tells a receive-side call by local_nid: NULL
// for "none" since 2.15.51, LNET_NID_ANY before, where it is a value.
TEST(BtfLayout, DropRuleLocalNidFormFromPrototype) {
  EXPECT_FALSE(live::layout_from_btf_file(LNETCAP_TEST_BTF, "", "2.16").drop_rule_nid4);
  EXPECT_TRUE(live::layout_from_btf_file(LNETCAP_TEST_BTF_215, "", "2.15").drop_rule_nid4);
}

TEST(BtfLayout, ForeignBtfIsRefusedWithHint) {
  try {
    live::layout_from_btf_file("/sys/kernel/btf/vmlinux", "", "BTF of vmlinux");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lnet_msg"), std::string::npos);
    EXPECT_FALSE(e.hint().empty());
  }
  EXPECT_THROW(live::layout_from_btf_file("/nonexistent.btf", "", "x"), Error);
}
