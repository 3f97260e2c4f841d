// SPDX-License-Identifier: GPL-2.0-or-later
// open_socklnd_file on pcap files written here with libpcap: records and
// interfaces, orig_len, --local-nid, and the errors a user sees for an
// unsupported link type, a bad --local-nid and a file cut short.
#include <gtest/gtest.h>
#include <pcap/pcap.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

#include "../socklnd/socklnd_builders.h"
#include "error.h"
#include "lnetcap/record.h"
#include "options.h"
#include "socklnd/socklnd_source.h"

namespace lnetcap::test {
namespace {

// Ethernet + IPv4 + 20-byte TCP header around a segment's payload.
Bytes frame(const socklnd::TcpSegment& s) {
  Bytes f = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x08, 0x00};
  std::size_t ip = f.size();
  // The whole frame at once: growing it again in the insert below made
  // GCC 12 see a memcpy past the end (-Warray-bounds, a false positive).
  f.reserve(ip + 40 + s.payload.size());
  f.resize(ip + 40);
  f[ip] = 0x45;
  store_be16(f.data() + ip + 2, static_cast<std::uint16_t>(40 + s.payload.size()));
  f[ip + 8] = 64;
  f[ip + 9] = 6;
  std::memcpy(f.data() + ip + 12, s.src.bytes.data(), 4);
  std::memcpy(f.data() + ip + 16, s.dst.bytes.data(), 4);
  std::uint8_t* t = f.data() + ip + 20;
  store_be16(t, s.sport);
  store_be16(t + 2, s.dport);
  store_be32(t + 4, s.seq);
  store_be32(t + 8, s.ack);
  t[12] = 5 << 4;
  t[13] = s.flags;
  f.insert(f.end(), s.payload.begin(), s.payload.end());
  return f;
}

struct TempPcap {
  std::string path;
  explicit TempPcap(int dlt = DLT_EN10MB) {
    char tmpl[] = "/tmp/lnetcap-socklnd-test.XXXXXX";
    int fd = mkstemp(tmpl);
    ::close(fd);
    path = tmpl;
    pcap_ = pcap_open_dead(dlt, 262144);
    dump_ = pcap_dump_open(pcap_, path.c_str());
  }
  ~TempPcap() {
    close();
    std::remove(path.c_str());
  }
  void add(std::uint64_t ts_us, const Bytes& f) {
    pcap_pkthdr h{};
    h.ts.tv_sec = static_cast<time_t>(ts_us / 1000000);
    h.ts.tv_usec = static_cast<suseconds_t>(ts_us % 1000000);
    h.caplen = h.len = static_cast<bpf_u_int32>(f.size());
    pcap_dump(reinterpret_cast<u_char*>(dump_), &h, f.data());
  }
  void close() {
    if (dump_) pcap_dump_close(dump_);
    if (pcap_) pcap_close(pcap_);
    dump_ = nullptr;
    pcap_ = nullptr;
  }

