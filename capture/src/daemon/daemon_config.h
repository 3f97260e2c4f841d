// SPDX-License-Identifier: GPL-2.0-or-later
// daemon_config.h - lnetcapd's config file (default /etc/lnetcap/lnetcapd.conf,
// docs/lnetcapd.8 CONFIGURATION): one small parser per [group], in a table,
// so another module adds its group ([recorder], [metrics]) with one function
// and one row.  The command line is applied on top of the file.
#pragma once

#include <string>
#include <vector>

#include "config_file.h"
#include "daemon.h"

namespace lnetcap::daemon {

constexpr char kDefaultConfigPath[] = "/etc/lnetcap/lnetcapd.conf";

struct ConfigSection {
  const char* group;
  void (*parse)(ConfigGroup& group, DaemonOptions& opts);
};

/// Every group lnetcapd knows, with its parser.
const std::vector<ConfigSection>& config_sections();

/// Runs every section's parser on `file` into `opts`, then refuses unknown
/// groups and keys.  Throws Error naming file, line and key.
void apply_config_file(ConfigFile& file, DaemonOptions& opts);

/// What a SIGHUP could not apply: "[group] key" of every setting that
/// differs between `running` and `reloaded` and needs a restart.
std::vector<std::string> settings_needing_restart(const DaemonOptions& running,
                                                  const DaemonOptions& reloaded);

}  // namespace lnetcap::daemon
