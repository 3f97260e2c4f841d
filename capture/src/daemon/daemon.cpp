// SPDX-License-Identifier: GPL-2.0-or-later
#include "daemon.h"

#include <grp.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <optional>
#include <set>

#include "../capture_metadata.h"
#include "../error.h"
#include "../filter/filter.h"
#include "../live/subfilter_writer.h"
#include "../record.h"
#include "../signals.h"
#include "../source_factory.h"
#include "../subscribe/curve_keys.h"
#include "../subscribe/zmq_frames.h"
#include "recorder_and_metrics.h"
#include "connection_guard.h"
#include "daemon_config.h"
#include "daemon_settings.h"
#include "ipc_socket.h"
#include "key_file_modes.h"
#include "key_revocation.h"
#include "log_text.h"
#include "ring_handover.h"
#include "service_notify.h"
#include "subscriber_set.h"
#include "zap_handler.h"
#include "version.h"

namespace lnetcap::daemon {
namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t realtime_now_ns() {
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1000000000ULL + static_cast<std::uint64_t>(now.tv_nsec);
}

// An ipc socket is the access control: mode 0660, group `lnetcap` (or
// --group).  The umask makes the socket born with that mode, so there is
// no moment where it is wider.
// A TCP endpoint needs CurveZMQ (--authorized-keys) or the explicit
// --allow-insecure-tcp.
// Returns the endpoint bound (tcp://HOST:* names the port the kernel chose).
std::string listen_on(zmq::socket_t& router, const std::string& uri, const DaemonOptions& opts,
                      RingHandover& handover) {
  const std::string endpoint = subscribe::normalize_endpoint(uri);
  const bool ipc = endpoint.rfind("ipc://", 0) == 0;
  if (endpoint.rfind("tcp://", 0) == 0 && !opts.allow_insecure_tcp && opts.authorized_keys.empty())
    throw Error("refusing to listen on " + endpoint + " without authentication",
                "give --authorized-keys FILE (CurveZMQ, docs/DAEMON.md), or on a trusted network "
                "--allow-insecure-tcp, or use the local socket");
  if (!ipc) {
    // libzmq binds IPv6 addresses only with ZMQ_IPV6 set ("No such device"
    // for tcp://[::1]:PORT without it); set per endpoint, before its bind.
    router.set(zmq::sockopt::ipv6, subscribe::is_ipv6_endpoint(endpoint) ? 1 : 0);
    try {
      router.bind(endpoint);
    } catch (const zmq::error_t& e) {
      throw Error("cannot listen on " + endpoint + ": " + e.what(), "is the address local and the port free?");
    }
    return router.get(zmq::sockopt::last_endpoint);
  }
  const std::string path = endpoint.substr(6);
  gid_t gid = static_cast<gid_t>(-1);
  const std::string group_name = opts.group.value_or(kDefaultGroup);
  if (const group* g = ::getgrnam(group_name.c_str())) {
    gid = g->gr_gid;
  } else if (opts.group) {
    throw Error("group '" + group_name + "' does not exist", "create it or name another with --group");
  } else {
    std::fprintf(stderr, "lnetcapd: no group '%s': only %s's own user may subscribe on %s\n",
                 group_name.c_str(), "lnetcapd", path.c_str());
  }
  bind_ipc_socket(router, path, gid);  // safely: ipc_socket.h
  // Where its local subscribers fetch their shared-memory ring
  // (ring_handover.h): the same directory, group and mode.
  handover.listen(path + ".ring", gid);
  return endpoint;
}

bool listens_on_tcp(const DaemonOptions& opts) {
  for (const auto& uri : opts.listen)
    if (subscribe::normalize_endpoint(uri).rfind("tcp://", 0) == 0) return true;
  return false;
}

// The server's key pair: the configured file, made on first start.
subscribe::CurveKeyPair server_key_pair(const std::string& path) {
  if (::access(path.c_str(), F_OK) != 0 && errno == ENOENT) {
    auto pair = subscribe::write_new_key_file(path);
    std::fprintf(stderr, "lnetcapd: made CurveZMQ key pair %s; public key %s\n", path.c_str(),
                 pair.public_z85.c_str());
    return pair;
  }
  check_secret_key_mode(path);
  return subscribe::read_key_file(path);
}

std::string describe_source(const Options& o) {
  if (!o.read_file.empty()) return "replay of " + o.read_file;
  if (!o.interface.empty()) return "live capture on " + o.interface;
  return "live eBPF capture";
}

// SIGHUP: re-reads the config file and command line; applies what can
// change while serving (the authorized keys) and names what needs a
// restart.  A bad file changes nothing: the daemon goes on as it was.
// Updates `running` with what it applied.
void reload(DaemonOptions& running, int argc, char** argv, ZapHandler* zap, SubscriberSet& subscribers,
            RecorderAndMetrics& extras, const SourceStats& stats) {
  const std::string file = running.config_path.empty() ? "the command line" : running.config_path;
  DaemonOptions fresh;
  try {
    fresh = parse_daemon_options(argc, argv);
    // Everything that can fail is read first, then applied: a bad key file
    // or anonymize key changes nothing (set_anonymize_policy changes
    // nothing when it throws; set_authorized cannot throw).
    std::optional<std::set<std::string>> keys;
    if (zap && !fresh.authorized_keys.empty()) keys = read_checked_authorized_keys(fresh.authorized_keys);
    if (!(fresh.anonymize == running.anonymize)) {
      subscribers.set_anonymize_policy(fresh.anonymize);
      extras.apply_anonymize_policy(fresh.anonymize);
      std::fprintf(stderr, "lnetcapd: reload: anonymize policy applied\n");
    }
    if (keys) {
      const std::size_t n = keys->size();
      zap->set_authorized(std::move(*keys));
      std::fprintf(stderr, "lnetcapd: reload: %zu authorized keys from %s\n", n,
                   fresh.authorized_keys.c_str());
      end_revoked_subscriptions(subscribers, *zap, stats);
    }
    // Whoever mapped a ring before (a subscriber since gone, one whose
    // access the admin has just taken away) reads nothing more from it.
    subscribers.flush();
    subscribers.renew_rings();
    running.authorized_keys = fresh.authorized_keys.empty() ? running.authorized_keys : fresh.authorized_keys;
    running.anonymize = fresh.anonymize;
  } catch (const Error& e) {
    std::fprintf(stderr, "lnetcapd: reload of %s failed, nothing changed: %s\n", log_text(file).c_str(),
                 log_text(e.what(), 1000).c_str());
    if (!e.hint().empty()) std::fprintf(stderr, "lnetcapd: hint: %s\n", e.hint().c_str());
    return;
  } catch (const std::exception& e) {  // a library's own error: the daemon goes on as it was
    std::fprintf(stderr, "lnetcapd: reload of %s failed, nothing changed: %s\n", log_text(file).c_str(),
                 log_text(e.what(), 1000).c_str());
    return;
  }
  std::string needing_restart;
  for (const auto& s : settings_needing_restart(running, fresh))
    needing_restart += (needing_restart.empty() ? "" : ", ") + s;
  if (!needing_restart.empty())
    std::fprintf(stderr, "lnetcapd: reload: not applied, restart lnetcapd for: %s\n", needing_restart.c_str());
  std::fprintf(stderr, "lnetcapd: reloaded %s\n", file.c_str());
}

// One run of lnetcapd, in the phases run_daemon() goes through: bind the
// sockets subscribers reach, open the source and what serves it, serve
// until the source ends or a signal asks to stop, then shut down within
// the linger time.  Members are declared in the order they are made, so
// they go away in the reverse order (the sockets' files are removed
// before the ZeroMQ context closes).
class DaemonRun {
 public:
  DaemonRun(const DaemonOptions& opts, int argc, char** argv)
      : opts_(opts), argc_(argc), argv_(argv), current_(opts), curve_(!opts.authorized_keys.empty()) {
    bind_endpoints();
    open_source();
    announce();
  }

