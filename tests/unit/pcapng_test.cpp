// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>

#include "error.h"
#include "lnetcap/record.h"
#include "pcapng/pcapng.h"
#include "pcapng/reader.h"
#include "pcapng/writer.h"

using namespace lnetcap;

namespace {

std::string temp_path(const char* name) {
  return ::testing::TempDir() + "/" + name + "-" + std::to_string(getpid()) + ".pcapng";
}

std::vector<std::uint8_t> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_sample(const std::string& path) {
  pcapng::Writer w(path);
  pcapng::SectionInfo s;
  s.user_appl = "lnetcap test";
  s.os = "Linux 6.1";
  s.hardware = "x86_64";
  s.comments = {"section comment"};
  w.begin_section(s);
  CaptureInterface a{"tcp", "10.0.3.2@tcp on node1", "Linux", "eth0", "", 0};
  CaptureInterface b{"o2ib1", "192.168.1.5@o2ib1", "", "", "", 4096};
  EXPECT_EQ(w.add_interface(LNETCAP_LINKTYPE, a), 0u);
  EXPECT_EQ(w.add_interface(LNETCAP_LINKTYPE, b), 1u);
  const std::uint8_t d1[5] = {1, 2, 3, 4, 5};
  const std::uint8_t d2[8] = {9, 8, 7, 6, 5, 4, 3, 2};
  w.write_packet(0, 1700000000123456789ULL, ByteSpan(d1, 5), 5, pcapng::kEpbOutbound, std::nullopt);
  w.write_packet(1, 1700000001000000001ULL, ByteSpan(d2, 8), 100, pcapng::kEpbInbound, 7,
                 {"first comment", "second"});
  pcapng::InterfaceStats st;
  st.timestamp_ns = 1700000002000000000ULL;
  st.start_ns = 1700000000123456789ULL;
  st.end_ns = 1700000001000000001ULL;
  st.if_recv = 10;
  st.if_drop = 3;
  st.usr_deliv = 2;
  w.write_interface_stats(1, st);
  w.close();
}

}  // namespace

TEST(PcapngWriter, EveryBlockParsesBackIdentically) {
  const std::string path = temp_path("blocks");
  write_sample(path);
  pcapng::Reader r(path);
  pcapng::Packet p;
  ASSERT_TRUE(r.next(p));
  ASSERT_EQ(r.sections().size(), 1u);
  EXPECT_EQ(r.sections()[0].user_appl, "lnetcap test");
  EXPECT_EQ(r.sections()[0].os, "Linux 6.1");
  EXPECT_EQ(r.sections()[0].hardware, "x86_64");
  EXPECT_EQ(r.sections()[0].comments, std::vector<std::string>{"section comment"});
  ASSERT_EQ(r.interfaces().size(), 2u);
  EXPECT_EQ(r.interfaces()[0].linktype, LNETCAP_LINKTYPE);
  EXPECT_EQ(r.interfaces()[0].name, "tcp");
  EXPECT_EQ(r.interfaces()[0].description, "10.0.3.2@tcp on node1");
  EXPECT_EQ(r.interfaces()[0].os, "Linux");
  EXPECT_EQ(r.interfaces()[0].hardware, "eth0");
  EXPECT_EQ(r.interfaces()[0].units_per_second, 1000000000u);  // if_tsresol = 9
  // Every IDB carries the first interface's snaplen, or libpcap refuses the file.
  EXPECT_EQ(r.interfaces()[1].snaplen, 0u);
  EXPECT_EQ(p.interface_id, 0u);
  EXPECT_EQ(p.ts_ns, 1700000000123456789ULL);
  EXPECT_EQ(p.flags, pcapng::kEpbOutbound);
  EXPECT_FALSE(p.drop_count);
  EXPECT_EQ(std::vector<std::uint8_t>(p.data.begin(), p.data.end()),
            (std::vector<std::uint8_t>{1, 2, 3, 4, 5}));
  ASSERT_TRUE(r.next(p));
  EXPECT_EQ(p.interface_id, 1u);
  EXPECT_EQ(p.orig_len, 100u);
  EXPECT_EQ(p.flags, pcapng::kEpbInbound);
  EXPECT_EQ(p.drop_count, 7u);
  EXPECT_EQ(p.comments, (std::vector<std::string>{"first comment", "second"}));
  EXPECT_FALSE(r.next(p));
  ASSERT_EQ(r.statistics().size(), 1u);
  const auto& [id, st] = r.statistics()[0];
  EXPECT_EQ(id, 1u);
  EXPECT_EQ(st.if_recv, 10u);
  EXPECT_EQ(st.if_drop, 3u);
  EXPECT_EQ(st.usr_deliv, 2u);
  EXPECT_EQ(st.start_ns, 1700000000123456789ULL);
  EXPECT_FALSE(st.os_drop);
  std::remove(path.c_str());
}

