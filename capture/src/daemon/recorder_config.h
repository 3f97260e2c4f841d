// SPDX-License-Identifier: GPL-2.0-or-later
// recorder_config.h - the [recorder] and [metrics] groups of lnetcapd.conf
// (daemon_config.h's table has a row for each).  Key names are the long
// options without their prefix: [recorder] size = 256M is --recorder-size.
#pragma once

#include <string>
#include <vector>

#include "config_file.h"
#include "daemon.h"

namespace lnetcap::daemon {

void parse_recorder_group(ConfigGroup& group, DaemonOptions& opts);
void parse_metrics_group(ConfigGroup& group, DaemonOptions& opts);
/// SIGHUP: the recorder's and metrics' settings that differ (all need a restart).
void recorder_settings_needing_restart(const DaemonOptions& running, const DaemonOptions& reloaded,
                                       std::vector<std::string>& changed);

}  // namespace lnetcap::daemon
