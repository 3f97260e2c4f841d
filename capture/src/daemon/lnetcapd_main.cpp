// SPDX-License-Identifier: GPL-2.0-or-later
// lnetcapd_main.cpp - lnetcapd: parse, run, map errors to exit status 1.
#include <cstdio>

#include "../error.h"
#include "daemon.h"

int main(int argc, char** argv) {
  try {
    return lnetcap::daemon::run_daemon(lnetcap::daemon::parse_daemon_options(argc, argv), argc, argv);
  } catch (const lnetcap::Error& e) {
    std::fprintf(stderr, "lnetcapd: %s\n", e.what());
    if (!e.hint().empty()) std::fprintf(stderr, "lnetcapd: hint: %s\n", e.hint().c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lnetcapd: internal error: %s\n", e.what());
    return 1;
  }
}
