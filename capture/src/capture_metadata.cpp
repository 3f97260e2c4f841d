// SPDX-License-Identifier: GPL-2.0-or-later
#include "capture_metadata.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>

#include "version.h"

namespace lnetcap {
namespace {
// A -F file keeps its line breaks (for error positions): one line here.
std::string one_line(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (!space) out += c;
    else if (!out.empty() && out.back() != ' ') out += ' ';
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

constexpr const char* kAnonymizedNote =
    "anonymized by lnetcap: NIDs, jobids, uids/gids/projids and names replaced, bulk "
    "data dropped (docs/ANONYMIZE.md)";
}  // namespace

std::string host_name() {
  struct utsname u;
  return uname(&u) == 0 ? u.nodename : "unknown-host";
}

std::string lustre_version() {
  // The lnet module's version (DKMS/kmod builds set MODULE_VERSION), else
  // the version Lustre publishes in procfs/sysfs.
  for (const char* path : {"/sys/module/lnet/version", "/sys/fs/lustre/version", "/proc/fs/lustre/version"}) {
    std::ifstream in(path);
    std::string line;
    if (in && std::getline(in, line) && !line.empty()) {
      const auto colon = line.find(':');  // "lustre: 2.16.1" in procfs
      if (colon != std::string::npos) line = line.substr(line.find_first_not_of(' ', colon + 1));
      return line;
    }
  }
  return {};
}

std::vector<std::string> capture_metadata(const Options& opts, bool live,
                                          const pcapng::SectionInfo* original) {
  std::vector<std::string> c;
  if (original) {
    // The capture's own story first; an anonymized copy keeps none of it
    // (it names hosts and command lines).
    if (!opts.anonymize) {
      c = original->comments;
      std::string made_by = original->user_appl;
      for (const std::string* s : {&original->os, &original->hardware})
        if (!s->empty()) made_by += (made_by.empty() ? "" : ", ") + *s;
      if (!made_by.empty()) c.push_back("written by: " + made_by);
    }
    std::string step = std::string("rewritten by lnetcap ") + LNETCAP_VERSION;
    if (!opts.anonymize) step += " on " + host_name() + ": " + opts.command_line;
    c.push_back(step);
    if (!opts.filter.empty()) c.push_back("filter: " + one_line(opts.filter));
    if (opts.anonymize) c.push_back(kAnonymizedNote);
    return c;
  }
  c.push_back(std::string("lnetcap ") + LNETCAP_VERSION);
  struct utsname u;
  if (live) {
    if (!opts.anonymize && uname(&u) == 0) c.push_back(std::string("host: ") + u.nodename);
    if (uname(&u) == 0) c.push_back(std::string("kernel: ") + u.release + " " + u.machine);
    const std::string lv = lustre_version();
    c.push_back("lustre: " + (lv.empty() ? std::string("not loaded") : lv));
  }
  if (!opts.anonymize) c.push_back("command: " + opts.command_line);
  if (!opts.filter.empty()) c.push_back("filter: " + one_line(opts.filter));
  if (opts.anonymize) c.push_back(kAnonymizedNote);
  return c;
}

}  // namespace lnetcap
