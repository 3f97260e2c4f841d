// SPDX-License-Identifier: GPL-2.0-or-later
// The shared-memory ring of a fan-out class (subscribe/batch_ring.h,
// daemon/ring_handover.h, subscriber_fanout.cpp):
// - a body written into a slot is copied out unchanged, and the reader's
//   tail reaches the daemon;
// - a slot overwritten before it was read is detected, never read as the
//   batch it no longer holds;
// - hostile RING_BATCH headers (slot out of range, body too long, a
//   generation not of that slot) are refused without a read out of bounds;
// - nobody but the daemon can write the ring;
// - through the real SubscriberSet and handover socket: members get
//   RING_BATCH headers and every record unchanged; a member lying about
//   its tail loses only its own batches; a token of another uid is refused;
//   a reload that forces anonymization on a member retires the ring it
//   mapped, so its old mapping never sees another plain byte.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <future>
#include <thread>

#include <zmq.hpp>

#include "daemon/ring_handover.h"
#include "daemon/subscriber_set.h"
#include "message_fixtures.h"
#include "subscribe/batch_ring.h"
#include "subscribe/ring_fetch.h"
#include "subscribe/zmq_frames.h"

namespace lnetcap {
namespace {

using namespace subscribe;
using test::OwnedMessage;
using test::rpc_put;

constexpr std::uint32_t kSlotBytes = kRingSlotHeaderBytes + 4096;

struct Ring {
  RingWriter writer;
  std::optional<RingTail> tail;
  RingReader reader;
};

Ring make_ring(std::uint32_t slots) {
  std::string why;
  auto w = RingWriter::create(slots, kSlotBytes, &why);
  if (!w) throw std::runtime_error(why);
  auto t = RingTail::create(&why);
  Fd rfd = w->reader_fd(&why);
  auto r = RingReader::map(rfd.get(), t->fd(), slots, kSlotBytes, &why);
  if (!r) throw std::runtime_error(why);
  return Ring{std::move(*w), std::move(t), std::move(*r)};
}

Frame body_of(std::uint8_t fill, std::size_t len) { return Frame(len, fill); }

TEST(BatchRing, WriteThenReadRoundTrip) {
  Ring ring = make_ring(4);
  for (std::uint8_t i = 1; i <= 3; ++i) {
    const Frame body = body_of(i, 100u * i);
    const std::uint64_t gen = ring.writer.write(body.data(), static_cast<std::uint32_t>(body.size()), i);
    EXPECT_EQ(gen, i);
    Frame out;
    ASSERT_EQ(ring.reader.copy_out(gen, ring.writer.slot_of(gen), static_cast<std::uint32_t>(body.size()), &out),
              RingReader::Copy::kOk);
    EXPECT_EQ(out, body);
    ring.reader.finished(gen);
    EXPECT_EQ(ring.tail->load(), gen);  // the daemon sees how far it got
  }
}

TEST(BatchRing, OverwrittenSlotIsLostNotMisread) {
  Ring ring = make_ring(4);
  for (std::uint8_t i = 1; i <= 5; ++i) {
    const Frame body = body_of(i, 64);
    ring.writer.write(body.data(), 64, 1);
  }
  Frame out;
  // Generation 1 was in slot 1; generation 5 is there now.
  EXPECT_EQ(ring.reader.copy_out(1, 1, 64, &out), RingReader::Copy::kLost);
  ASSERT_EQ(ring.reader.copy_out(5, 1, 64, &out), RingReader::Copy::kOk);
  EXPECT_EQ(out, body_of(5, 64));
  // A generation not written yet is not there either.
  EXPECT_EQ(ring.reader.copy_out(9, 1, 64, &out), RingReader::Copy::kLost);
}

// The count of a lost batch is the same on both sides: a reader that comes
// to a slot the daemon is overwriting (marked busy, the daemon about to
// read the tails) calls it lost and leaves its tail behind, so the daemon
// counts it lost too; one that finished before keeps its copy and its
// tail says so.
TEST(BatchRing, ALostBatchIsLostForBothSides) {
  Ring ring = make_ring(2);
  const Frame one = body_of(1, 64), two = body_of(2, 64), three = body_of(3, 64);
  ring.writer.write(one.data(), 64, 1);
  ring.writer.write(two.data(), 64, 1);
  Frame out;
  ASSERT_EQ(ring.reader.copy_out(2, 0, 64, &out), RingReader::Copy::kOk);  // read 2 before 1: a tail of 2
  ring.reader.finished(0);  // back to "nothing read"
  bool counted = false;
  ring.writer.write(three.data(), 64, 1, [&] {
    EXPECT_EQ(ring.reader.copy_out(1, 1, 64, &out), RingReader::Copy::kLost);  // generation 1, being overwritten
    counted = ring.tail->load() < 1;  // what the daemon reads next
  });
  EXPECT_TRUE(counted) << "the reader lost generation 1 but its tail told the daemon it had it";
  // Generation 2 was finished with before its slot is overwritten: not lost.
  ring.reader.finished(2);
  const Frame four = body_of(4, 64);
  ring.writer.write(four.data(), 64, 1, [&] { counted = ring.tail->load() < 2; });
  EXPECT_FALSE(counted);
}

TEST(BatchRing, HostileHeadersAreRefusedWithoutReadingOutOfBounds) {
  Ring ring = make_ring(4);
  const Frame body = body_of(7, 64);
  const std::uint64_t gen = ring.writer.write(body.data(), 64, 1);
  Frame out;
  EXPECT_EQ(ring.reader.copy_out(gen, 4, 64, &out), RingReader::Copy::kBad);           // slot out of range
  EXPECT_EQ(ring.reader.copy_out(gen, 0xffffffffu, 64, &out), RingReader::Copy::kBad);
  EXPECT_EQ(ring.reader.copy_out(gen, 1, 4097, &out), RingReader::Copy::kBad);         // past the slot
  EXPECT_EQ(ring.reader.copy_out(gen, 1, 0xffffffffu, &out), RingReader::Copy::kBad);
  EXPECT_EQ(ring.reader.copy_out(gen, 2, 64, &out), RingReader::Copy::kBad);           // not that gen's slot
  EXPECT_EQ(ring.reader.copy_out(0, 0, 64, &out), RingReader::Copy::kBad);
  EXPECT_EQ(ring.reader.copy_out(kRingBusy, kRingBusy % 4, 64, &out), RingReader::Copy::kBad);
  EXPECT_EQ(ring.reader.copy_out(gen, 1, 4096, &out), RingReader::Copy::kOk);          // the whole slot is fine
  // Impossible geometry is refused before anything is mapped.
  std::string why;
  auto w = RingWriter::create(4, kSlotBytes, &why);
  auto t = RingTail::create(&why);
  Fd rfd = w->reader_fd(&why);
  EXPECT_FALSE(RingReader::map(rfd.get(), t->fd(), 8, kSlotBytes, &why));  // larger than the file
  EXPECT_FALSE(RingReader::map(rfd.get(), t->fd(), 0, kSlotBytes, &why));
  EXPECT_FALSE(RingReader::map(rfd.get(), t->fd(), 4, kRingSlotHeaderBytes, &why));
  EXPECT_FALSE(RingReader::map(t->fd(), rfd.get(), 4, kSlotBytes, &why));  // swapped descriptors
}

TEST(BatchRing, NobodyButTheDaemonWritesTheRing) {
  std::string why;
  auto w = RingWriter::create(4, kSlotBytes, &why);
  ASSERT_TRUE(w) << why;
  Fd rfd = w->reader_fd(&why);
  ASSERT_TRUE(rfd);
  const std::size_t size = 4u * kSlotBytes;
  EXPECT_EQ(::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, rfd.get(), 0), MAP_FAILED);
  const char byte = 1;
  EXPECT_EQ(::write(rfd.get(), &byte, 1), -1);
  EXPECT_NE(::ftruncate(rfd.get(), 0), 0);
  // Even re-opened for writing (root may), the seals refuse writes, new
  // writable mappings, a shrink, and new seals being lifted.
  const std::string path = "/proc/self/fd/" + std::to_string(rfd.get());
  Fd rw(::open(path.c_str(), O_RDWR | O_CLOEXEC));
  if (rw) {
    EXPECT_EQ(::write(rw.get(), &byte, 1), -1);
    EXPECT_EQ(::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, rw.get(), 0), MAP_FAILED);
    EXPECT_NE(::ftruncate(rw.get(), 0), 0);
    EXPECT_NE(::fcntl(rw.get(), F_ADD_SEALS, F_SEAL_WRITE), 0);
  }
}


