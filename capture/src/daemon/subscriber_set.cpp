// SPDX-License-Identifier: GPL-2.0-or-later
#include "subscriber_set.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <optional>
#include <thread>

#include <unistd.h>

#include "../error.h"
#include "../record.h"
#include "../signals.h"
#include "../subscribe/zmq_frames.h"
#include "consumer_group.h"
#include "log_text.h"
#include "snap_length.h"
#include "status_anonymization.h"

namespace lnetcap::daemon {

using subscribe::SendResult;

SubscriberSet::SubscriberSet(zmq::socket_t& router, subscribe::Accept identity, bool wait_when_full)
    : router_(router), identity_(std::move(identity)), wait_when_full_(wait_when_full) {}

namespace {
// Text a subscriber chose (its client name, its filter) as the log shows
// it: escaped, never more than a line, whatever it sent (log_text.h).
std::string for_log(const std::string& text) { return log_text(text); }

// Who a subscriber is, for --max-subscribers-per-user: a local uid, a
// CurveZMQ key, else (insecure TCP) its address without the port.
std::string user_of(const subscribe::Peer& peer) {
  if (peer.uid >= 0) return "uid " + std::to_string(peer.uid);
  if (!peer.user_id.empty()) return "key " + log_text(peer.user_id, 100);
  return "address " + log_text(peer.address, 100);
}

// Root and lnetcapd's own user (the admin) on the local socket: they may
// use what is kept back from everyone else.
bool is_privileged(const subscribe::Peer& peer) {
  return peer.uid == 0 || (peer.uid >= 0 && peer.uid == static_cast<long>(::geteuid()));
}
}  // namespace

// Records and interfaces go through here; control messages never wait.
// A wait is bounded (kStallSeconds): a subscriber that takes nothing for
// that long is stalled, and is not waited for again until it takes a
// message; its records are dropped and counted meanwhile.
SendResult SubscriberSet::send(const std::string& id, const std::vector<ByteSpan>& parts, Subscriber* s) {
  return send_waiting(id, s, [&] { return subscribe::send_parts(router_, id, parts); });
}

SendResult SubscriberSet::send_waiting(const std::string& id, Subscriber* s,
                                       const std::function<SendResult()>& attempt) {
  using Clock = std::chrono::steady_clock;
  // A dump is never waited for: pump_dumps comes back to it.
  const bool may_wait = wait_when_full_ && !(s && (s->stalled || s->dump));
  Clock::time_point deadline{}, next_heartbeat{};
  for (;;) {
    const SendResult r = attempt();
    if (r == SendResult::kSent && s) s->stalled = false;
    if (r != SendResult::kQueueFull || !may_wait || stop_requested()) return r;
    const Clock::time_point now = Clock::now();
    if (deadline == Clock::time_point{}) {
      deadline = now + std::chrono::seconds(kStallSeconds);
      next_heartbeat = now + std::chrono::seconds(1);
    }
    // The loop waits here: the others hear from it all the same, or they
    // would take the daemon for gone ("lost contact") while it waits.
    if (now >= next_heartbeat) {
      for (const auto& [other_id, other] : subscribers_)
        if (other_id != id && !other.end_sent)
          (void)subscribe::send_frames(router_, other_id,
                                       subscribe::encode(counters(other, last_stats_, last_watermark_)));
      next_heartbeat = now + std::chrono::seconds(1);
    }
    if (now >= deadline) {
      if (s) {
        s->stalled = true;
        std::fprintf(stderr,
                     "lnetcapd: subscriber %" PRIu64 " (%s) took nothing for %d s: not waited for "
                     "until it reads again (its records are dropped and counted)\n",
                     s->number, for_log(s->client).c_str(), kStallSeconds);
      }
      return r;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

std::size_t SubscriberSet::filter_terms() const {
  std::size_t n = 0;
  for (const auto& [id, s] : subscribers_) n += s.filter.terms();
  return n;
}

// Fair shares (issue 34): every budget is bounded in total, of one user
// (a local uid, a CurveZMQ key, an insecure TCP address), and of all
// unprivileged users together, so that no user takes what another needs
// and root's and lnetcapd's own user's requests always find room
// (serving_limits.h, docs/DAEMON.md "What is bounded").
std::string SubscriberSet::limit_broken(const Subscriber& joining, bool dump) const {
  const std::string user = user_of(joining.peer);
  const bool privileged = is_privileged(joining.peer);
  std::size_t mine = 0, others = 0, my_dumps = 0, others_dumps = 0, my_terms = 0, others_terms = 0;
  for (const auto& [id, s] : subscribers_) {
    const bool same = user_of(s.peer) == user;
    const bool unprivileged = !is_privileged(s.peer);
    mine += same;
    others += unprivileged;
    my_dumps += same && s.dump;
    others_dumps += unprivileged && s.dump;
    if (same) my_terms += s.filter.terms();
    if (unprivileged) others_terms += s.filter.terms();
  }
  const FairShares shares = fair_shares(limits_);
  const std::size_t terms = joining.filter.terms();
  if (subscribers_.size() >= limits_.max_subscribers)
    return "lnetcapd serves at most " + std::to_string(limits_.max_subscribers) +
           " subscribers at once (--max-subscribers)";
  if (!privileged && others >= shares.unprivileged_subscribers)
    return "lnetcapd serves at most " + std::to_string(shares.unprivileged_subscribers) +
           " subscribers of users other than root and its own at once (--max-subscribers " +
           std::to_string(limits_.max_subscribers) + " less " +
           std::to_string(limits_.max_subscribers - shares.unprivileged_subscribers) + " kept for them)";
  if (mine >= limits_.max_per_user)
    return "lnetcapd serves at most " + std::to_string(limits_.max_per_user) + " subscribers of one user (" +
           user + ") at once (--max-subscribers-per-user)";
  if (dump && dumps_ >= kMaxDumps)
    return "lnetcapd sends at most " + std::to_string(kMaxDumps) + " dumps at once";
  if (dump && my_dumps >= kMaxDumpsPerUser)
    return "lnetcapd sends at most " + std::to_string(kMaxDumpsPerUser) + " dumps to one user (" + user +
           ") at once";
  if (dump && !privileged && others_dumps >= kMaxDumps - kPrivilegedDumps)
    return "lnetcapd sends at most " + std::to_string(kMaxDumps - kPrivilegedDumps) +
           " dumps to users other than root and its own at once";
  if (filter_terms() + terms > limits_.max_filter_terms)
    return "the subscribers' filters together may have at most " + std::to_string(limits_.max_filter_terms) +
           " terms; this one's " + std::to_string(terms) + " would go beyond";
  if (my_terms + terms > shares.terms_per_user)
    return "the filters of one user (" + user + ") together may have at most " +
           std::to_string(shares.terms_per_user) + " terms; this one's " + std::to_string(terms) +
           " would go beyond";
  if (!privileged && others_terms + terms > shares.unprivileged_terms)
    return "the filters of users other than root and its own together may have at most " +
           std::to_string(shares.unprivileged_terms) + " terms; this one's " + std::to_string(terms) +
           " would go beyond";
  return "";
}

void SubscriberSet::set_anonymize_policy(const AnonymizePolicy& policy) {
  // What was gathered under the old policy goes out first: a subscriber
  // that is now anonymized moves to an anonymized fan-out class below.
  flush();
  if (policy.forces_anyone() &&
      (!anonymizing_ || policy.key_file != anonymize_policy_.key_file))
    anonymizing_ = std::make_unique<anon::AnonymizingStage>(
        anon::Anonymizer(anon::Anonymizer::load_or_create_key(policy.key_file)));
  anonymize_policy_ = policy;
  // A member moved to another class keeps its mapping of the old class's
  // ring: no ring that was may carry another byte (docs/DAEMON.md).
  bool moves = false;
  for (const auto& [id, s] : subscribers_) moves |= !s.anonymized && !policy.forces(s.peer).empty();
  if (moves) retire_rings();
  for (auto& [id, s] : subscribers_) {
    const std::string why = policy.forces(s.peer);
    if (s.anonymized || why.empty()) continue;
    if (s.shares) leave_class(id, s);
    s.anonymized = true;
    if (s.shares) join_class(id, s);
    if (!s.group_id.empty()) groups_.set_anonymized(s.group_id);
    std::fprintf(stderr, "lnetcapd: subscriber %" PRIu64 " (%s) is anonymized from now on (%s)\n",
                 s.number, for_log(s.client).c_str(), why.c_str());
  }
  if (moves) offer_rings();
  republish();  // its NID terms now name pseudonyms
}

void SubscriberSet::set_kernel_clauses(std::function<void(const filter::KernelClauseSet&)> publish,
                                       bool everything) {
  publish_clauses_ = std::move(publish);
  kernel_passes_everything_ = everything;
  republish();
}

filter::KernelClauseSet SubscriberSet::kernel_clauses(const Subscriber* joining) const {
  if (kernel_passes_everything_) return filter::KernelClauseSet::everything();
  std::vector<filter::KernelClauseSet> each;
  auto add = [&](const Subscriber& s) {
    if (s.dump) return;  // reads the recorder, not the source
    filter::ClauseOptions o;
    o.nids_are_pseudonyms = s.anonymized;  // its filter sees pseudonyms only
    each.push_back(filter::kernel_clauses(s.filter, o));
  };
  for (const auto& [id, s] : subscribers_) add(s);
  if (joining) add(*joining);
  return filter::unite(each);
}

void SubscriberSet::republish(const Subscriber* joining) {
  if (publish_clauses_) publish_clauses_(kernel_clauses(joining));
}

void SubscriberSet::handle(const std::string& id, const subscribe::Frames& frames,
                           const subscribe::Peer& peer) {
  try {
    switch (subscribe::message_type(frames)) {
      case subscribe::MessageType::kSubscribe: subscribe(id, frames, peer, false); return;
      case subscribe::MessageType::kDump: subscribe(id, frames, peer, true); return;
      case subscribe::MessageType::kStatus: {
        subscribe::Status st = status_ ? status_() : subscribe::Status{};
        group_status(st, user_of(peer));
        ring_status(st);
        // The source, the trigger filter may name NIDs: pseudonyms for a forced user.
        if (!anonymize_policy_.forces(peer).empty()) anonymize_status(st, anonymizing_->anonymizer());
        subscribe::send_frames(router_, id, subscribe::encode(st));
        return;
      }
      case subscribe::MessageType::kBye: {
        auto it = subscribers_.find(id);
        if (it != subscribers_.end() && !it->second.group_id.empty()) leave_group(id, it->second);
        else remove(id, "left");
        return;
      }
      default: throw Error("unexpected message type " + std::to_string(frames[0][5]));
    }
  } catch (const Error& e) {
    bad_messages_.event("lnetcapd: ignoring a bad message from a subscriber: " + for_log(e.what()));
  }
}

void SubscriberSet::subscribe(const std::string& id, const subscribe::Frames& frames,
                              const subscribe::Peer& peer, bool dump) {
  const subscribe::Subscribe request = dump ? subscribe::decode_dump(frames) : subscribe::decode_subscribe(frames);
  if (dump && !recorder_) {
    ++refused_;
    refusals_.refused("lnetcapd: refused a dump for " + for_log(request.client) + ": no flight recorder");
    subscribe::send_frames(router_, id,
                           subscribe::encode(subscribe::Refuse{
                               "this lnetcapd keeps no flight recorder",
                               "start it with --recorder-size SIZE or --recorder-seconds N (or "
                               "[recorder] in its config file)"}));
    return;
  }
  Subscriber s;
  s.peer = peer;
  const std::string forced_by = anonymize_policy_.forces(peer);
  s.anonymized = !forced_by.empty();
  try {
    s.filter = filter::Filter::parse(request.filter);
  } catch (const Error& e) {
    refusals_.refused("lnetcapd: refused " + for_log(request.client) + ": " + for_log(e.what()));
    subscribe::send_frames(router_, id, subscribe::encode(subscribe::Refuse{e.what(), e.hint()}));
    return;
  }
  if (subscribers_.count(id)) remove(id, "subscribed again");
  if (const std::string problem = group_problem(s, request, dump); !problem.empty()) {
    ++refused_;
    refusals_.refused("lnetcapd: refused " + for_log(request.client) + " (" + describe(peer) + "): " + problem);
    subscribe::send_frames(router_, id,
                           subscribe::encode(subscribe::Refuse{
                               problem, "name another group, or join this one with the filter its members use"}));
    return;
  }
  if (const std::string limit = limit_broken(s, dump); !limit.empty()) {
    ++refused_;
    refusals_.refused("lnetcapd: refused " + for_log(request.client) + " (" + describe(peer) + "): " + limit +
                      "; " + std::to_string(refused_) + " refused so far");
    subscribe::send_frames(router_, id,
                           subscribe::encode(subscribe::Refuse{limit, "try again later, or ask the "
                                                                      "node's administrator"}));
    return;
  }
  // The kernel must pass what the new filter accepts before ACCEPT tells
  // the subscriber that records are coming.
  if (!dump) republish(&s);
  s.number = next_number_++;
  s.client = request.client;
  s.filter_text = request.filter;
  s.snaplen = request.snaplen;
  s.takes_batches = request.takes_batches && !dump;  // a dump's records go one by one
  s.maps_ring = request.maps_ring && peer.uid >= 0;  // a local peer: the ring is a file it opens
  s.dump = dump;
  if (dump) s.backlog.assign(recorder_->held().begin(), recorder_->held().end());
  subscribe::Accept accept = identity_;
  accept.group = s.group;  // tells the subscriber that this daemon knows groups
  if (s.anonymized)  // the source's description may name a NID
    accept.source = anonymizing_->anonymizer().rewrite_text(accept.source) + ", anonymized by lnetcapd";
  if (subscribe::send_frames(router_, id, subscribe::encode(accept)) != SendResult::kSent) {
    churn_.event("lnetcapd: " + for_log(request.client) + " went away before it was accepted");
    if (!dump) republish();
    return;
  }
  {
    char line[160];
    std::snprintf(line, sizeof line, "lnetcapd: subscriber %" PRIu64 " (", s.number);
    churn_.event(line + for_log(request.client) + ", " + describe(peer) + ") " +
                 (dump ? "asked for the flight recorder's " + std::to_string(s.backlog.size()) + " records"
                       : std::string("subscribed")) +
                 ": filter '" + for_log(request.filter) + "', snaplen " +
                 (s.snaplen == subscribe::kSnaplenAsCaptured ? std::string("as captured") : std::to_string(s.snaplen)) +
                 (s.anonymized ? ", anonymized by " + forced_by : std::string()) +
                 (s.group.empty() ? std::string()
                                  : ", member " + std::to_string(groups_.members(s.group_id) + 1) +
                                        " of consumer group '" + for_log(s.group) + "'"));
  }
  if (dump) ++dumps_;
  if (!s.group_id.empty()) groups_.join(s.group_id, id, s.number, s.filter_text, s.anonymized);
  const bool shares = request.takes_shared_batches && s.takes_batches && s.group_id.empty() && !dump;
  Subscriber& placed = subscribers_.emplace(id, std::move(s)).first->second;
  // A consumer group's member gets its own share of records, a dump the
  // recorder's: only the others get the same bytes as someone else.  (In
  // the set first: a member found gone while its class is flushed is
  // removed, and the kernel's clauses then made must include this one.)
  if (shares) join_class(id, placed);
}

void SubscriberSet::remove(const std::string& id, const char* why, bool said_bye) {
  auto it = subscribers_.find(id);
  if (it == subscribers_.end()) return;
  Subscriber& s = it->second;
  if (s.dump) --dumps_;
  if (s.shares) leave_class(id, s);
  if (handover_) handover_->revoke(id);
  std::string group_note;
  std::vector<std::string> gone;  // members found gone while given its records
  if (!s.group_id.empty()) {
    // From the next record on, its share goes to the other members; so
    // does what was gathered for it and not sent.
    groups_.leave(s.group_id, id, {s.sent, s.dropped, said_bye});
    const auto [passed, lost] = pass_on(s, gone);
    groups_.passed_on(s.group_id, passed);
    group_passed_on_ += passed;
    if (!said_bye) group_unconfirmed_ += s.sent;
    char passing[160] = "";
    if (passed || lost)
      std::snprintf(passing, sizeof passing, ", %" PRIu64 " passed on to the other members%s", passed,
                    lost ? (", " + std::to_string(lost) + " lost with the group's last member").c_str() : "");
    group_note = passing + std::string(" (member of consumer group '") + for_log(s.group) + "'" +
                 (said_bye ? "" : "; gone without BYE: what it had not written of what it was sent is lost, "
                                  "how much the daemon cannot tell") + ")";
  }
  char counts[200];
  std::snprintf(counts, sizeof counts, ": %" PRIu64 " matched, %" PRIu64 " sent, %" PRIu64 " dropped", s.matched,
                s.sent, s.dropped);
  churn_.event("lnetcapd: subscriber " + std::to_string(s.number) + " (" + for_log(s.client) + ") " + why + counts +
               (s.ring_sent ? " (" + std::to_string(s.ring_sent) + " through the shared-memory ring)" : std::string()) +
               group_note);
  subscribers_.erase(it);
  republish();  // narrowing is safe whenever it happens
  for (const auto& other : gone) remove(other, "disconnected");
}

void SubscriberSet::leave_group(const std::string& id, Subscriber& s) {
  const bool reachable = flush_one(id, s);
  if (reachable) {
    subscribe::End end;
    end.counters = counters(s, last_stats_, last_watermark_);
    end.reason = "left consumer group '" + s.group + "'";
    (void)subscribe::send_frames(router_, id, subscribe::encode(end));
  }
  remove(id, reachable ? "left" : "disconnected", reachable);
}

std::string SubscriberSet::group_problem(Subscriber& s, const subscribe::Subscribe& request, bool dump) const {
  if (request.group.empty()) return "";
  if (dump) return "a dump cannot join a consumer group";
  if (const std::string problem = subscribe::group_name_problem(request.group); !problem.empty())
    return problem + " ('" + log_text(request.group, 80) + "')";
  s.group = request.group;
  // Of its user: another user's group of that name is another group.
  s.group_id = user_of(s.peer) + "\n" + request.group;
  return groups_.join_problem(s.group_id, s.group, request.filter, s.anonymized);
}

subscribe::Counters SubscriberSet::counters(const Subscriber& s, const SourceStats& stats,
                                            std::uint64_t watermark_ns) const {
  subscribe::Counters c;
  c.matched = s.matched;
  c.subscriber_dropped = s.dropped;
  c.source_received = stats.received;
  c.source_dropped = stats.dropped;
  c.watermark_ns = watermark_ns;
  return c;
}

// Interfaces go out in order, before the first record that uses them; when
// one does not fit in the queue, neither would the record.
bool SubscriberSet::announce_interfaces(const std::string& id, Subscriber& s,
                                        const std::vector<CaptureInterface>& interfaces) {
  while (s.interfaces_sent < interfaces.size()) {
    subscribe::InterfaceAnnouncement a;
    a.id = static_cast<std::uint32_t>(s.interfaces_sent);
    a.iface = s.snaplen == subscribe::kSnaplenAsCaptured
                  ? interfaces[s.interfaces_sent]
                  : interface_for_snaplen(interfaces[s.interfaces_sent], s.snaplen);
    const subscribe::Frames frames = subscribe::encode(a);
    if (send(id, std::vector<ByteSpan>(frames.begin(), frames.end()), &s) != SendResult::kSent) return false;
    ++s.interfaces_sent;
  }
  return true;
}

void SubscriberSet::deliver(const CapturedRecord& rec, const Message& msg,
                            const std::vector<CaptureInterface>& interfaces,
                            const SourceStats& stats, std::uint64_t watermark_ns) {
  last_stats_ = stats;
  last_watermark_ = watermark_ns;
  std::vector<std::string> gone;
  // The pseudonymous record, made once for every anonymized subscriber.
  const CapturedRecord* pseudonymous = nullptr;
  std::optional<Message> pseudonymous_msg;  // made only for an anonymized subscriber
  last_interfaces_ = &interfaces;
  groups_.next_record();
  // An anonymized subscriber or class gets (and filters) only this.
  auto anonymized = [&] {
    // msg is Message{} when nothing needed decoding: the anonymizer decodes
    if (!pseudonymous) pseudonymous = &anonymizing_->apply(rec, pseudonymous_msg.emplace());
    return pseudonymous;  // no filter on real NIDs: that would be an oracle
  };
  // The record's group key, once for every group of each view, and
  // whether or not a member's filter takes it: a request filtered out
  // still names the match bits of its bulk (group_keyer.h).
  std::uint64_t plain_key = 0, pseudonymous_key = 0;
  if (groups_.any(false)) plain_key = plain_keys_.key(msg);
  if (groups_.any(true)) {
    anonymized();
    pseudonymous_key = pseudonymous_keys_.key(*pseudonymous_msg);
  }
  for (auto& [key, c] : classes_) {
    if (key.anonymized) {
      const CapturedRecord& out = *anonymized();  // before pseudonymous_msg is read
      deliver_to_class(key, c, out, *pseudonymous_msg, gone);
    } else {
      deliver_to_class(key, c, rec, msg, gone);
    }
  }
  for (auto& [id, s] : subscribers_) {
    if (s.dump || s.shares) continue;  // the recorder's records (pump_dumps); its class's, above
    bool reachable;
    if (s.anonymized) {
      const CapturedRecord& out = *anonymized();
      reachable = deliver_one(id, s, out, *pseudonymous_msg, anonymizing_->interfaces(interfaces), stats,
                              watermark_ns, pseudonymous_key);
    } else {
      reachable = deliver_one(id, s, rec, msg, interfaces, stats, watermark_ns, plain_key);
    }
    if (!reachable) gone.push_back(id);
  }
  for (const auto& id : gone) remove(id, "disconnected");
}

bool SubscriberSet::deliver_one(const std::string& id, Subscriber& s, const CapturedRecord& rec,
                                const Message& msg, const std::vector<CaptureInterface>& interfaces,
                                const SourceStats& stats, std::uint64_t watermark_ns, std::uint64_t key) {
  if (!s.filter.matches(msg)) return true;
  // A group's members all match the same records: one of them takes it.
  if (!s.group_id.empty() && !groups_.takes(s.group_id, id, [&] { return key; })) return true;
  return hand(id, s, rec, interfaces, stats, watermark_ns, key);
}

bool SubscriberSet::hand(const std::string& id, Subscriber& s, const CapturedRecord& rec,
                         const std::vector<CaptureInterface>& interfaces, const SourceStats& stats,
                         std::uint64_t watermark_ns, std::uint64_t key) {
  ++s.matched;
  if (s.takes_batches) {
    // Interfaces go before the batch that uses them; when one does not fit
    // in the queue, neither would the batch.
    if (!announce_interfaces(id, s, interfaces)) {
      count_dropped(s, 1);
      return true;
    }
    subscribe::append_batch_entry(s.batch, record_meta(s, rec, s.matched, stats, watermark_ns),
                                  cut_payload(rec.bytes, s.snaplen, &scratch_), rec.comments);
    ++s.batch_records;
    if (!s.group_id.empty()) s.batch_keys.push_back(key);
    if (s.batch_records >= kBatchRecords || s.batch.size() >= kBatchBytes) return flush_one(id, s);
    return true;
  }
  switch (send_record(id, s, rec, s.matched, interfaces, stats, watermark_ns)) {
    case SendResult::kSent: ++s.sent; break;
    case SendResult::kQueueFull: count_dropped(s, 1); break;
    case SendResult::kPeerGone: return false;
  }
  return true;
}

void SubscriberSet::count_dropped(Subscriber& s, std::uint64_t n) {
  s.dropped += n;
  total_dropped_ += n;
}

bool SubscriberSet::flush_one(const std::string& id, Subscriber& s) {
  if (s.batch_records == 0) return true;
  const subscribe::Frame header = subscribe::encode_batch_header(s.batch_records);
  const SendResult r = send(id, {ByteSpan(header), ByteSpan(s.batch)}, &s);
  switch (r) {
    case SendResult::kSent: s.sent += s.batch_records; break;
    case SendResult::kQueueFull: count_dropped(s, s.batch_records); break;
    case SendResult::kPeerGone: return false;  // kept: a group's member passes it on (remove())
  }
  s.batch.clear();  // its buffer is reused: libzmq copies it (handing it over instead cost more: a fresh 64 KiB a batch, page faults included)
  s.batch_records = 0;
  s.batch_keys.clear();
  return true;
}

void SubscriberSet::flush() {
  std::vector<std::string> gone;
  for (auto& [key, c] : classes_) flush_class(c, gone);
  for (auto& [id, s] : subscribers_)
    if (!flush_one(id, s)) gone.push_back(id);
  // A group's member found gone passes what was gathered for it on to the
  // others (remove()): that is sent too, before the next records come.
  while (!gone.empty()) {
    for (const auto& id : gone) remove(id, "disconnected");
    gone.clear();
    for (auto& [id, s] : subscribers_)
      if (!s.group_id.empty() && !flush_one(id, s)) gone.push_back(id);
  }
}

subscribe::RecordMeta SubscriberSet::record_meta(const Subscriber& s, const CapturedRecord& rec,
                                                 std::uint64_t seq, const SourceStats& stats,
                                                 std::uint64_t watermark_ns) const {
  subscribe::RecordMeta m;
  m.seq = seq;
  m.counters = counters(s, stats, watermark_ns);
  m.counters.matched = seq;
  m.ts_ns = rec.ts_ns;
  m.interface_id = rec.interface_id;
  m.orig_len = rec.orig_len;
  m.epb_flags = rec.epb_flags;
  m.has_drops_before = rec.has_drops_before;
  m.drops_before = rec.drops_before;
  return m;
}

SendResult SubscriberSet::send_record(const std::string& id, Subscriber& s, const CapturedRecord& rec,
                                      std::uint64_t seq, const std::vector<CaptureInterface>& interfaces,
                                      const SourceStats& stats, std::uint64_t watermark_ns) {
  // Interfaces first: when one does not fit in the queue, neither would the record.
  if (!announce_interfaces(id, s, interfaces)) return SendResult::kQueueFull;
  const subscribe::Frame header =
      subscribe::encode_record_header(record_meta(s, rec, seq, stats, watermark_ns));
  std::vector<ByteSpan> parts{ByteSpan(header), cut_payload(rec.bytes, s.snaplen, &scratch_)};
  for (const auto& c : rec.comments)
    parts.emplace_back(reinterpret_cast<const std::uint8_t*>(c.data()), c.size());
  return send(id, parts, &s);
}

bool SubscriberSet::pump_dumps(const std::vector<CaptureInterface>& interfaces, const SourceStats& stats) {
  bool pending = false;
  std::vector<std::string> gone, done, abandoned;
  for (auto& [id, s] : subscribers_) {
    if (!s.dump) continue;
    SendResult r = SendResult::kSent;
    // A bounded batch, so the capture is never kept waiting long.
    for (int batch = 0; batch < 512 && !s.backlog.empty() && r == SendResult::kSent; ++batch) {
      CapturedRecord rec = s.backlog.front()->view();
      std::string why;
      const auto view = parse_record(rec.bytes, &why);
      if (!view) {
        s.backlog.pop_front();
        continue;
      }
      Message msg = decode_message(*view, rec.ts_ns, rec.interface_id);
      const std::vector<CaptureInterface>* ifaces = &interfaces;
      if (s.anonymized) {  // as its live stream would be: pseudonyms only, filter included
        Message pseudonymous;
        rec = anonymizing_->apply(rec, msg, pseudonymous);
        msg = pseudonymous;
        ifaces = &anonymizing_->interfaces(interfaces);
      }
      if (!s.filter.matches(msg)) {
        s.backlog.pop_front();
        continue;
      }
      r = send_record(id, s, rec, s.matched + 1, *ifaces, stats, 0);
      if (r == SendResult::kSent) {
        ++s.matched;
        ++s.sent;
        s.backlog.pop_front();
      }
    }
    if (r == SendResult::kPeerGone) {
      gone.push_back(id);
      continue;
    }
    // A dump nobody reads must not pin the recorder's records, nor keep a
    // stopping daemon waiting, for ever.
    const auto now = std::chrono::steady_clock::now();
    if (r == SendResult::kSent) {
      s.full_since = {};
    } else if (s.full_since == std::chrono::steady_clock::time_point{}) {
      s.full_since = now;
    } else if (now - s.full_since > std::chrono::seconds(kDumpStallSeconds)) {
      abandoned.push_back(id);
      continue;
    }
    if (!s.backlog.empty()) {
      pending = true;
      continue;
    }
    subscribe::End end;
    end.counters = counters(s, stats, 0);
    end.reason = "end of the flight recorder's records";
    switch (subscribe::send_frames(router_, id, subscribe::encode(end))) {
      case SendResult::kSent: done.push_back(id); break;
      case SendResult::kQueueFull:
        if (s.full_since == std::chrono::steady_clock::time_point{}) s.full_since = now;
        if (now - s.full_since > std::chrono::seconds(kDumpStallSeconds)) abandoned.push_back(id);
        else pending = true;
        break;
      case SendResult::kPeerGone: gone.push_back(id); break;
    }
  }
  for (const auto& id : gone) remove(id, "disconnected");
  for (const auto& id : done) remove(id, "got its dump");
  for (const auto& id : abandoned) remove(id, "read nothing of its dump for too long: dump abandoned");
  return pending;
}

bool SubscriberSet::needs_decoding() const {
  for (const auto& [id, s] : subscribers_)
    if (!s.dump && !s.anonymized && (!s.filter.empty() || !s.group_id.empty())) return true;
  return false;
}

void SubscriberSet::heartbeat(const SourceStats& stats, std::uint64_t watermark_ns) {
  std::vector<std::string> gone;
  for (auto& [id, s] : subscribers_)
    if (!s.end_sent &&  // after END a subscriber may be gone
        subscribe::send_frames(router_, id, subscribe::encode(counters(s, stats, watermark_ns))) ==
        SendResult::kPeerGone)
      gone.push_back(id);
  for (const auto& id : gone) remove(id, "disconnected");
}

bool SubscriberSet::send_end(const subscribe::End& end, const SourceStats& stats) {
  flush();  // END follows every record
  bool all = true;
  std::vector<std::string> gone;
  for (auto& [id, s] : subscribers_) {
    if (s.end_sent || s.dump) continue;  // a dump ends when its records are sent
    subscribe::End mine = end;
    mine.counters = counters(s, stats, end.counters.watermark_ns);
    switch (subscribe::send_frames(router_, id, subscribe::encode(mine))) {
      case SendResult::kSent: s.end_sent = true; break;
      case SendResult::kQueueFull: all = false; break;
      case SendResult::kPeerGone: gone.push_back(id); break;
    }
  }
  for (const auto& id : gone) remove(id, "disconnected");
  return all;
}

std::size_t SubscriberSet::end_subscribers(const std::function<bool(const Subscriber&)>& gone,
                                           const std::string& reason, const SourceStats& stats) {
  std::vector<std::string> ids;
  for (const auto& [id, s] : subscribers_)
    if (gone(s)) ids.push_back(id);
  for (const auto& id : ids) {
    auto it = subscribers_.find(id);
    if (it == subscribers_.end()) continue;  // removed with another (a group member found gone: remove())
    subscribe::End end;
    end.failed = true;
    end.reason = reason;
    end.counters = counters(it->second, stats, 0);
    (void)subscribe::send_frames(router_, id, subscribe::encode(end));
    remove(id, reason.c_str());
  }
  return ids.size();
}

void SubscriberSet::tick_logs() {
  refusals_.tick();
  bad_messages_.tick();
  churn_.tick();
}

void SubscriberSet::log_totals() {
  refusals_.finish();
  bad_messages_.finish();
  churn_.finish();
  for (const auto& [id, s] : subscribers_)
    std::fprintf(stderr,
                 "lnetcapd: subscriber %" PRIu64 " (%s)%s: %" PRIu64 " matched, %" PRIu64
                 " sent, %" PRIu64 " dropped%s\n",
                 s.number, for_log(s.client).c_str(), s.end_sent ? "" : " (end not delivered)", s.matched,
                 s.sent, s.dropped,
                 s.ring_sent ? (" (" + std::to_string(s.ring_sent) + " through the shared-memory ring)").c_str() : "");
}

}  // namespace lnetcap::daemon
