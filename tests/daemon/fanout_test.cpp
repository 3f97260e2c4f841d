// SPDX-License-Identifier: GPL-2.0-or-later
// lnetcapd's fan-out classes (daemon/subscriber_set.h, shared_batch.h) over
// real ZeroMQ sockets: subscribers entitled to the same bytes share one
// encoded batch that libzmq does not copy per subscriber, and
// - each of 1, 4 or 16 gets every record exactly as delivered, numbered
//   from its own subscription on;
// - a member that stops reading loses whole batches, counted, while the
//   batches it does hold stay intact although the others' move on (the
//   shared buffers are reused only once every member's copy is gone), and
//   once everyone has left every buffer is given back;
// - an anonymized and a plain subscriber side by side are never in one
//   class: the plain one gets the real record, the anonymized one never
//   does; so are two snap lengths.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <set>
#include <thread>

#include <zmq.hpp>

#include "daemon/subscriber_set.h"
#include "filter/kernel_clauses.h"
#include "message_fixtures.h"
#include "subscribe/zmq_frames.h"

namespace lnetcap {
namespace {

using namespace subscribe;
using test::OwnedMessage;
using test::rpc_put;


struct Received {
  std::vector<RecordMeta> meta;
  std::vector<std::vector<std::uint8_t>> bytes;
  std::vector<CaptureInterface> interfaces;
  std::size_t shared_batches = 0, other_batches = 0;
};

class Fanout : public ::testing::Test {
 protected:
  void SetUp() override {
    router_.set(zmq::sockopt::router_mandatory, 1);
    router_.set(zmq::sockopt::sndhwm, 4);
    router_.bind(endpoint_);
    interfaces_.push_back(CaptureInterface{"tcp", "10.0.3.2@tcp", "", "", "", 1224});
    for (std::uint64_t i = 0; i < 300; ++i) records_.push_back(rpc_put(0x5f0000000080ULL + 64 * i, 64));
  }

  // A subscriber as lnetcap is one (takes shared batches); `peer` is who
  // the daemon takes it for (its uid decides anonymization).
  zmq::socket_t subscribe(const std::string& filter = "", std::uint32_t snaplen = kSnaplenAsCaptured,
                          int rcvhwm = 1000, Peer peer = {}, bool shared = true) {
    zmq::socket_t s(context_, zmq::socket_type::dealer);
    s.set(zmq::sockopt::rcvhwm, rcvhwm);
    s.connect(endpoint_);
    Subscribe request{filter, snaplen, "test", true};
    request.takes_shared_batches = shared;
    send_frames(s, {}, encode(request));
    handle_next(peer);
    return s;
  }

  void handle_next(const Peer& peer = {}) {
    Frames f;
    std::string id;
    zmq::pollitem_t item{router_.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::seconds(5));
    ASSERT_TRUE(receive_frames(router_, f, &id));
    set_.handle(id, f, peer);
  }

  void deliver(const OwnedMessage& m) {
    CapturedRecord rec;
    rec.ts_ns = m.msg.ts_ns;
    rec.bytes = ByteSpan(m.bytes);
    rec.orig_len = static_cast<std::uint32_t>(m.bytes.size());
    ++stats_.received;
    set_.deliver(rec, m.msg, interfaces_, stats_, 0);
  }

  // Everything waiting on s (up to `wait` for the first message), its
  // records' bytes copied out of their messages.
  static Received drain(zmq::socket_t& s, std::chrono::milliseconds wait = std::chrono::milliseconds(500)) {
    Received out;
    bool any = false;
    for (;;) {
      zmq::pollitem_t item{s.handle(), 0, ZMQ_POLLIN, 0};
      if (zmq::poll(&item, 1, any ? std::chrono::milliseconds(20) : wait) == 0) return out;
      Frames f;
      while (receive_frames(s, f)) {
        any = true;
        std::vector<BatchEntry> entries;
        switch (message_type(f)) {
          case MessageType::kSharedBatch: entries = decode_shared_batch(f); ++out.shared_batches; break;
          case MessageType::kBatch: entries = decode_batch(f); ++out.other_batches; break;
          case MessageType::kInterface: out.interfaces.push_back(decode_interface(f).iface); break;
          default: break;
        }
        for (const auto& e : entries) {
          out.meta.push_back(e.meta);
          out.bytes.emplace_back(e.record.begin(), e.record.end());
        }
      }
    }
  }

