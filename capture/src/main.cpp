// SPDX-License-Identifier: GPL-2.0-or-later
// main.cpp - parse the command line, run, map errors to exit status 1.
#include <cstdio>

#include "app.h"
#include "error.h"
#include "extcap.h"
#include "options.h"

int main(int argc, char** argv) {
  try {
    lnetcap::Options opts = lnetcap::parse_options(argc, argv);
    if (auto answered = lnetcap::handle_extcap(opts)) return *answered;
    return lnetcap::run(opts);
  } catch (const lnetcap::Error& e) {
    std::fprintf(stderr, "lnetcap: %s\n", e.what());
    if (!e.hint().empty()) std::fprintf(stderr, "lnetcap: hint: %s\n", e.hint().c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lnetcap: internal error: %s\n", e.what());
    return 1;
  }
}
