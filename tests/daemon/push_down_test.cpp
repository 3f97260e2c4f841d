// SPDX-License-Identifier: GPL-2.0-or-later
// lnetcapd's per-subscriber work (daemon/subscriber_set.h) over real ZeroMQ
// sockets: filters and snap lengths are applied in the daemon, a bad filter
// is refused with its error, and a subscriber that does not read loses
// records that are counted exactly while another one loses nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include <zmq.hpp>

#include "daemon/snap_length.h"
#include "daemon/subscriber_set.h"
#include "message_fixtures.h"
#include "subscribe/zmq_frames.h"

namespace lnetcap {
namespace {

using namespace subscribe;
using test::OwnedMessage;
using test::rpc_put;

class PushDown : public ::testing::Test {
 protected:
  void SetUp() override {
    router_.set(zmq::sockopt::router_mandatory, 1);
    router_.set(zmq::sockopt::sndhwm, 4);
    router_.bind(endpoint_);
    interfaces_.push_back(CaptureInterface{"tcp", "10.0.3.2@tcp", "", "", "", 1224});
  }

  // A subscriber: a DEALER that sends SUBSCRIBE; the daemon side handles it.
  zmq::socket_t subscribe(const std::string& filter, std::uint32_t snaplen = kSnaplenAsCaptured,
                          int rcvhwm = 1000, bool takes_batches = false) {
    zmq::socket_t s(context_, zmq::socket_type::dealer);
    s.set(zmq::sockopt::rcvhwm, rcvhwm);
    s.connect(endpoint_);
    send_frames(s, {}, encode(Subscribe{filter, snaplen, "test", takes_batches}));
    Frames f;
    std::string id;
    zmq::pollitem_t item{router_.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::seconds(5));
    EXPECT_TRUE(receive_frames(router_, f, &id));
    set_.handle(id, f);
    return s;
  }

  // A member of consumer group `group` (takes batches, as lnetcap does);
  // the daemon's answer is left on the socket.
  zmq::socket_t join(const std::string& group, const std::string& filter = "") {
    zmq::socket_t s(context_, zmq::socket_type::dealer);
    s.connect(endpoint_);
    Subscribe request{filter, kSnaplenAsCaptured, "member", true};
    request.group = group;
    send_frames(s, {}, encode(request));
    handle_next();
    return s;
  }

  // The daemon side handles the next message a subscriber sent.
  void handle_next() {
    Frames f;
    std::string id;
    zmq::pollitem_t item{router_.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::seconds(5));
    ASSERT_TRUE(receive_frames(router_, f, &id));
    set_.handle(id, f);
  }

  void deliver(const OwnedMessage& m) {
    CapturedRecord rec;
    rec.ts_ns = m.msg.ts_ns;
    rec.bytes = ByteSpan(m.bytes);
    rec.orig_len = static_cast<std::uint32_t>(m.bytes.size());
    ++stats_.received;
    set_.deliver(rec, m.msg, interfaces_, stats_, 0);
  }

  // Every message waiting on s (waits up to `wait` for the first).
  static std::vector<Frames> drain(zmq::socket_t& s, std::chrono::milliseconds wait = std::chrono::milliseconds(500)) {
    std::vector<Frames> out;
    for (;;) {
      zmq::pollitem_t item{s.handle(), 0, ZMQ_POLLIN, 0};
      if (zmq::poll(&item, 1, out.empty() ? wait : std::chrono::milliseconds(10)) == 0) return out;
      Frames f;
      while (receive_frames(s, f)) out.push_back(f);
    }
  }

  // The records of RECORD and BATCH messages, in order.
  static std::vector<RecordMeta> records(const std::vector<Frames>& messages) {
    std::vector<RecordMeta> out;
    for (const auto& m : messages)
      if (message_type(m) == MessageType::kRecord) out.push_back(decode_record_header(m));
      else if (message_type(m) == MessageType::kBatch)
        for (const auto& e : decode_batch(m)) out.push_back(e.meta);
    return out;
  }

  static std::size_t count_type(const std::vector<Frames>& messages, MessageType type) {
    return static_cast<std::size_t>(std::count_if(messages.begin(), messages.end(),
                                                  [&](const Frames& m) { return message_type(m) == type; }));
  }

