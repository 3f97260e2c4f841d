// SPDX-License-Identifier: GPL-2.0-or-later
// handle_pseudonyms.h - the random cookies a trace keeps (LNet MD handles,
// lock, open and connection handles) replaced by keyed pseudonyms.
//
// Why: a cookie is a random number, not an identity, but its bytes are the
// sender's memory; kept raw they are the one part of an anonymized trace
// that still copies the input byte for byte, so a leak test of real traces
// (tests/anon/) cannot tell them from a real leak.  A keyed PRF
// (HMAC-SHA256 with the anonymization key) of the cookie's 8 bytes replaces
// them: the same cookie becomes the same pseudonym everywhere, so a GET and
// its REPLY (wmd), a lock's enqueue, callbacks and cancel (lock handle), an
// open and its close (open handle) still pair, in lnetcap and in Wireshark.
//
// Lustre never byte-swaps these cookies ("handle is opaque",
// pack_generic.c; LNet's wire handles likewise): the receiver echoes the
// bytes it got.  So they are mapped as 8 bytes in, 8 bytes out, whatever
// the message's byte order.  0 ("no handle") and all ones
// (LNET_WIRE_HANDLE_COOKIE_NONE: a PUT that wants no ACK) stay, and no
// pseudonym is either.  Every site that holds a cookie is listed here, once.
#pragma once

#include <glib.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "lnetcap/rpc_formats.h"

namespace lnetcap::anon {

class HandlePseudonyms {
 public:
  explicit HandlePseudonyms(const std::vector<std::uint8_t>& key);
  // Copies share nothing (the Anonymizer holding one is moved and copied).
  HandlePseudonyms(const HandlePseudonyms& o) : keyed_(o.keyed_ ? g_hmac_copy(o.keyed_.get()) : nullptr) {}
  HandlePseudonyms& operator=(const HandlePseudonyms& o) {
    if (this != &o) keyed_.reset(o.keyed_ ? g_hmac_copy(o.keyed_.get()) : nullptr);
    return *this;
  }
  HandlePseudonyms(HandlePseudonyms&&) = default;
  HandlePseudonyms& operator=(HandlePseudonyms&&) = default;

  /// A struct lustre_handle's cookie, as its 8 wire bytes (read little-endian).
  std::uint64_t lustre_cookie(std::uint64_t cookie) const;
  /// An LNet wire handle's interface cookie (the sender LNet's start time).
  std::uint64_t lnet_interface_cookie(std::uint64_t cookie) const;
  /// An LNet wire handle's object cookie: the resource type in its low bits
  /// stays (LNETCAP_LNET_COOKIE_TYPE_MASK), the counter and CPT above it do not.
  std::uint64_t lnet_object_cookie(std::uint64_t cookie) const;

  /// The wire handle of an LNet header (72- or 96-byte form): a PUT's
  /// ack_wmd, a GET's return_wmd, an ACK's or REPLY's dst_wmd; a HELLO's
  /// incarnation (also a start time).  Returns how many cookies changed.
  std::size_t rewrite_lnet_header(std::span<std::uint8_t> hdr) const;

  /// The handles in a PtlRPC buffer of kind `kind` that the anonymizer
  /// keeps (buffer_policy.h), cut to its declared length: pb_handle,
  /// ldlm_request lock_handle[], ldlm_reply lock_handle, RMF_CONN,
  /// mbo_open_handle, mio_open_handle, o_handle, and the open (replay) and
  /// lease handles of REINT_CREATE/OPEN and REINT_RESYNC records.
  /// little: the message's byte order (only to read a reint's opcode).
  /// Returns how many cookies changed.
  std::size_t rewrite_buffer(enum lnetcap_rmf kind, std::span<std::uint8_t> buf, bool little) const;

 private:
  std::uint64_t prf(const char* domain, std::uint64_t cookie) const;
  // Rewrites the 8 bytes at off of buf when they fit; true when they changed.
  bool lustre_cookie_at(std::span<std::uint8_t> buf, std::size_t off) const;

  struct Unref {
    void operator()(GHmac* h) const { g_hmac_unref(h); }
  };
  // HMAC-SHA256 with the key set, copied per cookie (the key's pads are
  // hashed once, not per cookie).
  std::unique_ptr<GHmac, Unref> keyed_;
};

}  // namespace lnetcap::anon