struct Received {
  std::vector<RecordMeta> meta;
  std::vector<std::vector<std::uint8_t>> bytes;
  std::size_t ring_batches = 0, shared_batches = 0, lost_records = 0;
};

// A member as lnetcap is one: takes shared batches, maps a ring.
struct Member {
  zmq::socket_t socket;
  std::optional<RingReader> ring;
};

class RingFanout : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(::mkdtemp(dir_), nullptr);
    handover_.listen(std::string(dir_) + "/d.sock.ring", static_cast<gid_t>(-1));
    ASSERT_TRUE(handover_.listening());
    router_.set(zmq::sockopt::router_mandatory, 1);
    router_.set(zmq::sockopt::sndhwm, 1000);
    router_.bind(endpoint_);
    for (std::uint64_t i = 0; i < 600; ++i) records_.push_back(rpc_put(0x5f0000000080ULL + 64 * i, 64));
  }
  void TearDown() override {
    handover_.close();
    std::string rm = std::string("rm -rf ") + dir_;
    EXPECT_EQ(std::system(rm.c_str()), 0);
  }

  void make_set(bool wait_when_full) {
    set_.emplace(router_, Accept{"node1", "test source"}, wait_when_full);
    set_->set_rings(&handover_, kSlots);
  }

  // `map`, `unmapped`, `offered`: as take_offer's.
  Member subscribe(Peer peer, const std::string& filter = "", bool map = true,
                   std::optional<std::pair<Fd, Fd>>* unmapped = nullptr, RingOffer* offered = nullptr) {
    Member m{zmq::socket_t(context_, zmq::socket_type::dealer), std::nullopt};
    m.socket.set(zmq::sockopt::rcvhwm, 0);
    m.socket.connect(endpoint_);
    Subscribe request{filter, kSnaplenAsCaptured, "test", true};
    request.takes_shared_batches = request.maps_ring = true;
    send_frames(m.socket, {}, encode(request));
    handle_next(peer);
    Frames f;
    EXPECT_TRUE(receive(m.socket, f));
    EXPECT_EQ(message_type(f), MessageType::kAccept);
    take_offer(m, true, map, unmapped, offered);
    return m;
  }

  // Reads the RING_OFFER and fetches the ring as lnetcap does, the
  // handover served meanwhile as the daemon's loop would.
  // `map`: false for a member that takes the descriptors and does not map
  // them (yet: they are kept in *unmapped).
  void take_offer(Member& m, bool expect_ring = true, bool map = true,
                  std::optional<std::pair<Fd, Fd>>* unmapped = nullptr, RingOffer* offered = nullptr) {
    Frames f;
    ASSERT_TRUE(receive(m.socket, f));
    ASSERT_EQ(message_type(f), MessageType::kRingOffer);
    const RingOffer offer = decode_ring_offer(f);
    auto fetched = std::async(std::launch::async, [&] {
      std::string why;
      return fetch_ring(std::string(dir_) + "/d.sock.ring", offer, std::chrono::seconds(2), &why);
    });
    while (fetched.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready) handover_.serve();
    auto fds = fetched.get();
    set_->rings_handed_over();
    ASSERT_EQ(static_cast<bool>(fds), expect_ring);
    if (!fds) return;
    if (!map) {
      if (offered) *offered = offer;
      if (unmapped) *unmapped = std::move(fds);
      return;
    }
    std::string why;
    m.ring = RingReader::map(fds->first.get(), fds->second.get(), offer.slots, offer.slot_bytes, &why);
    ASSERT_TRUE(m.ring) << why;
  }

  static bool receive(zmq::socket_t& s, Frames& f,
                      std::chrono::milliseconds wait = std::chrono::milliseconds(2000)) {
    if (receive_frames(s, f)) return true;
    zmq::pollitem_t item{s.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, wait);
    return receive_frames(s, f);
  }

  void handle_next(const Peer& peer) {
    Frames f;
    std::string id;
    zmq::pollitem_t item{router_.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::seconds(5));
    ASSERT_TRUE(receive_frames(router_, f, &id));
    set_->handle(id, f, peer);
  }

  void deliver(std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i) {
      CapturedRecord rec;
      rec.ts_ns = records_[i].msg.ts_ns;
      rec.bytes = ByteSpan(records_[i].bytes);
      rec.orig_len = static_cast<std::uint32_t>(records_[i].bytes.size());
      ++stats_.received;
      set_->deliver(rec, records_[i].msg, interfaces_, stats_, 0);
      set_->flush();  // one batch per record: many generations
    }
  }

  // Everything waiting for m; ring bodies copied out as lnetcap does.
  // `tail`: what it tells the daemon (nullopt: the truth).
  static Received drain(Member& m, std::optional<std::uint64_t> tail = std::nullopt) {
    Received out;
    Frames f;
    while (receive(m.socket, f, std::chrono::milliseconds(50))) {
      std::vector<BatchEntry> entries;
      Frame body;
      switch (message_type(f)) {
        case MessageType::kSharedBatch: entries = decode_shared_batch(f); ++out.shared_batches; break;
        case MessageType::kRingBatch: {
          const RingBatch h = decode_ring_batch(f);
          ++out.ring_batches;
          if (!m.ring || m.ring->copy_out(h.gen, h.slot, h.body_len, &body) != RingReader::Copy::kOk) {
            out.lost_records += h.count;
          } else {
            entries = decode_ring_batch_body(h, body);
          }
          if (m.ring) m.ring->finished(tail ? *tail : h.gen);
          break;
        }
        default: break;
      }
      for (const auto& e : entries) {
        out.meta.push_back(e.meta);
        out.bytes.emplace_back(e.record.begin(), e.record.end());
      }
    }
    return out;
  }

  static Peer local(long uid) {
    Peer p;
    p.uid = uid;
    return p;
  }

  static constexpr std::uint32_t kSlots = 8;
  char dir_[40] = "/tmp/lnetcap-ring.XXXXXX";
  std::string endpoint_ = "inproc://ring-fanout";
  zmq::context_t context_;
  zmq::socket_t router_{context_, zmq::socket_type::router};
  daemon::RingHandover handover_;
  std::optional<daemon::SubscriberSet> set_;
  std::vector<CaptureInterface> interfaces_{CaptureInterface{"tcp", "10.0.3.2@tcp", "", "", "", 1224}};
  SourceStats stats_;
  std::vector<OwnedMessage> records_;
};

