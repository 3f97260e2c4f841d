// SPDX-License-Identifier: GPL-2.0-or-later
// subscriber_set.h - lnetcapd's subscribers on its ROUTER socket: each one's
// compiled filter and snap length (evaluated here, so a subscriber receives
// only what it asked for), its sequence numbers and its drop count.
//
// No stalls: every send is non-blocking with ZMQ_ROUTER_MANDATORY, so a
// subscriber whose queue (ZMQ_SNDHWM messages plus the socket buffer) is
// full loses that record - counted, and visible to it as a gap in the
// sequence numbers - while the capture and every other subscriber go on.
//
// A subscriber that takes batches gets its records gathered into BATCH
// messages (at most kBatchRecords records or kBatchBytes bytes); flush()
// sends what is gathered, and the daemon calls it every time it has handed
// out what the source had queued, so a batch never waits for more records
// to come.  A batch that does not fit is dropped whole: every record in it
// is counted, and shows as a gap in the sequence numbers.
//
// Fan-out without a copy per subscriber: subscribers that take shared
// batches, in no consumer group, are gathered into fan-out classes of
// those entitled to the very same bytes - same anonymization, same snap
// length, same filter text.  A class's filter is tested once per record,
// its records are encoded once into one SHARED_BATCH body, and that body
// is handed to libzmq once for all its members (shared_batch.h); each
// member gets only its own small header (sequence numbers, counters) and
// the interfaces it has not seen.  A member whose queue is full loses the
// batch - counted and seen as a gap, as above - while the others get it.
//
// Local members go further (subscribe/batch_ring.h): a class's batch body
// is also written once into the class's shared-memory ring, and a member
// that has mapped it gets only a RING_BATCH header naming the slot, so the
// kernel no longer copies the body into each member's socket.  A reload
// that changes who is anonymized retires every ring: a member moved to
// another class keeps its old mapping, which must never carry a byte it is
// no longer entitled to.
#pragma once

#include <zmq.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "../anon/anonymizing_stage.h"
#include "../filter/filter.h"
#include "../filter/kernel_clauses.h"
#include "../message.h"
#include "../source.h"
#include "../subscribe/protocol.h"
#include "../subscribe/zmq_frames.h"
#include "anonymize_policy.h"
#include "consumer_groups.h"
#include "flight_recorder.h"
#include "group_keyer.h"
#include "refusal_log.h"
#include "ring_handover.h"
#include "serving_limits.h"
#include "shared_batch.h"

namespace lnetcap::daemon {

class SubscriberSet {
 public:
  /// `identity` is what every ACCEPT says (node name, source).  With
  /// wait_when_full a full queue makes the daemon wait instead of dropping:
  /// for a file replayed as fast as possible, where no clock is to be kept
  /// up with, the replay then runs as fast as its slowest subscriber.
  SubscriberSet(zmq::socket_t& router, subscribe::Accept identity, bool wait_when_full = false);

