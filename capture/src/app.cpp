// SPDX-License-Identifier: GPL-2.0-or-later
#include "app.h"

#include <cstdio>

#include "version.h"

namespace lnetcap {

int run(const Options& opts) {
  if (opts.show_help) {
    std::fputs(usage_text().c_str(), stdout);
    return 0;
  }
  if (opts.show_version) {
    std::printf("lnetcap %s\n", LNETCAP_VERSION);
    return 0;
  }
  return 0;
}

}  // namespace lnetcap
