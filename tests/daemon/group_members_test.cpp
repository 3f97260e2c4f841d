// SPDX-License-Identifier: GPL-2.0-or-later
// Consumer groups' members over real ZeroMQ sockets (daemon/subscriber_set.h,
// subscriber_groups.cpp): a member gone without BYE (killed) passes what
// was gathered for it and not yet handed to libzmq on to the members that
// take those keys now - none lost, none twice, numbered as theirs - and
// --status shows the asker's own groups with their members' counts and
// the departed ones, and only counts other users' groups; an anonymized
// group keeps each RPC's bulk with it too, keyed from the pseudonymous
// records its members see.
#include <gtest/gtest.h>

#include <unistd.h>

#include <map>
#include <set>
#include <thread>

#include <zmq.hpp>

#include "bulk_messages.h"
#include "daemon/consumer_group.h"
#include "daemon/group_keyer.h"
#include "daemon/rpc_metrics.h"
#include "daemon/subscriber_set.h"
#include "subscribe/zmq_frames.h"

namespace lnetcap::daemon {
namespace {

using namespace subscribe;

class GroupMembers : public ::testing::Test {
 protected:
  void SetUp() override {
    router_.set(zmq::sockopt::router_mandatory, 1);
    router_.bind("inproc://groups");
    interfaces_.push_back(CaptureInterface{"tcp", "10.0.3.1@tcp", "", "", "", 1224});
    for (std::uint64_t i = 0; i < 120; ++i)
      rpcs_.request(i, 0x5f0000001000 + 128 * i, 0, LNETCAP_OPC_OST_WRITE, "dd.0");
    for (const test::OwnedMessage& o : rpcs_.all()) records_.push_back(&o);
  }

  zmq::socket_t join(const std::string& group, Peer peer = {}) {
    zmq::socket_t s(context_, zmq::socket_type::dealer);
    s.connect("inproc://groups");
    Subscribe request{"", kSnaplenAsCaptured, "test", true};
    request.group = group;
    send_frames(s, {}, encode(request));
    handle_next(peer);
    return s;
  }

  void handle_next(const Peer& peer = {}) {
    zmq::pollitem_t item{router_.handle(), 0, ZMQ_POLLIN, 0};
    ASSERT_EQ(zmq::poll(&item, 1, std::chrono::seconds(5)), 1);
    Frames f;
    std::string id;
    ASSERT_TRUE(receive_frames(router_, f, &id));
    set_.handle(id, f, peer);
  }

  void deliver(const test::OwnedMessage& m) {
    ++stats_.received;
    set_.deliver(test::captured(m), m.msg, interfaces_, stats_, 0);
  }

  // The records' timestamps (each record's own) s has been sent, in order,
  // and their sequence numbers.
  static std::vector<std::pair<std::uint64_t, std::uint64_t>> read_all(zmq::socket_t& s) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> got;  // ts, seq
    zmq::pollitem_t item{s.handle(), 0, ZMQ_POLLIN, 0};
    while (zmq::poll(&item, 1, std::chrono::milliseconds(300)) == 1) {
      Frames f;
      while (receive_frames(s, f))
        if (message_type(f) == MessageType::kBatch)
          for (const auto& e : decode_batch(f)) got.emplace_back(e.meta.ts_ns, e.meta.seq);
    }
    return got;
  }

  // STATUS as `peer` asks for it (on a connection of its own, so that no
  // member's records are read): its items by name.
  std::map<std::string, std::string> status(const Peer& peer = {}) {
    zmq::socket_t s(context_, zmq::socket_type::dealer);
    s.connect("inproc://groups");
    send_frames(s, {}, encode_status_request());
    handle_next(peer);
    std::map<std::string, std::string> items;
    zmq::pollitem_t item{s.handle(), 0, ZMQ_POLLIN, 0};
    Frames f;
    if (zmq::poll(&item, 1, std::chrono::seconds(2)) == 1 && receive_frames(s, f) &&
        message_type(f) == MessageType::kStatusReply)
      for (const auto& [name, value] : decode_status(f).items) items[name] = value;
    return items;
  }