  /// A message from a subscriber: SUBSCRIBE (filter compiled, ACCEPT or a
  /// REFUSE naming the error), DUMP (the same, for the flight recorder's
  /// records), STATUS (answered at once) or BYE.  Malformed messages are logged.
  /// `peer`: who libzmq says sent it (for the anonymize policy).
  void handle(const std::string& routing_id, const subscribe::Frames& frames,
              const subscribe::Peer& peer = {});
  /// Sets who is forced through the anonymizer: applies to subscriptions
  /// from now on and to current subscribers it now forces (never lifts
  /// anonymization from a stream that has it).  Throws Error when the
  /// anonymizer's key file cannot be read or made.
  void set_anonymize_policy(const AnonymizePolicy& policy);
  /// Filter push-down into the kernel (a live eBPF source): `publish` is
  /// given the union of what the subscribers' filters may accept
  /// (filter/kernel_clauses.h) whenever it changes - before the ACCEPT of a
  /// new subscriber, so none of its records is left in the kernel, and
  /// after one leaves.  `everything`: something else (recorder, trigger,
  /// metrics) sees every record, so nothing may stay in the kernel.
  /// Publishes the current union at once.
  void set_kernel_clauses(std::function<void(const filter::KernelClauseSet&)> publish,
                          bool everything);
  /// The bounds on subscriptions (serving_limits.h): how many, of one
  /// user, filter terms together; and how long a send may wait for a full
  /// queue (wait_when_full) before that subscriber counts as stalled.
  void set_limits(const ServingLimits& limits) { limits_ = limits; }
  /// Subscriptions refused by a limit so far (--status).
  std::uint64_t refused() const { return refused_; }
  /// Filter terms of every subscription together.
  std::size_t filter_terms() const;
  /// The flight recorder DUMP requests read (none: DUMP is refused).
  void set_recorder(const FlightRecorder* recorder) { recorder_ = recorder; }
  /// What a STATUS request is answered with.
  void set_status(std::function<subscribe::Status()> status) { status_ = std::move(status); }
  /// Sends what fits of every pending dump (never dropping: a dump waits
  /// for its reader), then its END; a finished dump leaves the set.
  /// Anonymized subscribers get the dump's records anonymized too.
  /// True while some dump still has records to send.
  bool pump_dumps(const std::vector<CaptureInterface>& interfaces, const SourceStats& stats);
  /// Offers one source record to every subscriber whose filter matches.
  /// interfaces: the source's interfaces so far (announced as needed).
  void deliver(const CapturedRecord& rec, const Message& msg,
               const std::vector<CaptureInterface>& interfaces, const SourceStats& stats,
               std::uint64_t watermark_ns);
  /// Sends every subscriber's gathered batch (see above).
  void flush();
  /// A HEARTBEAT to every subscriber (best effort: a full queue skips it).
  void heartbeat(const SourceStats& stats, std::uint64_t watermark_ns);
  /// Queues END for every subscriber that has not got it yet; true once
  /// every subscriber has it (a stopped one gets it when it drains).
  bool send_end(const subscribe::End& end, const SourceStats& stats);
  /// Logs every subscriber's counters (at exit), and the summaries of the
  /// rate-limited logs.
  void log_totals();
  /// Writes the rate-limited logs' summaries of intervals that have ended
  /// (refusals, bad messages, subscribers coming and going: refusal_log.h).
  void tick_logs();
  /// Subscribers of the live stream (a dump in progress is not one: it
  /// must not start a replay held by --wait-subscribers).
  std::size_t size() const { return subscribers_.size() - dumps_; }
  /// Records dropped for any subscriber so far (those gone included).
  std::uint64_t total_dropped() const { return total_dropped_; }
  /// Shared-memory rings for local members of fan-out classes: offered
  /// through `handover` (which must outlive this set), `slots` batches deep.
  void set_rings(RingHandover* handover, std::uint32_t slots);
  /// Members whose handover is done read their class's ring from now on.
  void rings_handed_over();
  /// Every ring is retired and the members offered new ones (a reload: a
  /// subscriber that left keeps its mapping of its class's ring, which
  /// from then on carries nothing more; docs/DAEMON.md).
  void renew_rings() {
    retire_rings();
    offer_rings();
  }
  /// Whether deliver() needs the decoded message: some subscriber filters.
  /// (Anonymized ones decode the pseudonymous record themselves.)
  bool needs_decoding() const;

