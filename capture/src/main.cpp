// SPDX-License-Identifier: GPL-2.0-or-later
// main.cpp - parse the command line, run, map errors to exit status 1.
#include <cstdio>

#include "app.h"
#include "error.h"
#include "extcap.h"
#include "options.h"
#include "report/text_escape.h"
#include "text/checked_write.h"

namespace {

// Error texts quote file names, interface names and tokens that may come
// from a crafted file: printed through wire_text like every wire string.
int report_error(const std::string& what, const std::string& hint) {
  using lnetcap::report::wire_text;
  std::fprintf(stderr, "lnetcap: %s\n", wire_text(what).c_str());
  if (!hint.empty()) std::fprintf(stderr, "lnetcap: hint: %s\n", wire_text(hint).c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    lnetcap::Options opts = lnetcap::parse_options(argc, argv);
    if (auto answered = lnetcap::handle_extcap(opts)) return *answered;
    const int status = lnetcap::run(opts);
    // Whatever is still buffered for standard output must reach it too.
    lnetcap::text::flush_checked(stdout, "the output");
    return status;
  } catch (const lnetcap::Error& e) {
    return report_error(e.what(), e.hint());
  } catch (const std::exception& e) {
    return report_error(std::string("internal error: ") + e.what(), {});
  }
}