// A member handed the descriptors that has not mapped them (it could not,
// or it was stopped in the middle of the handover and its recvmsg failed
// with EINTR) is sent SHARED_BATCH, so it loses nothing; once its tail
// page says it has mapped the ring, it reads the ring.
TEST_F(RingFanout, AMemberReadsTheRingOnlyOnceItHasMappedIt) {
  make_set(false);
  std::optional<std::pair<Fd, Fd>> fds;
  RingOffer offer;
  Member m = subscribe(local(getuid()), "", false, &fds, &offer);
  ASSERT_TRUE(fds);
  EXPECT_EQ(handover_.delivered_total(), 1u);
  deliver(0, 6);
  Received before = drain(m);
  EXPECT_EQ(before.ring_batches, 0u);
  EXPECT_EQ(before.shared_batches, 6u);
  EXPECT_EQ(before.meta.size(), 6u);
  std::string why;
  m.ring = RingReader::map(fds->first.get(), fds->second.get(), offer.slots, offer.slot_bytes, &why);
  ASSERT_TRUE(m.ring) << why;
  deliver(6, 10);
  Received after = drain(m);
  EXPECT_EQ(after.ring_batches, 4u);
  EXPECT_EQ(after.shared_batches, 0u);
  EXPECT_EQ(after.lost_records, 0u);
  ASSERT_EQ(after.meta.size(), 4u);
  EXPECT_EQ(after.bytes.back(), records_[9].bytes);
}