  // Serves until the end; returns the exit status.
  int serve() {
    for (;;) {
      poll_once();
      admit_requests();
      if (!started_ && !ended_ && !stop_requested() && subscribers_->size() >= opts_.wait_subscribers) {
        pump_->start();
        started_ = true;
      }
      deliver_pending();
      housekeeping();
      if (ended_ && serving_is_over()) break;
    }
    return shut_down();
  }

 private:
  // The router socket with its bounds, then every --listen endpoint.
  // libzmq copies a socket's options into each endpoint when it binds it:
  // the local sockets are bound before CURVE is switched on, so local users
  // keep subscribing without keys (the socket's group and mode admit them),
  // and every TCP endpoint bound after it needs an authorized key.
  void bind_endpoints() {
    // CurveZMQ applies to the TCP endpoints.
    if (curve_ && !subscribe::curve_available())
      throw Error("this libzmq has no CURVE support", "install Debian's libzmq5 (built with libsodium)");
    if (curve_) {
      if (!listens_on_tcp(opts_))
        throw Error("--authorized-keys is for TCP endpoints", "add --listen tcp://HOST:PORT");
      server_keys_ = server_key_pair(opts_.curve_key);
      zap_.emplace(context_, read_checked_authorized_keys(opts_.authorized_keys));
    }
    router_.set(zmq::sockopt::router_mandatory, 1);
    // Bounds (serving_limits.h): queues in bytes, requests, connections.
    queue_ = queue_messages(opts_.limits, opts_.queue, max_message_bytes_);
    if (queue_ < opts_.queue)
      std::fprintf(stderr, "lnetcapd: each subscriber's queue holds %d messages (--memory-budget / --max-subscribers)\n",
                   queue_);
    router_.set(zmq::sockopt::sndhwm, queue_);
    router_.set(zmq::sockopt::maxmsgsize, ServingLimits::kMaxRequestBytes);
    router_.set(zmq::sockopt::linger, 0);
    connections_.emplace(context_, router_, opts_.limits);
    for (const bool tcp_pass : {false, true}) {
      if (tcp_pass && curve_) {
        router_.set(zmq::sockopt::curve_server, 1);
        router_.set(zmq::sockopt::curve_secretkey, server_keys_.secret_z85);
        // A ZAP domain makes libzmq consult the handler for every client.
        router_.set(zmq::sockopt::zap_domain, "lnetcapd");
      }
      for (const auto& uri : opts_.listen)
        if ((subscribe::normalize_endpoint(uri).rfind("ipc://", 0) != 0) == tcp_pass)
          bound_.push_back(listen_on(router_, uri, opts_, handover_));
    }
  }

