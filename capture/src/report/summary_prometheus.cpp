// SPDX-License-Identifier: GPL-2.0-or-later
// summary_prometheus.cpp - --summary=prometheus: text exposition format
// 0.0.4.  One metric family per figure and dimension
// (lnetcap_opcode_messages_total{opcode="LDLM_ENQUEUE"}), so no family mixes
// label sets; latencies are histograms in seconds, as Prometheus expects.
#include <cmath>
#include <cstdio>

#include "percentile.h"
#include "summary_format.h"
#include "text_escape.h"

namespace lnetcap::report {

std::string prom_number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

void prom_family(std::string& out, const std::string& name, const char* type, const std::string& help) {
  out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

std::string prom_labels(const std::string& label, const std::string& value, const std::string& extra) {
  std::string l = label.empty() ? "" : label + "=\"" + prom_label(value) + "\"";
  if (!extra.empty()) l += (l.empty() ? "" : ",") + extra;
  return l.empty() ? "" : "{" + l + "}";
}

namespace {

// Emits the families for one dimension (label = "opcode"...) or, with an
// empty label, the totals.
void dimension(std::string& out, const std::string& prefix, const std::string& label,
               const std::map<std::string, GroupStats>& groups, const std::string& what) {
  prom_group_counters<GroupStats>(out, prefix, label, groups, what);
  prom_family(out, prefix + "rpc_unanswered", "gauge", "PtlRPC requests without a reply yet" + what);
  for (const auto& [k, g] : groups)
    out += prefix + "rpc_unanswered" + prom_labels(label, k) + " " + std::to_string(g.unanswered) + "\n";

  const std::string h = prefix + "rpc_latency_seconds";
  prom_family(out, h, "histogram", "PtlRPC request to reply latency" + what);
  for (const auto& [k, g] : groups) {
    const double sum = g.latencies_ns.sum_seconds();
    for (double le : kLatencyBuckets) {
      // le seconds in whole ns (the bounds are whole microseconds or more)
      const std::uint64_t n = g.latencies_ns.count_at_most(static_cast<std::uint64_t>(std::llround(le * 1e9)));
      out += h + "_bucket" + prom_labels(label, k, "le=\"" + prom_number(le) + "\"") + " " +
             std::to_string(n) + "\n";
    }
    out += h + "_bucket" + prom_labels(label, k, "le=\"+Inf\"") + " " +
           std::to_string(g.latencies_ns.size()) + "\n";
    out += h + "_sum" + prom_labels(label, k) + " " + prom_number(sum) + "\n";
    out += h + "_count" + prom_labels(label, k) + " " + std::to_string(g.latencies_ns.size()) + "\n";
  }
}

// One group's parts as summary samples (phase and quantile labels); an
// empty part (no bulk, no queue time recorded) has none.
void split_group(std::string& out, const std::string& name, const std::string& label,
                 const std::string& key, const LatencySplitStats& s) {
  const std::pair<const char*, const LatencySamples*> phases[] = {
      {"client_queue", &s.client_queue}, {"request_transit", &s.request_transit},
      {"server", &s.server},             {"bulk", &s.bulk},
      {"reply_transit", &s.reply_transit}};
  for (const auto& [phase, v] : phases) {
    if (v->empty()) continue;
    const LatencyFigures f = latency_figures(*v);
    const std::string p = std::string("phase=\"") + phase + "\"";
    for (auto [q, val] : {std::pair{"0.5", f.p50}, std::pair{"0.9", f.p90}, std::pair{"0.99", f.p99},
                          std::pair{"1", f.max}})
      out += name + prom_labels(label, key, p + ",quantile=\"" + q + "\"") + " " + prom_number(val / 1e9) + "\n";
    out += name + "_sum" + prom_labels(label, key, p) + " " + prom_number(v->sum_seconds()) + "\n";
    out += name + "_count" + prom_labels(label, key, p) + " " + std::to_string(f.count) + "\n";
  }
}

}  // namespace

void prom_latency_split(std::string& out, const LatencySplitReport& l) {
  if (l.empty()) return;
  const std::string what =
      " of the RPCs both ends captured: client_queue, request_transit, server (without the bulk "
      "phase), bulk, reply_transit";
  prom_family(out, "lnetcap_rpc_phase_seconds", "summary", "where the time went" + what);
  split_group(out, "lnetcap_rpc_phase_seconds", "", "", l.total);
  for (SplitBy d : kSplitDimensions) {
    if (l.by(d).empty()) continue;
    const std::string label = split_dimension_name(d);
    const std::string name = "lnetcap_" + label + "_rpc_phase_seconds";
    prom_family(out, name, "summary", "where the time went, by " + label + "," + what);
    for (const auto& [k, s] : l.by(d)) split_group(out, name, label, k, s);
  }
  prom_family(out, "lnetcap_clock_offset_seconds", "gauge",
              "server clock minus client clock, estimated from their RPCs so that no transit is negative");
  for (const auto& [pair, ns] : l.clock_offset_ns)
    out += "lnetcap_clock_offset_seconds{client=\"" + prom_label(pair.first) + "\",server=\"" +
           prom_label(pair.second) + "\"} " + prom_number(static_cast<double>(ns) / 1e9) + "\n";
}

std::string render_prometheus(const SummaryReport& r) {
  std::string out;
  dimension(out, "lnetcap_", "", {{"", r.total}}, "");
  prom_family(out, "lnetcap_lnet_type_messages_total", "counter", "LNet messages by LNet type");
  for (const auto& [t, n] : r.lnet_types)
    out += "lnetcap_lnet_type_messages_total{type=\"" + prom_label(t) + "\"} " +
           std::to_string(n) + "\n";
  for (Dimension d : kDimensions) {
    const std::string name = dimension_name(d);
    dimension(out, "lnetcap_" + name + "_", name, r.by(d), " by " + name);
  }
  prom_latency_split(out, r.latency_split);
  if (r.lnet.empty()) return out;
  prom_family(out, "lnetcap_lnet_drops_total", "counter", "messages LNet dropped, by reason");
  for (const auto& [why, n] : r.lnet.drops_by_reason)
    out += "lnetcap_lnet_drops_total{reason=\"" + prom_label(why) + "\"} " + std::to_string(n) + "\n";
  prom_family(out, "lnetcap_lnet_queue_seconds", "summary",
         "time LNet held a message before the LND (credits, delay rules), by local NI");
  for (const auto& [ni, v] : r.lnet.queue_by_ni) {
    const LatencyFigures f = latency_figures(v);
    const double sum = v.sum_seconds();
    for (auto [q, val] : {std::pair{"0.5", f.p50}, std::pair{"0.99", f.p99}, std::pair{"1", f.max}})
      out += "lnetcap_lnet_queue_seconds{ni=\"" + prom_label(ni) + "\",quantile=\"" + q + "\"} " +
             prom_number(val / 1e9) + "\n";
    out += "lnetcap_lnet_queue_seconds_sum{ni=\"" + prom_label(ni) + "\"} " + prom_number(sum) + "\n";
    out += "lnetcap_lnet_queue_seconds_count{ni=\"" + prom_label(ni) + "\"} " +
           std::to_string(f.count) + "\n";
  }
  return out;
}

}  // namespace lnetcap::report
