// SPDX-License-Identifier: GPL-2.0-or-later
// subscription_source.h - `lnetcap --from URI`: the records an lnetcapd
// sends this subscriber, as a RecordSource, so every sink works on them.
//
// Drops are never silent: a gap in the per-subscriber sequence numbers
// (records lnetcapd dropped because this subscriber's queue was full) is
// added to the record's epb_dropcount, next to the source's own drops, and
// to the counters of the status line and the ISB.
//
// A daemon that goes away without ending the stream (killed, crashed: the
// connection drops) is waited for: the subscription is made again, with
// the same request, as soon as a daemon answers at the URI again, trying
// with a growing pause for at most `reconnect_for` (--reconnect).  The
// first record after it carries a pcapng comment, and the statistics a
// line: "lnetcapd at URI restarted at T; records in between not seen".
// Meanwhile next() returns idle ticks, so a merge goes on with the other
// streams.  A daemon that ends the stream (END) is not waited for.
//
// A member of a consumer group (Subscribe::group) that stops says BYE and
// then reads on until the daemon's END (at most kGroupDrain): the daemon
// sends it that after the last record it gave it, so nothing given to it
// is lost in flight.
#pragma once

#include <zmq.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../source.h"
#include "batch_ring.h"
#include "protocol.h"

namespace lnetcap::subscribe {

/// A RecordSource that can also say how far in time it has got, so that
/// several can be merged in time order (merge_source.h).
class TimedSource : public RecordSource {
 public:
  /// No record still to come is older than this (0 = unknown).
  virtual std::uint64_t watermark_ns() const = 0;
};

/// CurveZMQ credentials for tcp:// subscriptions (--curve-key, --server-key).
struct CurveClient {
  std::string key_file;    // this client's key pair
  std::string server_key;  // the daemon's public key, Z85 or a file
};

/// What a --from asks the daemon for: its live stream (SUBSCRIBE), the
/// records its flight recorder holds (DUMP, --dump), or its status (STATUS,
/// --status: no records, status() holds the answer).
enum class Request { kSubscribe, kDump, kStatus };

/// Closes a socket and the PAIR socket its zmq_socket_monitor() events go
/// to, in the order libzmq needs: the monitor is stopped first, then the
/// socket is closed, then the PAIR.  Closed the other way round, the
/// socket's last event (DISCONNECTED, as it closes) is sent to a pipe
/// whose reader is gone and libzmq never frees it: LeakSanitizer's 79
/// bytes at the exit of a refused or revoked subscriber.
void close_monitored(zmq::socket_t& socket, zmq::socket_t& monitor);

class SubscriptionSource : public TimedSource {
 public:
  /// Connects, sends the request and waits for the daemon's answer.  Throws
  /// Error when it refuses (the filter's error) or does not answer.
  SubscriptionSource(const std::string& uri, const Subscribe& request, const CurveClient& curve = {},
                     std::chrono::milliseconds answer_timeout = std::chrono::seconds(5),
                     Request kind = Request::kSubscribe,
                     std::chrono::seconds reconnect_for = std::chrono::seconds(0));
  ~SubscriptionSource() override;
  bool next(CapturedRecord& out) override;
  const std::vector<CaptureInterface>& interfaces() const override { return interfaces_; }
  SourceStats stats() const override;
  void request_stop() override { stop_ = true; }
  std::uint64_t watermark_ns() const override;
  const Accept& daemon() const { return accept_; }
  /// The answer to Request::kStatus.
  const Status& status() const { return status_; }
  const std::string& uri() const { return uri_; }