  // The daemon filters per subscriber; the source takes what [source]
  // filter allows (everything without one).  A live eBPF source tests that
  // filter's pushable terms in the kernel, as direct capture does; it is
  // checked again here, since files and socklnd sources do not filter.
  void open_source() {
    Pacing pacing = opts_.pacing;
    pacing.replay = replay_;
    // A live eBPF source also gets the clause table the subscribers' filters
    // are folded into (docs/DAEMON.md, "Filter push-down into the kernel").
    std::unique_ptr<RecordSource> source = open_capture_source(opts_.source, source_filter_, KernelClauses::kOn);
    clause_table_ = source->kernel_clause_table();
    pump_.emplace(std::move(source), pacing);
    const bool paced = opts_.pacing.realtime || opts_.pacing.records_per_second > 0;
    const std::string node = opts_.node.empty() ? host_name() : opts_.node;
    subscribers_.emplace(router_, subscribe::Accept{node, describe_source(opts_.source)}, replay_ && !paced);
    extras_.emplace(opts_, node, describe_source(opts_.source));
    subscribers_->set_recorder(extras_->recorder());
    subscribers_->set_limits(opts_.limits);
    subscribers_->set_status([this] { return status(); });
    subscribers_->set_anonymize_policy(opts_.anonymize);
    // A ring holds as many batches as a member's queue would: the same
    // slack for a reader that falls behind, in the memory its queue no
    // longer takes (docs/DAEMON.md).
    subscribers_->set_rings(&handover_, static_cast<std::uint32_t>(queue_));
    if (clause_table_) {
      clause_writer_.emplace(clause_table_);
      subscribers_->set_kernel_clauses([this](const filter::KernelClauseSet& set) { publish_clauses(set); },
                                       extras_->sees_every_record());
    }
  }

