// SPDX-License-Identifier: GPL-2.0-or-later
// daemon_config.cpp - the groups of lnetcapd.conf (packaging/lnetcapd.conf
// is the commented example).  Key names are the long option names.
#include "daemon_config.h"

#include <pwd.h>

#include <charconv>

#include "../error.h"
#include "../filter/filter.h"
#include "recorder_config.h"

namespace lnetcap::daemon {
namespace {

void parse_source(ConfigGroup& g, DaemonOptions& o) {
  if (auto v = g.string("read")) o.source.read_file = *v;
  if (auto v = g.string("interface")) o.source.interface = *v;
  if (!o.source.read_file.empty() && !o.source.interface.empty())
    g.fail("interface", "give one source: read or interface, not both", "remove one of them");
  if (auto v = g.number("snapshot-length", 0, 1u << 20)) o.source.snaplen = static_cast<std::uint32_t>(*v);
  if (auto v = g.number("buffer-size", 4, 4u << 20)) o.source.buffer_kib = static_cast<std::uint32_t>(*v);
  if (auto v = g.string("attach")) {
    if (*v != "auto" && *v != "fentry" && *v != "kprobe")
      g.fail("attach", "'" + *v + "' is not an attach mode", "write auto, fentry or kprobe");
    o.source.attach_mode = *v;
  }
  if (auto v = g.string("btf")) o.source.btf_file = *v;
  if (auto v = g.number("port", 1, 65535)) o.source.lnet_port = static_cast<std::uint16_t>(*v);
  if (auto v = g.string("local-nid")) o.source.local_nid = *v;
  if (auto v = g.boolean("realtime")) o.pacing.realtime = *v;
  if (auto v = g.number("rate", 1, 100000000)) o.pacing.records_per_second = static_cast<double>(*v);
  if (auto v = g.string("user")) o.source.drop_user = *v;
  if (auto v = g.string("filter")) {
    try {
      filter::Filter::parse(*v);
    } catch (const Error& e) {
      g.fail("filter", e.what(), e.hint().empty() ? "see lnetcap(8), FILTER EXPRESSIONS" : e.hint());
    }
    o.source_filter = *v;
  }
}

void parse_listen(ConfigGroup& g, DaemonOptions& o) {
  if (auto v = g.list("endpoints")) {
    if (v->empty()) g.fail("endpoints", "no endpoint given", "write local, a socket path or tcp://HOST:PORT");
    o.listen = *v;
    o.listen_from_config = true;
  }
  if (auto v = g.string("group")) {
    o.group = *v;
    o.group_given = true;
  }
  if (auto v = g.string("node")) o.node = *v;
}

void parse_security(ConfigGroup& g, DaemonOptions& o) {
  if (auto v = g.string("authorized-keys")) o.authorized_keys = *v;
  if (auto v = g.string("curve-key")) o.curve_key = *v;
  if (auto v = g.boolean("allow-insecure-tcp")) o.allow_insecure_tcp = *v;
  if (o.allow_insecure_tcp && !o.authorized_keys.empty())
    g.fail("allow-insecure-tcp", "set together with authorized-keys",
           "give authorized-keys (CurveZMQ) or allow-insecure-tcp = true, not both");
}

void parse_subscribers(ConfigGroup& g, DaemonOptions& o) {
  if (auto v = g.number("queue", 1, 10000000)) o.queue = static_cast<int>(*v);
  if (auto v = g.number("wait-subscribers", 0, 10000)) o.wait_subscribers = static_cast<unsigned>(*v);
  if (auto v = g.number("linger", 0, 86400)) o.linger_seconds = static_cast<unsigned>(*v);
  if (auto v = g.boolean("anonymize-all")) o.anonymize.all = *v;
  if (auto v = g.list("anonymize-users"))
    for (const auto& name : *v) {
      uid_t uid = 0;
      auto [p, ec] = std::from_chars(name.data(), name.data() + name.size(), uid);
      if (ec == std::errc() && p == name.data() + name.size()) {
        o.anonymize.users.insert(uid);
      } else if (const passwd* pw = ::getpwnam(name.c_str())) {
        o.anonymize.users.insert(pw->pw_uid);
      } else {
        g.fail("anonymize-users", "no user '" + name + "'", "name existing users or uids, separated by ';'");
      }
    }
  if (auto v = g.list("anonymize-keys"))
    for (const auto& key : *v) {
      if (key.size() != 40)
        g.fail("anonymize-keys", "'" + key + "' is not a Z85 public key (40 characters)",
               "copy the key lnetcapd --gen-key printed, keys separated by ';'");
      o.anonymize.keys.insert(key);
    }
  if (auto v = g.string("anonymize-key")) o.anonymize.key_file = *v;
}

}  // namespace

const std::vector<ConfigSection>& config_sections() {
  static const std::vector<ConfigSection> sections = {
      {"source", parse_source},
      {"listen", parse_listen},
      {"security", parse_security},
      {"subscribers", parse_subscribers},
      {"recorder", parse_recorder_group},
      {"metrics", parse_metrics_group},
  };
  return sections;
}

void apply_config_file(ConfigFile& file, DaemonOptions& opts) {
  std::vector<std::string> known;
  for (const auto& s : config_sections()) {
    known.push_back(s.group);
    if (file.has_group(s.group)) {
      ConfigGroup g = file.group(s.group);
      s.parse(g, opts);
    }
  }
  file.refuse_unknown(known);
}

std::vector<std::string> settings_needing_restart(const DaemonOptions& a, const DaemonOptions& b) {
  std::vector<std::string> changed;
  auto check = [&](bool differs, const char* name) {
    if (differs) changed.push_back(name);
  };
  check(a.source.read_file != b.source.read_file, "[source] read");
  check(a.source.interface != b.source.interface, "[source] interface");
  check(a.source.snaplen != b.source.snaplen, "[source] snapshot-length");
  check(a.source.buffer_kib != b.source.buffer_kib, "[source] buffer-size");
  check(a.source.attach_mode != b.source.attach_mode, "[source] attach");
  check(a.source.btf_file != b.source.btf_file, "[source] btf");
  check(a.source.lnet_port != b.source.lnet_port, "[source] port");
  check(a.source.local_nid != b.source.local_nid, "[source] local-nid");
  check(a.source.drop_user != b.source.drop_user, "[source] user");
  check(a.source_filter != b.source_filter, "[source] filter");
  check(a.pacing.realtime != b.pacing.realtime, "[source] realtime");
  check(a.pacing.records_per_second != b.pacing.records_per_second, "[source] rate");
  check(a.listen != b.listen, "[listen] endpoints");
  check(a.group != b.group, "[listen] group");
  check(a.node != b.node, "[listen] node");
  // The authorized keys themselves are reloaded; turning CurveZMQ on or off is not.
  check(a.authorized_keys.empty() != b.authorized_keys.empty(), "[security] authorized-keys (on/off)");
  check(a.curve_key != b.curve_key, "[security] curve-key");
  check(a.allow_insecure_tcp != b.allow_insecure_tcp, "[security] allow-insecure-tcp");
  check(a.queue != b.queue, "[subscribers] queue");
  check(a.linger_seconds != b.linger_seconds, "[subscribers] linger");
  recorder_settings_needing_restart(a, b, changed);
  return changed;
}

}  // namespace lnetcap::daemon
