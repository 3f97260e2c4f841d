// SPDX-License-Identifier: GPL-2.0-or-later
// daemon_options.cpp - lnetcapd's command line (getopt_long, as lnetcap's).
#include <getopt.h>

#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstring>

#include "../error.h"
#include "../options.h"
#include "daemon.h"
#include "daemon_config.h"

namespace lnetcap::daemon {
namespace {

enum LongOnly {
  kOptVersion = 1000,
  kOptRealtime,
  kOptRate,
  kOptGroup,
  kOptQueue,
  kOptWaitSubscribers,
  kOptLinger,
  kOptNode,
  kOptAllowInsecureTcp,
  kOptAuthorizedKeys,
  kOptCurveKey,
  kOptGenKey,
  kOptAttach,
  kOptBtf,
  kOptPort,
  kOptLocalNid,
  kOptKeepServing,
  kOptRecorderSize,
  kOptRecorderSeconds,
  kOptTrigger,
  kOptTriggerDir,
  kOptTriggerBefore,
  kOptTriggerAfter,
  kOptTriggerMaxPerMinute,
  kOptMetricsListen,
  kOptMetricsMaxLabelValues,
  kOptConfig,
  kOptNoConfig,
  kOptMaxConnections,
  kOptMaxSubscribers,
  kOptMaxSubscribersPerUser,
  kOptMemoryBudget,
};

constexpr char kShortOptions[] = "+B:hi:l:r:s:vZ:";

const option kLongOptions[] = {
    {"buffer-size", required_argument, nullptr, 'B'},
    {"help", no_argument, nullptr, 'h'},
    {"interface", required_argument, nullptr, 'i'},
    {"verbose", no_argument, nullptr, 'v'},
    {"listen", required_argument, nullptr, 'l'},
    {"read", required_argument, nullptr, 'r'},
    {"snapshot-length", required_argument, nullptr, 's'},
    {"relinquish-privileges", required_argument, nullptr, 'Z'},
    {"version", no_argument, nullptr, kOptVersion},
    {"realtime", no_argument, nullptr, kOptRealtime},
    {"rate", required_argument, nullptr, kOptRate},
    {"group", required_argument, nullptr, kOptGroup},
    {"queue", required_argument, nullptr, kOptQueue},
    {"wait-subscribers", required_argument, nullptr, kOptWaitSubscribers},
    {"linger", required_argument, nullptr, kOptLinger},
    {"node", required_argument, nullptr, kOptNode},
    {"allow-insecure-tcp", no_argument, nullptr, kOptAllowInsecureTcp},
    {"authorized-keys", required_argument, nullptr, kOptAuthorizedKeys},
    {"curve-key", required_argument, nullptr, kOptCurveKey},
    {"gen-key", required_argument, nullptr, kOptGenKey},
    {"attach", required_argument, nullptr, kOptAttach},
    {"btf", required_argument, nullptr, kOptBtf},
    {"port", required_argument, nullptr, kOptPort},
    {"local-nid", required_argument, nullptr, kOptLocalNid},
    {"keep-serving", no_argument, nullptr, kOptKeepServing},
    {"recorder-size", required_argument, nullptr, kOptRecorderSize},
    {"recorder-seconds", required_argument, nullptr, kOptRecorderSeconds},
    {"trigger", required_argument, nullptr, kOptTrigger},
    {"trigger-dir", required_argument, nullptr, kOptTriggerDir},
    {"trigger-before", required_argument, nullptr, kOptTriggerBefore},
    {"trigger-after", required_argument, nullptr, kOptTriggerAfter},
    {"trigger-max-per-minute", required_argument, nullptr, kOptTriggerMaxPerMinute},
    {"metrics-listen", required_argument, nullptr, kOptMetricsListen},
    {"metrics-max-label-values", required_argument, nullptr, kOptMetricsMaxLabelValues},
    {"config", required_argument, nullptr, kOptConfig},
    {"no-config", no_argument, nullptr, kOptNoConfig},
    {"max-connections", required_argument, nullptr, kOptMaxConnections},
    {"max-subscribers", required_argument, nullptr, kOptMaxSubscribers},
    {"max-subscribers-per-user", required_argument, nullptr, kOptMaxSubscribersPerUser},
    {"memory-budget", required_argument, nullptr, kOptMemoryBudget},
    {nullptr, 0, nullptr, 0},
};

std::uint64_t number(const char* opt, const std::string& text, std::uint64_t min, std::uint64_t max) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v < min || v > max)
    throw Error("invalid value '" + text + "' for " + opt + " (expected a number from " +
                    std::to_string(min) + " to " + std::to_string(max) + ")",
                "see lnetcapd -h");
  return v;
}

