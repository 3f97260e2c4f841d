// SPDX-License-Identifier: GPL-2.0-or-later
// The subscription protocol: every message survives encode/decode, and
// malformed or foreign messages are refused with a clear message.
#include <gtest/gtest.h>

#include "error.h"
#include "subscribe/protocol.h"
#include "subscribe/zmq_frames.h"

namespace lnetcap::subscribe {
namespace {

TEST(DaemonProtocol, SubscribeRoundTrip) {
  Subscribe s{"opcode LDLM_ENQUEUE and status < 0", 64, "lnetcap 0.1.0 pid 7 uid 1000"};
  const Frames f = encode(s);
  EXPECT_EQ(message_type(f), MessageType::kSubscribe);
  const Subscribe d = decode_subscribe(f);
  EXPECT_EQ(d.filter, s.filter);
  EXPECT_EQ(d.snaplen, 64u);
  EXPECT_EQ(d.client, s.client);
  // "As captured" is its own value, not a large snap length by accident.
  EXPECT_EQ(decode_subscribe(encode(Subscribe{})).snaplen, kSnaplenAsCaptured);
}

TEST(DaemonProtocol, SubscribeSaysWhetherItTakesBatches) {
  Subscribe s{"", 64, "new"};
  s.takes_batches = true;
  EXPECT_TRUE(decode_subscribe(encode(s)).takes_batches);
  s.takes_batches = false;
  EXPECT_FALSE(decode_subscribe(encode(s)).takes_batches);
  // A subscriber from before batching sends no flags word: it gets RECORDs.
  Frames old = encode(Subscribe{"type get", 64, "old"});
  old[0].resize(8 + 4);
  const Subscribe d = decode_subscribe(old);
  EXPECT_FALSE(d.takes_batches);
  EXPECT_EQ(d.snaplen, 64u);
  EXPECT_EQ(d.filter, "type get");
}

TEST(DaemonProtocol, SubscribeAndAcceptCarryTheConsumerGroup) {
  Subscribe s{"opcode OST_READ", 64, "member"};
  s.group = "analysis";
  const Frames f = encode(s);
  EXPECT_EQ(f.size(), 4u);
  EXPECT_EQ(decode_subscribe(f).group, "analysis");
  // Without a group nothing changes on the wire (an older daemon's view).
  EXPECT_EQ(encode(Subscribe{"", 64, "plain"}).size(), 3u);
  EXPECT_EQ(decode_subscribe(encode(Subscribe{"", 64, "plain"})).group, "");
  // The daemon's ACCEPT names the group joined; an older one's names none.
  Accept a{"oss1", "replay"};
  EXPECT_EQ(decode_accept(encode(a)).group, "");
  a.group = "analysis";
  EXPECT_EQ(decode_accept(encode(a)).group, "analysis");
}

TEST(DaemonProtocol, BatchCarriesEachRecordUnchanged) {
  RecordMeta a;
  a.seq = 7;
  a.counters.matched = 7;
  a.counters.subscriber_dropped = 2;
  a.ts_ns = 1700000000123456789ull;
  a.orig_len = 300;
  RecordMeta b = a;
  b.seq = b.counters.matched = 9;  // 8 was dropped
  b.interface_id = 1;
  b.has_drops_before = true;
  b.drops_before = 5;
  const Frame rec_a{1, 2, 3, 4, 5}, rec_b(1000, 0xab);
  Frame body;
  append_batch_entry(body, a, ByteSpan(rec_a), {});
  append_batch_entry(body, b, ByteSpan(rec_b), {"first comment", ""});
  const Frames f{encode_batch_header(2), body};
  EXPECT_EQ(message_type(f), MessageType::kBatch);
  EXPECT_EQ(f[0][5], 23);
  const auto entries = decode_batch(f);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].meta.seq, 7u);
  EXPECT_EQ(entries[0].meta.counters.subscriber_dropped, 2u);
  EXPECT_EQ(entries[0].meta.ts_ns, a.ts_ns);
  EXPECT_EQ(entries[0].meta.orig_len, 300u);
  EXPECT_TRUE(std::equal(entries[0].record.begin(), entries[0].record.end(), rec_a.begin(), rec_a.end()));
  EXPECT_TRUE(entries[0].comments.empty());
  EXPECT_EQ(entries[1].meta.seq, 9u);
  EXPECT_EQ(entries[1].meta.interface_id, 1u);
  EXPECT_TRUE(entries[1].meta.has_drops_before);
  EXPECT_EQ(entries[1].meta.drops_before, 5u);
  EXPECT_TRUE(std::equal(entries[1].record.begin(), entries[1].record.end(), rec_b.begin(), rec_b.end()));
  ASSERT_EQ(entries[1].comments.size(), 2u);
  EXPECT_EQ(std::string(entries[1].comments[0].begin(), entries[1].comments[0].end()), "first comment");
  EXPECT_TRUE(entries[1].comments[1].empty());
  // The record is the one and only copy of its bytes: a span into the frame.
  EXPECT_GE(entries[1].record.data(), f[1].data());
  EXPECT_LE(entries[1].record.data() + entries[1].record.size(), f[1].data() + f[1].size());

