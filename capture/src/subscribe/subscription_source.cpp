// SPDX-License-Identifier: GPL-2.0-or-later
#include "subscription_source.h"

#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <thread>

#include "../error.h"
#include "../signals.h"
#include "curve_keys.h"
#include "merge_source.h"
#include "ring_fetch.h"
#include "version.h"
#include "zmq_frames.h"

namespace lnetcap::subscribe {
namespace {

using Clock = std::chrono::steady_clock;
// lnetcapd sends a HEARTBEAT every second; this much silence means it is gone.
constexpr auto kSilenceLimit = std::chrono::seconds(10);
// How long next() waits before giving the pipeline a look (signals, status).
constexpr auto kTick = std::chrono::milliseconds(200);
// next() looks for messages at least every kTick while it is being called;
// a longer gap means this process was not running (Ctrl-Z, SIGSTOP, a
// debugger) or the pipeline was busy elsewhere.  The daemon's silence is
// then judged by what arrives from now on, not by the time we were away:
// the monotonic clock kept running while nothing could be received.
constexpr auto kAwayGap = std::chrono::seconds(2);
// How long a consumer group's member that stops waits for the END after
// its BYE: the daemon answers at once, unless the member's queue is full.
constexpr auto kGroupDrain = std::chrono::seconds(5);

Error protocol_error(const std::string& uri, const std::string& what) {
  return Error("lnetcapd at " + uri + ": " + what, "use lnetcap and lnetcapd of the same release");
}

// Whether the CURVE handshake was turned down: the daemon's ZAP handler
// refused our key, or the server key was wrong.  libzmq reports that only
// as a socket monitor event; without it the subscriber would wait out its
// answer time.
bool handshake_refused(zmq::socket_t& monitor) {
  zmq::message_t event, address;
  while (monitor.recv(event, zmq::recv_flags::dontwait)) {
    if (event.more()) (void)monitor.recv(address);
    std::uint16_t id = 0;
    if (event.size() >= sizeof id) std::memcpy(&id, event.data(), sizeof id);
    if (id == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH || id == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL) return true;
  }
  return false;
}

// A local socket we may not write to: say so at once.  ZeroMQ connects ipc
// endpoints in the background and never reports the kernel's EACCES, so
// without this a user outside the socket's group waited out the answer time
// and was told the daemon did not answer.  A missing socket is left to the
// normal wait (the daemon may be starting); a socket the daemon is still
// giving its mode and group gets a second to settle.
void check_local_socket_access(const std::string& uri) {
  if (uri.rfind("ipc://", 0) != 0) return;
  const std::string path = uri.substr(6);
  for (int tries = 0;; ++tries) {
    if (access(path.c_str(), W_OK) == 0 || errno != EACCES) return;
    if (tries == 10) break;
    usleep(100 * 1000);
  }
  std::string group = "lnetcap";
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    if (const struct group* g = getgrgid(st.st_gid)) group = g->gr_name;
  }
  throw Error("permission denied on lnetcapd's socket " + path,
              "subscribing needs write access to it (and to its directories): ask the admin to "
              "add you to group '" + group + "' (sudo usermod -aG " + group +
              " USER), then log in again");
}

}  // namespace

