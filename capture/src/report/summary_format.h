// SPDX-License-Identifier: GPL-2.0-or-later
// summary_format.h - renders a SummaryReport for --summary=table|json|prometheus.
#pragma once

#include <string>

#include "summary.h"

namespace lnetcap::report {

/// Readable table: totals, then one section per dimension, then errors.
std::string render_table(const SummaryReport& r);
/// One JSON object (schema in docs/REPORTS.md), newline-terminated.
std::string render_json(const SummaryReport& r);
/// Prometheus text exposition format 0.0.4, every metric prefixed lnetcap_.
std::string render_prometheus(const SummaryReport& r);

/// Prometheus text format helpers, shared with lnetcapd's metrics
/// (daemon/rpc_metrics.cpp) so both speak the same names and numbers.
/// A sample value ("%.9g").
std::string prom_number(double v);
/// "# HELP name help" and "# TYPE name type" lines.
void prom_family(std::string& out, const std::string& name, const char* type, const std::string& help);
/// {label="value",extra} (extra: further ready-made label pairs), or "".
std::string prom_labels(const std::string& label, const std::string& value, const std::string& extra = {});

/// The latency split (latency_split.h) of a merged capture, nothing
/// without one: lnetcap_rpc_phase_seconds{phase,quantile} and per
/// dimension lnetcap_<opcode|jobid|client|target>_rpc_phase_seconds
/// (summaries: quantiles 0.5, 0.9, 0.99 and 1 = max, in seconds), and
/// lnetcap_clock_offset_seconds{client,server}.  Dimensions without groups
/// are left out (lnetcapd exports opcode and target only).
void prom_latency_split(std::string& out, const LatencySplitReport& l);

/// A status label's value: the number (--summary), or lnetcapd's bounded
/// label ("other" past its budget).
inline std::string status_label_text(std::int32_t status) { return std::to_string(status); }
inline const std::string& status_label_text(const std::string& status) { return status; }

/// The counter families every dimension has (messages, bytes, bulk bytes,
/// requests, replies, then errors per status), for any group type with those
/// members: report::GroupStats and lnetcapd's RpcMetrics::Group.
template <typename Group, typename Groups>
void prom_group_counters(std::string& out, const std::string& prefix, const std::string& label,
                         const Groups& groups, const std::string& what) {
  struct Counter {
    const char* suffix;
    std::uint64_t Group::*field;
    const char* help;
  };
  static const Counter counters[] = {
      {"messages_total", &Group::messages, "LNet messages"},
      {"bytes_total", &Group::bytes, "LNet payload bytes, bulk included"},
      {"bulk_bytes_total", &Group::bulk_bytes,
       "LNet payload bytes of bulk transfers linked to their RPC (also in bytes_total)"},
      {"requests_total", &Group::requests, "PtlRPC requests"},
      {"replies_total", &Group::replies, "PtlRPC final replies"},
  };
  for (const Counter& c : counters) {
    prom_family(out, prefix + c.suffix, "counter", std::string(c.help) + what);
    for (const auto& [k, g] : groups)
      out += prefix + c.suffix + prom_labels(label, k) + " " + std::to_string(g.*c.field) + "\n";
  }
  prom_family(out, prefix + "rpc_errors_total", "counter",
              "PtlRPC replies reporting a failure, per status," + what);
  for (const auto& [k, g] : groups)
    for (const auto& [status, n] : g.errors_by_status)
      out += prefix + "rpc_errors_total" +
             prom_labels(label, k, "status=\"" + status_label_text(status) + "\"") + " " +
             std::to_string(n) + "\n";
}

/// Upper bounds (seconds) of the latency histogram buckets, +Inf implied.
inline constexpr double kLatencyBuckets[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                             0.01,   0.025,   0.05,   0.1,   0.25,   0.5,
                                             1,      2.5,     5,      10};

}  // namespace lnetcap::report