  // Malformed batches are refused, not read past their end.
  Frames more{encode_batch_header(3), body};
  EXPECT_THROW(decode_batch(more), Error);
  Frames fewer{encode_batch_header(1), body};
  EXPECT_THROW(decode_batch(fewer), Error);
  for (std::size_t cut : {std::size_t{1}, std::size_t{5}, body.size() - 1}) {
    Frames truncated{encode_batch_header(2), Frame(body.begin(), body.end() - cut)};
    EXPECT_THROW(decode_batch(truncated), Error) << "cut " << cut;
  }
  Frame huge_len = body;
  store_le32(huge_len.data() + 80, 0xfffffff0u);  // the first record's length
  EXPECT_THROW(decode_batch(Frames{encode_batch_header(2), huge_len}), Error);
  EXPECT_THROW(decode_batch(Frames{encode_batch_header(0xffffffffu), Frame{}}), Error);
}

TEST(DaemonProtocol, SubscribeSaysWhetherItTakesSharedBatches) {
  Subscribe s{"", 64, "new"};
  s.takes_batches = s.takes_shared_batches = true;
  const Subscribe d = decode_subscribe(encode(s));
  EXPECT_TRUE(d.takes_batches);
  EXPECT_TRUE(d.takes_shared_batches);
  // A subscriber from before shared batches: batches only.
  s.takes_shared_batches = false;
  EXPECT_FALSE(decode_subscribe(encode(s)).takes_shared_batches);
  // Shared batches are batches: claiming one without the other gets neither.
  s.takes_batches = false;
  s.takes_shared_batches = true;
  EXPECT_FALSE(decode_subscribe(encode(s)).takes_shared_batches);
}

