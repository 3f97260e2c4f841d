// SPDX-License-Identifier: GPL-2.0-or-later
// nid.h - LNet NIDs and nets: parse and print exactly as Lustre does
// (libcfs_nidstr_r / libcfs_strnid), in both the nid4 (u64) and the large
// struct lnet_nid forms.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bytes.h"

namespace lnetcap {

/// Name of an LND type as used in NID strings ("tcp", "o2ib", "kfi"), or
/// nullptr for a type Lustre has no string functions for.
const char* lnd_name(unsigned lnd_type);
/// LND type for a name ("o2ib" -> 5), if known.
std::optional<unsigned> lnd_from_name(std::string_view name);

/// An LNet network: LND type plus net number ("o2ib1").
struct Net {
  std::uint8_t type = 0;
  std::uint16_t num = 0;

  std::string to_string() const;  // "tcp", "o2ib1", "<99:3>"
  static std::optional<Net> parse(std::string_view text);
  auto operator<=>(const Net&) const = default;
};

/// A NID in large form.  addr holds nid_size + 4 significant bytes in
/// network order, the same as struct lnet_nid's nid_addr.
struct Nid {
  std::uint8_t size = 0;  // nid_size: address bytes - 4 (0 = IPv4/nid4, 12 = IPv6)
  std::uint8_t type = 0;  // LND type; 0xff = any
  std::uint16_t num = 0;  // net number
  std::array<std::uint8_t, 16> addr{};

  static Nid from_nid4(std::uint64_t nid4);
  /// From the 20-byte struct lnet_nid form (record headers, nid16 LNet headers).
  static Nid from_lnet_nid(const std::uint8_t* raw20);
  static Nid any();
  /// Parses "10.0.0.1@tcp", "16@kfi", "0@lo", "fe80::1@tcp", "c0a80102@<99:0>", "<?>".
  static std::optional<Nid> parse(std::string_view text);

  void to_lnet_nid(std::uint8_t* raw20) const;
  bool is_any() const { return type == 0xff; }
  /// All zero: a record field LNet had not filled (a message finalized
  /// before LNet chose a local NI for it).  Printed "-" or "NA", never as
  /// the NID 0@<0:0> it would decode to.
  bool is_unset() const { return *this == Nid{}; }
  /// True when the NID fits the 64-bit form (4-byte address).
  bool is_nid4_compatible() const { return size == 0; }
  std::uint64_t to_nid4() const;  // only when is_nid4_compatible()
  std::uint32_t addr4() const { return load_be32(addr.data()); }
  Net net() const { return Net{type, num}; }
  std::string to_string() const;

  auto operator<=>(const Nid&) const = default;
};

}  // namespace lnetcap