  subscribe::Status status() {
    subscribe::Status st = extras_->status();
    ServingUse use;
    use.connections = connections_->open_connections();
    use.max_connections = connections_->max_connections();
    use.max_connections_per_user = connections_->max_per_user();
    use.connections_refused = connections_->refused();
    use.subscriptions_refused = subscribers_->refused();
    use.filter_terms = subscribers_->filter_terms();
    use.queue_messages = queue_;
    use.max_message_bytes = max_message_bytes_;
    add_status(st, opts_.limits, use);
    return st;
  }

  void publish_clauses(const filter::KernelClauseSet& set) {
    if (!clause_writer_->publish(set)) return;
    if (set.pass_all)
      std::fprintf(stderr, "lnetcapd: in-kernel filter: every message goes up\n");
    else if (set.clauses.empty())
      std::fprintf(stderr, "lnetcapd: in-kernel filter: no subscriber, no message goes up\n");
    else
      std::fprintf(stderr, "lnetcapd: in-kernel filter: %zu clause%s\n", set.clauses.size(),
                   set.clauses.size() == 1 ? "" : "s");
  }

  void announce() const {
    for (const auto& endpoint : bound_) {
      const bool curved = curve_ && endpoint.rfind("ipc://", 0) != 0;  // local ones are not
      std::fprintf(stderr, "lnetcapd: serving %s on %s%s%s\n", describe_source(opts_.source).c_str(),
                   endpoint.c_str(), curved ? " with CurveZMQ, server key " : "",
                   curved ? server_keys_.public_z85.c_str() : "");
    }
    // Once, at start: whoever can reach an insecure TCP endpoint reads every record.
    std::string insecure;
    for (const auto& endpoint : bound_)
      if (endpoint.rfind("tcp://", 0) == 0 && !curve_) insecure += (insecure.empty() ? "" : ", ") + endpoint;
    if (!insecure.empty())
      std::fprintf(stderr,
                   "lnetcapd: warning: %s is neither authenticated nor encrypted (--allow-insecure-tcp): "
                   "anyone who can reach it reads every record; use --authorized-keys (CurveZMQ) outside a "
                   "trusted test network\n",
                   insecure.c_str());
    // Type=notify: ready once the source is open (attached) and the sockets listen.
    if (!notify_service_manager("READY=1\nSTATUS=serving " + describe_source(opts_.source)))
      std::fprintf(stderr, "lnetcapd: warning: could not notify the service manager (NOTIFY_SOCKET)\n");
  }

  // Subscribers merging several daemons hand a record out early only when
  // every other stream's watermark allows.  A replay promises nothing (a
  // socklnd conversion is not strictly in time order), so merges of
  // replays wait for every stream and equal mergecap's; a live source
  // delivers nothing more than a second old (per-CPU ring order).
  std::uint64_t watermark() const { return replay_ ? 0 : realtime_now_ns() - 1000000000ULL; }

  bool pending_left() const { return pending_next_ < pending_.items.size(); }

  // Waits for a request, a connection event or the pump; not at all when
  // records are waiting to be delivered.
  void poll_once() {
    poll_items_.assign({{router_.handle(), 0, ZMQ_POLLIN, 0}, {connections_->events().handle(), 0, ZMQ_POLLIN, 0}});
    if (started_ && !ended_) poll_items_.push_back({nullptr, pump_->event_fd(), ZMQ_POLLIN, 0});
    handover_.add_poll_items(poll_items_);  // ring handovers in progress
    try {
      zmq::poll(poll_items_.data(), poll_items_.size(),
                std::chrono::milliseconds(!pending_left() || ended_ ? (dumping_ ? 2 : 100) : 0));
    } catch (const zmq::error_t& e) {
      if (e.num() != EINTR) throw;  // a signal: the loop looks at it
    }
  }

