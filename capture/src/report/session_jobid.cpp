// SPDX-License-Identifier: GPL-2.0-or-later
#include "session_jobid.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>

#include "error.h"

namespace lnetcap::report {

namespace {

// The first line of a sysfs file; nullopt when it cannot be read.
std::optional<std::string> read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

}  // namespace

std::string lustre_sysfs_dir() {
  const char* dir = std::getenv("LNETCAP_LUSTRE_SYSFS");
  return dir && *dir ? dir : "/sys/fs/lustre";
}

std::string session_jobid_file() {
  const std::string dir = lustre_sysfs_dir();
  const auto var = read_line(dir + "/jobid_var");
  if (!var)
    throw Error("--only-command: no Lustre client here (" + dir + "/jobid_var is missing)",
                "load Lustre, or drop --only-command to count all traffic");
  if (*var != "session")
    throw Error("--only-command needs Lustre's per-session jobids, but jobid_var is '" + *var + "'",
                "lctl set_param jobid_var=session (other processes then get jobid_name, "
                "%e.%u by default)");
  if (const auto name = read_line(dir + "/jobid_name"); name && name->find("%j") != std::string::npos)
    throw Error("--only-command: jobid_name '" + *name + "' holds %j, which turns per-session jobids off",
                "lctl set_param jobid_name=%e.%u");
  const std::string file = dir + "/jobid_this_session";
  if (access(file.c_str(), F_OK) != 0)
    throw Error("--only-command: this Lustre has no " + file, "per-session jobids need Lustre 2.13 or later");
  return file;
}

std::string command_jobid(int lnetcap_pid) { return "lnetcap." + std::to_string(lnetcap_pid); }

}  // namespace lnetcap::report
