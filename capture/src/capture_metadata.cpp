// SPDX-License-Identifier: GPL-2.0-or-later
#include "capture_metadata.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>

#include "live/lustre_env.h"
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

// A filter is free text: it can hold a jobid, a target name or a NID in a
// form rewrite_text() does not know, so an anonymized trace only says there
// was one.
std::string filter_line(const Options& opts) {
  return opts.anonymize ? "filter: set (not shown in an anonymized trace)" : "filter: " + one_line(opts.filter);
}

constexpr const char* kAnonymizedNote =
    "anonymized by lnetcap: NIDs, jobids, uids/gids/projids and names replaced, bulk "
    "data dropped (docs/ANONYMIZE.md)";
}  // namespace

std::string host_name() {
  struct utsname u;
  return uname(&u) == 0 ? u.nodename : "unknown-host";
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
    if (!opts.filter.empty()) c.push_back(filter_line(opts));
    if (opts.anonymize) c.push_back(kAnonymizedNote);
    return c;
  }
  c.push_back(std::string("lnetcap ") + LNETCAP_VERSION);
  struct utsname u;
  if (live) {
    if (!opts.anonymize && uname(&u) == 0) c.push_back(std::string("host: ") + u.nodename);
    if (uname(&u) == 0) c.push_back(std::string("kernel: ") + u.release + " " + u.machine);
    c.push_back("lustre: " + live::describe_lustre(live::detect_lustre()));
  }
  if (!opts.anonymize) c.push_back("command: " + opts.command_line);
  if (!opts.filter.empty()) c.push_back(filter_line(opts));
  if (opts.anonymize) c.push_back(kAnonymizedNote);
  return c;
}

}  // namespace lnetcap