TEST(PcapngWriter, LibpcapReadsTheFile) {
  // An independent reader: libpcap must agree on link type, count and bytes.
  const std::string path = temp_path("libpcap");
  write_sample(path);
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* pc = pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, err);
  ASSERT_NE(pc, nullptr) << err;
  EXPECT_EQ(pcap_datalink(pc), LNETCAP_LINKTYPE);
  pcap_pkthdr* h;
  const u_char* data;
  ASSERT_EQ(pcap_next_ex(pc, &h, &data), 1);
  EXPECT_EQ(h->caplen, 5u);
  EXPECT_EQ(h->ts.tv_sec, 1700000000);
  EXPECT_EQ(h->ts.tv_usec, 123456789);  // nanosecond precision requested
  ASSERT_EQ(pcap_next_ex(pc, &h, &data), 1) << pcap_geterr(pc);
  EXPECT_EQ(h->len, 100u);
  EXPECT_EQ(pcap_next_ex(pc, &h, &data), PCAP_ERROR_BREAK) << pcap_geterr(pc);
  pcap_close(pc);
  std::remove(path.c_str());
}

TEST(PcapngReader, ReadsBigEndianSections) {
  // Hand-made big-endian SHB + IDB + EPB (a writer on a BE host).
  std::vector<std::uint8_t> f;
  auto be32 = [&](std::uint32_t v) { for (int i = 3; i >= 0; --i) f.push_back(static_cast<std::uint8_t>(v >> (8 * i))); };
  auto be16 = [&](std::uint16_t v) { f.push_back(static_cast<std::uint8_t>(v >> 8)); f.push_back(static_cast<std::uint8_t>(v)); };
  be32(0x0A0D0D0A); be32(28); be32(0x1A2B3C4D); be16(1); be16(0); be32(0xffffffff); be32(0xffffffff); be32(28);
  be32(1); be32(20); be16(LNETCAP_LINKTYPE); be16(0); be32(0); be32(20);
  be32(6); be32(36); be32(0); be32(0); be32(1500000); be32(3); be32(3);
  f.push_back(0xaa); f.push_back(0xbb); f.push_back(0xcc); f.push_back(0);
  be32(36);
  const std::string path = temp_path("be");
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<char*>(f.data()), f.size());
  pcapng::Reader r(path);
  pcapng::Packet p;
  ASSERT_TRUE(r.next(p));
  EXPECT_EQ(r.interfaces()[0].linktype, LNETCAP_LINKTYPE);
  EXPECT_EQ(p.ts_ns, 1500000000ULL);  // default resolution is microseconds
  EXPECT_EQ(p.data.size(), 3u);
  EXPECT_EQ(p.data[2], 0xcc);
  std::remove(path.c_str());
}

