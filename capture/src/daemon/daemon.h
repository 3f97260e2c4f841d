// SPDX-License-Identifier: GPL-2.0-or-later
// daemon.h - lnetcapd: one capture source served to many filtered
// subscribers over ZeroMQ (docs/DAEMON.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "../options.h"
#include "anonymize_policy.h"
#include "flight_recorder.h"
#include "rpc_metrics.h"
#include "serving_limits.h"
#include "source_pump.h"
#include "trigger.h"

namespace lnetcap::daemon {

struct DaemonOptions {
  Options source;                    // -r, -i, -s, -B, --attach... as lnetcap takes them
  Pacing pacing;                     // --realtime, --rate (replay only)
  // [source] filter: what the daemon captures at all, for every subscriber;
  // a live eBPF source tests its pushable terms in the kernel.
  std::string source_filter;
  std::vector<std::string> listen;   // endpoints; default the local socket
  std::string config_path;           // the config file read ("" for none)
  // --group: who may use an ipc socket.  Unset: kDefaultGroup when it exists.
  std::optional<std::string> group;
  bool allow_insecure_tcp = false;   // --allow-insecure-tcp
  std::string authorized_keys;       // --authorized-keys FILE: TCP with CurveZMQ
  std::string curve_key = "/var/lib/lnetcap/curve.key";  // --curve-key FILE (made on first start)
  std::string gen_key;               // --gen-key FILE: write a key pair and exit
  int queue = 1000;                  // --queue: messages per subscriber (ZMQ_SNDHWM)
  unsigned wait_subscribers = 0;     // --wait-subscribers N: start the source then
  unsigned linger_seconds = 10;      // --linger: how long END may wait for a stopped subscriber
  std::string node;                  // --node NAME (default: the host name)
  AnonymizePolicy anonymize;         // [subscribers] anonymize-* (config file only)
  bool keep_serving = false;         // --keep-serving: a replay's end does not stop the daemon
  RecorderConfig recorder;           // --recorder-size, --recorder-seconds
  TriggerConfig trigger;             // --trigger, --trigger-*
  MetricsConfig metrics;             // --metrics-listen, --metrics-max-label-values
  ServingLimits limits;              // --max-connections, --max-subscribers*, --memory-budget
  bool show_help = false, show_version = false;
};

/// The ipc socket's group when --group names none.
constexpr char kDefaultGroup[] = "lnetcap";

/// Reads the config file (--config FILE, else /etc/lnetcap/lnetcapd.conf
/// when it exists; none with --no-config), then applies lnetcapd's command
/// line on top of it.  Throws Error naming the file, line and key or the option.
DaemonOptions parse_daemon_options(int argc, char** argv);
/// `lnetcapd -h`, made from the settings table (daemon_settings.h).
std::string daemon_usage_text();

/// Runs the daemon until its source ends (a replayed file) or a signal;
/// returns the exit status.  Throws Error when it cannot start.
/// argc/argv are kept to re-read the config file and command line on SIGHUP.
int run_daemon(const DaemonOptions& opts, int argc, char** argv);

}  // namespace lnetcap::daemon
