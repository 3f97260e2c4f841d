// SPDX-License-Identifier: GPL-2.0-or-later
// fuzz_socklnd - `lnetcap -r tcpdump.pcap` without libpcap: frames
// (socklnd_input.h) through decode_frame, TCP reassembly, the socklnd
// parser and the converter, and every record it makes through
// parse_record and decode_message.  Beyond crashes and sanitizer reports
// it checks the converter's promises: each record it emits is a valid
// lnetcap record on an interface that exists, and out-of-order data stays
// within its budget.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "message.h"
#include "record.h"
#include "socklnd/packet_decode.h"
#include "socklnd/socklnd_converter.h"
#include "socklnd_input.h"

using namespace lnetcap;
using namespace lnetcap::socklnd;

namespace {

void check_records(SocklndConverter& conv) {
  OutRecord out;
  while (conv.pop(out)) {
    std::string why;
    const auto view = parse_record(out.bytes, &why);
    if (!view) {
      std::fprintf(stderr, "the converter made a record parse_record rejects: %s\n", why.c_str());
      std::abort();
    }
    if (out.interface_id >= conv.interfaces().size()) {
      std::fprintf(stderr, "record on interface %u of %zu\n", out.interface_id,
                   conv.interfaces().size());
      std::abort();
    }
    (void)decode_message(*view, out.ts_ns, out.interface_id);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t cfg = data[0];
  const int dlt = fuzz::kLinkTypes[cfg & fuzz::kCfgLinkMask];
  ConverterConfig config;
  if (cfg & fuzz::kCfgLocalNid) config.local_nid = *Nid::parse("10.0.3.1@tcp");
  if (cfg & fuzz::kCfgSmallSnaplen) config.snaplen = 64;
  if (cfg & fuzz::kCfgTinyBudget) {
    config.ooo_per_stream = 3000;
    config.ooo_total = 5000;
  }
  if (cfg & fuzz::kCfgFewConnections) config.max_connections = 4;
  SocklndConverter conv(config);

  std::uint64_t ts = 1700000000000000000ull;
  std::size_t pos = 1;
  while (pos + 3 <= size) {
    const std::size_t len = data[pos] | (data[pos + 1] << 8);
    const std::uint8_t step = data[pos + 2];
    pos += 3;
    // A copy of exactly the frame, so ASan sees a read past its end.
    const std::vector<std::uint8_t> frame(data + pos, data + pos + std::min(len, size - pos));
    pos += frame.size();
    ts += step == fuzz::kStepJump ? fuzz::kJumpNs : step * 1000000ull;
    TcpSegment seg;
    if (decode_frame(dlt, frame, &seg) != DecodeStatus::kTcp) continue;
    conv.add(ts, seg);
    if (conv.buffered_bytes() > config.ooo_total) {
      std::fprintf(stderr, "%zu out-of-order bytes buffered, budget %zu\n", conv.buffered_bytes(),
                   config.ooo_total);
      std::abort();
    }
    check_records(conv);
  }
  conv.finish();
  check_records(conv);
  if (conv.connection_count() != 0) std::abort();  // finish() forgets every connection
  return 0;
}