TEST(PcapngReader, TruncationIsReportedWithFileAndOffset) {
  const std::string path = temp_path("trunc");
  write_sample(path);
  auto bytes = slurp(path);
  // Cut inside the second EPB: the first packet must still be delivered.
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size() - 120));
  pcapng::Reader r(path);
  pcapng::Packet p;
  ASSERT_TRUE(r.next(p));
  try {
    r.next(p);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find("offset"), std::string::npos) << what;
    EXPECT_NE(what.find("truncated"), std::string::npos) << what;
  }
  std::remove(path.c_str());
}

TEST(PcapngReader, RejectsNonPcapng) {
  const std::string path = temp_path("notpcapng");
  std::ofstream(path) << "this is not a capture file at all";
  EXPECT_THROW(pcapng::Reader r(path), Error);
  std::remove(path.c_str());
}

TEST(PcapngWriter, FullDiskLeavesAValidFileOfWholeBlocks) {
  // RLIMIT_FSIZE makes write() fail with EFBIG part-way, as a full disk does
  // with ENOSPC; the writer must cut the file back to whole blocks.
  const std::string path = temp_path("full");
  signal(SIGXFSZ, SIG_IGN);
  rlimit old;
  getrlimit(RLIMIT_FSIZE, &old);
  std::uint64_t written = 0;
  bool failed = false;
  {
    pcapng::Writer w(path);
    w.begin_section({});
    w.add_interface(LNETCAP_LINKTYPE, {});
    rlimit small = old;
    small.rlim_cur = 300000;
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    std::vector<std::uint8_t> data(1000, 0x5a);
    try {
      for (int i = 0; i < 2000; ++i) {
        w.write_packet(0, 1000 + i, data, 1000, 0, std::nullopt);
        ++written;
      }
      w.close();
    } catch (const Error& e) {
      failed = true;
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
    }
    setrlimit(RLIMIT_FSIZE, &old);
  }
  ASSERT_TRUE(failed);
  pcapng::Reader r(path);
  pcapng::Packet p;
  std::uint64_t n = 0;
  while (r.next(p)) {
    EXPECT_EQ(p.data.size(), 1000u);
    ++n;
  }
  EXPECT_GT(n, 100u);
  EXPECT_LE(n, written);
  std::remove(path.c_str());
}

// Damage inside a packet block whose framing is whole: the reader throws
// DamagedBlock, already past the block, and the next call reads on.
namespace {

constexpr int kPackets = 5;

// kPackets EPBs on one interface; fills the file offset of each block.
void write_packets(const std::string& path, std::vector<std::uint64_t>& offsets) {
  {
    pcapng::Writer w(path);
    w.begin_section({});
    w.add_interface(LNETCAP_LINKTYPE, {});
    for (int i = 0; i < kPackets; ++i) {
      const std::uint8_t d[8] = {static_cast<std::uint8_t>(i), 1, 2, 3, 4, 5, 6, 7};
      w.write_packet(0, 1000 + i, ByteSpan(d, 8), 8, 0, std::nullopt, {"c"});
    }
    w.close();
  }
  pcapng::Reader r(path);
  pcapng::Packet p;
  offsets.clear();
  while (r.next(p)) offsets.push_back(p.offset);
  ASSERT_EQ(offsets.size(), static_cast<std::size_t>(kPackets));
}

void put_le32(std::vector<std::uint8_t>& f, std::uint64_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) f.at(at + i) = static_cast<std::uint8_t>(v >> (8 * i));
}

void write_bytes(const std::string& path, const std::vector<std::uint8_t>& f) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(f.data()), static_cast<std::streamsize>(f.size()));
}

}  // namespace

