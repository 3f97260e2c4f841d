// SPDX-License-Identifier: GPL-2.0-or-later
// packet_decode.h - from a captured frame to the TCP segment inside it:
// Ethernet (with VLAN tags), Linux cooked SLL/SLL2, BSD loopback and raw
// IP link types; IPv4 and IPv6 (with extension headers); TCP.  Nothing is
// copied: the segment's payload points into the frame.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "../bytes.h"

namespace lnetcap::socklnd {

/// An IPv4 or IPv6 address as 16 bytes (IPv4 in the first four).
struct IpAddr {
  std::array<std::uint8_t, 16> bytes{};
  bool v6 = false;

  std::string to_string() const;
  auto operator<=>(const IpAddr&) const = default;
};

/// TCP header flags (RFC 9293).
enum : std::uint8_t {
  kTcpFin = 0x01,
  kTcpSyn = 0x02,
  kTcpRst = 0x04,
  kTcpPsh = 0x08,
  kTcpAck = 0x10,
};

struct TcpSegment {
  IpAddr src, dst;
  std::uint16_t sport = 0, dport = 0;
  std::uint32_t seq = 0, ack = 0;
  std::uint8_t flags = 0;
  ByteSpan payload;          // the captured part of the TCP payload
  std::uint32_t wire_len = 0;  // payload length on the wire (from the IP header)
};

enum class DecodeStatus {
  kTcp,         // *out holds the segment
  kNotTcp,      // another protocol (ARP, UDP, ICMP...)
  kFragment,    // an IP fragment: not reassembled (socklnd sockets set DF)
  kTruncated,   // the frame ends before the TCP header does
  kMalformed,   // impossible header lengths
};

/// True for the pcap link types decode_frame understands.
bool link_type_supported(int dlt);
/// The libpcap name of a link type, for error messages ("EN10MB").
std::string link_type_name(int dlt);

/// Decodes one frame of link type dlt (a DLT_* value as pcap_datalink()
/// returns it).  The frame may be cut short by the capture's snap length;
/// the IP length still tells wire_len.
DecodeStatus decode_frame(int dlt, ByteSpan frame, TcpSegment* out);

}  // namespace lnetcap::socklnd
