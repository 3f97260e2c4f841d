// SPDX-License-Identifier: GPL-2.0-or-later
#include "packet_decode.h"

#include <arpa/inet.h>
#include <pcap/pcap.h>

#include <cstring>

namespace lnetcap::socklnd {
namespace {

constexpr std::uint16_t kEtherIpv4 = 0x0800;
constexpr std::uint16_t kEtherIpv6 = 0x86dd;
constexpr std::uint16_t kEtherVlan = 0x8100;
constexpr std::uint16_t kEtherQinQ = 0x88a8;
constexpr std::uint16_t kEtherVlan9100 = 0x9100;
constexpr std::uint8_t kIpProtoTcp = 6;

// IPv6 extension headers that may precede TCP (RFC 8200 section 4).
constexpr std::uint8_t kIp6HopByHop = 0;
constexpr std::uint8_t kIp6Routing = 43;
constexpr std::uint8_t kIp6Fragment = 44;
constexpr std::uint8_t kIp6DestOpts = 60;

DecodeStatus decode_tcp(ByteSpan l4, std::uint32_t l4_wire_len, TcpSegment* out) {
  if (l4.size() < 20) return DecodeStatus::kTruncated;
  const std::uint8_t* p = l4.data();
  std::size_t hlen = static_cast<std::size_t>(p[12] >> 4) * 4;
  if (hlen < 20 || hlen > l4_wire_len) return DecodeStatus::kMalformed;
  if (l4.size() < hlen) return DecodeStatus::kTruncated;
  out->sport = load_be16(p);
  out->dport = load_be16(p + 2);
  out->seq = load_be32(p + 4);
  out->ack = load_be32(p + 8);
  out->flags = p[13];
  out->wire_len = l4_wire_len - static_cast<std::uint32_t>(hlen);
  std::size_t cap = l4.size() - hlen;
  if (cap > out->wire_len) cap = out->wire_len;  // Ethernet padding
  out->payload = l4.subspan(hlen, cap);
  return DecodeStatus::kTcp;
}

DecodeStatus decode_ipv4(ByteSpan ip, TcpSegment* out) {
  if (ip.size() < 20) return DecodeStatus::kTruncated;
  const std::uint8_t* p = ip.data();
  if ((p[0] >> 4) != 4) return DecodeStatus::kMalformed;
  std::size_t ihl = static_cast<std::size_t>(p[0] & 0x0f) * 4;
  std::uint16_t total = load_be16(p + 2);
  // TSO captures on the sending host show total length 0; trust the frame.
  if (total == 0) total = static_cast<std::uint16_t>(ip.size() > 0xffff ? 0xffff : ip.size());
  if (ihl < 20 || total < ihl) return DecodeStatus::kMalformed;
  if (ip.size() < ihl) return DecodeStatus::kTruncated;
  if (p[9] != kIpProtoTcp) return DecodeStatus::kNotTcp;
  std::uint16_t frag = load_be16(p + 6);
  if ((frag & 0x3fff) != 0) return DecodeStatus::kFragment;  // MF or offset
  out->src = IpAddr{};
  out->dst = IpAddr{};
  std::memcpy(out->src.bytes.data(), p + 12, 4);
  std::memcpy(out->dst.bytes.data(), p + 16, 4);
  std::size_t avail = ip.size() < total ? ip.size() : total;
  return decode_tcp(ip.subspan(ihl, avail - ihl), total - static_cast<std::uint32_t>(ihl), out);
}

DecodeStatus decode_ipv6(ByteSpan ip, TcpSegment* out) {
  if (ip.size() < 40) return DecodeStatus::kTruncated;
  const std::uint8_t* p = ip.data();
  if ((p[0] >> 4) != 6) return DecodeStatus::kMalformed;
  std::uint32_t plen = load_be16(p + 4);
  if (plen == 0) plen = static_cast<std::uint32_t>(ip.size() - 40);  // jumbogram or TSO
  std::uint8_t next = p[6];
  out->src = IpAddr{};
  out->dst = IpAddr{};
  std::memcpy(out->src.bytes.data(), p + 8, 16);
  std::memcpy(out->dst.bytes.data(), p + 24, 16);
  out->src.v6 = out->dst.v6 = true;
  std::size_t off = 40;
  std::uint32_t remaining = plen;
  for (int hops = 0; hops < 8; ++hops) {
    if (next == kIpProtoTcp) {
      std::size_t end = 40 + static_cast<std::size_t>(plen);
      std::size_t avail = (ip.size() < end ? ip.size() : end);
      if (avail < off) return DecodeStatus::kTruncated;
      return decode_tcp(ip.subspan(off, avail - off), remaining, out);
    }
    if (next == kIp6Fragment) return DecodeStatus::kFragment;
    if (next != kIp6HopByHop && next != kIp6Routing && next != kIp6DestOpts)
      return DecodeStatus::kNotTcp;
    if (ip.size() < off + 8) return DecodeStatus::kTruncated;
    std::size_t ext = (static_cast<std::size_t>(ip[off + 1]) + 1) * 8;
    if (ext > remaining) return DecodeStatus::kMalformed;
    next = ip[off];
    off += ext;
    remaining -= static_cast<std::uint32_t>(ext);
  }
  return DecodeStatus::kMalformed;
}

DecodeStatus decode_ip(ByteSpan ip, TcpSegment* out) {
  if (ip.empty()) return DecodeStatus::kTruncated;
  switch (ip[0] >> 4) {
    case 4: return decode_ipv4(ip, out);
    case 6: return decode_ipv6(ip, out);
    default: return DecodeStatus::kNotTcp;
  }
}

DecodeStatus decode_ethertype(std::uint16_t type, ByteSpan rest, TcpSegment* out) {
  if (type == kEtherIpv4) return decode_ipv4(rest, out);
  if (type == kEtherIpv6) return decode_ipv6(rest, out);
  return DecodeStatus::kNotTcp;
}

DecodeStatus decode_ethernet(ByteSpan f, TcpSegment* out) {
  if (f.size() < 14) return DecodeStatus::kTruncated;
  std::size_t off = 12;
  std::uint16_t type = load_be16(f.data() + off);
  // Up to two stacked 802.1Q / 802.1ad tags.
  for (int tags = 0; tags < 2 && (type == kEtherVlan || type == kEtherQinQ || type == kEtherVlan9100);
       ++tags) {
    off += 4;
    if (f.size() < off + 2) return DecodeStatus::kTruncated;
    type = load_be16(f.data() + off);
  }
  return decode_ethertype(type, f.subspan(off + 2), out);
}

}  // namespace

std::string IpAddr::to_string() const {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), buf, sizeof buf);
  return buf;
}