  void admit_requests() {
    connections_->handle_events();
    handover_.serve();
    subscribers_->rings_handed_over();
    subscribe::Peer peer;
    while (subscribe::receive_frames(router_, frames_, &routing_id_, &peer))
      if (connections_->admit_key(peer.fd, peer.user_id) &&
          !refused_as_revoked(router_, zap_ ? &*zap_ : nullptr, routing_id_, frames_, peer))
        subscribers_->handle(routing_id_, frames_, peer);
  }

  // A bounded batch, so control messages are never kept waiting long.
  // (Taking gives the pump back the batch just delivered, to fill again.)
  void deliver_pending() {
    if (!started_ || ended_) return;
    if (!pending_left()) {
      pump_->take_all(pending_);
      pending_next_ = 0;
    }
    for (int batch = 0; !ended_ && batch < 512 && pending_left(); ++batch) {
      const std::size_t index = pending_next_++;
      PumpedRecord& item = pending_.items[index];
      for (auto& i : item.new_interfaces) interfaces_.push_back(std::move(i));
      stats_ = item.stats;
      if (item.end) {
        source_ended(item);
        break;
      }
      item.meta.bytes = pending_.bytes(index);  // in place: no copy of the record's metadata
      deliver(item.meta);
    }
  }

  void source_ended(const PumpedRecord& item) {
    ended_ = true;
    extras_->finish(interfaces_);
    end_.failed = !item.error.empty();
    end_.reason = end_.failed                    ? item.error
                  : stop_requested() || !replay_ ? "lnetcapd stopping"
                                                 : "end of " + opts_.source.read_file;
    if (end_.failed) {
      std::fprintf(stderr, "lnetcapd: %s\n", item.error.c_str());
      if (!item.hint.empty()) std::fprintf(stderr, "lnetcapd: hint: %s\n", item.hint.c_str());
    }
  }

  void deliver(const CapturedRecord& rec) {
    // Decoding costs more than delivering: only when a filter, the
    // trigger or the metrics need it.  (Every source hands out records
    // it has parsed already - a file's bad record ends the replay, a
    // kernel ring's is skipped and counted - so one that needs no
    // decoding is not parsed again here.)
    Message msg;
    if (subscribers_->needs_decoding() || !source_filter_.empty() || extras_->needs_decoding()) {
      std::string why;
      const auto view = parse_record(rec.bytes, &why);
      if (!view) {
        std::fprintf(stderr, "lnetcapd: skipping a bad record from the source: %s\n", why.c_str());
        return;
      }
      msg = decode_message(*view, rec.ts_ns, rec.interface_id);
    }
    // [source] filter bounds everything the daemon keeps and serves, the
    // recorder and metrics included.
    if (!source_filter_.matches(msg)) return;
    extras_->observe(rec, msg, interfaces_);
    subscribers_->deliver(rec, msg, interfaces_, stats_, watermark());
  }

  // After each turn: batches out, dumps, metrics, SIGHUP, heartbeats, a
  // stop request.
  void housekeeping() {
    // What the source had queued is handed out: send the gathered batches
    // now, so a trickle of records is never kept waiting for more.
    subscribers_->flush();
    dumping_ = subscribers_->pump_dumps(interfaces_, stats_);
    extras_->update(stats_, subscribers_->size(), subscribers_->total_dropped(), subscribers_->group_totals());
    subscribers_->tick_logs();
    handover_.tick_log();
    if (take_reload_request())
      reload(current_, argc_, argv_, zap_ ? &*zap_ : nullptr, *subscribers_, *extras_, stats_);
    if (Clock::now() >= next_heartbeat_) {
      subscribers_->heartbeat(stats_, watermark());
      next_heartbeat_ = Clock::now() + std::chrono::seconds(1);
    }
    if (stop_requested() && !ended_) {
      if (started_) {
        pump_->stop();  // its end item follows what the source still drains
      } else {
        ended_ = true;
        end_.reason = "lnetcapd stopping";
      }
    }
  }

