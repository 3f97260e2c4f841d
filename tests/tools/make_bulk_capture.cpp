// SPDX-License-Identifier: GPL-2.0-or-later
// make_bulk_capture OUTPUT.pcapng - a server's capture of bulk RPCs from four
// clients, interleaved, for tests/daemon/groups_test.sh (case bulk-chunks):
// 4 MiB OST_WRITEs (four GETs and their REPLYs) and OST_READs (four PUTs and
// their ACKs), whose chunks 2..4 carry match bits XID+1..XID+3, and
// OST_WRITEs resent with a new block of bulk match bits and their reply on
// pb_mbits, as Lustre 2.17 did over o2ib.  None of the bundled samples has
// either (samples/README.md); the records are those of
// tests/unit/bulk_messages.h, the bulk linker's own test fixture.  Synthetic:
// not real traffic, and not kept in samples/.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "bulk_messages.h"
#include "error.h"
#include "pcapng/pcapng.h"
#include "pcapng/writer.h"
#include "record.h"

using namespace lnetcap;
using namespace lnetcap::test;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.pcapng\n", argv[0]);
    return 1;
  }
  try {
    const char* server = "10.0.5.1@o2ib";
    std::vector<BulkRecords> clients;
    clients.reserve(4);
    for (const char* c : {"10.0.5.11@o2ib", "10.0.5.12@o2ib", "10.0.5.13@o2ib", "10.0.5.14@o2ib"})
      clients.emplace_back(c, server, Seen::kServer);
    // Each client's RPCs one after another, a record every 0.5 ms; client
    // k's are 62.5 us * k later, so the server's capture interleaves four
    // RPCs in flight.
    for (std::size_t k = 0; k < clients.size(); ++k) {
      BulkRecords& br = clients[k];
      std::uint64_t ms = 0;
      for (std::uint64_t n = 0; n < 24; ++n) {
        const std::uint64_t xid = 0x6b0c4c9100000 + 0x10000 * k + 128 * n;
        const std::pair<std::uint64_t, std::uint64_t> wmd{0x1000 * (k + 1) + 16 * n, 0x77};
        switch (n % 3) {
          case 0:  // OST_WRITE, 4 chunks
            br.request(++ms, xid, xid + 3, LNETCAP_OPC_OST_WRITE, "dd.0");
            for (std::uint64_t c = 0; c < 4; ++c) {
              br.get(++ms, xid + c, {wmd.first + c, wmd.second});
              br.data_reply(++ms, {wmd.first + c, wmd.second});
            }
            br.reply(++ms, xid, LNETCAP_OPC_OST_WRITE);
            break;
          case 1:  // OST_READ, 4 chunks
            br.request(++ms, xid, xid + 3, LNETCAP_OPC_OST_READ, "cat.0");
            for (std::uint64_t c = 0; c < 4; ++c) {
              br.put(++ms, xid + c, {wmd.first + c, wmd.second});
              br.ack(++ms, xid + c, {wmd.first + c, wmd.second});
            }
            br.reply(++ms, xid, LNETCAP_OPC_OST_READ);
            break;
          default: {  // OST_WRITE resent with a new block: 2 chunks, reply on pb_mbits
            const std::uint64_t block = xid + 0x8000;
            br.request(++ms, xid, xid + 1, LNETCAP_OPC_OST_WRITE, "dd.0");
            br.request(++ms, xid, block + 1, LNETCAP_OPC_OST_WRITE, "dd.0");
            for (std::uint64_t c = 0; c < 2; ++c) {
              br.get(++ms, block + c, {wmd.first + c, wmd.second});
              br.data_reply(++ms, {wmd.first + c, wmd.second});
            }
            br.reply(++ms, block + 1, LNETCAP_OPC_OST_WRITE);
          }
        }
      }
    }
    struct Out {
      std::uint64_t ts;
      const OwnedMessage* m;
    };
    std::vector<Out> all;
    for (std::size_t k = 0; k < clients.size(); ++k)
      for (const OwnedMessage& o : clients[k].all())
        all.push_back({o.msg.ts_ns / 2 + 62500 * k, &o});  // BulkRecords counts in ms
    std::stable_sort(all.begin(), all.end(), [](const Out& a, const Out& b) { return a.ts < b.ts; });
    pcapng::Writer w(argv[1]);
    pcapng::SectionInfo s;
    s.user_appl = "lnetcap make_bulk_capture";
    s.os = "synthetic";
    s.comments = {"Synthetic capture built by tests/tools/make_bulk_capture.cpp; not real traffic."};
    w.begin_section(s);
    w.add_interface(LNETCAP_LINKTYPE, {"o2ib", "10.0.5.1@o2ib (synthetic server)", "", "", "", 0});
    for (const Out& o : all) {
      std::string why;
      const auto view = parse_record(o.m->bytes, &why);
      if (!view) throw Error("a fixture record does not parse: " + why);
      const std::uint32_t flags = view->hdr.direction == LNETCAP_DIR_RECV ? pcapng::kEpbInbound : pcapng::kEpbOutbound;
      w.write_packet(0, o.ts, o.m->bytes, record_orig_len(*view), flags, std::nullopt);
    }
    w.close();
  } catch (const Error& e) {
    std::fprintf(stderr, "make_bulk_capture: %s\n", e.what());
    return 1;
  }
  return 0;
}
