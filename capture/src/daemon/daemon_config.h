// SPDX-License-Identifier: GPL-2.0-or-later
// daemon_config.h - lnetcapd's config file (default /etc/lnetcap/lnetcapd.conf,
// docs/lnetcapd.8 CONFIGURATION): every [group] and key is a row of the
// settings table (daemon_settings.h).  The command line is applied on top
// of the file.
#pragma once

#include "config_file.h"
#include "daemon.h"

namespace lnetcap::daemon {

constexpr char kDefaultConfigPath[] = "/etc/lnetcap/lnetcapd.conf";

/// Reads every key of the settings table from `file` into `opts`, then
/// refuses unknown groups and keys.  Throws Error naming file, line and key.
void apply_config_file(ConfigFile& file, DaemonOptions& opts);

}  // namespace lnetcap::daemon