  // Once ended: every subscriber told (or the linger time over) and the
  // flight recorder's dumps sent.
  bool serving_is_over() {
    if (end_deadline_ == Clock::time_point{})
      end_deadline_ = Clock::now() + std::chrono::seconds(opts_.linger_seconds);
    end_.counters.watermark_ns = watermark();
    const bool all_told = subscribers_->send_end(end_, stats_) || Clock::now() >= end_deadline_;
    // --keep-serving: a replay's end leaves dumps, status and metrics up.
    // Stopping, a dump nobody reads waits no longer than the linger time.
    const bool dumps_done = !dumping_ || (stop_requested() && Clock::now() >= end_deadline_);
    return all_told && dumps_done && (!opts_.keep_serving || stop_requested());
  }

  int shut_down() {
    notify_service_manager("STOPPING=1");
    subscribers_->log_totals();
    connections_->finish_log();
    handover_.finish_log();
    std::fprintf(stderr, "lnetcapd: source: %" PRIu64 " records, %" PRIu64 " dropped\n", stats_.received,
                 stats_.dropped);
    // What the in-kernel filters (the fixed one and the clause table) kept
    // there: not delivered, not lost.
    if (clause_table_)
      std::fprintf(stderr, "lnetcapd: source: %" PRIu64 " messages filtered in the kernel\n", stats_.filtered);
    // Let queued messages (the END of a subscriber that just drained) reach
    // their subscribers, but not beyond the linger time.
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end_deadline_ - Clock::now());
    router_.set(zmq::sockopt::linger, static_cast<int>(std::max<std::int64_t>(left.count(), 0)));
    connections_->close();
    router_.close();
    context_.close();
    return end_.failed ? 1 : 0;
  }

  const DaemonOptions& opts_;
  int argc_;
  char** argv_;
  DaemonOptions current_;  // what SIGHUP compares with and updates
  const bool curve_;
  const bool replay_ = !opts_.source.read_file.empty();
  zmq::context_t context_;
  std::optional<ZapHandler> zap_;
  subscribe::CurveKeyPair server_keys_;
  zmq::socket_t router_{context_, zmq::socket_type::router};
  const std::size_t max_message_bytes_ = 2 * SubscriberSet::kBatchBytes;
  int queue_ = 0;
  std::optional<ConnectionGuard> connections_;
  std::vector<std::string> bound_;
  // Before subscribers_, which offers its rings (and goes first).
  RingHandover handover_;
  std::vector<zmq::pollitem_t> poll_items_;
  // Whatever ends the daemon (a later start-up error included) removes
  // the sockets it put in place, if they are still its own.
  struct RemoveSockets {
    const std::vector<std::string>& endpoints;
    ~RemoveSockets() {
      for (const auto& e : endpoints)
        if (e.rfind("ipc://", 0) == 0) remove_ipc_socket(e.substr(6));
    }
  } remove_sockets_{bound_};
  const filter::Filter source_filter_ = filter::Filter::parse(opts_.source_filter);
  lnetcap_subfilter* clause_table_ = nullptr;
  std::optional<SourcePump> pump_;
  std::optional<SubscriberSet> subscribers_;
  std::optional<RecorderAndMetrics> extras_;
  std::optional<live::SubfilterWriter> clause_writer_;

  std::vector<CaptureInterface> interfaces_;
  SourceStats stats_;
  bool started_ = false, ended_ = false;
  subscribe::End end_;
  Clock::time_point next_heartbeat_ = Clock::now() + std::chrono::seconds(1), end_deadline_;
  subscribe::Frames frames_;
  std::string routing_id_;
  PumpedBatch pending_;  // taken from the pump; from pending_next_ on not yet delivered
  std::size_t pending_next_ = 0;
  bool dumping_ = false;  // a flight recorder dump is being sent: poll often
};

}  // namespace

int run_daemon(const DaemonOptions& opts, int argc, char** argv) {
  if (opts.show_help) {
    std::fputs(daemon_usage_text().c_str(), stdout);
    return 0;
  }
  if (opts.show_version) {
    std::printf("lnetcapd %s\n", LNETCAP_VERSION);
    return 0;
  }
  if (!opts.gen_key.empty()) {
    std::printf("%s\n", subscribe::write_new_key_file(opts.gen_key).public_z85.c_str());
    return 0;
  }
  install_signal_handlers();
  install_reload_signal();
  DaemonRun run(opts, argc, argv);
  return run.serve();
}

}  // namespace lnetcap::daemon