SubscriptionSource::SubscriptionSource(const std::string& uri, const Subscribe& request,
                                       const CurveClient& curve, std::chrono::milliseconds answer_timeout,
                                       Request kind, std::chrono::seconds reconnect_for)
    : uri_(normalize_endpoint(uri)),
      request_(request),
      curve_(curve),
      kind_(kind),
      reconnect_for_(kind == Request::kSubscribe ? reconnect_for : std::chrono::seconds(0)),
      socket_(context_, zmq::socket_type::dealer),
      monitor_(context_, zmq::socket_type::pair) {
  const bool tcp = uri_.rfind("tcp://", 0) == 0;
  const bool use_curve = tcp && (!curve.key_file.empty() || !curve.server_key.empty());
  if (use_curve && (curve.key_file.empty() || curve.server_key.empty()))
    throw Error("CurveZMQ for " + uri_ + " needs both --curve-key FILE and --server-key KEY",
                "the daemon prints its public key when it starts; make your key pair with "
                "lnetcapd --gen-key FILE");
  check_local_socket_access(uri_);
  // A ring is a file of the daemon's machine: asked for on a local socket only.
  request_.maps_ring = request_.takes_shared_batches && !ring_socket_path(uri_).empty();
  open_socket();
  Frames answer;
  const auto deadline = Clock::now() + answer_timeout;
  for (;;) {
    if (stop_requested()) throw Error("interrupted while waiting for lnetcapd at " + uri_);
    if (receive(answer, kTick)) break;
    if (use_curve && handshake_refused(monitor_))
      throw Error("lnetcapd at " + uri_ + " refused the CurveZMQ handshake",
                  "is your public key (in " + curve.key_file + ") in its authorized-keys file, and is "
                  "--server-key its public key? it logs a refused key");
    if (Clock::now() >= deadline)
      throw Error("no answer from lnetcapd at " + uri_ + " within " +
                      std::to_string(answer_timeout.count() / 1000) + " s",
                  kind != Request::kSubscribe
                      ? "is lnetcapd running there, and is it of this release? (older ones do not "
                        "know --dump and --status)"
                  : use_curve ? "is lnetcapd running there, is your public key in its authorized-keys "
                              "file, and is --server-key its key? (it logs a refused key)"
                  : tcp ? "is lnetcapd running there? a daemon with --authorized-keys needs "
                          "--curve-key and --server-key"
                        : "is lnetcapd running there, and are you in the group that may use its "
                          "socket (lnetcap)?");
  }
  switch (message_type(answer)) {
    case MessageType::kAccept:
      accept_ = decode_accept(answer);
      if (accept_.group != request_.group)
        throw Error("lnetcapd at " + uri_ + " does not know consumer groups: it would send this subscriber "
                    "every record, not its share of group '" + request_.group + "'",
                    "use lnetcap and lnetcapd of the same release");
      break;
    case MessageType::kStatusReply:
      if (kind != Request::kStatus) throw protocol_error(uri_, "unexpected answer to SUBSCRIBE");
      status_ = decode_status(answer);
      ended_ = true;  // nothing follows
      break;
    case MessageType::kRefuse: {
      const Refuse r = decode_refuse(answer);
      throw Error("lnetcapd at " + uri_ + " refused the subscription: " + r.message, r.hint);
    }
    default: throw protocol_error(uri_, "unexpected answer to SUBSCRIBE");
  }
  last_heard_ = last_polled_ = Clock::now();
}

void SubscriptionSource::open_socket() {
  const bool use_curve = uri_.rfind("tcp://", 0) == 0 && (!curve_.key_file.empty() || !curve_.server_key.empty());
  if (socket_) socket_.set(zmq::sockopt::linger, 0);  // the old connection's messages are of no use
  close_monitored(socket_, monitor_);
  socket_ = zmq::socket_t(context_, zmq::socket_type::dealer);
  if (use_curve) {
    const CurveKeyPair own = read_key_file(curve_.key_file);
    socket_.set(zmq::sockopt::curve_serverkey, read_public_key(curve_.server_key, "server key"));
    socket_.set(zmq::sockopt::curve_publickey, own.public_z85);
    socket_.set(zmq::sockopt::curve_secretkey, own.secret_z85);
  }
  // A refused handshake is known only from the monitor; so is a daemon
  // that went away (the connection dropped).
  const std::string endpoint = "inproc://lnetcap-subscription-" + std::to_string(sockets_made_++);
  zmq_socket_monitor(socket_.handle(), endpoint.c_str(),
                     ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_DISCONNECTED);
  monitor_ = zmq::socket_t(context_, zmq::socket_type::pair);
  monitor_.connect(endpoint);
  if (is_ipv6_endpoint(uri_)) socket_.set(zmq::sockopt::ipv6, 1);  // else libzmq cannot reach [::1]
  socket_.set(zmq::sockopt::linger, 200);  // a BYE may still go out at exit
  socket_.set(zmq::sockopt::rcvhwm, 0);    // the daemon's side holds the bound
  try {
    socket_.connect(uri_);
  } catch (const zmq::error_t& e) {
    throw Error("cannot connect to " + uri_ + ": " + e.what(),
                "give --from local, a socket path, ipc://PATH or tcp://HOST:PORT");
  }
  send_frames(socket_, {},
              kind_ == Request::kDump     ? encode_dump(request_)
              : kind_ == Request::kStatus ? encode_status_request()
                                          : encode(request_));
}