bool link_type_supported(int dlt) {
  switch (dlt) {
    case DLT_EN10MB:
    case DLT_LINUX_SLL:
    case DLT_LINUX_SLL2:
    case DLT_RAW:
    case DLT_IPV4:
    case DLT_IPV6:
    case DLT_NULL:
    case DLT_LOOP:
      return true;
    default:
      return false;
  }
}

std::string link_type_name(int dlt) {
  const char* name = pcap_datalink_val_to_name(dlt);
  return name ? name : "DLT " + std::to_string(dlt);
}

DecodeStatus decode_frame(int dlt, ByteSpan f, TcpSegment* out) {
  switch (dlt) {
    case DLT_EN10MB:
      return decode_ethernet(f, out);
    case DLT_LINUX_SLL:  // 16-byte cooked header, protocol at 14
      if (f.size() < 16) return DecodeStatus::kTruncated;
      return decode_ethertype(load_be16(f.data() + 14), f.subspan(16), out);
    case DLT_LINUX_SLL2:  // 20-byte cooked header, protocol first
      if (f.size() < 20) return DecodeStatus::kTruncated;
      return decode_ethertype(load_be16(f.data()), f.subspan(20), out);
    case DLT_RAW:
    case DLT_IPV4:
    case DLT_IPV6:
      return decode_ip(f, out);
    case DLT_NULL:
    case DLT_LOOP:  // 4-byte address family in either byte order; the IP
                    // version nibble tells the same thing more reliably
      if (f.size() < 4) return DecodeStatus::kTruncated;
      return decode_ip(f.subspan(4), out);
    default:
      return DecodeStatus::kNotTcp;
  }
}

}  // namespace lnetcap::socklnd
