// SPDX-License-Identifier: GPL-2.0-or-later
// lustre_env.h - what the running kernel offers lnetcap: is LNet loaded,
// which Lustre version, does the lnet module have BTF, is the lnetcap_kfunc
// payload module loaded, can kprobes be used, and the local NIs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lnetcap::live {

struct LustreEnv {
  bool lnet_loaded = false;       // /sys/module/lnet
  std::string version;            // Lustre release "2.16.1", empty when unknown
  std::string version_source;     // where version came from
  std::string lnet_version;       // /sys/module/lnet/version: "0.7.0" up to 2.17.53,
                                  // the Lustre release from 2.17.54
  bool lnet_btf = false;          // /sys/kernel/btf/lnet
  std::string lnet_debuginfo;     // the lnet module's debuginfo file, when installed
  bool kfunc_module = false;      // /sys/kernel/btf/lnetcap_kfunc
  bool kprobes = false;           // kprobe PMU or tracefs kprobe_events
};

/// Probes /sys, /proc and tracefs (root defaults to "/"; tests pass a fake tree).
/// The Lustre release comes from the lnet module when it publishes one
/// (/sys/module/lnet/version, 2.17.54 and later), else from where Lustre
/// publishes it (/sys/fs/lustre/version, /proc/fs/lustre/version, `lctl
/// get_param -n version`).  An LNet-only node (a router) of 2.17.53 or
/// older has none: its lnet module says "0.7.0".
LustreEnv detect_lustre(const std::string& root = "/");

/// "2.16.1", or "none (LNet only, lnet 0.7.0)", or "not loaded": for
/// capture metadata and -D.
std::string describe_lustre(const LustreEnv& env);

struct LocalNi {
  std::string nid;     // "10.0.0.1@tcp"
  std::string status;  // "up", "down"
};

/// Parses Lustre's /sys/kernel/debug/lnet/nis table (one row per NI and
/// CPT; rows of the same NID are merged, the header row is skipped).
std::vector<LocalNi> parse_nis_table(std::string_view text);
/// The local NIs from debugfs (root + sys/kernel/debug/lnet/nis), else
/// from `lnetctl net show`; empty when neither is readable.
std::vector<LocalNi> list_local_nis(const std::string& root = "/");

}  // namespace lnetcap::live
