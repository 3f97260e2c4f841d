// SPDX-License-Identifier: GPL-2.0-or-later
// daemon_settings.h - every lnetcapd option and lnetcapd.conf setting, in
// one table: its option and config key, its kind of value and range, what
// a SIGHUP does with it and its line of `lnetcapd -h`.  The command line
// (daemon_options.cpp), the config file (daemon_config.cpp), the reload
// check and the usage text are all read from it, and a test checks the
// man page against it: a new setting is one row.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "config_file.h"
#include "daemon.h"

namespace lnetcap::daemon {

enum class ValueKind {
  kFlag,     // no value on the command line; true/false in the file
  kCount,    // repeatable flag counting up (-v, -vv); command line only
  kText,     // any text (a path, a name)
  kFilter,   // a filter expression, checked when read from the file
  kChoice,   // one of `choices`
  kNumber,   // a whole number from `min` to `max`
  kSize,     // bytes with k, M or G, at least `min`
  kSeconds,  // seconds (fractions allowed), at most `max`, kept as ns
  kList,     // repeatable option; a ';' list in the file
  kUsers,    // a list of local user names or uids
  kKeys,     // a list of Z85 public keys
};

enum class OnReload {
  kRestart,     // a change is named in "reload: not applied, restart lnetcapd for: ..."
  kApplied,     // SIGHUP applies it (daemon.cpp's reload())
  kSwitchNeedsRestart,  // its value is reloaded; turning it on or off needs a restart
};

/// `lnetcapd -h`'s sections, in order.
enum class UsageSection { kSource, kDaemon, kBounds, kRecorder, kMetrics, kGeneral };

/// Where a setting's value lives in DaemonOptions.
using SettingField = std::variant<std::string*, std::optional<std::string>*, bool*, int*, unsigned*, std::uint16_t*,
                                  std::optional<std::uint32_t>*, std::uint64_t*, double*,
                                  std::vector<std::string>*, std::set<uid_t>*, std::set<std::string>*>;

struct DaemonSetting {
  const char* option = nullptr;  // long option without "--"; nullptr: config file only
  char short_option = 0;         // 0: none
  const char* group = nullptr;   // [group] in lnetcapd.conf; nullptr: command line only
  const char* key = nullptr;     // its key there
  ValueKind kind = ValueKind::kText;
  std::uint64_t min = 0, max = 0;  // kNumber's range, kSize's range (max 0: any), kSeconds' most
  const char* choices = nullptr;   // kChoice: "auto, fentry or kprobe"
  const char* noun = nullptr;      // kChoice, kList: what one value is ("attach mode")
  const char* hint = nullptr;      // kList: what to write when the file's list is empty
  SettingField (*field)(DaemonOptions&) = nullptr;  // nullptr: handled by the parser itself
  OnReload on_reload = OnReload::kRestart;
  UsageSection section = UsageSection::kDaemon;
  const char* argument = nullptr;  // in the usage text: "FILE"; nullptr: none
  const char* help = nullptr;      // usage lines, '\n' between them
  /// "--queue", "-r" or "[subscribers] queue": how messages name it.
  std::string option_name() const;
  std::string config_name() const;
};

/// Every setting, in the order of `lnetcapd -h`.
const std::vector<DaemonSetting>& daemon_settings();
/// The row of a long option name ("read"), or nullptr.
const DaemonSetting* find_setting(const std::string& option);

/// Sets `s` from its option's argument ("" for a flag).  `first` is true
/// for the first occurrence of a list option, which then replaces the
/// config file's list.  Throws Error naming the option.
void apply_option(const DaemonSetting& s, const std::string& argument, bool first, DaemonOptions& o);
/// Sets `s` from its key in `g` when the key is there.  Throws Error
/// naming the file, line and key.
void apply_config_key(const DaemonSetting& s, ConfigGroup& g, DaemonOptions& o);

/// What a SIGHUP could not apply: "[group] key" of every setting that
/// differs between `running` and `reloaded` and needs a restart.
std::vector<std::string> settings_needing_restart(const DaemonOptions& running,
                                                  const DaemonOptions& reloaded);

}  // namespace lnetcap::daemon