  const daemon::SubscriberSet::Subscriber& subscriber(std::uint64_t number) const {
    for (const auto& [id, s] : set_.subscribers())
      if (s.number == number) return s;
    throw std::logic_error("no subscriber " + std::to_string(number));
  }

  // A stopped subscriber (number 1) and one that keeps up (number 2), fed
  // kRecords records flushed every `per_flush`: the reader loses nothing,
  // the stopped one loses records counted exactly, as gaps in what it reads.
  void stopped_loses_counted_records_reader_none(int per_flush, bool takes_batches) {
    auto stopped = subscribe("", kSnaplenAsCaptured, 1, takes_batches);  // reads nothing until the end
    auto reader = subscribe("", kSnaplenAsCaptured, 1000, takes_batches);
    const OwnedMessage ping = test::ping_get();
    constexpr int kRecords = 200;
    std::vector<Frames> got;
    for (int i = 0; i < kRecords; ++i) {
      deliver(ping);
      if ((i + 1) % per_flush != 0 && i + 1 != kRecords) continue;
      set_.flush();
      // The reader keeps up: everything it was sent is waiting for it.
      for (auto& f : drain(reader, std::chrono::milliseconds(200))) got.push_back(f);
    }
    const auto rrec = records(got);
    ASSERT_EQ(rrec.size(), static_cast<std::size_t>(kRecords));
    for (int i = 0; i < kRecords; ++i) EXPECT_EQ(rrec[i].seq, static_cast<std::uint64_t>(i + 1));

    const auto& slow = subscriber(1);
    EXPECT_EQ(slow.matched, static_cast<std::uint64_t>(kRecords));
    EXPECT_GT(slow.dropped, 0u);
    EXPECT_EQ(slow.sent + slow.dropped, static_cast<std::uint64_t>(kRecords));
    EXPECT_EQ(set_.total_dropped(), slow.dropped);
    // What it finally reads: its gaps in sequence numbers are its drops,
    // and every record says how many were dropped before it.
    const auto srec = records(drain(stopped));
    ASSERT_EQ(srec.size(), slow.sent);
    std::uint64_t last = 0, gaps = 0;
    for (const auto& r : srec) {
      ASSERT_GT(r.seq, last);
      gaps += r.seq - last - 1;
      EXPECT_EQ(r.counters.subscriber_dropped, gaps) << "record " << r.seq;
      last = r.seq;
    }
    gaps += kRecords - last;  // dropped after its last delivered record
    EXPECT_EQ(gaps, slow.dropped);
  }