 private:
  pcap_t* pcap_ = nullptr;
  pcap_dumper_t* dump_ = nullptr;
};

// A connection: handshake and three PUTs of 2000 bytes, in 1000-byte
// segments, from client port cport to server port sport.
void write_connection(TempPcap& p, std::uint16_t sport = 988, std::uint16_t cport = 1021,
                      std::uint64_t ts = 1700000000000000ull) {
  FakeConnection fc;
  fc.sport = sport;
  fc.cport = cport;
  Nid c = nid("10.0.3.2@tcp"), s = nid("10.0.3.1@tcp");
  Bytes cs = connreq(s), ss;
  HelloSpec h;
  h.src = c;
  h.dst = s;
  append(cs, hello(h));
  h.src = s;
  h.dst = c;
  append(ss, hello(h));
  for (int i = 0; i < 3; ++i) {
    LnetHeaderSpec put;
    put.src = c;
    put.dst = s;
    put.portal = LNETCAP_PORTAL_OST_REQUEST;
    put.match_bits = 100 + i;
    append(cs, ksock_lnet(put, pattern(2000)));
  }
  p.add(ts++, frame(fc.syn(true)));
  p.add(ts++, frame(fc.syn(false)));
  p.add(ts++, frame(fc.data(false, ss, 0, ss.size())));
  for (std::size_t off = 0; off < cs.size(); off += 1000)
    p.add(ts++, frame(fc.data(true, cs, off, std::min<std::size_t>(1000, cs.size() - off))));
}

TEST(SocklndSource, ReadsAPcapFile) {
  TempPcap p;
  write_connection(p);
  p.close();
  Options opts;
  opts.read_file = p.path;
  opts.local_nid = "10.0.3.1@tcp";
  auto src = open_socklnd_file(opts);
  CapturedRecord rec;
  int n = 0;
  while (src->next(rec)) {
    std::string why;
    auto v = parse_record(rec.bytes, &why);
    ASSERT_TRUE(v) << why;
    EXPECT_EQ(v->hdr.direction, LNETCAP_DIR_RECV);
    EXPECT_EQ(rec.epb_flags, 1u);
    EXPECT_EQ(v->hdr.payload_caplen, 1024u);
    EXPECT_EQ(rec.orig_len, rec.bytes.size() + 2000 - 1024);
    EXPECT_EQ(rec.interface_id, 0u);
    EXPECT_EQ(v->hdr.seq, static_cast<std::uint64_t>(n));
    ++n;
  }
  EXPECT_EQ(n, 3);
  ASSERT_EQ(src->interfaces().size(), 1u);
  EXPECT_EQ(src->interfaces()[0].filter, "tcp port 988");
  auto st = src->stats();
  EXPECT_EQ(st.received, 3u);
  EXPECT_EQ(st.dropped, 0u);
  bool found = false;
  for (const auto& [k, v] : st.details)
    if (k == "socklnd HELLOs V3") found = v == 2;
  EXPECT_TRUE(found);
}

// Ethernet + IPv6 + 20-byte TCP header around a segment's payload.
Bytes frame6(const socklnd::TcpSegment& s) {
  Bytes f = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x86, 0xdd};
  std::size_t ip = f.size();
  f.reserve(ip + 60 + s.payload.size());
  f.resize(ip + 60);
  f[ip] = 0x60;  // version 6
  store_be16(f.data() + ip + 4, static_cast<std::uint16_t>(20 + s.payload.size()));
  f[ip + 6] = 6;  // next header: TCP
  f[ip + 7] = 64;
  std::memcpy(f.data() + ip + 8, s.src.bytes.data(), 16);
  std::memcpy(f.data() + ip + 24, s.dst.bytes.data(), 16);
  std::uint8_t* t = f.data() + ip + 40;
  store_be16(t, s.sport);
  store_be16(t + 2, s.dport);
  store_be32(t + 4, s.seq);
  store_be32(t + 8, s.ack);
  t[12] = 5 << 4;
  t[13] = s.flags;
  f.insert(f.end(), s.payload.begin(), s.payload.end());
  return f;
}