// One body for every member of a class, each member's numbers and counters
// in its own header: the same body read with two headers gives each its
// own numbering, the records unchanged.
TEST(DaemonProtocol, SharedBatchNumbersTheSameBodyPerSubscriber) {
  RecordMeta a;
  a.ts_ns = 1700000000123456789ull;
  a.orig_len = 300;
  a.seq = 999;  // not encoded: a member's own
  RecordMeta b = a;
  b.interface_id = 1;
  b.has_drops_before = true;
  b.drops_before = 5;
  const Frame rec_a{1, 2, 3, 4, 5}, rec_b(1000, 0xab);
  Frame body;
  append_shared_batch_entry(body, a, ByteSpan(rec_a), {});
  append_shared_batch_entry(body, b, ByteSpan(rec_b), {"first comment"});
  Counters first;  // a member that has seen 10 records before, 3 dropped
  first.matched = 12;
  first.subscriber_dropped = 3;
  first.source_received = 40;
  Counters second;  // one that joined just now
  second.matched = 2;
  const Frames f1{encode_shared_batch_header(2, 11, first), body};
  const Frames f2{encode_shared_batch_header(2, 1, second), body};
  EXPECT_EQ(message_type(f1), MessageType::kSharedBatch);
  EXPECT_EQ(f1[0][5], 24);
  const auto e1 = decode_shared_batch(f1), e2 = decode_shared_batch(f2);
  ASSERT_EQ(e1.size(), 2u);
  ASSERT_EQ(e2.size(), 2u);
  EXPECT_EQ(e1[0].meta.seq, 11u);
  EXPECT_EQ(e1[1].meta.seq, 12u);
  EXPECT_EQ(e1[0].meta.counters.matched, 11u);  // as a RECORD's: its own number
  EXPECT_EQ(e1[1].meta.counters.subscriber_dropped, 3u);
  EXPECT_EQ(e1[1].meta.counters.source_received, 40u);
  EXPECT_EQ(e2[0].meta.seq, 1u);
  EXPECT_EQ(e2[1].meta.seq, 2u);
  EXPECT_EQ(e2[1].meta.counters.subscriber_dropped, 0u);
  for (const auto* e : {&e1, &e2}) {
    EXPECT_EQ((*e)[0].meta.ts_ns, a.ts_ns);
    EXPECT_EQ((*e)[0].meta.orig_len, 300u);
    EXPECT_TRUE(std::equal((*e)[0].record.begin(), (*e)[0].record.end(), rec_a.begin(), rec_a.end()));
    EXPECT_EQ((*e)[1].meta.interface_id, 1u);
    EXPECT_TRUE((*e)[1].meta.has_drops_before);
    EXPECT_EQ((*e)[1].meta.drops_before, 5u);
    EXPECT_TRUE(std::equal((*e)[1].record.begin(), (*e)[1].record.end(), rec_b.begin(), rec_b.end()));
    ASSERT_EQ((*e)[1].comments.size(), 1u);
  }
  // Numbers that do not end at the counters' matched, none, or a body of
  // another length are refused.
  EXPECT_THROW(decode_shared_batch(Frames{encode_shared_batch_header(2, 10, first), body}), Error);
  EXPECT_THROW(decode_shared_batch(Frames{encode_shared_batch_header(2, 0, second), body}), Error);
  EXPECT_THROW(decode_shared_batch(Frames{encode_shared_batch_header(0, 1, Counters{}), Frame{}}), Error);
  EXPECT_THROW(decode_shared_batch(Frames{encode_shared_batch_header(3, 10, first), body}), Error);
  EXPECT_THROW(decode_shared_batch(Frames{encode_shared_batch_header(1, 12, first), body}), Error);
  EXPECT_THROW(decode_shared_batch(Frames{encode_shared_batch_header(2, 11, first),
                                          Frame(body.begin(), body.end() - 1)}),
               Error);
  Frames short_header{encode_shared_batch_header(2, 11, first), body};
  short_header[0].resize(short_header[0].size() - 1);
  EXPECT_THROW(decode_shared_batch(short_header), Error);
}

// The ring (docs/DAEMON.md "Fan-out"): a subscriber says it can map one;
// RING_OFFER carries the token and geometry, RING_BATCH a SHARED_BATCH's
// header plus where its body is in the ring.
TEST(DaemonProtocol, RingOfferAndRingBatchRoundTrip) {
  Subscribe s{"", 64, "new"};
  s.takes_batches = s.takes_shared_batches = s.maps_ring = true;
  EXPECT_TRUE(decode_subscribe(encode(s)).maps_ring);
  s.maps_ring = false;  // an older subscriber
  EXPECT_FALSE(decode_subscribe(encode(s)).maps_ring);
  s.maps_ring = true;  // a ring carries shared batches: not without them
  s.takes_shared_batches = false;
  EXPECT_FALSE(decode_subscribe(encode(s)).maps_ring);

  RingOffer o;
  for (std::size_t i = 0; i < o.token.size(); ++i) o.token[i] = static_cast<std::uint8_t>(0xa0 + i);
  o.slots = 128;
  o.slot_bytes = 131136;
  const Frames of = encode(o);
  EXPECT_EQ(message_type(of), MessageType::kRingOffer);
  EXPECT_EQ(of[0][5], 25);
  const RingOffer od = decode_ring_offer(of);
  EXPECT_EQ(od.token, o.token);
  EXPECT_EQ(od.slots, 128u);
  EXPECT_EQ(od.slot_bytes, 131136u);
  Frames short_offer = of;
  short_offer[0].pop_back();
  EXPECT_THROW(decode_ring_offer(short_offer), Error);

  RingBatch b;
  b.count = 3;
  b.first_seq = 8;
  b.counters.matched = 10;
  b.counters.subscriber_dropped = 2;
  b.counters.watermark_ns = 77;
  b.gen = 300;
  b.slot = 300 % 128;
  b.body_len = 4096;
  const Frames bf{encode_ring_batch_header(b)};
  EXPECT_EQ(message_type(bf), MessageType::kRingBatch);
  EXPECT_EQ(bf[0][5], 26);
  const RingBatch bd = decode_ring_batch(bf);
  EXPECT_EQ(bd.count, 3u);
  EXPECT_EQ(bd.first_seq, 8u);
  EXPECT_EQ(bd.counters.matched, 10u);
  EXPECT_EQ(bd.counters.subscriber_dropped, 2u);
  EXPECT_EQ(bd.counters.watermark_ns, 77u);
  EXPECT_EQ(bd.gen, 300u);
  EXPECT_EQ(bd.slot, 300u % 128);
  EXPECT_EQ(bd.body_len, 4096u);
  // Numbered as a SHARED_BATCH must be; a header cut short is refused.
  RingBatch bad = b;
  bad.first_seq = 7;
  EXPECT_THROW(decode_ring_batch(Frames{encode_ring_batch_header(bad)}), Error);
  bad = b;
  bad.count = 0;
  EXPECT_THROW(decode_ring_batch(Frames{encode_ring_batch_header(bad)}), Error);
  Frames short_batch = bf;
  short_batch[0].pop_back();
  EXPECT_THROW(decode_ring_batch(short_batch), Error);

  // The body copied out of the ring decodes as a SHARED_BATCH's would.
  RecordMeta m;
  m.ts_ns = 5;
  const Frame rec{9, 8, 7};
  Frame body;
  for (int i = 0; i < 3; ++i) append_shared_batch_entry(body, m, ByteSpan(rec), {});
  const auto entries = decode_ring_batch_body(b, body);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[2].meta.seq, 10u);
  EXPECT_EQ(entries[0].meta.counters.subscriber_dropped, 2u);
  EXPECT_THROW(decode_ring_batch_body(b, Frame(body.begin(), body.end() - 1)), Error);
}