  std::string endpoint_ = "inproc://push-down";
  zmq::context_t context_;
  zmq::socket_t router_{context_, zmq::socket_type::router};
  daemon::SubscriberSet set_{router_, Accept{"node1", "test source"}};
  std::vector<CaptureInterface> interfaces_;
  SourceStats stats_;
};

TEST_F(PushDown, EachSubscriberGetsOnlyWhatItsFilterMatches) {
  auto gets = subscribe("type get");
  auto all = subscribe("");
  const OwnedMessage enqueue = test::enqueue_request(), ping = test::ping_get();
  deliver(enqueue);
  deliver(ping);
  deliver(enqueue);

  const auto g = drain(gets);
  ASSERT_GE(g.size(), 3u);
  EXPECT_EQ(message_type(g[0]), MessageType::kAccept);
  EXPECT_EQ(decode_accept(g[0]).node, "node1");
  EXPECT_EQ(message_type(g[1]), MessageType::kInterface);  // before the first record
  const auto grec = records(g);
  ASSERT_EQ(grec.size(), 1u);
  EXPECT_EQ(grec[0].seq, 1u);
  // The body is the record exactly as the source had it.
  EXPECT_EQ(g.back()[1], ping.bytes);

  const auto arec = records(drain(all));
  ASSERT_EQ(arec.size(), 3u);
  EXPECT_EQ(arec[0].seq, 1u);
  EXPECT_EQ(arec[2].seq, 3u);
  EXPECT_EQ(arec[2].counters.source_received, 3u);
  EXPECT_EQ(set_.subscribers().size(), 2u);
}


// A consumer group's member that says BYE is sent what was gathered for it
// and then END, so every record it was given reaches it; the records after
// go to the member that stays.  Together they got each record once.
TEST_F(PushDown, GroupMemberLeavingGetsItsRecordsThenEndAndTheOthersTheRest) {
  auto leaver = join("split");
  auto stayer = join("split");
  EXPECT_EQ(decode_accept(drain(leaver).at(0)).group, "split");
  std::vector<OwnedMessage> rpcs;
  for (std::uint64_t i = 0; i < 40; ++i) rpcs.push_back(rpc_put(0x5f0000000080ULL + 64 * i));
  for (int i = 0; i < 20; ++i) deliver(rpcs[i]);  // gathered in batches: no flush yet
  send_frames(leaver, {}, encode_bye());
  handle_next();
  const auto left = drain(leaver);
  ASSERT_FALSE(left.empty());
  ASSERT_EQ(message_type(left.back()), MessageType::kEnd) << "END follows the leaver's records";
  const std::size_t leaver_got = records(left).size();
  EXPECT_GT(leaver_got, 0u) << "the leaver had a share of the first 20";
  EXPECT_LT(leaver_got, 20u) << "the stayer had a share of the first 20";
  EXPECT_EQ(decode_end(left.back()).counters.matched, leaver_got) << "all it was given reached it";
  EXPECT_EQ(set_.size(), 1u);
  for (int i = 20; i < 40; ++i) deliver(rpcs[i]);
  set_.flush();
  EXPECT_TRUE(drain(leaver, std::chrono::milliseconds(50)).empty()) << "nothing after its leave";
  const auto stayed = records(drain(stayer));
  EXPECT_EQ(leaver_got + stayed.size(), 40u);
  for (std::size_t i = 0; i < stayed.size(); ++i) EXPECT_EQ(stayed[i].seq, i + 1);  // no gap: none dropped
}

TEST_F(PushDown, GroupJoinWithAnotherFilterOrABadNameIsRefused) {
  auto first = join("split", "type put");
  EXPECT_EQ(message_type(drain(first).at(0)), MessageType::kAccept);
  auto other = join("split", "type get");
  const auto refused = drain(other);
  ASSERT_EQ(refused.size(), 1u);
  ASSERT_EQ(message_type(refused[0]), MessageType::kRefuse);
  EXPECT_NE(decode_refuse(refused[0]).message.find("must use the same filter"), std::string::npos);
  auto forged = join("a\nFORGED line");  // a peer may send any name
  const auto bad = drain(forged);
  ASSERT_EQ(bad.size(), 1u);
  ASSERT_EQ(message_type(bad[0]), MessageType::kRefuse);
  EXPECT_NE(decode_refuse(bad[0]).message.find("'a\\012FORGED line'"), std::string::npos)
      << decode_refuse(bad[0]).message;
  EXPECT_EQ(set_.size(), 1u);
}

TEST_F(PushDown, BadFilterIsRefusedWithItsError) {
  auto bad = subscribe("type pot");
  const auto m = drain(bad);
  ASSERT_EQ(m.size(), 1u);
  ASSERT_EQ(message_type(m[0]), MessageType::kRefuse);
  const Refuse r = decode_refuse(m[0]);
  EXPECT_NE(r.message.find("'pot'"), std::string::npos) << r.message;
  EXPECT_EQ(set_.size(), 0u);
}

TEST_F(PushDown, SnapLengthIsAppliedPerSubscriber) {
  auto cut = subscribe("", 16);
  auto whole = subscribe("");
  const OwnedMessage enqueue = test::enqueue_request();
  deliver(enqueue);
  const auto c = drain(cut);
  const auto w = drain(whole);
  ASSERT_EQ(records(c).size(), 1u);
  std::string why;
  const auto short_view = parse_record(c.back()[1], &why);
  ASSERT_TRUE(short_view) << why;
  EXPECT_EQ(short_view->payload.size(), 16u);
  EXPECT_EQ(short_view->hdr.payload_len, enqueue.msg.rec.hdr.payload_len);
  EXPECT_TRUE(std::equal(short_view->payload.begin(), short_view->payload.end(),
                         enqueue.msg.rec.payload.begin()));
  EXPECT_EQ(records(c)[0].orig_len, enqueue.bytes.size());  // orig_len as captured
  // The longest record of that snap length: a live record's 128-byte
  // header (with the LNet health fields), a nid16 LNet header, 16 bytes.
  EXPECT_EQ(decode_interface(c[1]).iface.snaplen, 128u + 96u + 16u);
  EXPECT_EQ(w.back()[1], enqueue.bytes);
}

TEST_F(PushDown, StoppedSubscriberLosesCountedRecordsOthersLoseNone) {
  stopped_loses_counted_records_reader_none(1, false);
}

// With batches a full queue drops a whole batch: still counted record by record.
TEST_F(PushDown, StoppedBatchSubscriberLosesCountedRecordsOthersLoseNone) {
  stopped_loses_counted_records_reader_none(5, true);
  EXPECT_EQ(subscriber(1).dropped % 5, 0u);  // whole batches of 5
}

TEST_F(PushDown, BatchesAreSentWhenFullOrFlushedAndOldSubscribersGetRecords) {
  auto batched = subscribe("", kSnaplenAsCaptured, 1000, true);
  auto old = subscribe("");  // a subscriber from before batching
  const OwnedMessage ping = test::ping_get();
  // A batch is full at kBatchRecords records or kBatchBytes bytes,
  // whichever comes first.
  subscribe::Frame one;
  subscribe::append_batch_entry(one, RecordMeta{}, ByteSpan(ping.bytes), {});
  const std::uint32_t full = std::min<std::uint32_t>(
      daemon::SubscriberSet::kBatchRecords,
      static_cast<std::uint32_t>((daemon::SubscriberSet::kBatchBytes + one.size() - 1) / one.size()));
  for (std::uint32_t i = 0; i < full + 2; ++i) deliver(ping);
  // A full batch goes at once; the 2 records after it wait for flush().
  auto b = drain(batched);
  EXPECT_EQ(count_type(b, MessageType::kBatch), 1u);
  EXPECT_EQ(records(b).size(), full);
  set_.flush();
  const auto rest = drain(batched);
  ASSERT_EQ(rest.size(), 1u);
  const auto entries = decode_batch(rest[0]);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].meta.seq, full + 1);
  EXPECT_EQ(entries[1].meta.seq, full + 2);
  // The record exactly as the source had it.
  EXPECT_TRUE(std::equal(entries[1].record.begin(), entries[1].record.end(), ping.bytes.begin(),
                         ping.bytes.end()));
  set_.flush();  // nothing gathered: nothing sent
  EXPECT_TRUE(drain(batched, std::chrono::milliseconds(50)).empty());

