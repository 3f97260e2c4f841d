// SPDX-License-Identifier: GPL-2.0-or-later
// summary_json.cpp - --summary=json: one object, latencies in nanoseconds.
#include "percentile.h"
#include "summary_format.h"
#include "text_escape.h"

namespace lnetcap::report {
namespace {

std::string num(std::uint64_t v) { return std::to_string(v); }

std::string latency_json(const LatencyFigures& f) {
  if (!f.count) return "{\"count\": 0, \"p50\": null, \"p90\": null, \"p99\": null, \"max\": null}";
  return "{\"count\": " + num(f.count) + ", \"p50\": " + num(f.p50) + ", \"p90\": " + num(f.p90) +
         ", \"p99\": " + num(f.p99) + ", \"max\": " + num(f.max) + "}";
}

std::string latency_json(const LatencySamples& samples) { return latency_json(samples.figures()); }

// The parts of one latency split group (latency_split.h); the RPCs are
// request_transit_ns's count.
std::string split_fields(const LatencySplitStats& s) {
  return "\"client_queue_ns\": " + latency_json(s.client_queue) +
         ", \"request_transit_ns\": " + latency_json(s.request_transit) +
         ", \"server_ns\": " + latency_json(s.server) + ", \"bulk_ns\": " + latency_json(s.bulk) +
         ", \"reply_transit_ns\": " + latency_json(s.reply_transit);
}

std::string errors_json(const std::map<std::int32_t, std::uint64_t>& by_status) {
  std::string out = "[";
  bool first = true;
  for (const auto& [status, n] : by_status) {
    out += first ? "" : ", ";
    first = false;
    out += "{\"status\": " + std::to_string(status) + ", \"name\": " +
           json_string(status_string(status)) + ", \"count\": " + num(n) + "}";
  }
  return out + "]";
}

// The fields every group and the total share.
std::string stats_fields(const GroupStats& g) {
  return "\"messages\": " + num(g.messages) + ", \"bytes\": " + num(g.bytes) +
         ", \"bulk_bytes\": " + num(g.bulk_bytes) +
         ", \"requests\": " + num(g.requests) + ", \"replies\": " + num(g.replies) +
         ", \"errors\": " + num(g.errors) + ", \"unanswered\": " + num(g.unanswered) +
         ", \"latency_ns\": " + latency_json(g.latencies_ns) +
         ", \"errors_by_status\": " + errors_json(g.errors_by_status);
}


std::string queue_json(const std::map<std::string, LatencySamples>& q) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : q) {
    out += std::string(first ? "" : ", ") + json_string(k) + ": " + latency_json(v);
    first = false;
  }
  return out + "}";
}

std::string ni_json(const std::map<std::string, NiHealth>& m) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : m) {
    out += std::string(first ? "" : ", ") + json_string(k) + ": {\"attempts\": " +
           num(v.attempts) + ", \"resends\": " + num(v.resends) + ", \"failures\": " +
           num(v.failures) + ", \"recovery_pings\": " + num(v.recovery_pings) +
           ", \"failures_by_health\": {";
    bool f2 = true;
    for (const auto& [why, n] : v.failures_by_health) {
      out += std::string(f2 ? "" : ", ") + json_string(why) + ": " + num(n);
      f2 = false;
    }
    out += "}}";
    first = false;
  }
  return out + "}";
}

}  // namespace

std::string render_json(const SummaryReport& r) {
  std::string out = "{\n  \"percentile\": \"nearest-rank\",\n";
  out += "  \"first_ts_ns\": " + num(r.first_ts_ns) + ",\n";
  out += "  \"last_ts_ns\": " + num(r.last_ts_ns) + ",\n";
  out += "  \"total\": {" + stats_fields(r.total) + "},\n";
  out += "  \"lnet_types\": {";
  bool first = true;
  for (const auto& [name, n] : r.lnet_types) {
    out += std::string(first ? "" : ", ") + json_string(name) + ": " + num(n);
    first = false;
  }
  out += "}";
  for (Dimension d : kDimensions) {
    out += ",\n  \"by_" + std::string(dimension_name(d)) + "\": [";
    first = true;
    for (const auto& [key, g] : r.by(d)) {
      out += std::string(first ? "\n" : ",\n") + "    {\"" + dimension_name(d) +
             "\": " + json_string(key) + ", " + stats_fields(g) + "}";
      first = false;
    }
    out += first ? "]" : "\n  ]";
  }
  // Only merged client+server captures have this key (docs/REPORTS.md).
  if (!r.latency_split.empty()) {
    const LatencySplitReport& l = r.latency_split;
    out += ",\n  \"latency_split\": {\"clock_offset_ns\": {";
    first = true;
    for (const auto& [pair, ns] : l.clock_offset_ns) {
      out += std::string(first ? "" : ", ") + json_string(pair.first + " -> " + pair.second) + ": " +
             std::to_string(ns);
      first = false;
    }
    out += "}, \"rpcs_not_split\": " + num(l.rpcs_not_split) +
           ", \"negative_transits\": " + num(l.negative_transits) + ", \"total\": {" + split_fields(l.total) + "}";
    for (SplitBy d : kSplitDimensions) {
      const std::string name = split_dimension_name(d);
      out += ", \"by_" + name + "\": [";
      first = true;
      for (const auto& [key, s] : l.by(d)) {
        out += std::string(first ? "\n" : ",\n") + "    {\"" + name + "\": " + json_string(key) + ", " +
               split_fields(s) + "}";
        first = false;
      }
      out += first ? "]" : "\n  ]";
    }
    out += "}";
  }
  // Only captures with LNet health fields have this key (docs/REPORTS.md).
  if (!r.lnet.empty()) {
    out += ",\n  \"lnet\": {\"drops_by_reason\": {";
    first = true;
    for (const auto& [why, n] : r.lnet.drops_by_reason) {
      out += std::string(first ? "" : ", ") + json_string(why) + ": " + num(n);
      first = false;
    }
    out += "}, \"queue_ns_by_peer\": " + queue_json(r.lnet.queue_by_peer) +
           ", \"queue_ns_by_ni\": " + queue_json(r.lnet.queue_by_ni);
    if (!r.lnet.by_local_ni.empty())
      out += ", \"health_by_local_ni\": " + ni_json(r.lnet.by_local_ni) +
             ", \"health_by_peer_ni\": " + ni_json(r.lnet.by_peer_ni);
    out += "}";
  }
  return out + "\n}\n";
}

}  // namespace lnetcap::report