void close_monitored(zmq::socket_t& socket, zmq::socket_t& monitor) {
  if (socket) {
    (void)zmq_socket_monitor(socket.handle(), nullptr, 0);  // no more events
    socket.close();  // its linger: a BYE may still go out
  }
  if (monitor) {
    monitor.set(zmq::sockopt::linger, 0);
    monitor.close();  // with whatever events it holds: libzmq frees them
  }
}

bool SubscriptionSource::disconnected() {
  zmq::message_t event, address;
  bool gone = false;
  while (monitor_.recv(event, zmq::recv_flags::dontwait)) {
    if (event.more()) (void)monitor_.recv(address);
    std::uint16_t id = 0;
    if (event.size() >= sizeof id) std::memcpy(&id, event.data(), sizeof id);
    if (id == ZMQ_EVENT_DISCONNECTED) gone = true;
    if (id == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH || id == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL)
      throw Error("lnetcapd at " + uri_ + " refused the CurveZMQ handshake",
                  "is your public key in its authorized-keys file, and is --server-key its public key?");
  }
  return gone;
}

std::uint64_t SubscriptionSource::watermark_ns() const {
  // Waiting for a live daemon to come back: it will send nothing older
  // than now (what it missed is not seen), so a merge goes on with the
  // other streams meanwhile.  A replay promised nothing: neither does this.
  if (reconnecting_ && watermark_when_lost_ != 0) {
    timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return static_cast<std::uint64_t>(now.tv_sec) * 1000000000ULL + static_cast<std::uint64_t>(now.tv_nsec) -
           1000000000ULL;
  }
  return counters_.watermark_ns;
}

bool SubscriptionSource::reconnect_step() {
  const auto now = Clock::now();
  if (now - lost_at_ > reconnect_for_)
    throw Error("lost contact with lnetcapd at " + uri_ + ": it went away and did not come back within " +
                    std::to_string(reconnect_for_.count()) + " s",
                "is lnetcapd running? --reconnect S waits longer");
  if (!trying_) {
    if (now < next_try_) {
      std::this_thread::sleep_for(std::min<Clock::duration>(next_try_ - now, kTick));
      return false;
    }
    open_socket();
    trying_ = true;
    try_deadline_ = now + std::chrono::seconds(2);
  }
  Frames answer;
  if (receive(answer, kTick)) {
    switch (message_type(answer)) {
      case MessageType::kAccept: {
        accept_ = decode_accept(answer);
        reconnecting_ = trying_ = false;
        pause_ = std::chrono::milliseconds(100);
        iface_map_.clear();
        last_heard_ = last_polled_ = Clock::now();
        char when[64] = "?";
        const std::time_t t = std::time(nullptr);
        std::tm tm{};
        if (gmtime_r(&t, &tm)) std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
        restart_note_ = "lnetcapd at " + uri_ + " restarted at " + when + "; records in between not seen";
        restarts_.push_back(restart_note_);
        std::fprintf(stderr, "lnetcap: %s (subscribed again)\n", restart_note_.c_str());
        return true;
      }
      case MessageType::kRefuse: {
        const Refuse r = decode_refuse(answer);
        throw Error("lnetcapd at " + uri_ + " refused the subscription after its restart: " + r.message, r.hint);
      }
      default: break;  // not an answer to this request
    }
  }
  if (Clock::now() >= try_deadline_ || disconnected()) {
    trying_ = false;  // nobody there yet: try again after a pause, longer each time
    next_try_ = Clock::now() + pause_;
    pause_ = std::min<std::chrono::milliseconds>(pause_ * 2, std::chrono::seconds(5));
  }
  return false;
}