  const daemon::SubscriberSet::Subscriber& subscriber(std::uint64_t number) const {
    for (const auto& [id, s] : set_.subscribers())
      if (s.number == number) return s;
    throw std::logic_error("no subscriber " + std::to_string(number));
  }

  // n subscribers share one class: each gets records_[0..count) exactly,
  // numbered 1.., in shared batches.
  void every_member_gets_every_record(int n) {
    std::vector<zmq::socket_t> subs;
    for (int i = 0; i < n; ++i) subs.push_back(subscribe());
    EXPECT_EQ(set_.fanout_classes(), 1u);
    for (std::size_t i = 0; i < records_.size(); ++i) {
      deliver(records_[i]);
      if (i % 37 == 0) set_.flush();  // batches of every size
    }
    set_.flush();
    for (int k = 0; k < n; ++k) {
      const Received got = drain(subs[k]);
      EXPECT_GT(got.shared_batches, 0u);
      EXPECT_EQ(got.other_batches, 0u);
      ASSERT_EQ(got.bytes.size(), records_.size()) << "subscriber " << k;
      ASSERT_EQ(got.interfaces.size(), 1u);
      EXPECT_EQ(got.interfaces[0].description, "10.0.3.2@tcp");
      for (std::size_t i = 0; i < records_.size(); ++i) {
        EXPECT_EQ(got.meta[i].seq, i + 1);
        EXPECT_EQ(got.meta[i].counters.subscriber_dropped, 0u);
        EXPECT_EQ(got.meta[i].ts_ns, records_[i].msg.ts_ns);
        EXPECT_EQ(got.meta[i].orig_len, records_[i].bytes.size());
        ASSERT_EQ(got.bytes[i], records_[i].bytes) << "subscriber " << k << " record " << i;
      }
    }
    EXPECT_EQ(set_.total_dropped(), 0u);
  }

