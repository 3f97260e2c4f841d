// SPDX-License-Identifier: GPL-2.0-or-later
// The one lnet_ping_info walk (capture/src/codec/ping_info.h): the nid4 and
// large NI lists and Lustre 2.17's NID metadata trailer, cut by the capture
// or by the message, and counts no message can hold.
#include "codec/ping_info.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "codec/wire_reader.h"

#include "lnet_builders.h"

using namespace lnetcap;

namespace {

std::array<std::uint8_t, LNETCAP_LNET_MD_BUFFER_SZ> filled(std::uint8_t first) {
  std::array<std::uint8_t, LNETCAP_LNET_MD_BUFFER_SZ> b{};
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(first + i);
  return b;
}

test::PingInfoSpec two_efa_nis() {
  test::PingInfoSpec s;
  s.nis = {{test::nid("0@lo"), 7}, {test::nid("10.0.0.1@efa")}, {test::nid("10.0.0.2@efa")}};
  s.metadata = {{test::nid("10.0.0.1@efa"), filled(0x10)}, {test::nid("10.0.0.2@efa"), filled(0x80)}};
  return s;
}

std::optional<PingInfo> parse(const std::vector<std::uint8_t>& b) { return parse_ping_info(b, b.size()); }

std::vector<std::string> ni_names(const PingInfo& p) {
  std::vector<std::string> v;
  for (const PingNi& n : p.nis) v.push_back(n.nid.to_string() + (n.large ? " large" : ""));
  return v;
}

}  // namespace

TEST(PingInfo, Nid4OnlyHasNoTrailer) {
  test::PingInfoSpec s;
  s.nis = {{test::nid("0@lo"), 3}, {test::nid("10.0.0.1@tcp")}, {test::nid("10.1.0.2@o2ib1"), LNETCAP_LNET_NI_STATUS_DOWN}};
  const auto b = test::ping_info(s);
  const auto p = parse(b);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->pid, LNETCAP_LNET_PID_LUSTRE);
  EXPECT_EQ(p->nnis, 3u);
  EXPECT_EQ(ni_names(*p), (std::vector<std::string>{"0@lo", "10.0.0.1@tcp", "10.1.0.2@o2ib1"}));
  EXPECT_EQ(p->nis[0].status, 3u);
  EXPECT_EQ(p->nis[2].status, LNETCAP_LNET_NI_STATUS_DOWN);
  EXPECT_EQ(p->nis_cut, PingCut::kNone);
  EXPECT_FALSE(p->md_count);
  EXPECT_EQ(p->end, b.size());
}

TEST(PingInfo, LargeAddressesFollowTheNid4List) {
  test::PingInfoSpec s;
  s.nis = {{test::nid("0@lo")}, {test::nid("10.0.0.1@tcp")}, {test::nid("fe80::2@tcp1"), LNETCAP_LNET_NI_STATUS_DOWN},
           {test::nid("fd00::1:3@o2ib")}};
  const auto b = test::ping_info(s);
  const auto p = parse(b);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->has_feature(LNETCAP_PING_FEAT_LARGE_ADDR));
  EXPECT_EQ(ni_names(*p),
            (std::vector<std::string>{"0@lo", "10.0.0.1@tcp", "fe80::2@tcp1 large", "fd00::1:3@o2ib large"}));
  EXPECT_EQ(p->nis[2].status, LNETCAP_LNET_NI_STATUS_DOWN);
  EXPECT_EQ(p->nis_cut, PingCut::kNone);
  EXPECT_EQ(p->end, b.size());
}

TEST(PingInfo, MetadataAfterTheNid4List) {
  const auto b = test::ping_info(two_efa_nis());
  const auto p = parse(b);
  ASSERT_TRUE(p);
  ASSERT_TRUE(p->md_count);
  EXPECT_EQ(*p->md_count, 2u);
  EXPECT_EQ(p->md_offset, sizeof(struct lnetcap_ping_info) + 3 * sizeof(struct lnetcap_ni_status));
  ASSERT_EQ(p->metadata.size(), 2u);
  EXPECT_EQ(p->metadata[0].nid.to_string(), "10.0.0.1@efa");
  EXPECT_EQ(p->metadata[1].nid.to_string(), "10.0.0.2@efa");
  const auto want = filled(0x80);
  EXPECT_TRUE(std::equal(want.begin(), want.end(), p->metadata[1].buffer.begin(), p->metadata[1].buffer.end()));
  EXPECT_EQ(p->md_cut, PingCut::kNone);
  EXPECT_EQ(p->end, b.size());
}

