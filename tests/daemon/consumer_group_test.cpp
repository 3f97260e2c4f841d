// SPDX-License-Identifier: GPL-2.0-or-later
// Consumer groups (daemon/consumer_group.h, consumer_groups.h): the key
// keeps an RPC's request and reply together, on synthetic messages and on
// every pair of the bundled sample; the member choice is spread evenly, is
// the same for every member asking, and when a member leaves only its keys
// move; joins with another filter, or beyond the member bound, are refused.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "daemon/consumer_group.h"
#include "daemon/consumer_groups.h"
#include "file_source.h"
#include "lnetcap/lnet.h"
#include "record.h"
#include "report/rpc_matcher.h"
#include "subscribe/protocol.h"

namespace lnetcap::daemon {
namespace {

Message put(const char* src, const char* dst, std::uint64_t match_bits, std::uint32_t portal) {
  Message m;
  m.lnet.present = true;
  m.lnet.type = LNETCAP_MSG_PUT;
  m.lnet.src_nid = *Nid::parse(src);
  m.lnet.dest_nid = *Nid::parse(dst);
  m.lnet.match_bits = match_bits;
  m.lnet.portal = portal;
  return m;
}

TEST(GroupKey, RequestAndReplyOfOneRpcShareIt) {
  const Message request = put("10.0.0.1@tcp", "10.0.0.9@tcp", 0x5f00001234, 12);
  const Message reply = put("10.0.0.9@tcp", "10.0.0.1@tcp", 0x5f00001234, 10);
  EXPECT_EQ(group_key(request), group_key(reply));
  // Another XID, another client: other keys.
  EXPECT_NE(group_key(request), group_key(put("10.0.0.1@tcp", "10.0.0.9@tcp", 0x5f00001235, 12)));
  EXPECT_NE(group_key(request), group_key(put("10.0.0.2@tcp", "10.0.0.9@tcp", 0x5f00001234, 12)));
}

TEST(GroupKey, WithoutAnXidThePeerDecides) {
  Message a, b;
  a.rec.hdr.peer_nid = *Nid::parse("10.0.0.1@tcp");
  b.rec.hdr.peer_nid = *Nid::parse("10.0.0.1@tcp");
  b.ts_ns = 12345;  // anything else may differ
  EXPECT_EQ(group_key(a), group_key(b));
  b.rec.hdr.peer_nid = *Nid::parse("10.0.0.2@tcp");
  EXPECT_NE(group_key(a), group_key(b));
  // LNet's own traffic (portal 0) has no XID: keyed by the peer.
  Message ping = put("10.0.0.1@tcp", "10.0.0.9@tcp", 7, 0);
  ping.rec.hdr.peer_nid = a.rec.hdr.peer_nid;
  EXPECT_EQ(group_key(ping), group_key(a));
}

// Every request of the sample whose reply it holds: the same key, so the
// same member whatever the members are.
TEST(GroupKey, EveryRpcOfTheSampleStaysTogether) {
  LnetcapFileSource source(LNETCAP_SOURCE_DIR "/samples/lustre-fs-part1.pcapng");
  CapturedRecord rec;
  std::map<std::uint64_t, std::uint64_t> request_key;  // XID -> key
  std::size_t pairs = 0;
  while (source.next(rec)) {
    std::string why;
    const auto view = parse_record(rec.bytes, &why);
    ASSERT_TRUE(view) << why;
    const Message m = decode_message(*view, rec.ts_ns, rec.interface_id);
    if (report::is_rpc_request(m)) request_key[*m.xid()] = group_key(m);
    if (report::is_rpc_reply(m) && request_key.count(*m.xid())) {
      EXPECT_EQ(group_key(m), request_key[*m.xid()]) << "XID " << *m.xid();
      ++pairs;
    }
  }
  EXPECT_GE(pairs, 10u) << "the sample's RPCs";
}

TEST(PickMember, SpreadsEvenly) {
  const std::vector<std::uint64_t> members{3, 4, 5, 6, 7, 8, 9, 10};
  std::vector<std::size_t> taken(members.size());
  constexpr std::size_t kKeys = 80000;
  for (std::uint64_t xid = 0; xid < kKeys; ++xid)
    ++taken[pick_member(group_key(put("10.0.0.1@tcp", "10.0.0.9@tcp", 0x5f00000000 + xid, 12)), members)];
  for (std::size_t i = 0; i < members.size(); ++i) {
    EXPECT_GT(taken[i], kKeys / members.size() * 9 / 10) << "member " << i;
    EXPECT_LT(taken[i], kKeys / members.size() * 11 / 10) << "member " << i;
  }
}

TEST(PickMember, WhenOneLeavesOnlyItsKeysMove) {
  const std::vector<std::uint64_t> before{11, 12, 13};
  const std::vector<std::uint64_t> after{11, 13};  // 12 left
  std::vector<std::size_t> inherited(after.size());
  for (std::uint64_t key = 1; key <= 30000; ++key) {
    const std::uint64_t was = before[pick_member(key * 0x9e3779b97f4a7c15ull, before)];
    const std::uint64_t now = after[pick_member(key * 0x9e3779b97f4a7c15ull, after)];
    if (was != 12) EXPECT_EQ(now, was) << "key " << key << " moved although its member stayed";
    else ++inherited[now == 11 ? 0 : 1];
  }
  // The leaver's share goes to both the others, not to one.
  EXPECT_GT(inherited[0], 4000u);
  EXPECT_GT(inherited[1], 4000u);
}

TEST(ConsumerGroups, ExactlyOneMemberTakesEachRecord) {
  ConsumerGroups groups;
  const std::vector<std::string> ids{"a", "b", "c"};
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ASSERT_EQ(groups.join_problem("uid 1000\nsplit", "split", "opcode OST_READ", false), "");
    groups.join("uid 1000\nsplit", ids[i], i + 1, "opcode OST_READ", false);
  }
  std::map<std::string, std::size_t> taken;
  for (std::uint64_t key = 1; key <= 3000; ++key) {
    groups.next_record();
    std::size_t takers = 0;
    int computed = 0;
    for (const auto& id : ids)
      if (groups.takes("uid 1000\nsplit", id, [&] { ++computed; return key * 0x9e3779b97f4a7c15ull; })) {
        ++takers;
        ++taken[id];
      }
    EXPECT_EQ(takers, 1u) << "key " << key;
    EXPECT_EQ(computed, 1) << "the key is computed once per record and group";
  }
  for (const auto& id : ids) EXPECT_GT(taken[id], 800u) << id;
  // b leaves mid-record: the choice is made again among a and c.
  groups.next_record();
  groups.leave("uid 1000\nsplit", "b");
  EXPECT_EQ(groups.members("uid 1000\nsplit"), 2u);
  for (std::uint64_t key = 1; key <= 300; ++key) {
    groups.next_record();
    const auto k = [&] { return key; };
    EXPECT_NE(groups.takes("uid 1000\nsplit", "a", k), groups.takes("uid 1000\nsplit", "c", k));
    EXPECT_FALSE(groups.takes("uid 1000\nsplit", "b", k));
  }
  groups.leave("uid 1000\nsplit", "a");
  groups.leave("uid 1000\nsplit", "c");
  EXPECT_EQ(groups.groups(), 0u) << "a group without members is gone";
}

TEST(ConsumerGroups, RefusesAnotherFilterAnotherAnonymizationAndTooManyMembers) {
  ConsumerGroups groups;
  groups.join("g", "a", 1, "opcode OST_READ", false);
  EXPECT_NE(groups.join_problem("g", "g", "opcode OST_WRITE", false).find("same filter"), std::string::npos);
  EXPECT_NE(groups.join_problem("g", "g", "opcode OST_READ", true).find("anonymized"), std::string::npos);
  EXPECT_EQ(groups.join_problem("other", "g", "opcode OST_WRITE", false), "") << "another group is free";
  for (std::uint64_t i = 2; i <= kMaxGroupMembers; ++i)
    groups.join("g", "m" + std::to_string(i), i, "opcode OST_READ", false);
  EXPECT_NE(groups.join_problem("g", "g", "opcode OST_READ", false).find("the most one group may have"),
            std::string::npos);
}

TEST(GroupName, OnlySafeCharactersAndBounded) {
  EXPECT_EQ(subscribe::group_name_problem("analysis-1.a_b"), "");
  EXPECT_NE(subscribe::group_name_problem(""), "");
  EXPECT_NE(subscribe::group_name_problem("a\nFORGED"), "");
  EXPECT_NE(subscribe::group_name_problem("a b"), "");
  EXPECT_NE(subscribe::group_name_problem(std::string(subscribe::kMaxGroupNameBytes + 1, 'a')), "");
  EXPECT_EQ(subscribe::group_name_problem(std::string(subscribe::kMaxGroupNameBytes, 'a')), "");
}

}  // namespace
}  // namespace lnetcap::daemon
