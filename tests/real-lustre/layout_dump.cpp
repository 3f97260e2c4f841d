// SPDX-License-Identifier: GPL-2.0-or-later
// layout_dump - prints a layout as "struct.member offset" lines:
//   layout_dump BTF_FILE            the offsets a real build's BTF gives
//                                   (pahole --btf_encode_detached of lnet.ko)
//   layout_dump --builtin VERSION   lnetcap's built-in table for VERSION
// scripts/real-lustre/check-layouts.sh records the first form for real
// builds in tests/real-lustre/layouts.txt; layouts_test compares the second
// against it.
#include <cstdio>
#include <string>

#include "error.h"
#include "live/layout.h"

int main(int argc, char** argv) {
  using namespace lnetcap;
  try {
    if (argc == 3 && std::string(argv[1]) == "--builtin") {
      auto l = live::builtin_layout(argv[2]);
      if (!l) throw Error(std::string("no built-in layout for Lustre ") + argv[2]);
      std::fputs(live::layout_text(l->lo).c_str(), stdout);
      return 0;
    }
    if (argc != 2) {
      std::fprintf(stderr, "usage: layout_dump BTF_FILE | layout_dump --builtin VERSION\n");
      return 2;
    }
    auto l = live::layout_from_btf_file(argv[1], "", argv[1]);
    std::fputs(live::layout_text(l.lo).c_str(), stdout);
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "layout_dump: %s\n", e.what());
    return 1;
  }
}
