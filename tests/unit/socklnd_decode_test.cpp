// SPDX-License-Identifier: GPL-2.0-or-later
// Frames -> TCP segments for every link type the socklnd import accepts.
// Frames are built byte by byte (RFC 791, RFC 8200, RFC 9293, IEEE 802.1Q,
// tcpdump.org LINKTYPE_LINUX_SLL/SLL2 layouts).
#include "socklnd/packet_decode.h"

#include <gtest/gtest.h>
#include <pcap/pcap.h>

#include <vector>

namespace lnetcap::socklnd {
namespace {

using Bytes = std::vector<std::uint8_t>;

void be16(Bytes& b, std::uint16_t v) { b.push_back(v >> 8); b.push_back(v & 0xff); }
void be32(Bytes& b, std::uint32_t v) { be16(b, v >> 16); be16(b, v & 0xffff); }

Bytes tcp(const Bytes& payload, std::uint8_t flags = kTcpAck | kTcpPsh) {
  Bytes t;
  be16(t, 1021);
  be16(t, 988);
  be32(t, 0x11223344);
  be32(t, 0x55667788);
  t.push_back(8 << 4);  // 32-byte header: 12 bytes of options
  t.push_back(flags);
  be16(t, 502);
  be16(t, 0);  // checksum (not verified: capture offload makes it unreliable)
  be16(t, 0);
  const std::uint8_t opts[12] = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
  t.insert(t.end(), opts, opts + 12);
  t.insert(t.end(), payload.begin(), payload.end());
  return t;
}

Bytes ipv4(const Bytes& l4, std::uint8_t proto = 6, std::uint16_t frag = 0x4000 /* DF */) {
  Bytes ip = {0x45, 0};
  be16(ip, static_cast<std::uint16_t>(20 + l4.size()));
  be16(ip, 0x1234);
  be16(ip, frag);
  ip.push_back(64);
  ip.push_back(proto);
  be16(ip, 0);
  const std::uint8_t addrs[8] = {10, 0, 3, 2, 10, 0, 3, 1};
  ip.insert(ip.end(), addrs, addrs + 8);
  ip.insert(ip.end(), l4.begin(), l4.end());
  return ip;
}

// IPv6 with a hop-by-hop options header in front of TCP.
Bytes ipv6(const Bytes& l4) {
  Bytes ip = {0x60, 0, 0, 0};
  be16(ip, static_cast<std::uint16_t>(8 + l4.size()));
  ip.push_back(0);  // next: hop-by-hop
  ip.push_back(64);
  for (int side = 0; side < 2; ++side) {
    const std::uint8_t a[16] = {0xfd, 0, 0, 0x77, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                static_cast<std::uint8_t>(2 - side)};
    ip.insert(ip.end(), a, a + 16);
  }
  const std::uint8_t hbh[8] = {6, 0, 1, 4, 0, 0, 0, 0};  // next TCP, PadN
  ip.insert(ip.end(), hbh, hbh + 8);
  ip.insert(ip.end(), l4.begin(), l4.end());
  return ip;
}

Bytes ethernet(const Bytes& l3, std::uint16_t type, bool vlan = false) {
  Bytes f = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  if (vlan) {
    be16(f, 0x8100);
    be16(f, 42);
  }
  be16(f, type);
  f.insert(f.end(), l3.begin(), l3.end());
  while (f.size() < 60) f.push_back(0);  // minimum frame: padding
  return f;
}

const Bytes kPayload = {'l', 'n', 'e', 't'};

void expect_segment(const TcpSegment& s, bool v6 = false) {
  EXPECT_EQ(s.sport, 1021);
  EXPECT_EQ(s.dport, 988);
  EXPECT_EQ(s.seq, 0x11223344u);
  EXPECT_EQ(s.ack, 0x55667788u);
  EXPECT_EQ(s.flags, kTcpAck | kTcpPsh);
  EXPECT_EQ(Bytes(s.payload.begin(), s.payload.end()), kPayload);  // no padding
  EXPECT_EQ(s.wire_len, 4u);
  EXPECT_EQ(s.src.to_string(), v6 ? "fd00:77::2" : "10.0.3.2");
  EXPECT_EQ(s.dst.to_string(), v6 ? "fd00:77::1" : "10.0.3.1");
}

// The segment points into the frame: frames stay alive while it is checked.
TEST(SocklndDecode, EthernetIpv4TcpWithPadding) {
  TcpSegment s;
  Bytes f = ethernet(ipv4(tcp(kPayload)), 0x0800);
  ASSERT_EQ(decode_frame(DLT_EN10MB, f, &s), DecodeStatus::kTcp);
  expect_segment(s);
}

TEST(SocklndDecode, VlanTaggedIpv6WithExtensionHeader) {
  TcpSegment s;
  Bytes f = ethernet(ipv6(tcp(kPayload)), 0x86dd, true);
  ASSERT_EQ(decode_frame(DLT_EN10MB, f, &s), DecodeStatus::kTcp);
  expect_segment(s, true);
}

TEST(SocklndDecode, LinuxCookedV1AndV2) {
  Bytes sll = {0, 0, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0};
  be16(sll, 0x0800);
  Bytes ip = ipv4(tcp(kPayload));
  sll.insert(sll.end(), ip.begin(), ip.end());
  TcpSegment s;
  ASSERT_EQ(decode_frame(DLT_LINUX_SLL, sll, &s), DecodeStatus::kTcp);
  expect_segment(s);

  Bytes sll2;
  be16(sll2, 0x86dd);
  be16(sll2, 0);
  be32(sll2, 3);  // ifindex
  const std::uint8_t rest[12] = {0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0};
  sll2.insert(sll2.end(), rest, rest + 12);
  Bytes ip6 = ipv6(tcp(kPayload));
  sll2.insert(sll2.end(), ip6.begin(), ip6.end());
  ASSERT_EQ(decode_frame(DLT_LINUX_SLL2, sll2, &s), DecodeStatus::kTcp);
  expect_segment(s, true);
}

TEST(SocklndDecode, RawIpAndLoopback) {
  TcpSegment s;
  Bytes raw4 = ipv4(tcp(kPayload)), raw6 = ipv6(tcp(kPayload));
  ASSERT_EQ(decode_frame(DLT_RAW, raw4, &s), DecodeStatus::kTcp);
  expect_segment(s);
  ASSERT_EQ(decode_frame(DLT_IPV6, raw6, &s), DecodeStatus::kTcp);
  expect_segment(s, true);
  Bytes null = {2, 0, 0, 0};
  Bytes ip = ipv4(tcp(kPayload));
  null.insert(null.end(), ip.begin(), ip.end());
  ASSERT_EQ(decode_frame(DLT_NULL, null, &s), DecodeStatus::kTcp);
  expect_segment(s);
}

TEST(SocklndDecode, SnaplenCutFrameKeepsTheWireLength) {
  Bytes payload(1000, 0xab);
  Bytes f = ethernet(ipv4(tcp(payload)), 0x0800);
  f.resize(14 + 20 + 32 + 100);  // tcpdump -s 166
  TcpSegment s;
  ASSERT_EQ(decode_frame(DLT_EN10MB, f, &s), DecodeStatus::kTcp);
  EXPECT_EQ(s.payload.size(), 100u);
  EXPECT_EQ(s.wire_len, 1000u);
}

TEST(SocklndDecode, OtherTrafficIsRecognisedAndSkipped) {
  TcpSegment s;
  EXPECT_EQ(decode_frame(DLT_EN10MB, ethernet(ipv4(tcp(kPayload), 17), 0x0800), &s),
            DecodeStatus::kNotTcp);  // UDP
  EXPECT_EQ(decode_frame(DLT_EN10MB, ethernet(Bytes(28, 0), 0x0806), &s),
            DecodeStatus::kNotTcp);  // ARP
  EXPECT_EQ(decode_frame(DLT_EN10MB, ethernet(ipv4(tcp(kPayload), 6, 0x2000), 0x0800), &s),
            DecodeStatus::kFragment);  // MF set
  Bytes cut = ethernet(ipv4(tcp(kPayload)), 0x0800);
  cut.resize(14 + 20 + 10);
  EXPECT_EQ(decode_frame(DLT_EN10MB, cut, &s), DecodeStatus::kTruncated);
  Bytes bad = ipv4(tcp(kPayload));
  bad[0] = 0x43;  // IHL 12 bytes
  EXPECT_EQ(decode_frame(DLT_RAW, bad, &s), DecodeStatus::kMalformed);
}

TEST(SocklndDecode, SupportedLinkTypes) {
  for (int dlt : {DLT_EN10MB, DLT_LINUX_SLL, DLT_LINUX_SLL2, DLT_RAW, DLT_IPV4, DLT_IPV6, DLT_NULL,
                  DLT_LOOP})
    EXPECT_TRUE(link_type_supported(dlt)) << dlt;
  EXPECT_FALSE(link_type_supported(DLT_IEEE802_11));
  EXPECT_EQ(link_type_name(DLT_EN10MB), "EN10MB");
}

}  // namespace
}  // namespace lnetcap::socklnd