TEST_F(RingFanout, MembersReadEveryRecordFromTheRing) {
  make_set(false);
  std::vector<Member> members;
  for (int i = 0; i < 4; ++i) members.push_back(subscribe(local(getuid())));
  EXPECT_EQ(handover_.delivered_total(), 4u);
  // Read after every few batches: never more than the ring holds behind.
  std::vector<Received> got(4);
  for (std::size_t from = 0; from < 40; from += 4) {
    deliver(from, from + 4);
    for (int i = 0; i < 4; ++i) {
      Received r = drain(members[i]);
      got[i].ring_batches += r.ring_batches;
      got[i].shared_batches += r.shared_batches;
      got[i].lost_records += r.lost_records;
      for (std::size_t k = 0; k < r.bytes.size(); ++k) {
        got[i].bytes.push_back(r.bytes[k]);
        got[i].meta.push_back(r.meta[k]);
      }
    }
  }
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(got[i].ring_batches, 40u) << "member " << i;
    EXPECT_EQ(got[i].shared_batches, 0u);
    EXPECT_EQ(got[i].lost_records, 0u);
    ASSERT_EQ(got[i].bytes.size(), 40u);
    for (std::size_t k = 0; k < 40; ++k) {
      EXPECT_EQ(got[i].meta[k].seq, k + 1);
      ASSERT_EQ(got[i].bytes[k], records_[k].bytes) << "member " << i << " record " << k;
    }
  }
  for (const auto& [id, s] : set_->subscribers()) EXPECT_EQ(s.ring_sent, 40u);
}

