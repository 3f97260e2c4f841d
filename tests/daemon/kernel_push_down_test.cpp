// SPDX-License-Identifier: GPL-2.0-or-later
// lnetcapd folding its subscribers' filters into the in-kernel clause table
// (SubscriberSet::set_kernel_clauses, live::SubfilterWriter) over real
// ZeroMQ sockets: the table holds the union of what the subscribers need,
// it already admits a new subscriber's records when its ACCEPT is sent,
// it narrows when one leaves, and anything that needs every record (an
// unfiltered subscriber, the recorder) makes it pass everything.
#include <gtest/gtest.h>

#include <zmq.hpp>

#include <unistd.h>

#include <cstring>
#include <deque>
#include <filesystem>
#include <string>
#include <vector>

#include "daemon/subscriber_set.h"
#include "filter/filter.h"
#include "filter/kernel_clauses.h"
#include "live/subfilter_writer.h"
#include "subscribe/zmq_frames.h"

namespace lnetcap {
namespace {

using filter::Filter;
using filter::KernelClauseSet;
using namespace subscribe;

KernelClauseSet clauses_of(const char* text) { return filter::kernel_clauses(Filter::parse(text)); }

class KernelPushDown : public ::testing::Test {
 protected:
  void SetUp() override {
    router_.set(zmq::sockopt::router_mandatory, 1);
    router_.bind(endpoint_);
  }

  // Hands the union to the table, as lnetcapd does, and notes whether the
  // subscriber being answered had its ACCEPT already.
  void follow_subscribers(bool everything = false) {
    set_.set_kernel_clauses(
        [this](const KernelClauseSet& s) {
          published_.push_back(s);
          writer_.publish(s);
          for (auto* d : dealers_) {
            zmq::pollitem_t item{d->handle(), 0, ZMQ_POLLIN, 0};
            if (zmq::poll(&item, 1, std::chrono::milliseconds(0)) > 0 && d == joining_)
              accept_before_publish_ = true;
          }
        },
        everything);
  }

  zmq::socket_t& subscribe(const std::string& filter) {
    sockets_.emplace_back(context_, zmq::socket_type::dealer);
    zmq::socket_t& s = sockets_.back();
    s.connect(endpoint_);
    dealers_.push_back(&s);
    joining_ = &s;
    send_frames(s, {}, encode(Subscribe{filter, kSnaplenAsCaptured, "test", true}));
    handle_one();
    Frames f;
    zmq::pollitem_t item{s.handle(), 0, ZMQ_POLLIN, 0};
    EXPECT_GT(zmq::poll(&item, 1, std::chrono::seconds(5)), 0);
    EXPECT_TRUE(receive_frames(s, f));
    EXPECT_EQ(message_type(f), MessageType::kAccept);
    joining_ = nullptr;
    return s;
  }

  void bye(zmq::socket_t& s) {
    send_frames(s, {}, encode_bye());
    handle_one();
  }

  void handle_one() {
    Frames f;
    std::string id;
    zmq::pollitem_t item{router_.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::seconds(5));
    ASSERT_TRUE(receive_frames(router_, f, &id));
    set_.handle(id, f);
  }

  // The table's bytes equal those of `set`.
  void expect_table(const KernelClauseSet& set) {
    lnetcap_subfilter want{};
    filter::fill_table(set, want);
    EXPECT_EQ(table_.pass_all, want.pass_all);
    ASSERT_EQ(table_.count, want.count);
    EXPECT_EQ(0, std::memcmp(table_.clause, want.clause, sizeof(want.clause)));
    EXPECT_EQ(table_.gen % 2, 0u);
  }

  std::string endpoint_ = "inproc://kernel-push-down";
  zmq::context_t context_;
  zmq::socket_t router_{context_, zmq::socket_type::router};
  daemon::SubscriberSet set_{router_, Accept{"node1", "test source"}};
  lnetcap_subfilter table_{};
  live::SubfilterWriter writer_{&table_};
  std::vector<KernelClauseSet> published_;
  std::deque<zmq::socket_t> sockets_;
  std::vector<zmq::socket_t*> dealers_;
  zmq::socket_t* joining_ = nullptr;
  bool accept_before_publish_ = false;
};

TEST_F(KernelPushDown, TableFollowsSubscribersAndAdmitsBeforeAccept) {
  follow_subscribers();
  expect_table(KernelClauseSet{});  // nobody: nothing leaves the kernel
  auto& gets = subscribe("type get");
  EXPECT_FALSE(accept_before_publish_) << "ACCEPT was sent before the table admitted the records";
  expect_table(clauses_of("type get"));
  auto& pings = subscribe("opcode OBD_PING and nid 10.0.3.1@tcp");
  EXPECT_FALSE(accept_before_publish_);
  expect_table(filter::unite({clauses_of("type get"), clauses_of("opcode OBD_PING and nid 10.0.3.1@tcp")}));
  EXPECT_EQ(table_.count, 2u);
  bye(gets);
  expect_table(clauses_of("opcode OBD_PING and nid 10.0.3.1@tcp"));
  auto& all = subscribe("");
  EXPECT_FALSE(accept_before_publish_);
  expect_table(KernelClauseSet::everything());
  bye(all);
  bye(pings);
  expect_table(KernelClauseSet{});
  EXPECT_EQ(published_.size(), 7u);  // the start and each of the six changes
}

TEST_F(KernelPushDown, RecorderTriggerOrMetricsPassEverything) {
  follow_subscribers(true);
  expect_table(KernelClauseSet::everything());
  subscribe("type get");
  expect_table(KernelClauseSet::everything());
}

TEST_F(KernelPushDown, ABadFilterChangesNothing) {
  follow_subscribers();
  subscribe("type get");
  const std::uint32_t gen = table_.gen;
  zmq::socket_t bad(context_, zmq::socket_type::dealer);
  bad.connect(endpoint_);
  send_frames(bad, {}, encode(Subscribe{"type pot", kSnaplenAsCaptured, "test", true}));
  handle_one();
  EXPECT_EQ(table_.gen, gen);
  expect_table(clauses_of("type get"));
}

TEST_F(KernelPushDown, AnonymizedSubscribersNidsAreNotTested) {
  follow_subscribers();
  subscribe("net tcp and type put");
  daemon::AnonymizePolicy forced;
  forced.all = true;
  const auto dir = std::filesystem::temp_directory_path() / ("lnetcap-kpd-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  forced.key_file = (dir / "anon.key").string();
  set_.set_anonymize_policy(forced);
  // Nets survive anonymization: the first subscriber's clause stays.
  expect_table(clauses_of("net tcp and type put"));
  subscribe("nid 10.0.3.1@tcp");  // a pseudonym: cannot be tested on real NIDs
  expect_table(KernelClauseSet::everything());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace lnetcap
