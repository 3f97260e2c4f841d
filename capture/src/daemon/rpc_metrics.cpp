// SPDX-License-Identifier: GPL-2.0-or-later
#include "rpc_metrics.h"

#include "lnetcap/lnet.h"
#include "lnetcap/record.h"
#include "../report/summary.h"
#include "../report/text_escape.h"

namespace lnetcap::daemon {
namespace {

const std::string kOther = "other";

// The label value of an opcode: its name from lnetcap's table (bounded by
// the table), else "other" - opc_N for any N would be unbounded.
std::string opcode_label(std::uint32_t opc) { return opcode_name(opc) ? opcode_name(opc) : kOther; }

const char* const kDimLabel[] = {"opcode", "target", "peer"};

}  // namespace

RpcMetrics::RpcMetrics(unsigned max_label_values) : max_label_values_(max_label_values) {}

const std::string& RpcMetrics::bounded_value(std::unordered_map<std::string, std::string>& admitted,
                                             const std::string& value) {
  auto it = admitted.find(value);
  if (it != admitted.end()) return it->second;
  if (admitted.size() < max_label_values_) return admitted.emplace(value, value).first->second;
  return kOther;
}

void RpcMetrics::pseudonymise_labels(std::function<std::string(const std::string&)> mapper) {
  std::lock_guard<std::mutex> lock(mutex_);
  pseudonym_ = std::move(mapper);
  for (Dim d : {kTarget, kPeer}) {
    groups_[d].clear();
    admitted_[d].clear();
  }
  target_cache_.clear();
  peer_cache_.clear();
}

bool RpcMetrics::labels_pseudonymised() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<bool>(pseudonym_);
}

const std::string& RpcMetrics::bounded(Dim d, const std::string& clear) {
  const std::string value = pseudonym_ && d != kOpcode ? pseudonym_(clear) : clear;
  auto& admitted = admitted_[d];
  auto it = admitted.find(value);
  if (it != admitted.end()) return it->second;
  if (d == kOpcode || admitted.size() < max_label_values_) return admitted.emplace(value, value).first->second;
  return kOther;
}

// Past this many cached values a dimension computes its label each time
// (only NIDs that all map to "other" get there).
static std::size_t cache_limit(unsigned max_label_values) { return 2 * std::size_t(max_label_values) + 64; }

RpcMetrics::Group& RpcMetrics::opcode_group(std::uint32_t opc) {
  auto it = opcode_cache_.find(opc);
  if (it != opcode_cache_.end()) return *it->second;
  Group& g = groups_[kOpcode][bounded(kOpcode, opcode_label(opc))];
  if (opcode_name(opc)) opcode_cache_.emplace(opc, &g);  // unknown ones are all "other"
  return g;
}

RpcMetrics::Group& RpcMetrics::target_group(const Nid& server) {
  auto it = target_cache_.find(server);
  if (it != target_cache_.end()) return *it->second;
  Group& g = groups_[kTarget][bounded(kTarget, server.to_string())];
  if (target_cache_.size() < cache_limit(max_label_values_)) target_cache_.emplace(server, &g);
  return g;
}

RpcMetrics::Group& RpcMetrics::peer_group(const Message& m) {
  // The same cases as report::peer_key().
  std::tuple<int, Nid, Nid> key{2, m.rec.hdr.peer_nid, Nid{}};
  if (m.lnet.present) {
    switch (m.rec.hdr.direction) {
      case LNETCAP_DIR_SEND: key = {0, m.lnet.dest_nid, Nid{}}; break;
      case LNETCAP_DIR_RECV: key = {0, m.lnet.src_nid, Nid{}}; break;
      default: key = {1, std::min(m.lnet.src_nid, m.lnet.dest_nid), std::max(m.lnet.src_nid, m.lnet.dest_nid)};
    }
  }
  auto it = peer_cache_.find(key);
  if (it != peer_cache_.end()) return *it->second;
  Group& g = groups_[kPeer][bounded(kPeer, report::peer_key(m))];
  if (peer_cache_.size() < cache_limit(max_label_values_)) peer_cache_.emplace(key, &g);
  return g;
}