TEST(DaemonProtocol, DumpAndStatusRoundTrip) {
  // DUMP carries SUBSCRIBE's fields under its own type (3): a daemon that
  // predates it refuses nothing it already knew.
  const Frames f = encode_dump(Subscribe{"status == -110", 128, "lnetcap pid 9"});
  EXPECT_EQ(message_type(f), MessageType::kDump);
  EXPECT_EQ(f[0][5], 3);
  const Subscribe d = decode_dump(f);
  EXPECT_EQ(d.filter, "status == -110");
  EXPECT_EQ(d.snaplen, 128u);
  EXPECT_EQ(d.client, "lnetcap pid 9");
  EXPECT_THROW(decode_subscribe(f), Error);
  EXPECT_EQ(message_type(encode_status_request()), MessageType::kStatus);
  Status st;
  st.items = {{"memory held (bytes)", "4096"}, {"triggers fired", "3"}, {"empty", ""}};
  const Frames sf = encode(st);
  EXPECT_EQ(message_type(sf), MessageType::kStatusReply);
  EXPECT_EQ(decode_status(sf).items, st.items);
  Frames odd = sf;
  odd.pop_back();
  EXPECT_THROW(decode_status(odd), Error);
}

TEST(DaemonProtocol, PreambleIsMagicVersionType) {
  const Frames f = encode_bye();
  ASSERT_EQ(f.size(), 1u);
  ASSERT_EQ(f[0].size(), 8u);
  EXPECT_EQ(std::string(f[0].begin(), f[0].begin() + 4), "LNSB");
  EXPECT_EQ(f[0][4], kProtocolVersion);
  EXPECT_EQ(f[0][5], 2);  // BYE
}

TEST(DaemonProtocol, AcceptRefuseInterfaceRoundTrip) {
  const Accept a = decode_accept(encode(Accept{"oss1", "replay of x.pcapng"}));
  EXPECT_EQ(a.node, "oss1");
  EXPECT_EQ(a.source, "replay of x.pcapng");
  const Refuse r = decode_refuse(encode(Refuse{"filter: unknown word 'pot' at column 6", "see lnetcap -h"}));
  EXPECT_EQ(r.message, "filter: unknown word 'pot' at column 6");
  EXPECT_EQ(r.hint, "see lnetcap -h");
  InterfaceAnnouncement i;
  i.id = 3;
  i.iface = CaptureInterface{"o2ib1", "10.0.0.1@o2ib1 mlx5_0", "Linux 6.1", "x86_64", "", 1224};
  const InterfaceAnnouncement d = decode_interface(encode(i));
  EXPECT_EQ(d.id, 3u);
  EXPECT_EQ(d.iface.name, "o2ib1");
  EXPECT_EQ(d.iface.description, "10.0.0.1@o2ib1 mlx5_0");
  EXPECT_EQ(d.iface.os, "Linux 6.1");
  EXPECT_EQ(d.iface.hardware, "x86_64");
  EXPECT_EQ(d.iface.snaplen, 1224u);
}

