// SPDX-License-Identifier: GPL-2.0-or-later
// daemon_options.cpp - lnetcapd's command line (getopt_long, as lnetcap's),
// its getopt tables made from the settings table (daemon_settings.h).
#include <unistd.h>

#include <map>

#include "../error.h"
#include "../getopt_table.h"
#include "daemon.h"
#include "daemon_config.h"
#include "daemon_settings.h"

namespace lnetcap::daemon {
namespace {

bool takes_argument(const DaemonSetting& s) {
  return s.kind != ValueKind::kFlag && s.kind != ValueKind::kCount;
}

const GetoptTable& getopt_table() {
  static const GetoptTable table = [] {
    std::vector<GetoptRow> rows;
    for (const auto& s : daemon_settings())
      rows.push_back({s.option, s.short_option, takes_argument(s) ? required_argument : no_argument});
    return GetoptTable(rows);
  }();
  return table;
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

DaemonOptions parse_daemon_options(int argc, char** argv) {
  DaemonOptions o;
  o.config_path = config_path_from(argc, argv);
  if (!o.config_path.empty()) {
    ConfigFile file(o.config_path);
    apply_config_file(file, o);
  }
  for (int i = 0; i < argc; ++i) o.source.command_line += (i ? " " : "") + std::string(argv[i]);
  const GetoptTable& table = getopt_table();
  std::map<std::string, int> given;  // times each option is on the command line
  optind = 0;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, table.short_options(), table.long_options(), nullptr)) != -1) {
    const int row = table.row(c);
    if (row < 0) throw Error("unknown option or missing value: " + table.refused(argv), "see lnetcapd -h");
    const DaemonSetting& s = daemon_settings()[static_cast<std::size_t>(row)];
    apply_option(s, optarg ? optarg : "", given[s.option]++ == 0, o);
  }
  if (optind < argc)
    throw Error(std::string("unexpected argument '") + argv[optind] + "'",
                "lnetcapd takes no filter: each subscriber sends its own");
  // One source on the command line replaces the file's.
  if (given["read"] + given["interface"] > 1) throw Error("give one source: -r FILE or -i NAME, not both");
  if (given["read"]) o.source.interface.clear();
  if (given["interface"]) o.source.read_file.clear();
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

}  // namespace lnetcap::daemon