  struct Subscriber {
    std::uint64_t number = 0;  // 1, 2, ... in order of subscription (logs)
    std::string client;
    filter::Filter filter;
    std::string filter_text;
    std::uint32_t snaplen = subscribe::kSnaplenAsCaptured;
    subscribe::Peer peer;
    // Forced through the anonymizer: it gets (and its filter sees) only
    // pseudonymous records and interfaces, never the real NIDs.
    bool anonymized = false;
    std::uint64_t matched = 0, dropped = 0, sent = 0;
    std::size_t interfaces_sent = 0;
    bool end_sent = false;
    bool takes_batches = false;
    // A member of a fan-out class (see above): its records are gathered in
    // the class's batch, not in `batch`.
    bool shares = false;
    subscribe::Frame batch;               // records gathered for one BATCH
    std::uint32_t batch_records = 0;
    // A consumer group's member: the group key of each record in `batch`,
    // so that a member gone before they were sent passes them on to the
    // member that takes each key now.
    std::vector<std::uint64_t> batch_keys;
    // Its queue stayed full longer than kStallSeconds: it is not waited
    // for (its records are dropped and counted) until it takes one again.
    bool stalled = false;
    std::chrono::steady_clock::time_point full_since{};  // a dump's queue, full since
    // Asked for a ring and is local; its tail page and the ring it was
    // offered (ring_id); ring_ready once it has mapped them.
    bool maps_ring = false;
    bool ring_handed = false;  // the descriptors went out
    bool ring_ready = false;   // ... and it has mapped them: it is sent RING_BATCH
    std::uint64_t ring_id = 0;
    std::optional<subscribe::RingTail> tail;
    std::uint64_t ring_sent = 0;  // records sent through the ring
    // Its consumer group: the name it asked for, and the group's key in
    // groups_ (its user and the name); both "" when it joined none.
    std::string group, group_id;
    bool dump = false;                    // a DUMP: sends `backlog`, not the live stream
    std::deque<StoredRecordPtr> backlog;  // the recorder's records still to send
  };
  /// What the subscribers (plus `joining`, not yet in the set) need from
  /// the kernel.
  filter::KernelClauseSet kernel_clauses(const Subscriber* joining = nullptr) const;
  /// By routing id (for tests and logs).
  const std::map<std::string, Subscriber>& subscribers() const { return subscribers_; }
  /// The consumer groups together (metrics).
  GroupTotals group_totals() const;
  /// The consumer-group keyers (group_keyer.h): for tests and --status.
  const GroupKeyer& group_keyer(bool anonymized) const { return anonymized ? pseudonymous_keys_ : plain_keys_; }
  /// Fan-out classes (see above): for tests and --status.
  std::size_t fanout_classes() const { return classes_.size(); }
  /// Ends the subscribers `gone` picks (END, failed, saying `reason`, when
  /// it fits their queue) and forgets them: a revoked key's.  Returns how many.
  std::size_t end_subscribers(const std::function<bool(const Subscriber&)>& gone,
                              const std::string& reason, const SourceStats& stats);

 private:
  subscribe::Counters counters(const Subscriber& s, const SourceStats& stats,
                               std::uint64_t watermark_ns) const;
  /// What a RECORD (or BATCH entry) says about rec as s's number seq.
  subscribe::RecordMeta record_meta(const Subscriber& s, const CapturedRecord& rec, std::uint64_t seq,
                                    const SourceStats& stats, std::uint64_t watermark_ns) const;
  /// One record to one subscriber (`key`: the record's group key for s's
  /// group, if s is in one); false when it is gone.
  bool deliver_one(const std::string& id, Subscriber& s, const CapturedRecord& rec, const Message& msg,
                   const std::vector<CaptureInterface>& interfaces, const SourceStats& stats,
                   std::uint64_t watermark_ns, std::uint64_t key);
  /// Gives s a record it takes (its filter matched; its group chose it);
  /// false when it is gone.
  bool hand(const std::string& id, Subscriber& s, const CapturedRecord& rec,
            const std::vector<CaptureInterface>& interfaces, const SourceStats& stats, std::uint64_t watermark_ns,
            std::uint64_t key);
  subscribe::SendResult send(const std::string& id, const std::vector<ByteSpan>& parts,
                             Subscriber* s = nullptr);
  /// `attempt` (one non-blocking send to id), retried while the queue is
  /// full as far as wait_when_full allows (see send()).
  subscribe::SendResult send_waiting(const std::string& id, Subscriber* s,
                                     const std::function<subscribe::SendResult()>& attempt);