// Live: a member that does not read finds its batches overwritten - lost,
// counted by it and by the daemon alike - while the member that reads gets
// every record.  A lying tail changes nothing for the others.
TEST_F(RingFanout, ALaggardOrALiarLosesOnlyItsOwnBatches) {
  make_set(false);
  Member honest = subscribe(local(getuid()));
  Member liar = subscribe(local(getuid()));
  Received h;
  for (std::size_t from = 0; from < 3 * kSlots; from += 4) {
    deliver(from, from + 4);
    Received r = drain(honest);
    h.bytes.insert(h.bytes.end(), r.bytes.begin(), r.bytes.end());
    h.lost_records += r.lost_records;
  }
  ASSERT_EQ(h.bytes.size(), 3u * kSlots);
  EXPECT_EQ(h.lost_records, 0u);
  for (std::size_t k = 0; k < h.bytes.size(); ++k) ASSERT_EQ(h.bytes[k], records_[k].bytes);
  const Received l = drain(liar, ~std::uint64_t{0});  // says it read everything, read nothing in time
  EXPECT_EQ(l.ring_batches, 3u * kSlots);
  EXPECT_EQ(l.lost_records, 2u * kSlots);  // all but the last kSlots overwritten
  for (std::size_t k = 0; k < l.bytes.size(); ++k) EXPECT_EQ(l.bytes[k], records_[2 * kSlots + k].bytes);
  // The daemon counted exactly those as dropped for it, and none for the other.
  for (const auto& [id, s] : set_->subscribers()) {
    EXPECT_EQ(s.dropped, s.number == 1 ? 0u : 2u * kSlots) << "subscriber " << s.number;
    EXPECT_EQ(s.sent, s.number == 1 ? 3u * kSlots : kSlots) << "subscriber " << s.number;
  }
  EXPECT_EQ(set_->total_dropped(), 2u * kSlots);
}