SubscriptionSource::~SubscriptionSource() {
  if (!ended_) say_bye();
}

void SubscriptionSource::say_bye() {
  try {
    send_frames(socket_, {}, encode_bye());
  } catch (const zmq::error_t&) {
  }
}

bool SubscriptionSource::receive(Frames& frames, std::chrono::milliseconds timeout) {
  if (receive_frames(socket_, frames)) return true;
  zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
  try {
    zmq::poll(&item, 1, timeout);
  } catch (const zmq::error_t& e) {
    if (e.num() != EINTR) throw;
  }
  return receive_frames(socket_, frames);
}

bool SubscriptionSource::next(CapturedRecord& out) {
  for (;;) {
    if (ended_) return false;
    if ((stop_ || stop_requested()) && !draining_) {
      // Stopping: BYE, then what has already arrived is still handed out
      // (a merge writes every record it received), but nothing is waited for.
      say_bye();
      draining_ = true;
      drain_deadline_ = Clock::now() + kGroupDrain;
    }
    if (reconnecting_ && !draining_) {
      if (!reconnect_step()) {
        out = CapturedRecord{};  // an idle tick: a merge goes on with the others
        return true;
      }
      continue;
    }
    if (batch_next_ < batch_.size()) {  // frames_ still holds the batch
      const BatchEntry& e = batch_[batch_next_++];
      take_record(e.meta, e.record, e.comments, out);
      return true;
    }
    if (draining_) {
      // A group's member reads on until the END that follows its records.
      const bool wait_for_end = !request_.group.empty() && Clock::now() < drain_deadline_;
      if (!(wait_for_end ? receive(frames_, kTick) : receive_frames(socket_, frames_))) {
        if (wait_for_end) continue;
        ended_ = true;
        return false;
      }
    } else {
      const auto before = Clock::now();
      if (before - last_polled_ > kAwayGap) last_heard_ = before;  // away between calls
      if (!receive(frames_, kTick)) {
        const auto after = Clock::now();
        last_polled_ = after;
        if (after - before > kTick + kAwayGap) {
          last_heard_ = after;  // away during the wait (stopped inside poll)
          continue;
        }
        if (reconnect_for_.count() > 0 && disconnected()) {
          // The daemon went away without ending the stream: wait for it.
          std::fprintf(stderr, "lnetcap: lnetcapd at %s went away; subscribing again when it is back "
                               "(for at most %lld s)\n",
                       uri_.c_str(), static_cast<long long>(reconnect_for_.count()));
          before_.matched += last_seq_;
          before_.subscriber_dropped += last_seq_ - delivered_;
          before_.source_received += counters_.source_received;
          before_.source_dropped += counters_.source_dropped;
          delivered_before_ += delivered_;
          watermark_when_lost_ = counters_.watermark_ns;
          // The next daemon numbers and counts from the start.
          last_seq_ = 0;
          delivered_ = 0;
          counters_ = Counters{};
          ring_.reset();  // the next daemon offers its own
          reconnecting_ = true;
          trying_ = false;
          lost_at_ = after;
          next_try_ = after;  // at once: a restart may be quick
          continue;
        }
        if (after - last_heard_ > kSilenceLimit)
          throw Error("lost contact with lnetcapd at " + uri_ + ": nothing heard for 10 s",
                      "is lnetcapd still running?");
        if (status_pending()) {
          out = CapturedRecord{};
          return true;
        }
        continue;
      }
      last_polled_ = Clock::now();
    }
    last_heard_ = Clock::now();
    switch (message_type(frames_)) {
      case MessageType::kInterface: {
        InterfaceAnnouncement a = decode_interface(frames_);
        if (a.id != iface_map_.size()) throw protocol_error(uri_, "interfaces announced out of order");
        // One pcapng interface per node and NI: say which node it is.
        a.iface.description += (a.iface.description.empty() ? "on " : ", on ") + accept_.node;
        // A restarted daemon announces its interfaces again: the same one
        // is the same pcapng interface.
        std::uint32_t local = static_cast<std::uint32_t>(interfaces_.size());
        if (!restarts_.empty())
          for (std::uint32_t i = 0; i < interfaces_.size(); ++i) {
            const CaptureInterface& k = interfaces_[i];
            if (k.name == a.iface.name && k.description == a.iface.description && k.os == a.iface.os &&
                k.hardware == a.iface.hardware && k.filter == a.iface.filter && k.snaplen == a.iface.snaplen) {
              local = i;
              break;
            }
          }
        if (local == interfaces_.size()) interfaces_.push_back(std::move(a.iface));
        iface_map_.push_back(local);
        continue;
      }
      case MessageType::kRecord: {
        const RecordMeta m = decode_record_header(frames_);
        std::vector<ByteSpan> comments(frames_.begin() + 2, frames_.end());
        take_record(m, ByteSpan(frames_[1]), comments, out);
        return true;
      }
      case MessageType::kBatch:
        batch_ = decode_batch(frames_);
        batch_next_ = 0;
        continue;  // returned from the top of the loop
      case MessageType::kSharedBatch:
        batch_ = decode_shared_batch(frames_);
        batch_next_ = 0;
        continue;
      case MessageType::kRingOffer:
        take_ring_offer(decode_ring_offer(frames_));
        continue;
      case MessageType::kRingBatch:
        if (take_ring_batch(decode_ring_batch(frames_))) batch_next_ = 0;
        continue;
      case MessageType::kHeartbeat:
        counters_ = decode_heartbeat(frames_);
        continue;
      case MessageType::kEnd: {
        const End e = decode_end(frames_);
        counters_ = e.counters;
        ended_ = true;
        if (counters_.matched - delivered_ != counters_.subscriber_dropped)
          std::fprintf(stderr,
                       "lnetcap: warning: lnetcapd at %s counts %" PRIu64
                       " records dropped for this subscriber, the sequence numbers %" PRIu64 "\n",
                       uri_.c_str(), counters_.subscriber_dropped, counters_.matched - delivered_);
        if (e.failed) throw Error("lnetcapd at " + uri_ + ": its source failed: " + e.reason);
        return false;
      }
      default: throw protocol_error(uri_, "unexpected message type");
    }
  }
}