TEST(DaemonProtocol, RecordHeaderCarriesSequenceAndEveryDropCount) {
  RecordMeta m;
  m.seq = 41;
  m.counters = Counters{41, 7, 1000, 12, 1700000000000000000ULL};
  m.ts_ns = 1700000000123456789ULL;
  m.interface_id = 2;
  m.orig_len = 1328;
  m.epb_flags = 2;
  m.has_drops_before = true;
  m.drops_before = 5;
  const Frame rec{1, 2, 3};
  const RecordMeta d = decode_record_header(Frames{encode_record_header(m), rec});
  EXPECT_EQ(d.seq, 41u);
  EXPECT_EQ(d.counters.matched, 41u);
  EXPECT_EQ(d.counters.subscriber_dropped, 7u);
  EXPECT_EQ(d.counters.source_received, 1000u);
  EXPECT_EQ(d.counters.source_dropped, 12u);
  EXPECT_EQ(d.counters.watermark_ns, 1700000000000000000ULL);
  EXPECT_EQ(d.ts_ns, m.ts_ns);
  EXPECT_EQ(d.interface_id, 2u);
  EXPECT_EQ(d.orig_len, 1328u);
  EXPECT_EQ(d.epb_flags, 2u);
  EXPECT_TRUE(d.has_drops_before);
  EXPECT_EQ(d.drops_before, 5u);
}

TEST(DaemonProtocol, HeartbeatAndEndRoundTrip) {
  const Counters c = decode_heartbeat(encode(Counters{10, 2, 30, 4, 5}));
  EXPECT_EQ(c.matched, 10u);
  EXPECT_EQ(c.subscriber_dropped, 2u);
  EXPECT_EQ(c.source_received, 30u);
  EXPECT_EQ(c.source_dropped, 4u);
  EXPECT_EQ(c.watermark_ns, 5u);
  const End e = decode_end(encode(End{Counters{9, 1, 9, 0, 0}, true, "x.pcapng: offset 88: bad block"}));
  EXPECT_TRUE(e.failed);
  EXPECT_EQ(e.reason, "x.pcapng: offset 88: bad block");
  EXPECT_EQ(e.counters.matched, 9u);
}

TEST(DaemonProtocol, RejectsForeignTruncatedAndNewerMessages) {
  EXPECT_THROW(message_type(Frames{}), Error);
  EXPECT_THROW(message_type(Frames{Frame{'H', 'T', 'T', 'P', '/', '1', '.', '1'}}), Error);
  Frames newer = encode_bye();
  newer[0][4] = kProtocolVersion + 1;
  try {
    message_type(newer);
    FAIL() << "a newer protocol version was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("protocol version 2"), std::string::npos) << e.what();
  }
  Frames cut = encode(Counters{});
  cut[0].resize(cut[0].size() - 1);
  EXPECT_THROW(decode_heartbeat(cut), Error);
  // A RECORD without its body frame, or with a sequence number beyond
  // what the daemon says matched, is refused.
  RecordMeta m;
  m.seq = 1;
  m.counters.matched = 1;
  EXPECT_THROW(decode_record_header(Frames{encode_record_header(m)}), Error);
  m.seq = 2;
  EXPECT_THROW(decode_record_header(Frames{encode_record_header(m), Frame{1}}), Error);
  // The wrong decoder for a message says what it expected.
  EXPECT_THROW(decode_accept(encode_bye()), Error);
}

TEST(DaemonProtocol, EndpointNames) {
  EXPECT_EQ(normalize_endpoint("local"), "ipc:///run/lnetcap/lnetcapd.sock");
  EXPECT_EQ(normalize_endpoint("/tmp/x/d.sock"), "ipc:///tmp/x/d.sock");
  EXPECT_EQ(normalize_endpoint("tcp://oss1:7988"), "tcp://oss1:7988");
  EXPECT_EQ(normalize_endpoint("ipc:///tmp/y"), "ipc:///tmp/y");
}

}  // namespace
}  // namespace lnetcap::subscribe