// A lossless replay waits (bounded) before it overwrites a slot whose
// batch a member has not copied out yet, as for a full queue: once, then
// that member counts as stalled.  A member whose tail claims more than it
// read does not hold the replay up, and loses only its own batches.
TEST_F(RingFanout, LosslessReplayWaitsOnlyForTheTailsItMust) {
  make_set(true);
  Member honest = subscribe(local(getuid()));
  Member liar = subscribe(local(getuid()));
  liar.ring->finished(~std::uint64_t{0} - 1);  // "read everything", before anything
  auto run = [&](std::size_t from, std::size_t to, Received& h) {
    const auto start = std::chrono::steady_clock::now();
    for (; from < to; from += 4) {
      deliver(from, from + 4);
      Received r = drain(honest);
      h.bytes.insert(h.bytes.end(), r.bytes.begin(), r.bytes.end());
      h.lost_records += r.lost_records;
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  Received h;
  EXPECT_LT(run(0, 3 * kSlots, h), 0.5 * daemon::SubscriberSet::kStallSeconds) << "the liar was waited for";
  for (const auto& [id, s] : set_->subscribers()) EXPECT_FALSE(s.stalled);
  const Received l = drain(liar, ~std::uint64_t{0} - 1);
  EXPECT_EQ(l.lost_records, 2u * kSlots);
  // A member that reads nothing and says so is waited for once, then stalled.
  Member silent = subscribe(local(getuid()));
  EXPECT_GE(run(3 * kSlots, 3 * kSlots + 2 * kSlots, h), 0.9 * daemon::SubscriberSet::kStallSeconds);
  std::size_t stalled = 0;
  for (const auto& [id, s] : set_->subscribers()) stalled += s.stalled;
  EXPECT_EQ(stalled, 1u);
  ASSERT_EQ(h.bytes.size(), 5u * kSlots);
  EXPECT_EQ(h.lost_records, 0u);
  for (std::size_t k = 0; k < h.bytes.size(); ++k) ASSERT_EQ(h.bytes[k], records_[k].bytes);
}

// The handover checks who asks: a token presented by another uid than the
// subscriber's is refused (and used up), and no ring is handed over.
TEST_F(RingFanout, ATokenOfAnotherUserIsRefused) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to present a token as the wrong uid";
  make_set(false);
  // The daemon takes this subscriber for uid 4242; the test connects as root,
  // who may fetch any: so present it from uid 65534 in a child.
  Member m{zmq::socket_t(context_, zmq::socket_type::dealer), std::nullopt};
  m.socket.set(zmq::sockopt::rcvhwm, 0);
  m.socket.connect(endpoint_);
  Subscribe request{"", kSnaplenAsCaptured, "test", true};
  request.takes_shared_batches = request.maps_ring = true;
  send_frames(m.socket, {}, encode(request));
  handle_next(local(4242));
  Frames f;
  ASSERT_TRUE(receive(m.socket, f));  // ACCEPT
  ASSERT_TRUE(receive(m.socket, f));
  ASSERT_EQ(message_type(f), MessageType::kRingOffer);
  const RingOffer offer = decode_ring_offer(f);
  ASSERT_EQ(::chmod(dir_, 0755), 0);
  const std::string path = std::string(dir_) + "/d.sock.ring";
  ASSERT_EQ(::chmod(path.c_str(), 0666), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
    std::string why;
    ::_exit(fetch_ring(path, offer, std::chrono::seconds(2), &why) ? 1 : 0);
  }
  int status = 0;
  while (::waitpid(child, &status, WNOHANG) == 0) handover_.serve();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "uid 65534 was handed uid 4242's ring";
  EXPECT_EQ(handover_.delivered_total(), 0u);
  // Used up: not even the right user gets it now.
  auto again = std::async(std::launch::async, [&] {
    std::string why;
    return fetch_ring(path, offer, std::chrono::seconds(2), &why);
  });
  while (again.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready) handover_.serve();
  EXPECT_FALSE(again.get());
}

// A reload that forces anonymization on a member moves it to another
// class; its mapping of the plain class's ring stays, so that ring is
// retired: never written again, the plain members offered a new one.
TEST_F(RingFanout, ForcedAnonymizationRetiresTheRingTheMovedMemberMapped) {
  make_set(false);
  daemon::AnonymizePolicy policy;
  policy.key_file = std::string(dir_) + "/anon.key";
  set_->set_anonymize_policy(policy);
  Member stays = subscribe(local(4243));
  Member moves = subscribe(local(4242));
  deliver(0, 4);
  EXPECT_EQ(drain(stays).bytes.size(), 4u);
  EXPECT_EQ(drain(moves).bytes.size(), 4u);
  std::optional<RingReader> old_mapping = std::move(moves.ring);
  policy.users = {4242};
  set_->set_anonymize_policy(policy);
  take_offer(stays);  // a new ring for the plain class
  take_offer(moves);  // the anonymized class's ring
  deliver(4, 4 + kSlots);  // no more than a ring holds: nothing overwritten
  const Received s = drain(stays), m = drain(moves);
  EXPECT_GT(s.ring_batches, 0u);
  EXPECT_GT(m.ring_batches, 0u);
  ASSERT_EQ(s.bytes.size(), kSlots);
  ASSERT_EQ(m.bytes.size(), kSlots);
  EXPECT_EQ(s.lost_records + m.lost_records, 0u);
  for (std::size_t k = 0; k < s.bytes.size(); ++k) {
    EXPECT_EQ(s.bytes[k], records_[4 + k].bytes);
    EXPECT_NE(m.bytes[k], records_[4 + k].bytes) << "a plain record reached the anonymized member";
  }
  // The old ring still holds what the moved member was entitled to, and
  // nothing after: generations 1..4 only.
  Frame body;
  for (std::uint64_t gen = 5; gen < 5 + kSlots; ++gen)
    EXPECT_NE(old_mapping->copy_out(gen, static_cast<std::uint32_t>(gen % kSlots), 0, &body),
              RingReader::Copy::kOk)
        << "the retired ring was written again (generation " << gen << ")";
  EXPECT_EQ(old_mapping->copy_out(4, 4, 0, &body), RingReader::Copy::kOk);
}

// A subscriber that leaves keeps its mapping of its class's ring, which
// goes on carrying the class's batches (bytes its policy gave it); a
// reload retires every ring, so from then on the old mapping sees nothing.
TEST_F(RingFanout, AReloadRetiresTheRingsThoseWhoLeftStillMap) {
  make_set(false);
  Member stays = subscribe(local(getuid()));
  Member leaves = subscribe(local(getuid()));
  send_frames(leaves.socket, {}, encode_bye());
  handle_next(local(getuid()));
  EXPECT_EQ(set_->subscribers().size(), 1u);
  deliver(0, 2);
  EXPECT_EQ(drain(stays).bytes.size(), 2u);
  Frame body;
  EXPECT_EQ(leaves.ring->copy_out(2, 2, 0, &body), RingReader::Copy::kOk);  // still its class's bytes
  set_->renew_rings();
  take_offer(stays);
  deliver(2, 4);
  const Received after = drain(stays);
  ASSERT_EQ(after.bytes.size(), 2u);
  EXPECT_GT(after.ring_batches, 0u);
  for (std::uint64_t gen = 3; gen <= 4; ++gen)
    EXPECT_NE(leaves.ring->copy_out(gen, static_cast<std::uint32_t>(gen % kSlots), 0, &body), RingReader::Copy::kOk)
        << "the retired ring was written again (generation " << gen << ")";
}

}  // namespace
}  // namespace lnetcap