// The trailer follows the large list, where pi_ni[0].ns_msg_size says the
// NI part ends (api-ni.c lnet_ping_target_install_locked()).
TEST(PingInfo, MetadataAfterTheLargeList) {
  test::PingInfoSpec s = two_efa_nis();
  s.nis.push_back({test::nid("fe80::9@tcp")});
  const auto b = test::ping_info(s);
  const auto p = parse(b);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->nis.size(), 4u);
  EXPECT_TRUE(p->nis[3].large);
  EXPECT_EQ(p->nis_cut, PingCut::kNone);
  ASSERT_TRUE(p->md_count);
  EXPECT_EQ(*p->md_count, 2u);
  ASSERT_EQ(p->metadata.size(), 2u);
  EXPECT_EQ(p->metadata[1].nid.to_string(), "10.0.0.2@efa");
  EXPECT_EQ(p->metadata[1].buffer[0], 0x80);
  EXPECT_EQ(p->end, b.size());
}

TEST(PingInfo, BigEndianSender) {
  test::PingInfoSpec s = two_efa_nis();
  s.big_endian = true;
  const auto p = parse(test::ping_info(s));
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->order.little);
  EXPECT_EQ(p->nis[1].nid.to_string(), "10.0.0.1@efa");
  ASSERT_EQ(p->metadata.size(), 2u);
  EXPECT_EQ(p->metadata[0].nid.to_string(), "10.0.0.1@efa");
}

TEST(PingInfo, TrailerCutByTheSnapLength) {
  const auto b = test::ping_info(two_efa_nis());
  // The capture ends inside the second entry; the message went on.
  const ByteSpan captured(b.data(), b.size() - 5);
  const auto p = parse_ping_info(captured, b.size());
  ASSERT_TRUE(p);
  EXPECT_EQ(*p->md_count, 2u);
  EXPECT_EQ(p->metadata.size(), 1u);
  EXPECT_EQ(p->md_cut, PingCut::kSnapLength);
  EXPECT_LE(p->end, captured.size());
  // Cut before the count: no count, still the snap length's doing.
  const auto q = parse_ping_info(ByteSpan(b.data(), p->md_offset + 2), b.size());
  ASSERT_TRUE(q);
  EXPECT_FALSE(q->md_count);
  EXPECT_EQ(q->md_cut, PingCut::kSnapLength);
}

TEST(PingInfo, HostileCountsYieldOnlyWhatIsThere) {
  test::PingInfoSpec s = two_efa_nis();
  s.md_count = 0xffffffffu;
  const auto b = test::ping_info(s);
  const auto p = parse(b);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p->md_count, 0xffffffffu);
  EXPECT_EQ(p->metadata.size(), 2u);
  EXPECT_EQ(p->md_cut, PingCut::kMessageLength);
  EXPECT_EQ(p->end, b.size());

  // pi_nnis 0xffffffff: the NIs the bytes hold, and no trailer guessed.
  auto n = b;
  WireWriter(std::span<std::uint8_t>(n), Endian{}).u32(LNETCAP_FIELD(struct lnetcap_ping_info, pi_nnis), 0xffffffffu);
  const auto q = parse(n);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->nis.size(), (n.size() - sizeof(struct lnetcap_ping_info)) / sizeof(struct lnetcap_ni_status));
  EXPECT_EQ(q->nis_cut, PingCut::kMessageLength);
  EXPECT_FALSE(q->md_count);
  EXPECT_TRUE(q->metadata.empty());
}

TEST(PingInfo, HostileLargeListSizes) {
  test::PingInfoSpec s = two_efa_nis();
  s.nis.push_back({test::nid("fe80::9@tcp")});
  const auto b = test::ping_info(s);
  constexpr auto kSize = LNETCAP_FIELD(struct lnetcap_ni_status, ns_msg_size);
  for (const std::uint32_t size : {0u, 17u, 0xffffffffu}) {
    auto h = b;
    WireWriter(std::span<std::uint8_t>(h), Endian{}).from(sizeof(struct lnetcap_ping_info)).u32(kSize, size);
    const auto p = parse(h);
    ASSERT_TRUE(p) << size;
    EXPECT_EQ(p->nis_cut, PingCut::kMessageLength) << size;
    EXPECT_FALSE(p->md_count) << size;
    EXPECT_LE(p->end, h.size()) << size;
  }
  // A nid_size no NID has.
  auto h = b;
  const std::size_t large = sizeof(struct lnetcap_ping_info) + 3 * sizeof(struct lnetcap_ni_status);
  h[large + LNETCAP_OFFSETOF(struct lnetcap_ni_large_status, ns_nid) + LNETCAP_OFFSETOF(struct lnetcap_nid, nid_size)] =
      0xee;
  const auto p = parse(h);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->nis.size(), 3u);
  EXPECT_EQ(p->nis_cut, PingCut::kMessageLength);
}

TEST(PingInfo, NotAPingInfo) {
  std::vector<std::uint8_t> b(sizeof(struct lnetcap_ping_info), 0);
  EXPECT_FALSE(parse(b));
  const auto good = test::ping_info(two_efa_nis());
  EXPECT_FALSE(parse_ping_info(ByteSpan(good.data(), sizeof(struct lnetcap_ping_info) - 1), good.size()));
  EXPECT_TRUE(parse_ping_info(ByteSpan(good.data(), sizeof(struct lnetcap_ping_info)), good.size()));
}