void RpcMetrics::add_latency(Group& g, std::uint64_t ns) {
  // The comparison --summary=prometheus makes, so both put a sample in the
  // same bucket.
  const double s = static_cast<double>(ns) / 1e9;
  for (std::size_t i = 0; i < kBuckets; ++i)
    if (s <= report::kLatencyBuckets[i]) {
      ++g.le[i];
      break;
    }
  ++g.latency_count;
  g.latency_sum_s += s;
}

void RpcMetrics::add(const Message& m) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Health and drops count records; everything else counts messages.
  if (m.rec.hdr.flags & LNETCAP_REC_F_HEALTH_VALID) {
    const char* h = health_name(m.rec.hdr.health_status);
    ++health_[h ? std::string(h)
                : bounded_value(admitted_health_, "health_" + std::to_string(m.rec.hdr.health_status))];
    retries_ += m.rec.hdr.retry_count;
  }
  if (m.rec.hdr.direction == LNETCAP_DIR_DROP) ++lnet_dropped_;
  // Outcomes and resends belong to a message counted by its first record,
  // as in --summary (report/summary.cpp).
  if (m.rec.hdr.is_outcome() || m.rec.hdr.is_resend()) return;
  const std::optional<report::RpcMatch> match = matcher_.observe(m);
  const std::optional<report::BulkLink> found = bulk_.observe(m);
  split_.add(m, found);
  // A bulk transfer or its REPLY/ACK: a message of its RPC (as in --summary).
  const report::BulkLink* link = found && found->bulk() && !m.rpc.present ? &*found : nullptr;
  const bool bulk = link != nullptr;
  const bool request = report::is_rpc_request(m);
  const bool reply = report::is_rpc_reply(m);
  const std::uint64_t bytes = report::delivered_bytes(m);

  // Per-message figures by the message's own keys (report/summary.h).
  Group* own[kDims + 1] = {&total_, nullptr, nullptr, nullptr};
  if (report::has_rpc_body(m)) own[1 + kOpcode] = &opcode_group(m.rpc.opc);
  else if (link) own[1 + kOpcode] = &opcode_group(link->rpc->opc);
  if (request || reply) own[1 + kTarget] = &target_group(request ? m.lnet.dest_nid : m.lnet.src_nid);
  else if (link) own[1 + kTarget] = &target_group(link->rpc->server);
  own[1 + kPeer] = &peer_group(m);
  for (Group* g : own) {
    if (!g) continue;
    ++g->messages;
    g->bytes += bytes;
    if (bulk) g->bulk_bytes += bytes;
    if (request) ++g->requests;
    if (reply) ++g->replies;
  }
  if (m.lnet.present) {
    const char* t = msg_type_name(m.lnet.type);
    ++lnet_types_[t ? std::string(t) : bounded_value(admitted_types_, "type_" + std::to_string(m.lnet.type))];
  }

  if (!reply) return;
  // RPC figures go to the request's groups; an orphan reply keeps its own.
  Group* rpc[kDims + 1] = {&total_, nullptr, nullptr, nullptr};
  if (match) {
    rpc[1 + kOpcode] = &opcode_group(match->request.opc);
    rpc[1 + kTarget] = &target_group(match->request.server);
    rpc[1 + kPeer] = &groups_[kPeer][bounded(kPeer, match->request.peer)];
  } else {
    for (int d = 0; d < kDims; ++d) rpc[1 + d] = own[1 + d];
  }
  // One budget of status values for every group: at most
  // max_label_values distinct ones appear anywhere.
  const std::string& status_label =
      report::is_rpc_error(m) ? bounded_value(admitted_status_, std::to_string(m.rpc.status)) : kOther;
  for (Group* g : rpc) {
    if (!g) continue;
    if (match) add_latency(*g, match->latency_ns);
    if (report::is_rpc_error(m)) ++g->errors_by_status[status_label];
  }
}

void RpcMetrics::set_gauges(const DaemonGauges& g) {
  std::lock_guard<std::mutex> lock(mutex_);
  gauges_ = g;
}

