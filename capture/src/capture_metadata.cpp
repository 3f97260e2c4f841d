// SPDX-License-Identifier: GPL-2.0-or-later
#include "capture_metadata.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>

#include "live/lustre_env.h"
#include "version.h"

namespace lnetcap {

std::string host_name() {
  struct utsname u;
  return uname(&u) == 0 ? u.nodename : "unknown-host";
}

std::vector<std::string> capture_metadata(const Options& opts, bool live) {
  std::vector<std::string> c;
  c.push_back(std::string("lnetcap ") + LNETCAP_VERSION);
  struct utsname u;
  if (live) {
    if (!opts.anonymize && uname(&u) == 0) c.push_back(std::string("host: ") + u.nodename);
    if (uname(&u) == 0) c.push_back(std::string("kernel: ") + u.release + " " + u.machine);
    c.push_back("lustre: " + live::describe_lustre(live::detect_lustre()));
  }
  if (!opts.anonymize) c.push_back("command: " + opts.command_line);
  if (!opts.filter.empty()) c.push_back("filter: " + opts.filter);
  if (opts.anonymize)
    c.push_back("anonymized by lnetcap: NIDs, jobids, uids/gids/projids and names replaced, bulk "
                "data dropped (docs/ANONYMIZE.md)");
  return c;
}

}  // namespace lnetcap