  // Who is entitled to the same bytes: every member of a fan-out class gets
  // the records of exactly this (subscriber_fanout.cpp).
  struct FanoutKey {
    bool anonymized = false;
    std::uint32_t snaplen = subscribe::kSnaplenAsCaptured;
    std::string filter_text;
    bool operator<(const FanoutKey& o) const {
      return std::tie(anonymized, snaplen, filter_text) < std::tie(o.anonymized, o.snaplen, o.filter_text);
    }
  };
  // A class's shared-memory ring: which members were sent each slot's
  // batch, and its records (before a slot is overwritten, a lossless
  // replay waits for them; a member still behind then has them counted
  // dropped).
  struct ClassRing {
    subscribe::RingWriter writer;
    std::uint64_t id;
    std::vector<std::vector<std::string>> sent_to;  // by slot
    std::vector<std::uint32_t> records;             // by slot
  };
  struct FanoutClass {
    filter::Filter filter;             // the members' (parsed again from their one text)
    std::vector<std::string> members;  // routing ids, in the order they joined
    SharedBatch batch;                 // gathered since the last flush
    std::unique_ptr<ClassRing> ring{};  // made when the first member that can map it joins
  };
  static FanoutKey fanout_key(const Subscriber& s) { return {s.anonymized, s.snaplen, s.filter_text}; }
  /// s joins its class (made when it is the first): what the class had
  /// gathered goes to the other members first, so s gets no record from
  /// before it subscribed.
  void join_class(const std::string& id, Subscriber& s);
  /// s leaves its class; the last member's leaving ends it.
  void leave_class(const std::string& id, const Subscriber& s);
  /// Offers rec (already anonymized for an anonymized class) to the class.
  void deliver_to_class(const FanoutKey& key, FanoutClass& c, const CapturedRecord& rec, const Message& msg,
                        std::vector<std::string>& gone);
  /// Sends the class's gathered batch to every member; members that are
  /// gone are added to `gone` (the caller removes them).
  void flush_class(FanoutClass& c, std::vector<std::string>& gone);
  /// Writes the batch into c's ring when a member reads it there (first
  /// waiting, in a lossless replay, for those who have not read the slot's
  /// last batch); the generation written, or 0.
  std::uint64_t write_ring(FanoutClass& c, std::uint32_t records);
  /// Offers s its class's ring (made if it is the first), when it may map one.
  void offer_ring(FanoutClass& c, const std::string& id, Subscriber& s);
  /// Every ring is retired (never written again); offer_rings() then
  /// offers new ones to the members that have none.
  void retire_rings();
  void offer_rings();
  /// The interfaces as s is to see them (pseudonymous when anonymized).
  const std::vector<CaptureInterface>& interfaces_for(const Subscriber& s,
                                                      const std::vector<CaptureInterface>& interfaces);
  /// The limit a new subscription from `peer` would break, or "".
  std::string limit_broken(const Subscriber& joining, bool dump) const;
  /// Sends s's gathered batch; false when the subscriber is gone.
  bool flush_one(const std::string& id, Subscriber& s);
  /// Counts n records lost for s (its queue was full).
  void count_dropped(Subscriber& s, std::uint64_t n);
  bool announce_interfaces(const std::string& id, Subscriber& s,
                           const std::vector<CaptureInterface>& interfaces);
  void subscribe(const std::string& id, const subscribe::Frames& frames, const subscribe::Peer& peer,
                 bool dump);
  /// The record (its interfaces first) as this subscriber's number seq.
  subscribe::SendResult send_record(const std::string& id, Subscriber& s, const CapturedRecord& rec,
                                    std::uint64_t seq, const std::vector<CaptureInterface>& interfaces,
                                    const SourceStats& stats, std::uint64_t watermark_ns);
  /// `said_bye`: a consumer group's member that read on until its END
  /// (leave_group); one gone without has its gathered batch passed on.
  void remove(const std::string& id, const char* why, bool said_bye = false);
  /// A consumer group's member gone without BYE (killed, disconnected):
  /// what was gathered for it and not yet handed to libzmq goes to the
  /// members that take those keys now (it has left the group already).
  /// Returns how many records were passed on, and how many had no member
  /// left to take them; members found gone meanwhile are added to `gone`.
  std::pair<std::uint64_t, std::uint64_t> pass_on(Subscriber& leaver, std::vector<std::string>& gone);
  /// The --status lines of the consumer groups: counts for all, members
  /// and their counts for `user`'s own groups only (a group is its user's).
  void group_status(subscribe::Status& st, const std::string& user) const;
  /// --status: the shared-memory rings, their memory and their readers.
  void ring_status(subscribe::Status& st) const;
  /// The BYE of a consumer group's member: what was gathered for it is
  /// sent, then END, so that it can read every record it was given before
  /// it leaves; the records after go to the other members.
  void leave_group(const std::string& id, Subscriber& s);
  /// Why `s` may not join the group `request.group` asks for ("" when it
  /// may, or asks for none); sets s.group and s.group_id.
  std::string group_problem(Subscriber& s, const subscribe::Subscribe& request, bool dump) const;
  /// Hands kernel_clauses(joining) to the kernel (set_kernel_clauses).
  void republish(const Subscriber* joining = nullptr);