// The config file named on the command line (before getopt runs, since
// the command line is applied on top of the file): --config FILE,
// --config=FILE, --no-config; else the default when it exists.
std::string config_path_from(int argc, char** argv) {
  std::string path;
  bool given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;
    if (a == "--no-config") {
      path.clear();
      given = true;
    } else if (a == "--config" && i + 1 < argc) {
      path = argv[++i];
      given = true;
    } else if (a.rfind("--config=", 0) == 0) {
      path = a.substr(9);
      given = true;
    }
  }
  if (!given && ::access(kDefaultConfigPath, F_OK) == 0) path = kDefaultConfigPath;
  return path;
}

}  // namespace

std::uint64_t parse_recorder_size(const char* opt, const std::string& text) {
  const auto v = parse_size(text, 1);
  if (!v || *v < 4096)
    throw Error("invalid size '" + text + "' for " + opt + " (expected bytes, or a number with k, M or G; at least 4k)",
                "e.g. 256M");
  return *v;
}

std::uint64_t parse_seconds_ns(const char* opt, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v > 0) || v > 7 * 86400.0)
    throw Error("invalid duration '" + text + "' for " + opt + " (expected seconds, more than 0, at most a week)",
                "e.g. 300 or 0.5");
  return static_cast<std::uint64_t>(v * 1e9 + 0.5);
}

