// SPDX-License-Identifier: GPL-2.0-or-later
// xid_shift.h - XIDs and match bits moved by one keyed offset.
//
// Why: a client starts its XIDs from its clock (ptlrpc_init_xid(): seconds
// << 20, aligned to PTLRPC_BULK_OPS_COUNT), so their bytes tell when its
// ptlrpc started, and on real traces (Lustre 2.15.8, fentry mode) they were
// most of the printable runs a leak test found kept (pb_last_xid "?A`*").
// Unlike a random cookie an XID is read for its order and its differences:
// bulk match bits are the XID and the chunks after it, pb_last_xid trails
// the XID, a resend keeps it.  So every one moves by the same offset K:
// order, differences and equality stay, and K is a multiple of 256 so that
// every alignment an analysis reads (PTLRPC_BULK_OPS_COUNT blocks: 64 in
// 2.15, 128 later) stays too.  K lies in [2^52, 2^62): an XID below 2^62
// (every one ptlrpc_init_xid() makes, clock or random) stays below 2^63,
// so nothing wraps and no XID becomes LNet's ping match bits (2^63).
// 0 (no XID) and LNET_PING_MATCHBITS stay.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace lnetcap::anon {

class XidShift {
 public:
  explicit XidShift(const std::vector<std::uint8_t>& key);

  std::uint64_t xid(std::uint64_t v) const;
  std::uint64_t offset() const { return k_; }

  /// The match bits of an LNet header (72- or 96-byte form): PUT, GET, ACK.
  /// Returns how many changed.
  std::size_t rewrite_lnet_header(std::span<std::uint8_t> hdr) const;
  /// pb_last_xid and pb_mbits of a kept ptlrpc_body (little: its byte order).
  std::size_t rewrite_ptlrpc_body(std::span<std::uint8_t> body, bool little) const;

 private:
  std::uint64_t k_ = 0;
};

}  // namespace lnetcap::anon
