// SPDX-License-Identifier: GPL-2.0-or-later
// daemon_settings.cpp - the table of lnetcapd's settings, and the reading
// of one value from the command line or the config file by its row.
#include "daemon_settings.h"

#include <pwd.h>

#include <charconv>
#include <stdexcept>
#include <type_traits>

#include "../error.h"
#include "../filter/filter.h"
#include "../option_values.h"

namespace lnetcap::daemon {
namespace {

// Where a row's value lives (a captureless lambda, so the row stays a constant).
#define FIELD(member) [](DaemonOptions& o) -> SettingField { return &o.member; }

using K = ValueKind;
using S = UsageSection;
constexpr std::uint64_t kWeek = 7 * 86400;
// Memory sizes (--recorder-size, --memory-budget): the daemon holds them
// in RAM, so a size no node has is a mistake (99999999G was taken before).
constexpr std::uint64_t kMaxMemorySize = 1024ull << 30;

const std::vector<DaemonSetting> kSettings = {
    // Source
    {.option = "read", .short_option = 'r', .group = "source", .key = "read", .field = FIELD(source.read_file),
     .section = S::kSource, .argument = "FILE",
     .help = "replay a capture file (lnetcap pcapng or a socklnd\nTCP pcap), as fast as possible unless paced"},
    {.option = "realtime", .group = "source", .key = "realtime", .kind = K::kFlag, .field = FIELD(pacing.realtime),
     .section = S::kSource, .help = "replay at the speed it was recorded"},
    {.option = "rate", .group = "source", .key = "rate", .kind = K::kNumber, .min = 1, .max = 100000000,
     .field = FIELD(pacing.records_per_second), .section = S::kSource, .argument = "N",
     .help = "replay N records per second"},
    {.option = "interface", .short_option = 'i', .group = "source", .key = "interface",
     .field = FIELD(source.interface), .section = S::kSource, .argument = "NAME",
     .help = "as lnetcap -i: an LNet net/NID (eBPF) or a network\ninterface (socklnd traffic through libpcap)"},
    {.option = "snapshot-length", .short_option = 's', .group = "source", .key = "snapshot-length",
     .kind = K::kNumber, .min = 0, .max = 1u << 20, .field = FIELD(source.snaplen), .section = S::kSource,
     .argument = "N", .help = "payload bytes captured per message"},
    {.option = "buffer-size", .short_option = 'B', .group = "source", .key = "buffer-size", .kind = K::kNumber,
     .min = 4, .max = 4u << 20, .field = FIELD(source.buffer_kib), .section = S::kSource, .argument = "KIB",
     .help = "eBPF ring buffer size"},
    {.option = "attach", .group = "source", .key = "attach", .kind = K::kChoice, .choices = "auto, fentry or kprobe",
     .noun = "attach mode", .field = FIELD(source.attach_mode), .section = S::kSource, .argument = "MODE",
     .help = "auto (default), fentry or kprobe, as for lnetcap"},
    {.option = "btf", .group = "source", .key = "btf", .field = FIELD(source.btf_file), .section = S::kSource,
     .argument = "FILE", .help = "BTF of the lnet module, as for lnetcap"},
    {.option = "port", .group = "source", .key = "port", .kind = K::kNumber, .min = 1, .max = 65535,
     .field = FIELD(source.lnet_port), .section = S::kSource, .argument = "N",
     .help = "socklnd TCP port (default 988), as for lnetcap"},
    {.option = "bulk-port", .group = "source", .key = "bulk-port", .kind = K::kNumber, .min = 1, .max = 65535,
     .field = FIELD(source.lnet_bulk_port), .section = S::kSource, .argument = "N",
     .help = "socklnd's bulk port (Lustre 2.17 accept_port_bulk), as for lnetcap"},
    {.option = "local-nid", .group = "source", .key = "local-nid", .field = FIELD(source.local_nid),
     .section = S::kSource, .argument = "NID", .help = "direction of imported TCP traffic relative to NID"},
    {.option = "relinquish-privileges", .short_option = 'Z', .group = "source", .key = "user",
     .field = FIELD(source.drop_user), .section = S::kSource, .argument = "USER",
     .help = "run as USER once attached"},
    {.option = "verbose", .short_option = 'v', .kind = K::kCount, .field = FIELD(source.verbose),
     .section = S::kSource, .help = "libbpf's warnings; -vv also the verifier's log"},
    // What the daemon captures at all, for every subscriber (config file only).
    {.group = "source", .key = "filter", .kind = K::kFilter, .field = FIELD(source_filter), .section = S::kSource},
    {.option = "config", .field = nullptr, .section = S::kDaemon, .argument = "FILE",
     .help = "read settings from FILE (default\n/etc/lnetcap/lnetcapd.conf when it exists); the\n"
             "command line overrides it; SIGHUP re-reads it"},
    {.option = "no-config", .kind = K::kFlag, .field = nullptr, .section = S::kDaemon,
     .help = "read no config file"},
    {.option = "listen", .short_option = 'l', .group = "listen", .key = "endpoints", .kind = K::kList,
     .noun = "endpoint", .hint = "write local, a socket path or tcp://HOST:PORT", .field = FIELD(listen),
     .section = S::kDaemon, .argument = "ENDPOINT",
     .help = "where subscribers connect (repeatable): \"local\"\n(default: ipc:///run/lnetcap/lnetcapd.sock),\n"
             "/path/to/socket, ipc://PATH or tcp://HOST:PORT"},
    {.option = "group", .group = "listen", .key = "group", .field = FIELD(group), .section = S::kDaemon,
     .argument = "NAME",
     .help = "group that may use an ipc socket (default\nlnetcap, when it exists); the socket is mode 0660"},
    {.option = "authorized-keys", .group = "security", .key = "authorized-keys", .field = FIELD(authorized_keys),
     .on_reload = OnReload::kSwitchNeedsRestart, .section = S::kDaemon, .argument = "FILE",
     .help = "TCP endpoints use CurveZMQ (authenticated,\nencrypted) and admit only the client public keys\n"
             "listed in FILE (one Z85 key a line, '#' comments);\nan unknown key is refused and logged"},
    {.option = "curve-key", .group = "security", .key = "curve-key", .field = FIELD(curve_key),
     .section = S::kDaemon, .argument = "FILE",
     .help = "the daemon's key pair (default\n/var/lib/lnetcap/curve.key, made mode 0600 on\n"
             "first start; clients need its public key)"},
    {.option = "gen-key", .field = FIELD(gen_key), .section = S::kDaemon, .argument = "FILE",
     .help = "write a new key pair to FILE (mode 0600), print\nits public key and exit"},
    {.option = "allow-insecure-tcp", .group = "security", .key = "allow-insecure-tcp", .kind = K::kFlag,
     .field = FIELD(allow_insecure_tcp), .section = S::kDaemon,
     .help = "listen on TCP without authentication: anyone who\ncan connect can read every message"},
    {.option = "queue", .group = "subscribers", .key = "queue", .kind = K::kNumber, .min = 1, .max = 10000000,
     .field = FIELD(queue), .section = S::kDaemon, .argument = "N",
     .help = "messages (a record, or a batch of up to 64) queued\nper subscriber before its records are dropped and\n"
             "counted (default 1000)"},
    {.option = "wait-subscribers", .group = "subscribers", .key = "wait-subscribers", .kind = K::kNumber,
     .min = 0, .max = 10000, .field = FIELD(wait_subscribers), .section = S::kDaemon, .argument = "N",
     .help = "start the source once N subscribers are there"},
    {.option = "linger", .group = "subscribers", .key = "linger", .kind = K::kNumber, .min = 0, .max = 86400,
     .field = FIELD(linger_seconds), .section = S::kDaemon, .argument = "SECS",
     .help = "after the source ends, how long a stopped\nsubscriber's end-of-stream may wait (default 10)"},
    {.option = "node", .group = "listen", .key = "node", .field = FIELD(node), .section = S::kDaemon,
     .argument = "NAME", .help = "node name subscribers put in interface\ndescriptions (default: the host name)"},
    {.option = "keep-serving", .group = "source", .key = "keep-serving", .kind = K::kFlag,
     .field = FIELD(keep_serving), .section = S::kDaemon,
     .help = "after the end of a replay, keep serving (dumps,\nstatus, metrics) until SIGTERM/SIGINT"},

    // Daemon
    // Who is forced through the anonymizer (config file only; SIGHUP applies them).
    {.group = "subscribers", .key = "anonymize-all", .kind = K::kFlag, .field = FIELD(anonymize.all),
     .on_reload = OnReload::kApplied},
    {.group = "subscribers", .key = "anonymize-users", .kind = K::kUsers, .field = FIELD(anonymize.users),
     .on_reload = OnReload::kApplied},
    {.group = "subscribers", .key = "anonymize-keys", .kind = K::kKeys, .field = FIELD(anonymize.keys),
     .on_reload = OnReload::kApplied},
    {.group = "subscribers", .key = "anonymize-key", .field = FIELD(anonymize.key_file),
     .on_reload = OnReload::kApplied},

    // Bounds
    {.option = "max-connections", .group = "subscribers", .key = "max-connections", .kind = K::kNumber, .min = 1,
     .max = 1000000, .field = FIELD(limits.max_connections), .section = S::kBounds, .argument = "N",
     .help = "connections at once (default 1024, at most what\nthe file descriptor limit leaves; 8 more for\nroot and lnetcapd's own user)"},
    {.option = "max-subscribers", .group = "subscribers", .key = "max-subscribers", .kind = K::kNumber, .min = 1,
     .max = 100000, .field = FIELD(limits.max_subscribers), .section = S::kBounds, .argument = "N",
     .help = "subscriptions and dumps at once (default 64)"},
    {.option = "max-subscribers-per-user", .group = "subscribers", .key = "max-subscribers-per-user",
     .kind = K::kNumber, .min = 1, .max = 100000, .field = FIELD(limits.max_per_user), .section = S::kBounds,
     .argument = "N", .help = "of one uid or CurveZMQ key (default 16)"},
    {.option = "memory-budget", .group = "subscribers", .key = "memory-budget", .kind = K::kSize, .min = 4096,
     .max = kMaxMemorySize, .field = FIELD(limits.memory_budget), .section = S::kBounds, .argument = "SIZE",
     .help = "what subscribers' queues may hold together\n(k, M, G; default 1G): each queue holds at most\n"
             "SIZE / --max-subscribers bytes"},

    // Flight recorder
    {.option = "recorder-size", .group = "recorder", .key = "size", .kind = K::kSize, .min = 4096,
     .max = kMaxMemorySize, .field = FIELD(recorder.max_bytes), .section = S::kRecorder, .argument = "SIZE",
     .help = "keep the newest records up to SIZE bytes (k, M, G;\nat most 1024G)"},
    {.option = "recorder-seconds", .group = "recorder", .key = "seconds", .kind = K::kSeconds, .max = kWeek,
     .field = FIELD(recorder.max_ns), .section = S::kRecorder, .argument = "S",
     .help = "keep the records of the last S seconds"},
    {.option = "trigger", .group = "recorder", .key = "trigger", .kind = K::kFilter, .field = FIELD(trigger.filter),
     .section = S::kRecorder, .argument = "FILTER",
     .help = "save the window around every record FILTER\nmatches (lnetcap's filter language) to a file"},
    {.option = "trigger-dir", .group = "recorder", .key = "trigger-dir", .field = FIELD(trigger.directory),
     .section = S::kRecorder, .argument = "DIR", .help = "where (default /var/lib/lnetcap/incidents)"},
    {.option = "trigger-before", .group = "recorder", .key = "trigger-before", .kind = K::kSeconds, .max = kWeek,
     .field = FIELD(trigger.before_ns), .section = S::kRecorder, .argument = "S",
     .help = "the window: seconds before a match (default 10)"},
    {.option = "trigger-after", .group = "recorder", .key = "trigger-after", .kind = K::kSeconds, .max = kWeek,
     .field = FIELD(trigger.after_ns), .section = S::kRecorder, .argument = "S",
     .help = "and seconds after it (default 5)"},
    {.option = "trigger-max-per-minute", .group = "recorder", .key = "trigger-max-per-minute", .kind = K::kNumber,
     .min = 1, .max = 100000, .field = FIELD(trigger.max_per_minute), .section = S::kRecorder, .argument = "N",
     .help = "at most N files a minute (default 6);\nother matches are counted as skipped"},

    // Metrics
    {.option = "metrics-listen", .group = "metrics", .key = "listen", .field = FIELD(metrics.listen),
     .section = S::kMetrics, .argument = "[ADDR:]PORT",
     .help = "serve Prometheus metrics over HTTP at\n/metrics (PORT alone: every address)"},
    {.option = "metrics-max-label-values", .group = "metrics", .key = "max-label-values", .kind = K::kNumber,
     .min = 1, .max = 100000, .field = FIELD(metrics.max_label_values), .section = S::kMetrics, .argument = "N",
     .help = "distinct peer and target labels kept\n(default 256; later ones are \"other\")"},

    {.option = "help", .short_option = 'h', .kind = K::kFlag, .field = FIELD(show_help), .section = S::kGeneral,
     .help = "this text"},
    {.option = "version", .kind = K::kFlag, .field = FIELD(show_version), .section = S::kGeneral,
     .help = "print the version"},
};

#undef FIELD

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// "auto, fentry or kprobe" holds "fentry".
bool is_choice(const char* choices, const std::string& text) {
  std::string word;
  for (const char* p = choices;; ++p) {
    if (*p && *p != ',' && *p != ' ') {
      word += *p;
      continue;
    }
    if (!word.empty() && word != "or" && word == text) return true;
    word.clear();
    if (!*p) return false;
  }
}

std::string article(const std::string& noun) {
  return std::string(noun.find_first_of("aeiou") == 0 ? "an " : "a ") + noun;
}

// One bad value, in the words of where it was written: the command line
// ("invalid value 'x' for --queue (expected ...)") or the file, whose
// ConfigGroup::fail adds "FILE:LINE: [group] key: ".
[[noreturn]] void refuse(const DaemonSetting& s, const std::string& text, ConfigGroup* file) {
  const std::string for_option = file ? "" : " for " + s.option_name();
  switch (s.kind) {
    case K::kNumber: {
      const std::string range = number_range_text(s.min, s.max);
      if (file) file->fail(s.key, "'" + text + "' is not " + range, "write a whole number in that range");
      throw Error("invalid value '" + text + "'" + for_option + " (expected " + range + ")", "see lnetcapd -h");
    }
    case K::kSize: {
      const std::string what = "invalid size '" + text + "'" + for_option +
                               " (expected bytes, or a number with k, M or G; at least " +
                               std::to_string(s.min / 1024) + "k" +
                               (s.max ? ", at most " + std::to_string(s.max >> 30) + "G" : std::string()) + ")";
      if (file) file->fail(s.key, what, "e.g. 256M");
      throw Error(what, "e.g. 256M");
    }
    case K::kSeconds: {
      const std::string what = "invalid duration '" + text + "'" + for_option +
                               " (expected seconds, more than 0, at most " +
                               (s.max == kWeek ? std::string("a week") : std::to_string(s.max)) + ")";
      if (file) file->fail(s.key, what, "e.g. 300 or 0.5");
      throw Error(what, "e.g. 300 or 0.5");
    }
    case K::kChoice:
      if (file) file->fail(s.key, "'" + text + "' is not " + article(s.noun), std::string("write ") + s.choices);
      throw Error("invalid " + std::string(s.noun) + " '" + text + "'" + for_option, std::string("use ") + s.choices);
    default:
      throw std::logic_error(std::string("no message for a bad value of ") + s.option_name());
  }
}

// Sets a row's field from a parsed value of the field's own kind.
void set_number(const DaemonSetting& s, DaemonOptions& o, std::uint64_t v) {
  std::visit(
      [&](auto* p) {
        using T = std::remove_pointer_t<decltype(p)>;
        if constexpr (std::is_same_v<T, std::optional<std::uint32_t>>) {
          *p = static_cast<std::uint32_t>(v);
        } else if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
          *p = static_cast<T>(v);  // the row's range fits T
        } else {
          throw std::logic_error(s.option_name() + " is not a number field");
        }
      },
      s.field(o));
}

template <typename T>
T& field_of(const DaemonSetting& s, DaemonOptions& o) {
  SettingField f = s.field(o);
  T** p = std::get_if<T*>(&f);
  if (!p) throw std::logic_error(s.option_name() + ": the field's type does not match its kind");
  return **p;
}

// Text into a string, or into an optional one (unset: the default applies).
void set_text(const DaemonSetting& s, DaemonOptions& o, const std::string& text) {
  SettingField f = s.field(o);
  if (auto** p = std::get_if<std::optional<std::string>*>(&f))
    **p = text;
  else
    field_of<std::string>(s, o) = text;
}

// A number, size, duration or choice: checked, then set.
void set_checked(const DaemonSetting& s, const std::string& text, ConfigGroup* file, DaemonOptions& o) {
  switch (s.kind) {
    case K::kNumber:
      if (auto v = parse_whole_number(text, s.min, s.max)) return set_number(s, o, *v);
      break;
    case K::kSize:
      if (auto v = parse_size(text, 1); v && *v >= s.min && (!s.max || *v <= s.max)) return set_number(s, o, *v);
      break;
    case K::kSeconds:
      if (auto v = parse_seconds_ns(text, static_cast<double>(s.max))) return set_number(s, o, *v);
      break;
    case K::kChoice:
      if (is_choice(s.choices, text)) {
        field_of<std::string>(s, o) = text;
        return;
      }
      break;
    default:
      throw std::logic_error(s.option_name() + " is not a checked value");
  }
  refuse(s, text, file);
}

}  // namespace