 private:
  bool receive(Frames& frames, std::chrono::milliseconds timeout);
  /// A fresh socket to uri_ (with CurveZMQ when given), the request sent.
  void open_socket();
  /// Whether the connection to the daemon dropped (the monitor says so).
  bool disconnected();
  /// One step of waiting for the daemon to come back; true once it has
  /// accepted the subscription again.  Throws when the bound is over.
  bool reconnect_step();
  void say_bye();
  /// RING_OFFER: fetches and maps the ring (on any failure the daemon
  /// keeps sending SHARED_BATCH, and nothing is said).
  void take_ring_offer(const RingOffer& offer);
  /// RING_BATCH: its body copied out of the ring into batch_; false when
  /// the slot was overwritten first (the batch is lost: a gap, counted by
  /// the daemon too).
  bool take_ring_batch(const RingBatch& header);
  /// One record (of a RECORD or a BATCH) into out; its gap counts as drops.
  void take_record(const RecordMeta& m, ByteSpan bytes, const std::vector<ByteSpan>& comments,
                   CapturedRecord& out);

  std::string uri_;
  Subscribe request_;
  CurveClient curve_;
  Request kind_;
  std::chrono::seconds reconnect_for_;
  zmq::context_t context_;
  zmq::socket_t socket_;
  zmq::socket_t monitor_;   // the socket's DISCONNECTED events
  unsigned sockets_made_ = 0;  // names the monitor's inproc endpoint
  // Reconnecting: since when, the next try, the pause before the one after.
  bool reconnecting_ = false;
  std::chrono::steady_clock::time_point lost_at_, next_try_, try_deadline_;
  std::chrono::milliseconds pause_{100};
  bool trying_ = false;  // a request is out, waiting for its answer
  std::uint64_t watermark_when_lost_ = 0;
  std::string restart_note_;        // for the next record's comment
  std::vector<std::string> restarts_;  // every restart, for stats()
  // The daemon's interface ids (since its last start) -> ours.
  std::vector<std::uint32_t> iface_map_;
  // Counters of the daemons before the current one (restarts).
  Counters before_;
  std::uint64_t delivered_before_ = 0;
  Accept accept_;
  Status status_;
  std::vector<CaptureInterface> interfaces_;
  Frames frames_;  // the last RECORD or BATCH (out.bytes points into it)
  std::vector<BatchEntry> batch_;  // the last BATCH's records (spans into frames_)
  std::size_t batch_next_ = 0;     // of batch_, the next one next() returns
  Counters counters_;
  std::uint64_t delivered_ = 0, last_seq_ = 0, gap_drops_ = 0;
  // The fan-out class's shared-memory ring, once handed over; a RING_BATCH
  // body is copied out of it into ring_body_ (batch_'s spans point there).
  std::optional<RingReader> ring_;
  Frame ring_body_;
  bool stop_ = false, ended_ = false;
  bool draining_ = false;  // stopping: handing out only what has arrived
  // A consumer group's member waits this long after its BYE for the END
  // that follows the last record the daemon gave it (no record is lost
  // to the other members' view of the stream).
  std::chrono::steady_clock::time_point drain_deadline_;
  std::chrono::steady_clock::time_point last_heard_;
  std::chrono::steady_clock::time_point last_polled_;  // when next() last looked for messages
  // Last, so destroyed first - also when the constructor throws (a REFUSE,
  // no answer), where no destructor body runs: closes socket_ and monitor_
  // in order before they are destroyed, and context_ after them then
  // terminates with nothing left inside libzmq.
  struct OrderedClose {
    zmq::socket_t& socket;
    zmq::socket_t& monitor;
    ~OrderedClose() { close_monitored(socket, monitor); }
  } ordered_close_{socket_, monitor_};
};

/// Opens the sources of every --from (merged in time order when several).
std::unique_ptr<RecordSource> open_subscriptions(const std::vector<std::string>& uris,
                                                 const std::string& filter,
                                                 std::uint32_t snaplen, const CurveClient& curve = {},
                                                 Request kind = Request::kSubscribe,
                                                 std::chrono::seconds reconnect_for = std::chrono::seconds(0),
                                                 const std::string& consumer_group = "");

/// `lnetcap --from URI... --status`: asks each daemon and prints its answer.
void print_daemon_status(const std::vector<std::string>& uris, const CurveClient& curve, std::FILE* out);

}  // namespace lnetcap::subscribe
