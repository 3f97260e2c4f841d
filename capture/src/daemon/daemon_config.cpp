// SPDX-License-Identifier: GPL-2.0-or-later
// daemon_config.cpp - lnetcapd.conf read through the settings table
// (packaging/lnetcapd.conf is the commented example).
#include "daemon_config.h"

#include <algorithm>
#include <string>
#include <vector>

#include "daemon_settings.h"

namespace lnetcap::daemon {
namespace {

// What one group's keys must agree on, checked once the group is read,
// naming the line of the key that conflicts.
void check_group(ConfigGroup& g, const DaemonOptions& o) {
  if (g.name() == "source" && !o.source.read_file.empty() && !o.source.interface.empty())
    g.fail("interface", "give one source: read or interface, not both", "remove one of them");
  if (g.name() == "security" && o.allow_insecure_tcp && !o.authorized_keys.empty())
    g.fail("allow-insecure-tcp", "set together with authorized-keys",
           "give authorized-keys (CurveZMQ) or allow-insecure-tcp = true, not both");
}

}  // namespace

void apply_config_file(ConfigFile& file, DaemonOptions& opts) {
  std::vector<std::string> groups;  // in the table's order
  for (const auto& s : daemon_settings())
    if (s.group && std::find(groups.begin(), groups.end(), s.group) == groups.end()) groups.push_back(s.group);
  for (const auto& name : groups) {
    if (!file.has_group(name.c_str())) continue;
    ConfigGroup g = file.group(name.c_str());
    for (const auto& s : daemon_settings())
      if (s.group && name == s.group) apply_config_key(s, g, opts);
    check_group(g, opts);
  }
  file.refuse_unknown(groups);
}

}  // namespace lnetcap::daemon