void SubscriptionSource::take_ring_offer(const RingOffer& offer) {
  ring_.reset();  // a new offer: the old ring is retired
  std::string why;
  auto fds = fetch_ring(ring_socket_path(uri_), offer, std::chrono::seconds(2), &why);
  if (!fds) return;
  ring_ = RingReader::map(fds->first.get(), fds->second.get(), offer.slots, offer.slot_bytes, &why);
  // The descriptors close here; the mappings stay.
}

bool SubscriptionSource::take_ring_batch(const RingBatch& header) {
  batch_.clear();
  batch_next_ = 0;
  // A RING_BATCH without a ring (its handover failed on this side after
  // the daemon sent the descriptors): the batch is lost, and the daemon
  // does not know it (the END's counts will differ and say so).
  const RingReader::Copy got =
      ring_ ? ring_->copy_out(header.gen, header.slot, header.body_len, &ring_body_) : RingReader::Copy::kLost;
  if (got == RingReader::Copy::kBad)
    throw protocol_error(uri_, "RING_BATCH names no batch of the ring (slot " + std::to_string(header.slot) +
                                   ", " + std::to_string(header.body_len) + " bytes)");
  // Lost: the daemon counted it dropped, and its numbers are a gap
  // before the next record, as for a batch its queue had no room for.
  if (got == RingReader::Copy::kLost) return false;
  batch_ = decode_ring_batch_body(header, ring_body_);
  return true;
}