  zmq::context_t context_;
  zmq::socket_t router_{context_, zmq::socket_type::router};
  SubscriberSet set_{router_, Accept{"node1", "test source"}};
  std::vector<CaptureInterface> interfaces_;
  SourceStats stats_;
  test::BulkRecords rpcs_{"10.0.3.2@tcp", "10.0.3.1@tcp", test::Seen::kServer};
  std::vector<const test::OwnedMessage*> records_;
};

TEST_F(GroupMembers, AMemberGoneWithoutByePassesItsGatheredBatchOn) {
  auto killed = join("split");
  auto stayer = join("split");
  auto third = join("split");
  // Half the records are sent, then the rest only gathered when the first
  // member dies without a word.
  for (std::size_t i = 0; i < 60; ++i) deliver(*records_[i]);
  set_.flush();
  for (std::size_t i = 60; i < records_.size(); ++i) deliver(*records_[i]);
  killed.set(zmq::sockopt::linger, 0);
  killed.close();
  // The daemon sees it gone at a send: heartbeats (no records) until one
  // fails, once libzmq's reaper has ended its pipe and the router has
  // heard of it (a round trip).
  for (int tries = 0; tries < 100 && set_.subscribers().size() == 3; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    (void)status();
    set_.heartbeat(stats_, 0);
  }
  ASSERT_EQ(set_.subscribers().size(), 2u) << "the killed member was not seen gone";
  set_.flush();  // what was passed on goes out
  std::size_t killed_share_before = 0;
  const auto a = read_all(stayer), b = read_all(third);
  std::multiset<std::uint64_t> others;
  for (const auto* got : {&a, &b}) {
    for (std::size_t k = 0; k < got->size(); ++k) {
      others.insert((*got)[k].first);
      EXPECT_EQ((*got)[k].second, k + 1) << "numbered as the taker's own, no gap";
    }
  }
  for (std::size_t i = 0; i < 60; ++i) killed_share_before += others.count(records_[i]->msg.ts_ns) == 0;
  EXPECT_GT(killed_share_before, 0u) << "the killed member had a share before";
  // Every record gathered after the last flush is with one of the others,
  // once: the killed member's part of them was passed on.
  for (std::size_t i = 60; i < records_.size(); ++i)
    EXPECT_EQ(others.count(records_[i]->msg.ts_ns), 1u) << "record " << i;
  for (const std::uint64_t ts : others) EXPECT_EQ(others.count(ts), 1u);
  EXPECT_EQ(others.size() + killed_share_before, records_.size());
  const auto items = status();
  ASSERT_TRUE(items.count("group 'split'"));
  EXPECT_NE(items.at("group 'split'")
                .find("2 members; 1 gone (" + std::to_string(killed_share_before) + " sent, 0 dropped), 1 of them "
                      "without BYE (" + std::to_string(killed_share_before) + " records sent to them unconfirmed"),
            std::string::npos)
      << items.at("group 'split'");
  EXPECT_EQ(items.count("group 'split' member 2"), 1u);
  EXPECT_EQ(items.count("group 'split' member 3"), 0u);
  // The metrics' totals (no group named there).
  const GroupTotals t = set_.group_totals();
  EXPECT_EQ(t.groups, 1u);
  EXPECT_EQ(t.members, 2u);
  EXPECT_EQ(t.unconfirmed_total, killed_share_before);
  // Passed on: the killed member's (subscriber 1's) share of the records
  // gathered after the last flush, as the group's choice makes it.
  GroupKeyer keyer;
  std::uint64_t its_share = 0;
  for (std::size_t i = 0; i < records_.size(); ++i) {
    const std::uint64_t key = keyer.key(records_[i]->msg);
    its_share += i >= 60 && pick_member(key, {1, 2, 3}) == 0;
  }
  EXPECT_GT(its_share, 0u);
  EXPECT_EQ(t.passed_on_total, its_share);
  RpcMetrics metrics(8);
  DaemonGauges g;
  g.groups = t;
  metrics.set_gauges(g);
  const std::string page = metrics.render(0);
  EXPECT_NE(page.find("lnetcap_consumer_group_unconfirmed_total " + std::to_string(killed_share_before)),
            std::string::npos);
  EXPECT_NE(page.find("lnetcap_consumer_group_members 2"), std::string::npos);
}

TEST_F(GroupMembers, StatusShowsOnlyTheAskersOwnGroups) {
  auto mine = join("split");
  Peer other;
  other.uid = 4242;
  auto theirs = join("secret-name", other);
  for (const auto* m : records_) deliver(*m);
  set_.flush();
  const auto items = status();
  EXPECT_EQ(items.at("consumer groups"), "2 (2 members), 1 of them yours (only yours are shown)");
  EXPECT_NE(items.at("group 'split' member 1").find(": 120 sent, 0 dropped"), std::string::npos)
      << items.at("group 'split' member 1");
  for (const auto& [name, value] : items)
    EXPECT_EQ((name + value).find("secret-name"), std::string::npos) << name << ": " << value;
  EXPECT_NE(items.at("group bulk links").find("given up"), std::string::npos);
}

// Ten 4 MiB OST_WRITEs (request, four GETs and their REPLYs, reply), each
// record at a time of its own; a plain group and an anonymized one of
// three members each: every RPC's records are with one member of each.
TEST_F(GroupMembers, PlainAndAnonymizedGroupsKeepEachRpcsBulkWithIt) {
  char dir[] = "/tmp/lnetcap-groups.XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  AnonymizePolicy policy;
  policy.users = {4242};
  policy.key_file = std::string(dir) + "/anon.key";
  set_.set_anonymize_policy(policy);
  Peer forced, free_user;
  forced.uid = 4242;
  free_user.uid = 4243;
  std::vector<zmq::socket_t> plain, anonymized;
  for (int i = 0; i < 3; ++i) plain.push_back(join("plain", free_user));
  for (int i = 0; i < 3; ++i) anonymized.push_back(join("anon", forced));
  test::BulkRecords bulk("10.0.3.2@tcp", "10.0.3.1@tcp", test::Seen::kServer);
  std::map<std::uint64_t, int> rpc_of;  // record time -> RPC
  std::uint64_t ms = 0;
  for (int rpc = 0; rpc < 10; ++rpc) {
    const std::uint64_t xid = 0x5f0000100000 + 128 * rpc;
    rpc_of[bulk.request(++ms, xid, xid + 3, LNETCAP_OPC_OST_WRITE, "dd.0").ts_ns] = rpc;
    for (std::uint64_t chunk = 0; chunk < 4; ++chunk) {
      const std::pair<std::uint64_t, std::uint64_t> wmd{0x100 + 8 * rpc + chunk, 0x900 + chunk};
      rpc_of[bulk.get(++ms, xid + chunk, wmd).ts_ns] = rpc;
      rpc_of[bulk.data_reply(++ms, wmd).ts_ns] = rpc;
    }
    rpc_of[bulk.reply(++ms, xid, LNETCAP_OPC_OST_WRITE).ts_ns] = rpc;
  }
  for (const test::OwnedMessage& o : bulk.all()) deliver(o);
  set_.flush();
  EXPECT_GT(set_.group_keyer(false).rpcs(), 0u);
  EXPECT_GT(set_.group_keyer(true).rpcs(), 0u) << "the anonymized group's keyer reads the pseudonymous records";
  for (auto* members : {&plain, &anonymized}) {
    std::map<int, std::set<std::size_t>> holders;  // RPC -> members holding some of its records
    std::size_t records = 0;
    for (std::size_t m = 0; m < members->size(); ++m)
      for (const auto& [ts, seq] : read_all((*members)[m])) {
        holders[rpc_of.at(ts)].insert(m);
        ++records;
      }
    EXPECT_EQ(records, rpc_of.size());
    std::set<std::size_t> used;
    for (const auto& [rpc, who] : holders) {
      EXPECT_EQ(who.size(), 1u) << "RPC " << rpc << (members == &plain ? " (plain)" : " (anonymized)");
      used.insert(who.begin(), who.end());
    }
    EXPECT_GT(used.size(), 1u) << "the RPCs spread over the members";
  }
  std::remove(policy.key_file.c_str());
  ::rmdir(dir);
}

}  // namespace
}  // namespace lnetcap::daemon