std::string DaemonSetting::option_name() const {
  if (option) return std::string("--") + option;
  return config_name();
}

std::string DaemonSetting::config_name() const {
  if (!group) return option_name();
  return "[" + std::string(group) + "] " + key;
}

const std::vector<DaemonSetting>& daemon_settings() { return kSettings; }

const DaemonSetting* find_setting(const std::string& option) {
  for (const auto& s : kSettings)
    if (s.option && option == s.option) return &s;
  return nullptr;
}

void apply_option(const DaemonSetting& s, const std::string& argument, bool first, DaemonOptions& o) {
  if (!s.field) return;  // --config and --no-config: read before the command line
  switch (s.kind) {
    case K::kFlag: field_of<bool>(s, o) = true; break;
    case K::kCount: ++field_of<int>(s, o); break;
    case K::kText:
    case K::kFilter:  // a bad --trigger is refused when the trigger starts
      set_text(s, o, argument);
      break;
    case K::kList: {
      auto& list = field_of<std::vector<std::string>>(s, o);
      if (first) list.clear();  // the command line's list replaces the file's
      list.push_back(argument);
      break;
    }
    case K::kUsers:
    case K::kKeys: throw std::logic_error(s.config_name() + " has no option");
    default: set_checked(s, argument, nullptr, o);
  }
}

