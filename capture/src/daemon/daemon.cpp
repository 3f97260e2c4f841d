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
std::string listen_on(zmq::socket_t& router, const std::string& uri, const DaemonOptions& opts) {
  const std::string endpoint = subscribe::normalize_endpoint(uri);
  const bool ipc = endpoint.rfind("ipc://", 0) == 0;
  if (endpoint.rfind("tcp://", 0) == 0 && !opts.allow_insecure_tcp && opts.authorized_keys.empty())
    throw Error("refusing to listen on " + endpoint + " without authentication",
                "give --authorized-keys FILE (CurveZMQ, docs/DAEMON.md), or on a trusted network "
                "--allow-insecure-tcp, or use the local socket");
  if (!ipc) {
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
    running.authorized_keys = fresh.authorized_keys.empty() ? running.authorized_keys : fresh.authorized_keys;
    running.anonymize = fresh.anonymize;
  } catch (const Error& e) {
    std::fprintf(stderr, "lnetcapd: reload of %s failed, nothing changed: %s\n", file.c_str(), e.what());
    if (!e.hint().empty()) std::fprintf(stderr, "lnetcapd: hint: %s\n", e.hint().c_str());
    return;
  } catch (const std::exception& e) {  // a library's own error: the daemon goes on as it was
    std::fprintf(stderr, "lnetcapd: reload of %s failed, nothing changed: %s\n", file.c_str(), e.what());
    return;
  }
  std::string needing_restart;
  for (const auto& s : settings_needing_restart(running, fresh))
    needing_restart += (needing_restart.empty() ? "" : ", ") + s;
  if (!needing_restart.empty())
    std::fprintf(stderr, "lnetcapd: reload: not applied, restart lnetcapd for: %s\n", needing_restart.c_str());
  std::fprintf(stderr, "lnetcapd: reloaded %s\n", file.c_str());
}

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
  DaemonOptions current = opts;  // what SIGHUP compares with and updates
  zmq::context_t context;
  // CurveZMQ applies to the TCP endpoints (see the binding below).
  const bool curve = !opts.authorized_keys.empty();
  if (curve && !subscribe::curve_available())
    throw Error("this libzmq has no CURVE support", "install Debian's libzmq5 (built with libsodium)");
  std::optional<ZapHandler> zap;
  subscribe::CurveKeyPair server_keys;
  if (curve) {
    if (!listens_on_tcp(opts))
      throw Error("--authorized-keys is for TCP endpoints", "add --listen tcp://HOST:PORT");
    server_keys = server_key_pair(opts.curve_key);
    zap.emplace(context, read_checked_authorized_keys(opts.authorized_keys));
  }
  zmq::socket_t router(context, zmq::socket_type::router);
  router.set(zmq::sockopt::router_mandatory, 1);
  // Bounds (serving_limits.h): queues in bytes, requests, connections.
  const std::size_t max_message_bytes = 2 * SubscriberSet::kBatchBytes;
  const int queue = queue_messages(opts.limits, opts.queue, max_message_bytes);
  if (queue < opts.queue)
    std::fprintf(stderr, "lnetcapd: each subscriber's queue holds %d messages (--memory-budget / --max-subscribers)\n",
                 queue);
  router.set(zmq::sockopt::sndhwm, queue);
  router.set(zmq::sockopt::maxmsgsize, ServingLimits::kMaxRequestBytes);
  router.set(zmq::sockopt::linger, 0);
  ConnectionGuard connections(context, router, opts.limits);
  // libzmq copies a socket's options into each endpoint when it binds it:
  // the local sockets are bound before CURVE is switched on, so local users
  // keep subscribing without keys (the socket's group and mode admit them),
  // and every TCP endpoint bound after it needs an authorized key.
  std::vector<std::string> bound;
  // Whatever ends the daemon (a later start-up error included) removes
  // the sockets it put in place, if they are still its own.
  struct RemoveSockets {
    const std::vector<std::string>& endpoints;
    ~RemoveSockets() {
      for (const auto& e : endpoints)
        if (e.rfind("ipc://", 0) == 0) remove_ipc_socket(e.substr(6));
    }
  } remove_sockets{bound};
  for (const bool tcp_pass : {false, true}) {
    if (tcp_pass && curve) {
      router.set(zmq::sockopt::curve_server, 1);
      router.set(zmq::sockopt::curve_secretkey, server_keys.secret_z85);
      // A ZAP domain makes libzmq consult the handler for every client.
      router.set(zmq::sockopt::zap_domain, "lnetcapd");
    }
    for (const auto& uri : opts.listen)
      if ((subscribe::normalize_endpoint(uri).rfind("ipc://", 0) != 0) == tcp_pass)
        bound.push_back(listen_on(router, uri, opts));
  }

  // The daemon filters per subscriber; the source takes what [source]
  // filter allows (everything without one).  A live eBPF source tests that
  // filter's pushable terms in the kernel, as direct capture does; it is
  // checked again here, since files and socklnd sources do not filter.
  const bool replay = !opts.source.read_file.empty();
  Pacing pacing = opts.pacing;
  pacing.replay = replay;
  const filter::Filter source_filter = filter::Filter::parse(opts.source_filter);
  // A live eBPF source also gets the clause table the subscribers' filters
  // are folded into (docs/DAEMON.md, "Filter push-down into the kernel").
  std::unique_ptr<RecordSource> source = open_capture_source(opts.source, source_filter, KernelClauses::kOn);
  lnetcap_subfilter* const clause_table = source->kernel_clause_table();
  SourcePump pump(std::move(source), pacing);
  const bool paced = opts.pacing.realtime || opts.pacing.records_per_second > 0;
  SubscriberSet subscribers(router,
                            subscribe::Accept{opts.node.empty() ? host_name() : opts.node,
                                              describe_source(opts.source)},
                            replay && !paced);
  RecorderAndMetrics extras(opts, opts.node.empty() ? host_name() : opts.node, describe_source(opts.source));
  subscribers.set_recorder(extras.recorder());
  subscribers.set_limits(opts.limits);
  subscribers.set_status([&] {
    subscribe::Status st = extras.status();
    ServingUse use;
    use.connections = connections.open_connections();
    use.max_connections = connections.max_connections();
    use.connections_refused = connections.refused();
    use.subscriptions_refused = subscribers.refused();
    use.filter_terms = subscribers.filter_terms();
    use.queue_messages = queue;
    use.max_message_bytes = max_message_bytes;
    add_status(st, opts.limits, use);
    return st;
  });
  subscribers.set_anonymize_policy(opts.anonymize);
  std::optional<live::SubfilterWriter> clause_writer;
  if (clause_table) {
    clause_writer.emplace(clause_table);
    subscribers.set_kernel_clauses(
        [&clause_writer](const filter::KernelClauseSet& set) {
          if (!clause_writer->publish(set)) return;
          if (set.pass_all)
            std::fprintf(stderr, "lnetcapd: in-kernel filter: every message goes up\n");
          else if (set.clauses.empty())
            std::fprintf(stderr, "lnetcapd: in-kernel filter: no subscriber, no message goes up\n");
          else
            std::fprintf(stderr, "lnetcapd: in-kernel filter: %zu clause%s\n", set.clauses.size(),
                         set.clauses.size() == 1 ? "" : "s");
        },
        extras.sees_every_record());
  }
  for (const auto& endpoint : bound) {
    const bool curved = curve && endpoint.rfind("ipc://", 0) != 0;  // local ones are not
    std::fprintf(stderr, "lnetcapd: serving %s on %s%s%s\n", describe_source(opts.source).c_str(),
                 endpoint.c_str(), curved ? " with CurveZMQ, server key " : "",
                 curved ? server_keys.public_z85.c_str() : "");
  }
  // Type=notify: ready once the source is open (attached) and the sockets listen.
  if (!notify_service_manager("READY=1\nSTATUS=serving " + describe_source(opts.source)))
    std::fprintf(stderr, "lnetcapd: warning: could not notify the service manager (NOTIFY_SOCKET)\n");

  std::vector<CaptureInterface> interfaces;
  SourceStats stats;
  auto watermark = [&]() -> std::uint64_t {
    // Subscribers merging several daemons hand a record out early only when
    // every other stream's watermark allows.  A replay promises nothing (a
    // socklnd conversion is not strictly in time order), so merges of
    // replays wait for every stream and equal mergecap's; a live source
    // delivers nothing more than a second old (per-CPU ring order).
    return replay ? 0 : realtime_now_ns() - 1000000000ULL;
  };
  bool started = false, ended = false;
  subscribe::End end;
  Clock::time_point next_heartbeat = Clock::now() + std::chrono::seconds(1), end_deadline;
  subscribe::Frames frames;
  std::string routing_id;
  PumpedBatch pending;  // taken from the pump; from pending_next on not yet delivered
  std::size_t pending_next = 0;
  bool dumping = false;              // a flight recorder dump is being sent: poll often

  for (;;) {
    zmq::pollitem_t items[] = {{router.handle(), 0, ZMQ_POLLIN, 0},
                               {connections.events().handle(), 0, ZMQ_POLLIN, 0},
                               {nullptr, pump.event_fd(), ZMQ_POLLIN, 0}};
    try {
      zmq::poll(items, started && !ended ? 3 : 2,
                std::chrono::milliseconds(pending_next == pending.items.size() || ended ? (dumping ? 2 : 100) : 0));
    } catch (const zmq::error_t& e) {
      if (e.num() != EINTR) throw;  // a signal: the loop below looks at it
    }
    connections.handle_events();
    subscribe::Peer peer;
    while (subscribe::receive_frames(router, frames, &routing_id, &peer))
      if (connections.admit_key(peer.fd, peer.user_id) &&
          !refused_as_revoked(router, zap ? &*zap : nullptr, routing_id, frames, peer))
        subscribers.handle(routing_id, frames, peer);

    if (!started && !ended && !stop_requested() && subscribers.size() >= opts.wait_subscribers) {
      pump.start();
      started = true;
    }
    // A bounded batch, so control messages are never kept waiting long.
    // (Taking gives the pump back the batch just delivered, to fill again.)
    if (started && !ended && pending_next == pending.items.size()) {
      pump.take_all(pending);
      pending_next = 0;
    }
    for (int batch = 0; started && !ended && batch < 512 && pending_next < pending.items.size(); ++batch) {
      const std::size_t index = pending_next++;
      PumpedRecord& item = pending.items[index];
      for (auto& i : item.new_interfaces) interfaces.push_back(std::move(i));
      stats = item.stats;
      if (item.end) {
        ended = true;
        extras.finish(interfaces);
        end.failed = !item.error.empty();
        end.reason = end.failed             ? item.error
                     : stop_requested() || !replay ? "lnetcapd stopping"
                                                   : "end of " + opts.source.read_file;
        if (end.failed) {
          std::fprintf(stderr, "lnetcapd: %s\n", item.error.c_str());
          if (!item.hint.empty()) std::fprintf(stderr, "lnetcapd: hint: %s\n", item.hint.c_str());
        }
        break;
      }
      item.meta.bytes = pending.bytes(index);  // in place: no copy of the record's metadata
      const CapturedRecord& rec = item.meta;
      // Decoding costs more than delivering: only when a filter, the
      // trigger or the metrics need it.  (Every source hands out records
      // it has parsed already - a file's bad record ends the replay, a
      // kernel ring's is skipped and counted - so one that needs no
      // decoding is not parsed again here.)
      Message msg;
      if (subscribers.needs_decoding() || !source_filter.empty() || extras.needs_decoding()) {
        std::string why;
        const auto view = parse_record(rec.bytes, &why);
        if (!view) {
          std::fprintf(stderr, "lnetcapd: skipping a bad record from the source: %s\n", why.c_str());
          continue;
        }
        msg = decode_message(*view, rec.ts_ns, rec.interface_id);
      }
      // [source] filter bounds everything the daemon keeps and serves, the
      // recorder and metrics included.
      if (!source_filter.matches(msg)) continue;
      extras.observe(rec, msg, interfaces);
      subscribers.deliver(rec, msg, interfaces, stats, watermark());
    }
    // What the source had queued is handed out: send the gathered batches
    // now, so a trickle of records is never kept waiting for more.
    subscribers.flush();
    dumping = subscribers.pump_dumps(interfaces, stats);
    extras.update(stats, subscribers.size(), subscribers.total_dropped());
    if (take_reload_request()) reload(current, argc, argv, zap ? &*zap : nullptr, subscribers, extras, stats);
    if (Clock::now() >= next_heartbeat) {
      subscribers.heartbeat(stats, watermark());
      next_heartbeat = Clock::now() + std::chrono::seconds(1);
    }
    if (stop_requested() && !ended) {
      if (started) {
        pump.stop();  // its end item follows what the source still drains
      } else {
        ended = true;
        end.reason = "lnetcapd stopping";
      }
    }
    if (ended) {
      if (end_deadline == Clock::time_point{})
        end_deadline = Clock::now() + std::chrono::seconds(opts.linger_seconds);
      end.counters.watermark_ns = watermark();
      const bool all_told = subscribers.send_end(end, stats) || Clock::now() >= end_deadline;
      // --keep-serving: a replay's end leaves dumps, status and metrics up.
      // Stopping, a dump nobody reads waits no longer than the linger time.
      const bool dumps_done = !dumping || (stop_requested() && Clock::now() >= end_deadline);
      if (all_told && dumps_done && (!opts.keep_serving || stop_requested())) break;
    }
  }
  notify_service_manager("STOPPING=1");
  subscribers.log_totals();
  std::fprintf(stderr, "lnetcapd: source: %" PRIu64 " records, %" PRIu64 " dropped\n", stats.received,
               stats.dropped);
  // What the in-kernel filters (the fixed one and the clause table) kept
  // there: not delivered, not lost.
  if (clause_table)
    std::fprintf(stderr, "lnetcapd: source: %" PRIu64 " messages filtered in the kernel\n", stats.filtered);
  // Let queued messages (the END of a subscriber that just drained) reach
  // their subscribers, but not beyond the linger time.
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end_deadline - Clock::now());
  router.set(zmq::sockopt::linger, static_cast<int>(std::max<std::int64_t>(left.count(), 0)));
  connections.close();
  router.close();
  context.close();

  return end.failed ? 1 : 0;
}

}  // namespace lnetcap::daemon