namespace {

using report::prom_family;
using report::prom_labels;
using report::prom_number;

void counter(std::string& out, const std::string& name, const std::string& help, std::uint64_t v,
             const char* type = "counter") {
  prom_family(out, name, type, help);
  out += name + " " + std::to_string(v) + "\n";
}

// One dimension's families (label empty: the totals), named as
// --summary=prometheus names them.
void dimension(std::string& out, const std::string& prefix, const std::string& label,
               const std::map<std::string, RpcMetrics::Group>& groups, const std::string& what) {
  report::prom_group_counters<RpcMetrics::Group>(out, prefix, label, groups, what);
  const std::string h = prefix + "rpc_latency_seconds";
  prom_family(out, h, "histogram", "PtlRPC request to reply latency" + what);
  for (const auto& [k, g] : groups) {
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < RpcMetrics::kBuckets; ++i) {
      cumulative += g.le[i];
      out += h + "_bucket" +
             prom_labels(label, k, "le=\"" + prom_number(report::kLatencyBuckets[i]) + "\"") + " " +
             std::to_string(cumulative) + "\n";
    }
    out += h + "_bucket" + prom_labels(label, k, "le=\"+Inf\"") + " " + std::to_string(g.latency_count) + "\n";
    out += h + "_sum" + prom_labels(label, k) + " " + prom_number(g.latency_sum_s) + "\n";
    out += h + "_count" + prom_labels(label, k) + " " + std::to_string(g.latency_count) + "\n";
  }
}

void labelled(std::string& out, const std::string& name, const std::string& help, const char* label,
              const std::map<std::string, std::uint64_t>& values) {
  prom_family(out, name, "counter", help);
  for (const auto& [k, n] : values) out += name + prom_labels(label, k) + " " + std::to_string(n) + "\n";
}

// The split's groups under their label values: groups that share one
// ("other") are merged.
void merge_into(report::LatencySplitStats& to, const report::LatencySplitStats& from) {
  to.client_queue.merge(from.client_queue);
  to.request_transit.merge(from.request_transit);
  to.server.merge(from.server);
  to.bulk.merge(from.bulk);
  to.reply_transit.merge(from.reply_transit);
}

}  // namespace

report::LatencySplitReport RpcMetrics::labelled_split(
    const report::LatencySplitFigures& figures, const std::unordered_map<std::string, std::string>& targets,
    const std::function<std::string(const std::string&)>& pseudonym) const {
  report::LatencySplitReport in = figures.report(), out;
  if (in.empty()) return out;
  out.total = std::move(in.total);
  out.rpcs_not_split = in.rpcs_not_split;
  auto nid_label = [&](const std::string& nid) { return pseudonym ? pseudonym(nid) : nid; };
  // An opcode outside lnetcap's table (opc_N) or past the split's own
  // budget is "other", as opcode_label() makes it; a target without a
  // label of its own in the target families too.
  auto& opcodes = out.groups[static_cast<int>(report::SplitBy::kOpcode)];
  for (const auto& [key, stats] : in.by(report::SplitBy::kOpcode)) {
    const bool known = key != report::kOtherSplitGroup && key.rfind("opc_", 0) != 0;
    merge_into(opcodes[known ? key : kOther], stats);
  }
  auto& by_target = out.groups[static_cast<int>(report::SplitBy::kTarget)];
  for (const auto& [key, stats] : in.by(report::SplitBy::kTarget)) {
    const std::string label = nid_label(key);
    merge_into(by_target[targets.count(label) ? label : kOther], stats);
  }
  for (const auto& [pair, ns] : in.clock_offset_ns) {
    if (out.clock_offset_ns.size() >= max_label_values_) break;
    const std::string server = nid_label(pair.second);
    if (targets.count(server)) out.clock_offset_ns[{nid_label(pair.first), server}] = ns;
  }
  return out;
}