DaemonOptions parse_daemon_options(int argc, char** argv) {
  DaemonOptions o;
  o.config_path = config_path_from(argc, argv);
  if (!o.config_path.empty()) {
    ConfigFile file(o.config_path);
    apply_config_file(file, o);
  }
  // One source on the command line replaces the file's.
  int command_line_sources = 0;
  bool command_line_listen = false;
  for (int i = 0; i < argc; ++i) o.source.command_line += (i ? " " : "") + std::string(argv[i]);
  optind = 0;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, kShortOptions, kLongOptions, nullptr)) != -1) {
    const std::string arg = optarg ? optarg : "";
    switch (c) {
      case 'B': o.source.buffer_kib = static_cast<std::uint32_t>(number("-B", arg, 4, 4u << 20)); break;
      case 'h': o.show_help = true; break;
      case 'v': ++o.source.verbose; break;  // libbpf's warnings (-v) and log (-vv)
      case 'i':
        o.source.interface = arg;
        o.source.read_file.clear();
        ++command_line_sources;
        break;
      case 'l':
        if (!command_line_listen) o.listen.clear();  // replaces [listen] endpoints
        command_line_listen = true;
        o.listen.push_back(arg);
        break;
      case 'r':
        o.source.read_file = arg;
        o.source.interface.clear();
        ++command_line_sources;
        break;
      case 's': o.source.snaplen = static_cast<std::uint32_t>(number("-s", arg, 0, 1u << 20)); break;
      case 'Z': o.source.drop_user = arg; break;
      case kOptVersion: o.show_version = true; break;
      case kOptRealtime: o.pacing.realtime = true; break;
      case kOptRate: o.pacing.records_per_second = static_cast<double>(number("--rate", arg, 1, 100000000)); break;
      case kOptGroup: o.group = arg; o.group_given = true; break;
      case kOptQueue: o.queue = static_cast<int>(number("--queue", arg, 1, 10000000)); break;
      case kOptWaitSubscribers: o.wait_subscribers = static_cast<unsigned>(number("--wait-subscribers", arg, 0, 10000)); break;
      case kOptLinger: o.linger_seconds = static_cast<unsigned>(number("--linger", arg, 0, 86400)); break;
      case kOptNode: o.node = arg; break;
      case kOptAllowInsecureTcp: o.allow_insecure_tcp = true; break;
      case kOptAuthorizedKeys: o.authorized_keys = arg; break;
      case kOptCurveKey: o.curve_key = arg; break;
      case kOptGenKey: o.gen_key = arg; break;
      case kOptAttach:
        if (arg != "auto" && arg != "fentry" && arg != "kprobe")
          throw Error("invalid attach mode '" + arg + "'", "use auto, fentry or kprobe");
        o.source.attach_mode = arg;
        break;
      case kOptBtf: o.source.btf_file = arg; break;
      case kOptPort: o.source.lnet_port = static_cast<std::uint16_t>(number("--port", arg, 1, 65535)); break;
      case kOptLocalNid: o.source.local_nid = arg; break;
      case kOptKeepServing: o.keep_serving = true; break;
      case kOptRecorderSize: o.recorder.max_bytes = parse_recorder_size("--recorder-size", arg); break;
      case kOptRecorderSeconds: o.recorder.max_ns = parse_seconds_ns("--recorder-seconds", arg); break;
      case kOptTrigger: o.trigger.filter = arg; break;
      case kOptTriggerDir: o.trigger.directory = arg; break;
      case kOptTriggerBefore: o.trigger.before_ns = parse_seconds_ns("--trigger-before", arg); break;
      case kOptTriggerAfter: o.trigger.after_ns = parse_seconds_ns("--trigger-after", arg); break;
      case kOptTriggerMaxPerMinute:
        o.trigger.max_per_minute = static_cast<unsigned>(number("--trigger-max-per-minute", arg, 1, 100000));
        break;
      case kOptMetricsListen: o.metrics.listen = arg; break;
      case kOptMetricsMaxLabelValues:
        o.metrics.max_label_values = static_cast<unsigned>(number("--metrics-max-label-values", arg, 1, 100000));
        break;
      case kOptConfig: case kOptNoConfig: break;  // read before the loop
      case kOptMaxConnections:
        o.limits.max_connections = static_cast<unsigned>(number("--max-connections", arg, 1, 1000000));
        break;
      case kOptMaxSubscribers:
        o.limits.max_subscribers = static_cast<unsigned>(number("--max-subscribers", arg, 1, 100000));
        break;
      case kOptMaxSubscribersPerUser:
        o.limits.max_per_user = static_cast<unsigned>(number("--max-subscribers-per-user", arg, 1, 100000));
        break;
      case kOptMemoryBudget: o.limits.memory_budget = parse_recorder_size("--memory-budget", arg); break;
      default: {
        const std::string bad = optopt ? std::string("-") + static_cast<char>(optopt)
                                       : std::string(argv[optind - 1]);
        throw Error("unknown option or missing value: " + bad, "see lnetcapd -h");
      }
    }
  }
  if (optind < argc)
    throw Error(std::string("unexpected argument '") + argv[optind] + "'",
                "lnetcapd takes no filter: each subscriber sends its own");
  if (command_line_sources > 1)
    throw Error("give one source: -r FILE or -i NAME, not both");
  if ((o.pacing.realtime || o.pacing.records_per_second > 0) && o.source.read_file.empty())
    throw Error("--realtime and --rate pace a replayed file (-r)");
  if (o.pacing.realtime && o.pacing.records_per_second > 0)
    throw Error("give --realtime or --rate, not both");
  if (o.allow_insecure_tcp && !o.authorized_keys.empty())
    throw Error("give --authorized-keys (CurveZMQ) or --allow-insecure-tcp, not both",
                o.config_path.empty() ? "" : "one of them may come from " + o.config_path);
  if (o.keep_serving && o.source.read_file.empty())
    throw Error("--keep-serving is for a replayed file (-r)", "a live capture serves until it is stopped");
  if (o.listen.empty()) o.listen.push_back("local");
  return o;
}

