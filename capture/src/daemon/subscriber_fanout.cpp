// SPDX-License-Identifier: GPL-2.0-or-later
// subscriber_fanout.cpp - SubscriberSet's fan-out classes (subscriber_set.h):
// one filter test, one encoding and one libzmq message per record batch for
// every subscriber entitled to the same bytes.
#include <algorithm>

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
}

void SubscriberSet::leave_class(const std::string& id, const Subscriber& s) {
  auto it = classes_.find(fanout_key(s));
  if (it == classes_.end()) return;
  auto& members = it->second.members;
  members.erase(std::remove(members.begin(), members.end(), id), members.end());
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
  const std::uint32_t n = c.batch.records;
  zmq_msg_t body;
  c.batch.seal(&body);
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
    const subscribe::Frame header =
        subscribe::encode_shared_batch_header(n, first_seq, counters(s, last_stats_, last_watermark_));
    switch (send_waiting(id, &s, [&] { return subscribe::send_shared(router_, id, ByteSpan(header), body); })) {
      case SendResult::kSent: s.sent += n; break;
      case SendResult::kQueueFull: count_dropped(s, n); break;
      case SendResult::kPeerGone: gone.push_back(id); break;
    }
  }
}

}  // namespace lnetcap::daemon