void apply_config_key(const DaemonSetting& s, ConfigGroup& g, DaemonOptions& o) {
  switch (s.kind) {
    case K::kFlag:
      if (auto v = g.boolean(s.key)) field_of<bool>(s, o) = *v;
      return;
    case K::kCount: throw std::logic_error(s.option_name() + " has no config key");
    case K::kText:
      if (auto v = g.string(s.key)) set_text(s, o, *v);
      return;
    case K::kFilter:
      if (auto v = g.string(s.key)) {
        try {
          filter::Filter::parse(*v);  // a bad filter stops the daemon here, naming the file's line
        } catch (const Error& e) {
          g.fail(s.key, e.what(), e.hint().empty() ? "see lnetcap(8), FILTER EXPRESSIONS" : e.hint());
        }
        set_text(s, o, *v);
      }
      return;
    case K::kList:
      if (auto v = g.list(s.key)) {
        if (v->empty()) g.fail(s.key, "no " + std::string(s.noun) + " given", s.hint ? s.hint : "");
        field_of<std::vector<std::string>>(s, o) = *v;
      }
      return;
    case K::kUsers:
      if (auto v = g.list(s.key))
        for (const auto& name : *v) {
          uid_t uid = 0;
          auto [p, ec] = std::from_chars(name.data(), name.data() + name.size(), uid);
          if (ec == std::errc() && p == name.data() + name.size()) {
            field_of<std::set<uid_t>>(s, o).insert(uid);
          } else if (const passwd* pw = ::getpwnam(name.c_str())) {
            field_of<std::set<uid_t>>(s, o).insert(pw->pw_uid);
          } else {
            g.fail(s.key, "no user '" + name + "'", "name existing users or uids, separated by ';'");
          }
        }
      return;
    case K::kKeys:
      if (auto v = g.list(s.key))
        for (const auto& key : *v) {
          if (key.size() != 40)
            g.fail(s.key, "'" + key + "' is not a Z85 public key (40 characters)",
                   "copy the key lnetcapd --gen-key printed, keys separated by ';'");
          field_of<std::set<std::string>>(s, o).insert(key);
        }
      return;
    default:
      if (auto v = g.string(s.key)) set_checked(s, trimmed(*v), &g, o);
  }
}

std::vector<std::string> settings_needing_restart(const DaemonOptions& running, const DaemonOptions& reloaded) {
  // Copies: a row's field accessor hands out a pointer it may write through.
  DaemonOptions a = running, b = reloaded;
  std::vector<std::string> changed;
  for (const auto& s : kSettings) {
    if (!s.field || s.on_reload == OnReload::kApplied) continue;
    const SettingField fa = s.field(a), fb = s.field(b);
    if (s.on_reload == OnReload::kSwitchNeedsRestart) {
      if (std::get<std::string*>(fa)->empty() != std::get<std::string*>(fb)->empty())
        changed.push_back(s.config_name() + " (on/off)");
      continue;
    }
    const bool differs = std::visit(
        [&](auto* pa) {
          auto* pb = std::get<decltype(pa)>(fb);
          return !(*pa == *pb);
        },
        fa);
    if (differs) changed.push_back(s.config_name());
  }
  return changed;
}

}  // namespace lnetcap::daemon