 public:
  // Records in one BATCH: enough that the byte bound below is what ends a
  // batch of typical records (a message - a wake-up of libzmq's I/O
  // thread and of the subscriber - per 64 KiB, not per 64 records).
  static constexpr std::uint32_t kBatchRecords = 256;
  // 64 KiB: a queue's bound in bytes is its messages times this (plus one
  // record), and --memory-budget bounds queues in bytes.
  static constexpr std::size_t kBatchBytes = 64 * 1024;
  // A ring slot: its header, a batch's bytes and one entry beyond them (a
  // batch ends at the entry that reaches kBatchBytes), an entry being at
  // most a message's bytes (2 * kBatchBytes).  A larger batch goes as
  // SHARED_BATCH.
  static constexpr std::uint32_t kRingSlotBytes = subscribe::kRingSlotHeaderBytes + 2 * kBatchBytes;
  // How long one send waits for a full queue (a lossless replay) before
  // the subscriber counts as stalled: a reader that is stopped, or gone
  // with its queue full, never holds the daemon and everyone else.
  // One second: a lossless replay waits for each stalled subscriber once,
  // and meanwhile answers nobody new.
  static constexpr int kStallSeconds = 1;
  // A dump is never waited for; one whose queue takes nothing this long
  // is abandoned.
  static constexpr int kDumpStallSeconds = 10;
  // Dumps in progress at once: each pins the recorder's records it has
  // still to send, even once the recorder has let them go.
  static constexpr std::size_t kMaxDumps = 4;
  // Of them, one user's at most, and how many only root and lnetcapd's own
  // user may take (fair shares, issue 34).
  static constexpr std::size_t kMaxDumpsPerUser = 2;
  static constexpr std::size_t kPrivilegedDumps = 1;

 private:

  zmq::socket_t& router_;
  subscribe::Accept identity_;
  bool wait_when_full_;
  std::map<std::string, Subscriber> subscribers_;
  std::uint64_t next_number_ = 1;
  std::uint64_t total_dropped_ = 0;
  std::size_t dumps_ = 0;  // of subscribers_, the dumps in progress
  const FlightRecorder* recorder_ = nullptr;
  std::function<subscribe::Status()> status_;
  std::vector<std::uint8_t> scratch_;
  AnonymizePolicy anonymize_policy_;
  std::unique_ptr<anon::AnonymizingStage> anonymizing_;  // while the policy forces anyone
  std::function<void(const filter::KernelClauseSet&)> publish_clauses_;
  bool kernel_passes_everything_ = false;
  ServingLimits limits_;
  ConsumerGroups groups_;
  // Every record's group key, bulk with its RPC: from the real records and
  // (while an anonymized group exists) from the pseudonymous ones.
  GroupKeyer plain_keys_, pseudonymous_keys_;
  std::uint64_t group_unconfirmed_ = 0, group_passed_on_ = 0;  // members gone without BYE, so far
  std::uint64_t refused_ = 0;
  // Peers decide how often these happen: each is logged at a bounded rate
  // with counts (refusal_log.h).
  RefusalLog refusals_{"subscriptions"};
  RefusalLog bad_messages_{"bad messages from subscribers", std::chrono::seconds(10), 5, stderr, "ignored"};
  RefusalLog churn_{"subscriptions and departures", std::chrono::seconds(10), 50, stderr, ""};
  std::map<FanoutKey, FanoutClass> classes_;
  RingHandover* handover_ = nullptr;
  std::uint32_t ring_slots_ = 0;
  std::uint64_t next_ring_id_ = 1;
  bool rings_unavailable_ = false;  // the kernel cannot seal them: logged once
  // The source's interfaces as of the last deliver(): a class's batch is
  // sent after the records are gathered (flush), their interfaces first.
  const std::vector<CaptureInterface>* last_interfaces_ = nullptr;
  SourceStats last_stats_;  // of the last deliver(): for heartbeats sent while waiting
  std::uint64_t last_watermark_ = 0;
};

}  // namespace lnetcap::daemon
