// SPDX-License-Identifier: GPL-2.0-or-later
// lustre_compare - the real-Lustre harness's per-node verdict
// (capture_compare.h): a live capture against the node's link converted by
// lnetcap, or a router's against its links (one NID per net, one wire file
// per link, merged in time order).
//
//   lustre_compare [--snaplen N] [--tcp-fate FILE] --local NID[,NID...] CAPTURE.pcapng
//                  WIRE.pcapng [WIRE2.pcapng ...]
//
// --tcp-fate: tcp_fate.py's account of the links' TCP (its LINK numbers
// are the WIRE files' order): a message to the node that its TCP never
// acknowledged or that was the unread tail of a reset connection, or a
// SEND into a connection reset before the sender's FIN, is counted apart
// (and named) instead of failing the verdict.
//
// Prints short key=value lines ending in verdict=PASS|FAIL; exit status 0
// on PASS, 1 on FAIL, 2 on bad usage or an unreadable file.
#include <cstdio>
#include <string>
#include <vector>

#include "capture_compare.h"
#include "error.h"

namespace {

const char* kUsage =
    "usage: lustre_compare [--snaplen N] [--tcp-fate FILE] --local NID[,NID...] CAPTURE.pcapng "
    "WIRE.pcapng [WIRE2.pcapng ...]\n";

// "a,b" -> {"a", "b"}; an empty name (",," or a trailing comma) leaves the list empty.
std::vector<std::string> split_nids(const std::string& s) {
  std::vector<std::string> out;
  std::size_t from = 0;
  for (;;) {
    const std::size_t comma = s.find(',', from);
    const std::string n = s.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    if (n.empty()) return {};
    out.push_back(n);
    if (comma == std::string::npos) return out;
    from = comma + 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::uint32_t snaplen = 1024;
  std::vector<std::string> locals;
  std::vector<std::string> files;
  std::string fate_file;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    if (a == "--snaplen" && i + 1 < argc) snaplen = static_cast<std::uint32_t>(std::stoul(argv[++i]));
    else if (a == "--tcp-fate" && i + 1 < argc) fate_file = argv[++i];
    else if (a == "--local" && i + 1 < argc) {
      locals = split_nids(argv[++i]);
      if (locals.empty()) {
        std::fprintf(stderr, "lustre_compare: --local %s: an empty NID; give NID or NID,NID\n", argv[i]);
        return 2;
      }
    } else files.push_back(a);
  }
  if (files.size() < 2 || locals.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  try {
    using namespace lnetcap::real_lustre;
    std::vector<std::vector<Captured>> links;
    for (std::size_t f = 1; f < files.size(); f++) links.push_back(read_capture(files[f]));
    const TcpFate fate = fate_file.empty() ? TcpFate{} : read_tcp_fate(fate_file);
    const Verdict v = compare(read_capture(files[0]), merge_wires(std::move(links)), locals, snaplen, fate);
    std::fputs(format_verdict(v).c_str(), stdout);
    return v.passed() ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lustre_compare: %s\n", e.what());
    return 2;
  }
}
