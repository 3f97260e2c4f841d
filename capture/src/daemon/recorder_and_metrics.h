// SPDX-License-Identifier: GPL-2.0-or-later
// recorder_and_metrics.h - what lnetcapd does with every record besides
// serving subscribers: the flight recorder, its trigger, the Prometheus
// metrics and their HTTP responder, and the STATUS reply that shows them
// (`lnetcap --from URI --status`).  Each part is off unless configured.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "../message.h"
#include "../source.h"
#include "../subscribe/protocol.h"
#include "anonymize_policy.h"
#include "flight_recorder.h"
#include "metrics_http.h"
#include "rpc_metrics.h"
#include "trigger.h"

namespace lnetcap::daemon {

struct DaemonOptions;

class RecorderAndMetrics {
 public:
  /// Starts what opts configure (the metrics responder listens at once).
  /// Throws Error on a bad trigger filter or a metrics port it cannot use.
  RecorderAndMetrics(const DaemonOptions& opts, std::string node, std::string source);

  /// Every record the source delivers, in order, with its decoding.
  void observe(const CapturedRecord& rec, const Message& msg,
               const std::vector<CaptureInterface>& interfaces);
  /// Whether observe() needs the decoded message (the trigger's filter and
  /// the metrics do; the recorder alone keeps bytes).
  bool needs_decoding() const { return trigger_.has_value() || metrics_.has_value(); }
  /// Whether any part is on: then every record matters, whatever the
  /// subscribers want (nothing may be left in the kernel).
  bool sees_every_record() const {
    return recorder_.has_value() || trigger_.has_value() || metrics_.has_value();
  }
  /// The source ended: open trigger windows are written.
  void finish(const std::vector<CaptureInterface>& interfaces);
  /// The metrics endpoint has no access control: when the policy forces
  /// anyone through the anonymizer, peer and target labels become the same
  /// pseudonyms their records carry (from then on; never lifted).
  void apply_anonymize_policy(const AnonymizePolicy& policy);
  /// The daemon's counters, for the next scrape and STATUS.
  void update(const SourceStats& stats, std::uint64_t subscribers, std::uint64_t subscriber_dropped,
              const GroupTotals& groups);
  subscribe::Status status() const;

  /// The recorder DUMP requests read (nullptr when off).
  const FlightRecorder* recorder() const { return recorder_ ? &*recorder_ : nullptr; }

 private:
  DaemonGauges gauges() const;

  const DaemonOptions& opts_;
  std::string node_, source_;
  std::optional<FlightRecorder> recorder_;
  std::optional<TriggerWriter> trigger_;
  std::optional<RpcMetrics> metrics_;
  std::optional<MetricsHttpServer> http_;
  SourceStats stats_;
  std::uint64_t subscribers_ = 0, subscriber_dropped_ = 0;
  GroupTotals groups_;
};

}  // namespace lnetcap::daemon
