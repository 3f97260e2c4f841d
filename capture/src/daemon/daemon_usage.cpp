// SPDX-License-Identifier: GPL-2.0-or-later
// daemon_usage.cpp - `lnetcapd -h`, one line (or a few) per row of the
// settings table (daemon_settings.h), in its order and sections.
#include <sstream>

#include "../option_usage.h"
#include "daemon.h"
#include "daemon_settings.h"

namespace lnetcap::daemon {
namespace {

const char* section_title(UsageSection s) {
  switch (s) {
    case UsageSection::kSource: return "Source (one; the live eBPF capture by default):";
    case UsageSection::kDaemon: return "Daemon:";
    case UsageSection::kBounds: return "Bounds (docs/DAEMON.md, \"What is bounded\"):";
    case UsageSection::kRecorder: return "Flight recorder (off unless a bound is given; docs/DAEMON.md):";
    case UsageSection::kMetrics: return "Metrics (off by default):";
    case UsageSection::kGeneral: return nullptr;  // -h and --version close the list
  }
  return nullptr;
}

}  // namespace

std::string daemon_usage_text() {
  std::ostringstream out;
  out << "Usage: lnetcapd [source options] [--listen ENDPOINT]... [daemon options]\n\n"
         "Serve one LNet capture to many `lnetcap --from` subscribers, each with its own\n"
         "filter and snap length evaluated here (docs/DAEMON.md).\n\n";
  bool started = false;
  UsageSection section{};
  for (const auto& s : daemon_settings()) {
    if (!s.option) continue;  // config file only
    if (!started || s.section != section) {
      if (const char* title = section_title(s.section)) out << title << "\n";
      section = s.section;
      started = true;
    }
    out << usage_row(s.short_option, s.option, s.argument ? std::string(" ") + s.argument : "", s.help);
  }
  return out.str();
}

}  // namespace lnetcap::daemon
