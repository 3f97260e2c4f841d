// SPDX-License-Identifier: GPL-2.0-or-later
// subscriber_fanout.cpp - SubscriberSet's fan-out classes (subscriber_set.h):
// one filter test, one encoding and one libzmq message per record batch for
// every subscriber entitled to the same bytes, and for local members the
// class's shared-memory ring (subscribe/batch_ring.h): the body written
// once, each member sent only a header naming its slot.
#include <algorithm>
#include <cstdio>

#include "snap_length.h"
#include "subscriber_set.h"

namespace lnetcap::daemon {

using subscribe::SendResult;

const std::vector<CaptureInterface>& SubscriberSet::interfaces_for(const Subscriber& s,
                                                                   const std::vector<CaptureInterface>& interfaces) {
  return s.anonymized ? anonymizing_->interfaces(interfaces) : interfaces;
}

void SubscriberSet::join_class(const std::string& id, Subscriber& s) {
  const FanoutKey key = fanout_key(s);
  auto it = classes_.find(key);
  if (it == classes_.end()) {
    it = classes_.emplace(key, FanoutClass{filter::Filter::parse(s.filter_text), {}, SharedBatch()}).first;
  } else if (it->second.batch.records > 0) {
    std::vector<std::string> gone;
    flush_class(it->second, gone);
    for (const auto& g : gone) remove(g, "disconnected");  // never s: not a member yet
    it = classes_.find(key);  // the class ends if its last member was gone
    if (it == classes_.end()) it = classes_.emplace(key, FanoutClass{filter::Filter::parse(s.filter_text), {}, SharedBatch()}).first;
  }
  it->second.members.push_back(id);
  s.shares = true;
  offer_ring(it->second, id, s);
}

void SubscriberSet::set_rings(RingHandover* handover, std::uint32_t slots) {
  handover_ = handover;
  ring_slots_ = std::clamp<std::uint32_t>(slots, 2, subscribe::kMaxRingSlots);
}

void SubscriberSet::offer_ring(FanoutClass& c, const std::string& id, Subscriber& s) {
  s.ring_ready = s.ring_handed = false;
  s.tail.reset();
  if (!s.maps_ring || !handover_ || !handover_->listening() || rings_unavailable_) return;
  std::string why;
  if (!c.ring) {
    auto writer = subscribe::RingWriter::create(ring_slots_, kRingSlotBytes, &why);
    if (!writer) {
      rings_unavailable_ = true;
      std::fprintf(stderr, "lnetcapd: no shared-memory rings (%s): local subscribers get SHARED_BATCH\n",
                   why.c_str());
      return;
    }
    c.ring = std::make_unique<ClassRing>(
        ClassRing{std::move(*writer), next_ring_id_++, std::vector<std::vector<std::string>>(ring_slots_),
                  std::vector<std::uint32_t>(ring_slots_)});
  }
  auto tail = subscribe::RingTail::create(&why);
  subscribe::Fd reader = c.ring->writer.reader_fd(&why);
  if (!tail || !reader) return;  // this member stays on SHARED_BATCH
  subscribe::Fd tail_fd = tail->take_fd();
  RingHandover::Token token{};
  if (!tail_fd || !handover_->offer(id, s.peer.uid, c.ring->id, std::move(reader), std::move(tail_fd), &token))
    return;
  subscribe::RingOffer offer;
  offer.token = token;
  offer.slots = c.ring->writer.slots();
  offer.slot_bytes = c.ring->writer.slot_bytes();
  if (subscribe::send_frames(router_, id, subscribe::encode(offer)) != SendResult::kSent) {
    handover_->revoke(id);
    return;
  }
  s.tail = std::move(tail);
  s.ring_id = c.ring->id;
}

void SubscriberSet::rings_handed_over() {
  if (!handover_) return;
  for (const auto& [id, ring_id] : handover_->take_delivered()) {
    auto it = subscribers_.find(id);
    if (it == subscribers_.end() || !it->second.shares || it->second.ring_id != ring_id || !it->second.tail) continue;
    auto c = classes_.find(fanout_key(it->second));
    // Retired since it was offered: the member gets the new ring's offer.
    if (c == classes_.end() || !c->second.ring || c->second.ring->id != ring_id) continue;
    it->second.ring_handed = true;  // ring_ready once it has mapped it (flush_class)
  }
}

void SubscriberSet::retire_rings() {
  if (handover_) handover_->revoke_all();
  // An old ring is never written again (whoever mapped it keeps the
  // mapping): the members get new ones, and SHARED_BATCH meanwhile.
  for (auto& [key, c] : classes_) c.ring.reset();
  for (auto& [id, s] : subscribers_) {
    s.ring_ready = s.ring_handed = false;
    s.tail.reset();
  }
}

void SubscriberSet::offer_rings() {
  for (auto& [key, c] : classes_)
    for (const std::string& id : c.members) {
      auto it = subscribers_.find(id);
      if (it != subscribers_.end() && !it->second.tail) offer_ring(c, id, it->second);
    }
}

std::uint64_t SubscriberSet::write_ring(FanoutClass& c, std::uint32_t records) {
  if (!c.ring || c.batch.body().size() > c.ring->writer.body_capacity()) return 0;
  bool anyone = false;
  for (const std::string& id : c.members) {
    auto it = subscribers_.find(id);
    anyone |= it != subscribers_.end() && it->second.ring_ready;
  }
  if (!anyone) return 0;
  ClassRing& ring = *c.ring;
  const std::uint64_t gen = ring.writer.next_gen();
  const std::uint32_t slot = ring.writer.slot_of(gen);
  // The slot held generation gen - S.  In a lossless replay, those who
  // were sent it and have not finished with it are waited for (as for a
  // full queue: bounded, then stalled).  Then, with the slot marked busy,
  // a member still behind has that batch counted dropped, exactly as the
  // member itself finds it (batch_ring.h).  The tail is the member's
  // word: a lie only loses it its own batches.
  std::vector<Subscriber*> had_it;  // the members the slot's last batch went to
  const std::uint64_t previous = gen > ring.writer.slots() ? gen - ring.writer.slots() : 0;
  if (previous != 0)
    for (const std::string& id : ring.sent_to[slot]) {
      auto it = subscribers_.find(id);
      if (it == subscribers_.end() || !it->second.ring_ready || it->second.ring_id != ring.id) continue;
      Subscriber& m = it->second;
      (void)send_waiting(id, &m, [&] { return m.tail->load() >= previous ? SendResult::kSent : SendResult::kQueueFull; });
      had_it.push_back(&m);
    }
  const std::uint32_t lost = ring.records[slot];
  const subscribe::Frame& body = c.batch.body();
  const std::uint64_t written = ring.writer.write(body.data(), static_cast<std::uint32_t>(body.size()), records, [&] {
    for (Subscriber* m : had_it)
      if (m->tail->load() < previous) {
        m->tail->mark_lost(previous);
        m->sent -= lost;
        m->ring_sent -= lost;
        count_dropped(*m, lost);
      }
  });
  ring.sent_to[slot].clear();
  ring.records[slot] = records;
  return written;
}

void SubscriberSet::leave_class(const std::string& id, const Subscriber& s) {
  auto it = classes_.find(fanout_key(s));
  if (it == classes_.end()) return;
  auto& members = it->second.members;
  members.erase(std::remove(members.begin(), members.end(), id), members.end());
  // A routing id may subscribe again (a new subscription, a new tail): it
  // must not answer for batches sent to this one.
  if (it->second.ring)
    for (auto& sent : it->second.ring->sent_to) sent.erase(std::remove(sent.begin(), sent.end(), id), sent.end());
  // Its batch goes with it, the buffer back to the pool.
  if (members.empty()) classes_.erase(it);
}

void SubscriberSet::deliver_to_class(const FanoutKey& key, FanoutClass& c, const CapturedRecord& rec,
                                     const Message& msg, std::vector<std::string>& gone) {
  if (!c.filter.matches(msg)) return;
  subscribe::RecordMeta m;
  m.ts_ns = rec.ts_ns;
  m.interface_id = rec.interface_id;
  m.orig_len = rec.orig_len;
  m.epb_flags = rec.epb_flags;
  m.has_drops_before = rec.has_drops_before;
  m.drops_before = rec.drops_before;
  subscribe::append_shared_batch_entry(c.batch.body(), m, cut_payload(rec.bytes, key.snaplen, &scratch_),
                                       rec.comments);
  ++c.batch.records;
  if (c.batch.records >= kBatchRecords || c.batch.body().size() >= kBatchBytes) flush_class(c, gone);
}

void SubscriberSet::flush_class(FanoutClass& c, std::vector<std::string>& gone) {
  if (c.batch.records == 0) return;
  // A member handed the descriptors reads the ring from the first batch
  // after it says it has mapped it; until then it gets SHARED_BATCH.
  for (const std::string& id : c.members) {
    auto it = subscribers_.find(id);
    if (it == subscribers_.end()) continue;
    Subscriber& m = it->second;
    if (m.ring_handed && !m.ring_ready && m.tail && m.tail->mapped()) m.ring_ready = true;
  }
  const std::uint32_t n = c.batch.records;
  const std::uint64_t gen = write_ring(c, n);
  const std::uint32_t body_len = static_cast<std::uint32_t>(c.batch.body().size());
  bool needs_message = gen == 0;
  for (const std::string& id : c.members) {
    auto it = subscribers_.find(id);
    needs_message |= it != subscribers_.end() && !it->second.ring_ready;
  }
  zmq_msg_t body;
  if (needs_message) {
    c.batch.seal(&body);
  } else {  // every member reads the ring: no message body at all
    zmq_msg_init(&body);
    c.batch.clear();
  }
  // Closed whatever happens below: libzmq gives the buffer back once the
  // last member's reference is written out (or at once, if none took it).
  struct Close {
    zmq_msg_t* m;
    ~Close() { zmq_msg_close(m); }
  } close{&body};
  static const std::vector<CaptureInterface> no_interfaces;
  const std::vector<CaptureInterface>& all = last_interfaces_ ? *last_interfaces_ : no_interfaces;
  for (const std::string& id : c.members) {
    auto it = subscribers_.find(id);
    if (it == subscribers_.end()) continue;
    Subscriber& s = it->second;
    // Its numbers go on whether or not it gets the batch: a gap it sees.
    const std::uint64_t first_seq = s.matched + 1;
    s.matched += n;
    // Interfaces go before the batch that uses them; when one does not fit
    // in the queue, neither would the batch.
    if (!announce_interfaces(id, s, interfaces_for(s, all))) {
      count_dropped(s, n);
      continue;
    }
    if (gen != 0 && s.ring_ready) {
      subscribe::RingBatch rb;
      rb.count = n;
      rb.first_seq = first_seq;
      rb.counters = counters(s, last_stats_, last_watermark_);
      rb.gen = gen;
      rb.slot = c.ring->writer.slot_of(gen);
      rb.body_len = body_len;
      const subscribe::Frame header = subscribe::encode_ring_batch_header(rb);
      // A header taken into its queue says nothing about whether it reads
      // the ring: only its tail catching up ends a stall (write_ring).
      const bool was_stalled = s.stalled;
      const SendResult r = send_waiting(id, &s, [&] { return subscribe::send_parts(router_, id, {ByteSpan(header)}); });
      s.stalled = s.stalled || was_stalled;
      switch (r) {
        case SendResult::kSent:
          s.sent += n;
          s.ring_sent += n;
          c.ring->sent_to[rb.slot].push_back(id);
          break;
        case SendResult::kQueueFull: count_dropped(s, n); break;
        case SendResult::kPeerGone: gone.push_back(id); break;
      }
      continue;
    }
    const subscribe::Frame header =
        subscribe::encode_shared_batch_header(n, first_seq, counters(s, last_stats_, last_watermark_));
    switch (send_waiting(id, &s, [&] { return subscribe::send_shared(router_, id, ByteSpan(header), body); })) {
      case SendResult::kSent: s.sent += n; break;
      case SendResult::kQueueFull: count_dropped(s, n); break;
      case SendResult::kPeerGone: gone.push_back(id); break;
    }
  }
}

void SubscriberSet::ring_status(subscribe::Status& st) const {
  std::size_t rings = 0, readers = 0;
  std::uint64_t bytes = 0, through = 0;
  for (const auto& [key, c] : classes_)
    if (c.ring) {
      ++rings;
      bytes += std::uint64_t{c.ring->writer.slots()} * c.ring->writer.slot_bytes();
    }
  for (const auto& [id, s] : subscribers_) {
    readers += s.ring_ready;
    through += s.ring_sent;
  }
  std::string value = std::to_string(rings) + " (" + std::to_string(bytes >> 20) + " MiB), read by " +
                      std::to_string(readers) + (readers == 1 ? " subscriber" : " subscribers") + ", " +
                      std::to_string(through) + " records sent through them to the present subscribers";
  if (rings_unavailable_) value += "; not available: this kernel cannot seal them (SHARED_BATCH instead)";
  st.items.emplace_back("shared-memory rings", value);
}

}  // namespace lnetcap::daemon