  const auto o = drain(old);
  EXPECT_EQ(count_type(o, MessageType::kBatch), 0u);
  EXPECT_EQ(count_type(o, MessageType::kRecord), full + 2);
}

// The byte bound: large records make a batch before kBatchRecords.
TEST_F(PushDown, BatchIsBoundedByBytes) {
  auto batched = subscribe("", kSnaplenAsCaptured, 1000, true);
  const OwnedMessage ping = test::ping_get();
  // The daemon does not look inside a record no filter needs: a quarter
  // of the byte bound of anything will do.
  const std::vector<std::uint8_t> big(daemon::SubscriberSet::kBatchBytes / 4, 0x5a);
  CapturedRecord rec;
  rec.bytes = ByteSpan(big);
  rec.orig_len = static_cast<std::uint32_t>(big.size());
  for (int i = 0; i < 5; ++i) set_.deliver(rec, ping.msg, interfaces_, stats_, 0);
  const auto b = drain(batched);
  ASSERT_EQ(count_type(b, MessageType::kBatch), 1u);
  EXPECT_EQ(records(b).size(), 4u);  // 4 quarters and their headers pass the bound
  set_.flush();
  EXPECT_EQ(records(drain(batched)).size(), 1u);
}

TEST(SnapLength, CutKeepsHeadersAndPayloadLength) {
  const OwnedMessage m = test::enqueue_request();
  std::vector<std::uint8_t> scratch;
  const ByteSpan same = daemon::cut_payload(m.bytes, 1u << 20, &scratch);
  EXPECT_EQ(same.data(), m.bytes.data());  // nothing to cut: no copy
  const ByteSpan none = daemon::cut_payload(m.bytes, 0, &scratch);
  std::string why;
  auto v = parse_record(none, &why);
  ASSERT_TRUE(v) << why;
  EXPECT_EQ(v->payload.size(), 0u);
  EXPECT_EQ(v->hdr.payload_len, m.msg.rec.hdr.payload_len);
  EXPECT_EQ(v->lnet_header.size(), m.msg.rec.lnet_header.size());
}

}  // namespace
}  // namespace lnetcap
