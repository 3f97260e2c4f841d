// SPDX-License-Identifier: GPL-2.0-or-later
// rpctrace_compare - the real-Lustre file-system run's check of the live
// captures against Lustre's own rpctrace log (rpctrace.h).
//
//   rpctrace_compare --node NID CAPTURE.pcapng DK.txt [--node ...]
//
// One --node per node of the run: its NID, its capture and its `lctl dk`
// output.  Prints short key=value lines ending in verdict=PASS|FAIL; exit
// status 0 on PASS, 1 on FAIL, 2 on bad usage or an unreadable file.
#include <cstdio>
#include <string>
#include <vector>

#include "rpctrace.h"

int main(int argc, char** argv) {
  using namespace lnetcap::real_lustre;
  std::vector<TraceNode> nodes;
  try {
    for (int i = 1; i < argc; i++) {
      if (std::string(argv[i]) != "--node" || i + 3 >= argc) {
        std::fprintf(stderr, "usage: rpctrace_compare --node NID CAPTURE.pcapng DK.txt [--node ...]\n");
        return 2;
      }
      TraceNode n;
      n.nid = argv[i + 1];
      n.capture = read_capture(argv[i + 2]);
      n.handled = read_handled(argv[i + 3]);
      nodes.push_back(std::move(n));
      i += 3;
    }
    if (nodes.empty()) {
      std::fprintf(stderr, "usage: rpctrace_compare --node NID CAPTURE.pcapng DK.txt [--node ...]\n");
      return 2;
    }
    const TraceVerdict v = compare_rpctrace(nodes);
    std::fputs(format_trace_verdict(v).c_str(), stdout);
    return v.passed() ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpctrace_compare: %s\n", e.what());
    return 2;
  }
}