std::string RpcMetrics::render(std::uint64_t scrapes) const {
  // A copy under the lock, formatted without it: add() (the daemon's loop)
  // waits only for the copy, not for the text of a big scrape.
  Group total;
  std::array<std::map<std::string, Group>, kDims> groups;
  std::map<std::string, std::uint64_t> lnet_types, health;
  std::uint64_t lnet_dropped, retries;
  DaemonGauges g;
  report::LatencySplitFigures split;
  std::unordered_map<std::string, std::string> targets;
  std::function<std::string(const std::string&)> pseudonym;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    split = split_.figures();
    targets = admitted_[kTarget];
    pseudonym = pseudonym_;
    total = total_;
    groups = groups_;
    lnet_types = lnet_types_;
    health = health_;
    lnet_dropped = lnet_dropped_;
    retries = retries_;
    g = gauges_;
  }
  std::string out;
  dimension(out, "lnetcap_", "", {{"", total}}, "");
  for (int d = 0; d < kDims; ++d)
    dimension(out, std::string("lnetcap_") + kDimLabel[d] + "_", kDimLabel[d], groups[d],
              std::string(" by ") + kDimLabel[d]);
  report::prom_latency_split(out, labelled_split(split, targets, pseudonym));
  labelled(out, "lnetcap_lnet_type_messages_total", "LNet messages by LNet type", "type", lnet_types);
  labelled(out, "lnetcap_lnet_health_messages_total",
           "LNet messages by the health status LNet gave them (records that carry one)", "health",
           health);
  counter(out, "lnetcap_lnet_retries_total", "LNet retries the records report", retries);
  counter(out, "lnetcap_lnet_dropped_messages_total", "messages LNet dropped (direction DROP)",
          lnet_dropped);
  counter(out, "lnetcap_source_records_total", "records the capture source delivered to lnetcapd",
          g.source_received);
  counter(out, "lnetcap_source_dropped_total",
          "records lost before lnetcapd (kernel ring full, gaps in the source)", g.source_dropped);
  counter(out, "lnetcap_subscribers", "subscribers connected", g.subscribers, "gauge");
  counter(out, "lnetcap_subscriber_dropped_total",
          "records dropped for subscribers whose queue was full (all subscribers so far)",
          g.subscriber_dropped);
  // No label: a group's name is its user's, and this endpoint is open.
  counter(out, "lnetcap_consumer_groups", "consumer groups (every user's)", g.groups.groups, "gauge");
  counter(out, "lnetcap_consumer_group_members", "members of consumer groups", g.groups.members, "gauge");
  counter(out, "lnetcap_consumer_group_unconfirmed_total",
          "records sent to consumer-group members that went without BYE (lost if not yet written)",
          g.groups.unconfirmed_total);
  counter(out, "lnetcap_consumer_group_passed_on_total",
          "records gathered for a member gone without BYE and given to the other members",
          g.groups.passed_on_total);
  counter(out, "lnetcap_consumer_group_bulk_links_given_up_total",
          "requests and bulk transfers the consumer groups' bulk links gave up (their cap)",
          g.groups.links_given_up_total);
  counter(out, "lnetcap_label_values_limit",
          "distinct peer and target label values kept each; later ones are \"other\"",
          max_label_values_, "gauge");
  if (g.recorder) {
    counter(out, "lnetcap_recorder_bytes", "bytes the flight recorder holds (records + bookkeeping)",
            g.recorder_bytes, "gauge");
    counter(out, "lnetcap_recorder_records", "records the flight recorder holds", g.recorder_records,
            "gauge");
    prom_family(out, "lnetcap_recorder_window_seconds", "gauge",
                "time the flight recorder's records cover");
    out += "lnetcap_recorder_window_seconds " + prom_number(g.recorder_window_ns / 1e9) + "\n";
    counter(out, "lnetcap_recorder_limit_bytes", "the flight recorder's bound by size (0 = none)",
            g.recorder_limit_bytes, "gauge");
    prom_family(out, "lnetcap_recorder_limit_seconds", "gauge",
                "the flight recorder's bound by time (0 = none)");
    out += "lnetcap_recorder_limit_seconds " + prom_number(g.recorder_limit_ns / 1e9) + "\n";
    counter(out, "lnetcap_triggers_fired_total", "records that matched the trigger filter",
            g.triggers_fired);
    counter(out, "lnetcap_trigger_files_written_total", "trigger files written", g.trigger_files_written);
    counter(out, "lnetcap_trigger_files_skipped_total",
            "trigger matches without a file (over the per-minute limit)", g.trigger_files_skipped);
    counter(out, "lnetcap_trigger_files_failed_total", "trigger files that could not be written",
            g.trigger_files_failed);
  }
  counter(out, "lnetcap_scrapes_total", "metrics scrapes served when this page was rendered, that one included (scrapes within 1 s share a page)", scrapes);
  return out;
}

}  // namespace lnetcap::daemon
