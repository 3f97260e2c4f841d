// SPDX-License-Identifier: GPL-2.0-or-later
// make_seeds - builds the fuzz targets' seed corpora from real captures, at
// test time (the captures are large; the seeds are not committed):
//   make_seeds OUTDIR CAPTURE...
// - an lnetcap pcapng (samples/, the plugin test vectors) gives
//   OUTDIR/record/ one file per record of a new shape (message type,
//   portal, opcode, hook, header form...), and OUTDIR/pcapng/ small pcapng
//   files: every interface plus three records from each such shape;
// - a tcpdump capture of socklnd traffic (tests/data/corpus/*.pcap) gives
//   OUTDIR/socklnd/ windows of consecutive frames in fuzz_socklnd's format
//   (socklnd_input.h), the first at the start of the capture so the
//   connection requests and HELLOs are in it.
// The plugin target uses the record seeds.
#include <pcap/pcap.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "codec/ping_info.h"
#include "error.h"
#include "file_source.h"
#include "message.h"
#include "pcapng/reader.h"
#include "pcapng/writer.h"
#include "record.h"
#include "lnetcap/record.h"
#include "socklnd_input.h"

using namespace lnetcap;
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxShapesPerFile = 200;
constexpr std::size_t kPcapngWindow = 3;
constexpr std::size_t kSocklndWindows = 48;
constexpr std::size_t kSocklndWindow = 12;      // frames per seed
constexpr std::size_t kMaxSocklndSeed = 48 * 1024;

void write_file(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw Error("cannot write " + path.string());
}

// What makes two records exercise different code: the fields the parsers
// branch on, and whether the payload is whole.  A ping info's feature bits
// pick its lists (large addresses, the 2.17 NID metadata trailer), which
// the -v text, the summary and the plugin walk.
using Shape = std::tuple<int, int, int, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t,
                         std::size_t, bool, bool, bool, std::uint32_t>;

Shape shape_of(const Message& m) {
  const auto ping = parse_ping_info(m.rec.payload, m.lnet.payload_length);
  return {m.rec.hdr.hook, m.rec.hdr.direction, m.rec.hdr.health_status, m.lnet.type,
          m.lnet.portal.value_or(~0u), m.rpc.present ? m.rpc.opc : ~0u, m.rpc.type,
          m.rec.lnet_header.size(), m.rpc.big_endian, m.rec.truncated(), m.dlm.present,
          ping ? ping->features : ~0u};
}

struct Stored {
  std::uint32_t iface;
  std::uint64_t ts;
  std::vector<std::uint8_t> bytes;
  std::uint32_t orig_len, flags;
};

void from_lnetcap(const fs::path& in, const fs::path& out) {
  pcapng::Reader reader(in.string());
  std::vector<Stored> all;
  std::vector<std::size_t> picked;
  std::set<Shape> seen;
  pcapng::Packet p;
  while (reader.next(p)) {
    std::string why;
    auto view = parse_record(p.data, &why);
    if (!view) continue;
    all.push_back({p.interface_id, p.ts_ns, {p.data.begin(), p.data.end()}, p.orig_len, p.flags});
    if (picked.size() < kMaxShapesPerFile &&
        seen.insert(shape_of(decode_message(*view, p.ts_ns, p.interface_id))).second)
      picked.push_back(all.size() - 1);
  }
  const std::string stem = in.stem().string();
  for (std::size_t i : picked) {
    char name[64];
    std::snprintf(name, sizeof(name), "-%05zu", i);
    write_file(out / "record" / (stem + name), all[i].bytes);
    const fs::path seed = out / "pcapng" / (stem + name + ".pcapng");
    pcapng::Writer w(seed.string());
    w.begin_section({"lnetcap fuzz seed", "", "", {}});
    for (const auto& iface : reader.interfaces())
      w.add_interface(iface.linktype, {iface.name, iface.description, iface.os, iface.hardware, "",
                                       iface.snaplen});
    for (std::size_t j = i; j < all.size() && j < i + kPcapngWindow; ++j)
      w.write_packet(all[j].iface, all[j].ts, all[j].bytes, all[j].orig_len, all[j].flags,
                     std::nullopt);
    w.close();
  }
  std::printf("%s: %zu records, %zu shapes\n", in.c_str(), all.size(), picked.size());
}

void from_tcpdump(const fs::path& in, const fs::path& out) {
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* pcap = pcap_open_offline(in.c_str(), err);
  if (!pcap) throw Error(in.string() + ": " + err);
  int link = -1;
  for (int i = 0; i < 8; ++i)
    if (fuzz::kLinkTypes[i] == pcap_datalink(pcap)) link = i;
  struct Frame {
    std::uint64_t ts_us;
    std::vector<std::uint8_t> bytes;
  };
  std::vector<Frame> frames;
  pcap_pkthdr* h;
  const u_char* data;
  while (link >= 0 && pcap_next_ex(pcap, &h, &data) == 1)
    frames.push_back({static_cast<std::uint64_t>(h->ts.tv_sec) * 1000000 + h->ts.tv_usec,
                      {data, data + std::min<std::uint32_t>(h->caplen, 0xffff)}});
  pcap_close(pcap);
  if (link < 0) throw Error(in.string() + ": link type not supported by fuzz_socklnd");
  const std::size_t stride = std::max<std::size_t>(1, frames.size() / kSocklndWindows);
  std::size_t seeds = 0;
  for (std::size_t start = 0; start < frames.size(); start += stride) {
    std::vector<std::uint8_t> seed{static_cast<std::uint8_t>(link)};
    for (std::size_t j = start; j < frames.size() && j < start + kSocklndWindow; ++j) {
      const auto& f = frames[j];
      if (seed.size() + 3 + f.bytes.size() > kMaxSocklndSeed) break;
      const std::uint64_t gap_ms = j == start ? 0 : (f.ts_us - frames[j - 1].ts_us) / 1000;
      seed.push_back(static_cast<std::uint8_t>(f.bytes.size()));
      seed.push_back(static_cast<std::uint8_t>(f.bytes.size() >> 8));
      seed.push_back(static_cast<std::uint8_t>(std::min<std::uint64_t>(gap_ms, 254)));
      seed.insert(seed.end(), f.bytes.begin(), f.bytes.end());
    }
    char name[64];
    std::snprintf(name, sizeof(name), "-%05zu", start);
    write_file(out / "socklnd" / (in.stem().string() + name), seed);
    ++seeds;
  }
  std::printf("%s: %zu frames, %zu seeds\n", in.c_str(), frames.size(), seeds);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUTDIR CAPTURE...\n", argv[0]);
    return 2;
  }
  try {
    const fs::path out(argv[1]);
    for (const char* dir : {"record", "pcapng", "socklnd"}) {
      fs::remove_all(out / dir);
      fs::create_directories(out / dir);
    }
    for (int i = 2; i < argc; ++i) {
      const fs::path in(argv[i]);
      if (LnetcapFileSource::is_lnetcap_capture(in.string()))
        from_lnetcap(in, out);
      else
        from_tcpdump(in, out);
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "make_seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
