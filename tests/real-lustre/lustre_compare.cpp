// SPDX-License-Identifier: GPL-2.0-or-later
// lustre_compare - the real-Lustre harness's per-node verdict
// (capture_compare.h): a live capture against the node's link converted by
// lnetcap.
//
//   lustre_compare [--snaplen N] --local NID CAPTURE.pcapng WIRE.pcapng
//
// Prints short key=value lines ending in verdict=PASS|FAIL; exit status 0
// on PASS, 1 on FAIL, 2 on bad usage or an unreadable file.
#include <cstdio>
#include <string>
#include <vector>

#include "capture_compare.h"
#include "error.h"

int main(int argc, char** argv) {
  std::uint32_t snaplen = 1024;
  std::string local;
  std::vector<std::string> files;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    if (a == "--snaplen" && i + 1 < argc) snaplen = static_cast<std::uint32_t>(std::stoul(argv[++i]));
    else if (a == "--local" && i + 1 < argc) local = argv[++i];
    else files.push_back(a);
  }
  if (files.size() != 2 || local.empty()) {
    std::fprintf(stderr, "usage: lustre_compare [--snaplen N] --local NID CAPTURE.pcapng WIRE.pcapng\n");
    return 2;
  }
  try {
    using namespace lnetcap::real_lustre;
    const Verdict v = compare(read_capture(files[0]), read_capture(files[1]), local, snaplen);
    std::fputs(format_verdict(v).c_str(), stdout);
    return v.passed() ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lustre_compare: %s\n", e.what());
    return 2;
  }
}