  std::string endpoint_ = "inproc://fanout";
  zmq::context_t context_;
  zmq::socket_t router_{context_, zmq::socket_type::router};
  daemon::SubscriberSet set_{router_, Accept{"node1", "test source"}};
  std::vector<CaptureInterface> interfaces_;
  SourceStats stats_;
  std::vector<OwnedMessage> records_;
};

TEST_F(Fanout, OneSubscriberGetsEveryRecordUnchanged) { every_member_gets_every_record(1); }
TEST_F(Fanout, FourSubscribersGetEveryRecordUnchanged) { every_member_gets_every_record(4); }
TEST_F(Fanout, SixteenSubscribersGetEveryRecordUnchanged) { every_member_gets_every_record(16); }

// Only subscribers that said they take shared batches share; a filter, a
// snap length make classes of their own; one who joins mid-batch gets no
// record from before it subscribed, numbered from 1.
TEST_F(Fanout, ClassesOfTheSameBytesOnly) {
  auto a = subscribe();
  auto older = subscribe("", kSnaplenAsCaptured, 1000, {}, false);  // batches, not shared ones
  auto cut = subscribe("", 16);
  auto gets = subscribe("type get");
  EXPECT_EQ(set_.fanout_classes(), 3u);
  for (int i = 0; i < 10; ++i) deliver(records_[i]);
  auto b = subscribe();  // joins a's class mid-batch
  for (int i = 10; i < 15; ++i) deliver(records_[i]);
  set_.flush();
  const Received ga = drain(a), gb = drain(b), go = drain(older), gc = drain(cut), gg = drain(gets);
  ASSERT_EQ(ga.bytes.size(), 15u);
  ASSERT_EQ(gb.bytes.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(gb.meta[i].seq, static_cast<std::uint64_t>(i + 1));
    EXPECT_EQ(gb.bytes[i], records_[10 + i].bytes);
  }
  EXPECT_EQ(go.shared_batches, 0u);
  EXPECT_EQ(go.bytes.size(), 15u);
  EXPECT_EQ(gc.bytes.size(), 15u);
  for (const auto& bytes : gc.bytes) EXPECT_LT(bytes.size(), records_[0].bytes.size());
  EXPECT_TRUE(gg.bytes.empty());  // PUTs only
  send_frames(a, {}, encode_bye());
  handle_next();
  send_frames(b, {}, encode_bye());
  handle_next();
  EXPECT_EQ(set_.fanout_classes(), 2u);  // the last member's leaving ends a class
}

// A stopped member (a one-message receive queue, four in the daemon's
// send queue) and one that keeps up, 300 different records in batches of
// 5: the reader gets all, the stopped one loses whole batches, counted,
// and what it does read later is exactly the records of those numbers -
// although the batches after them were sent while it held them.
TEST_F(Fanout, StoppedMemberLosesCountedBatchesAndItsHeldBatchesStayIntact) {
  const std::size_t buffers_before = daemon::SharedBatch::buffers_in_use();
  auto stopped = subscribe("", kSnaplenAsCaptured, 1);
  auto reader = subscribe();
  Received got;
  for (std::size_t i = 0; i < records_.size(); ++i) {
    deliver(records_[i]);
    if ((i + 1) % 5 != 0) continue;
    set_.flush();
    Received more = drain(reader, std::chrono::milliseconds(200));
    got.meta.insert(got.meta.end(), more.meta.begin(), more.meta.end());
    got.bytes.insert(got.bytes.end(), more.bytes.begin(), more.bytes.end());
  }
  ASSERT_EQ(got.bytes.size(), records_.size());
  for (std::size_t i = 0; i < records_.size(); ++i) {
    EXPECT_EQ(got.meta[i].seq, i + 1);
    ASSERT_EQ(got.bytes[i], records_[i].bytes) << "record " << i;
  }
  const auto& slow = subscriber(1);
  EXPECT_EQ(slow.matched, records_.size());
  EXPECT_GT(slow.dropped, 0u);
  EXPECT_EQ(slow.dropped % 5, 0u);  // whole batches
  EXPECT_EQ(slow.sent + slow.dropped, records_.size());
  EXPECT_EQ(set_.total_dropped(), slow.dropped);
  // What it reads now: each record the one of its number, its gaps its drops.
  const Received late = drain(stopped);
  ASSERT_EQ(late.bytes.size(), slow.sent);
  ASSERT_GT(late.bytes.size(), 0u);
  std::uint64_t last = 0, gaps = 0;
  for (std::size_t k = 0; k < late.bytes.size(); ++k) {
    const std::uint64_t seq = late.meta[k].seq;
    ASSERT_GT(seq, last);
    gaps += seq - last - 1;
    EXPECT_EQ(late.meta[k].counters.subscriber_dropped, gaps) << "record " << seq;
    ASSERT_EQ(late.bytes[k], records_[seq - 1].bytes) << "record " << seq << " is another record's bytes";
    last = seq;
  }
  EXPECT_EQ(gaps + (records_.size() - last), slow.dropped);
  // Both leave: once their sockets are gone every shared buffer is back.
  send_frames(stopped, {}, encode_bye());
  handle_next();
  send_frames(reader, {}, encode_bye());
  handle_next();
  EXPECT_EQ(set_.fanout_classes(), 0u);
  stopped.close();
  reader.close();
  for (int i = 0; i < 200 && daemon::SharedBatch::buffers_in_use() != buffers_before; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(daemon::SharedBatch::buffers_in_use(), buffers_before);
}

// A member that goes away with batches queued for it: the others go on,
// and nothing it held is reused early (its queue is dropped by libzmq).
TEST_F(Fanout, MemberLeavingMidStreamDoesNotDisturbTheOthers) {
  auto leaver = subscribe("", kSnaplenAsCaptured, 1);
  auto stayer = subscribe();
  for (int i = 0; i < 100; ++i) deliver(records_[i]);
  set_.flush();
  leaver.close();  // disconnects with batches queued
  send_frames(stayer, {}, encode_status_request());  // a round trip: the router sees the leave
  handle_next();
  for (std::size_t i = 100; i < records_.size(); ++i) {
    deliver(records_[i]);
    if (i % 20 == 0) set_.flush();
  }
  set_.flush();
  const Received got = drain(stayer);
  ASSERT_EQ(got.bytes.size(), records_.size());
  for (std::size_t i = 0; i < records_.size(); ++i) ASSERT_EQ(got.bytes[i], records_[i].bytes) << i;
  EXPECT_EQ(subscriber(2).dropped, 0u);
}

// A member found gone while its class's batch is flushed for a joiner is
// removed then; the kernel's clauses made at that moment include the
// joiner, or its records would stay in the kernel.
TEST_F(Fanout, JoinerKeepsItsKernelClausesWhenAGoneMemberIsRemoved) {
  filter::KernelClauseSet last;
  set_.set_kernel_clauses([&](const filter::KernelClauseSet& set) { last = set; }, false);
  auto gone = subscribe("type put");
  deliver(records_[0]);
  set_.flush();  // its interface announced: the next send is the batch's
  for (int i = 1; i < 4; ++i) deliver(records_[i]);  // gathered, not flushed
  gone.close();
  // Round trips, so that the router has seen the leave (libzmq's pipe
  // ends in a few steps of commands, processed as the socket is used).
  zmq::socket_t other(context_, zmq::socket_type::dealer);
  other.connect(endpoint_);
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    send_frames(other, {}, encode_status_request());
    handle_next();
  }
  auto joiner = subscribe("type put");  // flushes the class: the gone member is found
  EXPECT_EQ(set_.subscribers().size(), 1u);
  EXPECT_FALSE(last.pass_all);
  EXPECT_EQ(last, filter::kernel_clauses(filter::Filter::parse("type put")))
      << "the joiner's clauses are missing from the kernel's";
}

// Forced anonymization per user: two plain and two anonymized subscribers
// side by side make two classes; the plain ones get the record as
// captured, the anonymized ones pseudonyms only - never the real bytes.
TEST_F(Fanout, AnonymizedAndPlainSideBySideGetDifferentBytes) {
  char dir[] = "/tmp/lnetcap-fanout.XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  daemon::AnonymizePolicy policy;
  policy.users = {4242};
  policy.key_file = std::string(dir) + "/anon.key";
  set_.set_anonymize_policy(policy);
  Peer forced;
  forced.uid = 4242;
  Peer free_user;
  free_user.uid = 4243;
  auto plain1 = subscribe("", kSnaplenAsCaptured, 1000, free_user);
  auto anon1 = subscribe("", kSnaplenAsCaptured, 1000, forced);
  auto plain2 = subscribe("", kSnaplenAsCaptured, 1000, free_user);
  auto anon2 = subscribe("", kSnaplenAsCaptured, 1000, forced);
  EXPECT_EQ(set_.fanout_classes(), 2u);
  for (int i = 0; i < 20; ++i) deliver(records_[i]);
  set_.flush();
  const Received p1 = drain(plain1), p2 = drain(plain2), a1 = drain(anon1), a2 = drain(anon2);
  ASSERT_EQ(p1.bytes.size(), 20u);
  ASSERT_EQ(a1.bytes.size(), 20u);
  EXPECT_EQ(p1.bytes, p2.bytes);
  EXPECT_EQ(a1.bytes, a2.bytes);
  const std::string real_nid = "10.0.3.2@tcp";
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(p1.bytes[i], records_[i].bytes);
    EXPECT_NE(a1.bytes[i], records_[i].bytes) << "record " << i << " reached an anonymized subscriber as captured";
  }
  ASSERT_EQ(p1.interfaces.size(), 1u);
  ASSERT_EQ(a1.interfaces.size(), 1u);
  EXPECT_EQ(p1.interfaces[0].description, real_nid);
  EXPECT_EQ(a1.interfaces[0].description.find(real_nid), std::string::npos) << a1.interfaces[0].description;
  // A plain subscriber that the policy forces from now on moves to the
  // anonymized class: what it gets after the reload is pseudonymous.
  policy.users.insert(4243);
  set_.set_anonymize_policy(policy);
  EXPECT_EQ(set_.fanout_classes(), 1u);
  for (int i = 20; i < 30; ++i) deliver(records_[i]);
  set_.flush();
  const Received after = drain(plain1), anon_after = drain(anon1);
  ASSERT_EQ(after.bytes.size(), 10u);
  EXPECT_EQ(after.bytes, anon_after.bytes);
  for (int i = 0; i < 10; ++i) EXPECT_NE(after.bytes[i], records_[20 + i].bytes);
  std::string rm = std::string("rm -rf ") + dir;
  EXPECT_EQ(std::system(rm.c_str()), 0);
}

}  // namespace
}  // namespace lnetcap