std::string daemon_usage_text() {
  return R"(Usage: lnetcapd [source options] [--listen ENDPOINT]... [daemon options]

Serve one LNet capture to many `lnetcap --from` subscribers, each with its own
filter and snap length evaluated here (docs/DAEMON.md).

Source (one; the live eBPF capture by default):
  -r, --read FILE          replay a capture file (lnetcap pcapng or a socklnd
                           TCP pcap), as fast as possible unless paced
      --realtime           replay at the speed it was recorded
      --rate N             replay N records per second
  -i, --interface NAME     as lnetcap -i: an LNet net/NID (eBPF) or a network
                           interface (socklnd traffic through libpcap)
  -s, --snapshot-length N  payload bytes captured per message
  -B, --buffer-size KIB    eBPF ring buffer size
      --attach MODE, --btf FILE, --port N, --local-nid NID   as for lnetcap
  -Z, --relinquish-privileges USER   run as USER once attached
  -v, --verbose            libbpf's warnings; -vv also the verifier's log
Daemon:
      --config FILE        read settings from FILE (default
                           /etc/lnetcap/lnetcapd.conf when it exists); the
                           command line overrides it; SIGHUP re-reads it
      --no-config          read no config file
  -l, --listen ENDPOINT    where subscribers connect (repeatable): "local"
                           (default: ipc:///run/lnetcap/lnetcapd.sock),
                           /path/to/socket, ipc://PATH or tcp://HOST:PORT
      --group NAME         group that may use an ipc socket (default
                           lnetcap, when it exists); the socket is mode 0660
      --authorized-keys FILE  TCP endpoints use CurveZMQ (authenticated,
                           encrypted) and admit only the client public keys
                           listed in FILE (one Z85 key a line, '#' comments);
                           an unknown key is refused and logged
      --curve-key FILE     the daemon's key pair (default
                           /var/lib/lnetcap/curve.key, made mode 0600 on
                           first start; clients need its public key)
      --gen-key FILE       write a new key pair to FILE (mode 0600), print
                           its public key and exit
      --allow-insecure-tcp listen on TCP without authentication: anyone who
                           can connect can read every message
      --queue N            messages (a record, or a batch of up to 64) queued
                           per subscriber before its records are dropped and
                           counted (default 1000)
      --wait-subscribers N start the source once N subscribers are there
      --linger SECS        after the source ends, how long a stopped
                           subscriber's end-of-stream may wait (default 10)
      --node NAME          node name subscribers put in interface
                           descriptions (default: the host name)
      --keep-serving       after the end of a replay, keep serving (dumps,
                           status, metrics) until SIGTERM/SIGINT
Bounds (docs/DAEMON.md, "What is bounded"):
      --max-connections N  connections at once (default 1024, at most the
                           file descriptor limit less 128)
      --max-subscribers N  subscriptions and dumps at once (default 64)
      --max-subscribers-per-user N  of one uid or CurveZMQ key (default 16)
      --memory-budget SIZE what subscribers' queues may hold together
                           (k, M, G; default 1G): each queue holds at most
                           SIZE / --max-subscribers bytes
Flight recorder (off unless a bound is given; docs/DAEMON.md):
      --recorder-size SIZE keep the newest records up to SIZE bytes (k, M, G)
      --recorder-seconds S keep the records of the last S seconds
      --trigger FILTER     save the window around every record FILTER
                           matches (lnetcap's filter language) to a file
      --trigger-dir DIR    where (default /var/lib/lnetcap/incidents)
      --trigger-before S, --trigger-after S   the window (default 10 and 5)
      --trigger-max-per-minute N   at most N files a minute (default 6);
                           other matches are counted as skipped
Metrics (off by default):
      --metrics-listen [ADDR:]PORT  serve Prometheus metrics over HTTP at
                           /metrics (PORT alone: every address)
      --metrics-max-label-values N  distinct peer and target labels kept
                           (default 256; later ones are "other")
  -h, --help               this text
      --version            print the version
)";
}

}  // namespace lnetcap::daemon