void SubscriptionSource::take_record(const RecordMeta& m, ByteSpan bytes,
                                     const std::vector<ByteSpan>& comments, CapturedRecord& out) {
  if (m.seq <= last_seq_) throw protocol_error(uri_, "record sequence numbers went backwards");
  if (m.interface_id >= iface_map_.size())
    throw protocol_error(uri_, "record on an interface never announced");
  const std::uint64_t gap = m.seq - last_seq_ - 1;  // dropped for this subscriber
  gap_drops_ += gap;
  last_seq_ = m.seq;
  counters_ = m.counters;
  out = CapturedRecord{};
  out.ts_ns = m.ts_ns;
  out.interface_id = iface_map_[m.interface_id];
  out.bytes = bytes;
  out.orig_len = m.orig_len;
  out.epb_flags = m.epb_flags;
  out.has_drops_before = m.has_drops_before || gap > 0;
  out.drops_before = m.drops_before + gap;
  for (const auto& c : comments) out.comments.emplace_back(c.begin(), c.end());
  if (!restart_note_.empty()) {  // the first record after a restart marks the gap
    out.comments.push_back(restart_note_);
    restart_note_.clear();
  }
  ++delivered_;
}

SourceStats SubscriptionSource::stats() const {
  SourceStats s;
  s.received = delivered_before_ + delivered_;
  // At the end every matched record is either delivered or dropped; before
  // it, records may still be on their way, so only the gaps are certain.
  // (Of a daemon that went away, what it matched after the last record it
  // sent is not known: not counted.)
  s.queue_dropped = ended_ ? before_.subscriber_dropped + (counters_.matched - delivered_) : gap_drops_;
  s.dropped = before_.source_dropped + counters_.source_dropped + s.queue_dropped;
  s.details = {{"lnetcapd " + uri_ + ": records matching the filter", before_.matched + counters_.matched},
               {"lnetcapd " + uri_ + ": records the source delivered",
                before_.source_received + counters_.source_received},
               {"lnetcapd " + uri_ + ": records the source dropped", before_.source_dropped + counters_.source_dropped}};
  s.notes = restarts_;
  return s;
}

std::unique_ptr<RecordSource> open_subscriptions(const std::vector<std::string>& uris,
                                                 const std::string& filter, std::uint32_t snaplen,
                                                 const CurveClient& curve, Request kind,
                                                 std::chrono::seconds reconnect_for,
                                                 const std::string& consumer_group) {
  if (!consumer_group.empty())
    if (const std::string problem = group_name_problem(consumer_group); !problem.empty())
      throw Error("invalid --consumer-group '" + consumer_group + "': " + problem);
  Subscribe request;
  request.group = consumer_group;
  request.filter = filter;
  request.snaplen = snaplen;
  request.takes_batches = true;
  request.takes_shared_batches = true;
  request.client = std::string("lnetcap ") + LNETCAP_VERSION + " pid " + std::to_string(::getpid()) +
                   " uid " + std::to_string(::getuid());
  std::vector<std::unique_ptr<TimedSource>> sources;
  for (const auto& uri : uris)
    sources.push_back(
        std::make_unique<SubscriptionSource>(uri, request, curve, std::chrono::seconds(5), kind, reconnect_for));
  if (sources.size() == 1) return std::move(sources.front());
  return std::make_unique<MergeSource>(std::move(sources));
}

}  // namespace lnetcap::subscribe

namespace lnetcap::subscribe {

void print_daemon_status(const std::vector<std::string>& uris, const CurveClient& curve, std::FILE* out) {
  for (const auto& uri : uris) {
    SubscriptionSource daemon(uri, Subscribe{}, curve, std::chrono::seconds(5), Request::kStatus);
    std::size_t width = 0;
    for (const auto& [name, value] : daemon.status().items) width = std::max(width, name.size());
    std::string text = "lnetcapd at " + daemon.uri() + ":\n";
    for (const auto& [name, value] : daemon.status().items)
      text += "  " + name + ":" + std::string(width + 2 - name.size(), ' ') + value + "\n";
    std::fputs(text.c_str(), out);
  }
}

}  // namespace lnetcap::subscribe
