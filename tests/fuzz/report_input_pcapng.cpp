// SPDX-License-Identifier: GPL-2.0-or-later
// report_input_pcapng - writes a fuzz_report input (report_input.h) as the
// lnetcap pcapng file it stands for, so `lnetcap -r` and lnetcapd can run
// every report mode over the same records the fuzz target saw
// (tests/reports/report_modes_test.sh replays tests/fuzz/regressions/report/).
//
// Usage: report_input_pcapng INPUT OUTPUT.pcapng
#include <cstdio>
#include <fstream>
#include <iterator>

#include "error.h"
#include "lnetcap/record.h"
#include "pcapng/pcapng.h"
#include "pcapng/writer.h"
#include "record.h"
#include "report_input.h"

using namespace lnetcap;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s INPUT OUTPUT.pcapng\n", argv[0]);
    return 2;
  }
  std::ifstream f(argv[1], std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "report_input_pcapng: cannot read %s\n", argv[1]);
    return 1;
  }
  const std::vector<std::uint8_t> data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const fuzz::ReportInput in = fuzz::read_report_input(data.data(), data.size());
  try {
    pcapng::Writer w(argv[2]);
    pcapng::SectionInfo s;
    s.user_appl = "lnetcap report_input_pcapng";
    s.comments = {std::string("fuzz_report input ") + argv[1] + "; not real traffic."};
    w.begin_section(s);
    w.add_interface(LNETCAP_LINKTYPE, {"fuzz", "fuzz_report input", "", "", "", 0});
    for (const fuzz::GeneratedRecord& g : in.records) {
      std::string why;
      const auto view = parse_record(g.bytes, &why);
      if (!view) throw Error("generated record does not parse: " + why);
      const std::uint32_t flags =
          view->hdr.direction == LNETCAP_DIR_RECV ? pcapng::kEpbInbound : pcapng::kEpbOutbound;
      w.write_packet(0, g.ts_ns, g.bytes, record_orig_len(*view), flags, std::nullopt);
    }
    w.close();
  } catch (const Error& e) {
    std::fprintf(stderr, "report_input_pcapng: %s\n", e.what());
    return 1;
  }
  return 0;
}