// socklnd over IPv6, as two nodes with large NIDs speak it: connreq v2,
// HELLO V4 and 96-byte lnet_hdr_nid16 headers whose NIDs are 16-byte
// addresses (nid_size 12); three PUTs of 2000 bytes in 1000-byte segments.
TEST(SocklndSource, ReadsAnIpv6HelloV4PcapFile) {
  TempPcap p;
  FakeConnection fc;
  fc.client = socklnd::IpAddr{{0xfd, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}, true};
  fc.server = socklnd::IpAddr{{0xfd, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, true};
  Nid c = nid("fd00:3::2@tcp"), s = nid("fd00:3::1@tcp");
  Bytes cs = connreq(s, true), ss;
  HelloSpec h;
  h.version = LNETCAP_KSOCK_PROTO_V4;
  h.src = c;
  h.dst = s;
  append(cs, hello(h));
  h.src = s;
  h.dst = c;
  append(ss, hello(h));
  for (int i = 0; i < 3; ++i) {
    LnetHeaderSpec put;
    put.src = c;
    put.dst = s;
    put.nid16 = true;
    put.portal = LNETCAP_PORTAL_OST_REQUEST;
    put.match_bits = 100 + i;
    append(cs, ksock_lnet(put, pattern(2000)));
  }
  std::uint64_t ts = 1700000000000000ull;
  p.add(ts++, frame6(fc.syn(true)));
  p.add(ts++, frame6(fc.syn(false)));
  p.add(ts++, frame6(fc.data(false, ss, 0, ss.size())));
  for (std::size_t off = 0; off < cs.size(); off += 1000)
    p.add(ts++, frame6(fc.data(true, cs, off, std::min<std::size_t>(1000, cs.size() - off))));
  p.close();
  Options opts;
  opts.read_file = p.path;
  opts.local_nid = "fd00:3::1@tcp";
  auto src = open_socklnd_file(opts);
  CapturedRecord rec;
  int n = 0;
  while (src->next(rec)) {
    std::string why;
    auto v = parse_record(rec.bytes, &why);
    ASSERT_TRUE(v) << why;
    EXPECT_EQ(v->hdr.direction, LNETCAP_DIR_RECV);
    EXPECT_EQ(v->lnet_header.size(), 96u);
    EXPECT_EQ(v->hdr.local_nid, s);
    EXPECT_EQ(v->hdr.local_nid.size, 12);
    EXPECT_EQ(v->hdr.peer_nid, c);
    EXPECT_EQ(v->hdr.payload_len, 2000u);
    ++n;
  }
  EXPECT_EQ(n, 3);
  auto st = src->stats();
  bool found = false;
  for (const auto& [k, v] : st.details)
    if (k == "socklnd HELLOs V4") found = v == 2;
  EXPECT_TRUE(found);
}

TEST(SocklndSource, OtherPortIsIgnoredAndPortOptionWorks) {
  TempPcap p;
  write_connection(p);
  p.close();
  Options opts;
  opts.read_file = p.path;
  opts.lnet_port = 989;
  auto src = open_socklnd_file(opts);
  CapturedRecord rec;
  EXPECT_FALSE(src->next(rec));
}

// Lustre 2.17's accept_port_bulk: socklnd's bulk connections may go to a
// second acceptor port; with --bulk-port both ports are converted.
TEST(SocklndSource, BulkPortConnectionsAreConvertedWithBulkPort) {
  TempPcap p;
  write_connection(p);
  write_connection(p, 989, 1020, 1700000001000000ull);
  p.close();
  auto count = [&](std::uint16_t bulk_port, std::string* filter, std::uint64_t* other) {
    Options opts;
    opts.read_file = p.path;
    opts.lnet_bulk_port = bulk_port;
    auto src = open_socklnd_file(opts);
    CapturedRecord rec;
    int n = 0;
    while (src->next(rec)) ++n;
    *filter = src->interfaces().empty() ? "" : src->interfaces().back().filter;
    *other = 0;
    for (const auto& [k, v] : src->stats().details)
      if (k == "tcp segments on other ports") *other = v;
    return n;
  };
  std::string filter;
  std::uint64_t other = 0;
  EXPECT_EQ(count(0, &filter, &other), 3);
  EXPECT_GT(other, 0u);
  EXPECT_EQ(count(989, &filter, &other), 6);
  EXPECT_EQ(other, 0u);
  EXPECT_EQ(filter, "tcp port 988 or tcp port 989");
}

TEST(SocklndSource, UnsupportedLinkTypeIsAClearError) {
  TempPcap p(DLT_IEEE802_11);
  p.close();
  Options opts;
  opts.read_file = p.path;
  try {
    open_socklnd_file(opts);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(p.path), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("IEEE802_11"), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("EN10MB"), std::string::npos);
  }
}

TEST(SocklndSource, BadLocalNidIsAClearError) {
  TempPcap p;
  p.close();
  Options opts;
  opts.read_file = p.path;
  opts.local_nid = "not-a-nid";
  EXPECT_THROW(open_socklnd_file(opts), Error);
}

TEST(SocklndSource, TruncatedFileDeliversEverythingThenNamesTheOffset) {
  TempPcap p;
  write_connection(p);
  p.close();
  auto size = std::filesystem::file_size(p.path);
  std::filesystem::resize_file(p.path, size - 500);  // cut inside the last frame
  Options opts;
  opts.read_file = p.path;
  auto src = open_socklnd_file(opts);
  CapturedRecord rec;
  int n = 0;
  try {
    while (src->next(rec)) ++n;
    FAIL() << "no error for a truncated file";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(p.path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("file offset"), std::string::npos) << e.what();
  }
  EXPECT_EQ(n, 3);  // the last PUT's header was complete before the cut
}

}  // namespace
}  // namespace lnetcap::test
