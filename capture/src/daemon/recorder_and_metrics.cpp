// SPDX-License-Identifier: GPL-2.0-or-later
#include "recorder_and_metrics.h"

#include <cstdio>
#include <memory>

#include "../anon/anonymizer.h"

#include "daemon.h"
#include "status_anonymization.h"

namespace lnetcap::daemon {
namespace {

std::string seconds_text(std::uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1e9);
  return buf;
}

std::string recorder_limits(const RecorderConfig& c) {
  return (c.max_bytes ? std::to_string(c.max_bytes) + " bytes" : std::string("no size limit")) + ", " +
         (c.max_ns ? seconds_text(c.max_ns) + " s" : std::string("no time limit"));
}

}  // namespace

RecorderAndMetrics::RecorderAndMetrics(const DaemonOptions& opts, std::string node, std::string source)
    : opts_(opts), node_(std::move(node)), source_(std::move(source)) {
  // A trigger's earlier window comes from the recorder: without a bound of
  // its own the recorder keeps just that much.
  RecorderConfig rc = opts.recorder;
  if (opts.trigger.enabled() && !rc.enabled()) rc.max_ns = opts.trigger.before_ns;
  if (rc.enabled()) {
    recorder_.emplace(rc);
    std::fprintf(stderr, "lnetcapd: flight recorder keeps %s\n", recorder_limits(rc).c_str());
  }
  if (opts.trigger.enabled()) {
    trigger_.emplace(opts.trigger, node_);
    std::fprintf(stderr, "lnetcapd: trigger '%s' writes to %s, at most %u files a minute\n",
                 opts.trigger.filter.c_str(), opts.trigger.directory.c_str(), opts.trigger.max_per_minute);
  }
  if (opts.metrics.enabled()) {
    metrics_.emplace(opts.metrics.max_label_values);
    apply_anonymize_policy(opts.anonymize);  // before the endpoint serves anything
    http_.emplace(opts.metrics.listen, [this](std::uint64_t scrapes) { return metrics_->render(scrapes); });
    std::fprintf(stderr, "lnetcapd: serving metrics at %s\n", http_->address().c_str());
  }
}

void RecorderAndMetrics::observe(const CapturedRecord& rec, const Message& msg,
                                 const std::vector<CaptureInterface>& interfaces) {
  if (recorder_) {
    const StoredRecordPtr stored = recorder_->add(rec);
    if (trigger_) trigger_->observe(stored, msg, *recorder_, interfaces);
  }
  if (metrics_) metrics_->add(msg);
}

void RecorderAndMetrics::apply_anonymize_policy(const AnonymizePolicy& policy) {
  if (!metrics_ || !policy.forces_anyone() || metrics_->labels_pseudonymised()) return;
  auto anonymizer = std::make_shared<anon::Anonymizer>(anon::Anonymizer::load_or_create_key(policy.key_file));
  metrics_->pseudonymise_labels([anonymizer](const std::string& v) { return anonymizer->rewrite_text(v); });
  std::fprintf(stderr, "lnetcapd: metrics: peer and target labels are pseudonyms (the anonymize policy "
                       "forces some subscribers)\n");
}

void RecorderAndMetrics::finish(const std::vector<CaptureInterface>& interfaces) {
  if (trigger_) trigger_->finish(interfaces);
}

void RecorderAndMetrics::update(const SourceStats& stats, std::uint64_t subscribers,
                                std::uint64_t subscriber_dropped, const GroupTotals& groups) {
  stats_ = stats;
  subscribers_ = subscribers;
  subscriber_dropped_ = subscriber_dropped;
  groups_ = groups;
  if (metrics_) metrics_->set_gauges(gauges());
}

DaemonGauges RecorderAndMetrics::gauges() const {
  DaemonGauges g;
  g.source_received = stats_.received;
  g.source_dropped = stats_.dropped;
  g.subscribers = subscribers_;
  g.subscriber_dropped = subscriber_dropped_;
  g.groups = groups_;
  if (recorder_) {
    g.recorder = true;
    g.recorder_bytes = recorder_->bytes_held();
    g.recorder_records = recorder_->records_held();
    g.recorder_window_ns = recorder_->window_ns();
    g.recorder_limit_bytes = recorder_->config().max_bytes;
    g.recorder_limit_ns = recorder_->config().max_ns;
  }
  if (trigger_) {
    g.triggers_fired = trigger_->counts().fired;
    g.trigger_files_written = trigger_->counts().written;
    g.trigger_files_skipped = trigger_->counts().skipped;
    g.trigger_files_failed = trigger_->counts().failed;
  }
  return g;
}

subscribe::Status RecorderAndMetrics::status() const {
  const DaemonGauges g = gauges();
  subscribe::Status st;
  auto item = [&](const std::string& name, const std::string& value) { st.items.emplace_back(name, value); };
  auto number = [&](const std::string& name, std::uint64_t v) { item(name, std::to_string(v)); };
  item("node", node_);
  item("source", source_);
  number("records received", g.source_received);
  number("records dropped by the source", g.source_dropped);
  number("subscribers", g.subscribers);
  number("records dropped for subscribers", g.subscriber_dropped);
  if (recorder_) {
    item("flight recorder", "keeps " + recorder_limits(recorder_->config()));
    number("memory held (bytes)", g.recorder_bytes);
    number("records held", g.recorder_records);
    item("window covered (s)", seconds_text(g.recorder_window_ns));
  } else {
    item("flight recorder", "off");
  }
  if (trigger_) {
    item(kTriggerStatusItem, "'" + opts_.trigger.filter + "', files in " + opts_.trigger.directory);
    number("triggers fired", g.triggers_fired);
    number("trigger files written", g.trigger_files_written);
    number("trigger files skipped", g.trigger_files_skipped);
    number("trigger files failed", g.trigger_files_failed);
  } else {
    item(kTriggerStatusItem, "off");
  }
  item("metrics", http_ ? http_->address() : "off");
  number("scrapes served", http_ ? http_->scrapes() : 0);
  return st;
}

}  // namespace lnetcap::daemon