TEST(PcapngReader, DamagedPacketBlocksAreSteppedOver) {
  // EPB body: interface id at +8, caplen at +20, first option at +36.
  struct Case {
    const char* name;
    std::uint64_t field;
    std::uint32_t value;
    const char* reason;
  } cases[] = {
      {"interface", 8, 7, "packet refers to interface 7 but the section defines 1"},
      {"caplen", 20, 4000, "packet data (4000 bytes) overruns its block"},
      {"option", 38, 0x4000, "an option overruns the enhanced packet block"},
  };
  const std::string path = temp_path("damaged-epb");
  std::vector<std::uint64_t> off;
  write_packets(path, off);
  const auto clean = slurp(path);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto f = clean;
    put_le32(f, off[2] + c.field, c.value);  // the third packet
    write_bytes(path, f);
    pcapng::Reader r(path);
    pcapng::Packet p;
    ASSERT_TRUE(r.next(p));
    ASSERT_TRUE(r.next(p));
    EXPECT_EQ(p.number, 2u);
    try {
      r.next(p);
      FAIL() << "expected DamagedBlock";
    } catch (const pcapng::DamagedBlock& d) {
      EXPECT_EQ(d.offset(), off[2]);
      EXPECT_EQ(d.number(), 3u);
      EXPECT_EQ(d.reason(), c.reason);
      EXPECT_NE(std::string(d.what()).find(path + ": offset " + std::to_string(off[2])), std::string::npos);
    }
    // The rest of the file is read as if nothing had happened.
    for (std::uint64_t n = 4; n <= kPackets; ++n) {
      ASSERT_TRUE(r.next(p));
      EXPECT_EQ(p.number, n);
      EXPECT_EQ(p.offset, off[n - 1]);
      EXPECT_EQ(p.data[0], n - 1);
      EXPECT_EQ(p.comments, std::vector<std::string>{"c"});
    }
    EXPECT_FALSE(r.next(p));
  }
  std::remove(path.c_str());
}

TEST(PcapngReader, BrokenFramingIsNeverSteppedOver) {
  // Framing damage leaves no next block to find: a plain Error, with the
  // file and the offset of the block, after the packets before it.
  struct Case {
    const char* name;
    std::uint64_t field;  // from the third packet block; 0: its trailing length
    std::uint32_t value;
    const char* what;
  } cases[] = {
      {"length", 4, 64, "trailing length does not match 64"},
      {"odd length", 4, 61, "has invalid length 61"},
      {"huge length", 4, 0x7ffffff0, "has invalid length"},
      {"trailer", 0, 0x99, "trailing length does not match"},
  };
  const std::string path = temp_path("broken-framing");
  std::vector<std::uint64_t> off;
  write_packets(path, off);
  const auto clean = slurp(path);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto f = clean;
    put_le32(f, off[2] + (c.field ? c.field : off[3] - off[2] - 4), c.value);
    write_bytes(path, f);
    pcapng::Reader r(path);
    pcapng::Packet p;
    ASSERT_TRUE(r.next(p));
    ASSERT_TRUE(r.next(p));
    try {
      r.next(p);
      FAIL() << "expected an error";
    } catch (const pcapng::DamagedBlock& d) {
      FAIL() << "framing damage taken for a damaged packet: " << d.what();
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path + ": offset " + std::to_string(off[2]) + ": "), std::string::npos) << what;
      EXPECT_NE(what.find(c.what), std::string::npos) << what;
    }
  }
  std::remove(path.c_str());
}

TEST(PcapngReader, ABadByteOrderMagicInALaterSectionEndsTheFile) {
  const std::string path = temp_path("bad-bom");
  std::vector<std::uint64_t> off;
  write_packets(path, off);
  auto f = slurp(path);
  auto second = f;  // the file twice: two sections
  f.insert(f.end(), second.begin(), second.end());
  put_le32(f, second.size() + 8, 0x12345678);
  write_bytes(path, f);
  pcapng::Reader r(path);
  pcapng::Packet p;
  for (int i = 0; i < kPackets; ++i) ASSERT_TRUE(r.next(p));
  try {
    r.next(p);
    FAIL() << "expected an error";
  } catch (const pcapng::DamagedBlock& d) {
    FAIL() << "framing damage taken for a damaged packet: " << d.what();
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("offset " + std::to_string(second.size()) + ": section header byte-order magic 0x12345678"),
              std::string::npos)
        << what;
  }
  std::remove(path.c_str());
}
