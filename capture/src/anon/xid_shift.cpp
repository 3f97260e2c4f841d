// SPDX-License-Identifier: GPL-2.0-or-later
#include "xid_shift.h"

#include <glib.h>

#include <cstring>

#include "../bytes.h"
#include "codec/wire_reader.h"
#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"

namespace lnetcap::anon {
namespace {

constexpr std::uint64_t kLow = 1ULL << 52, kHigh = 1ULL << 62;
constexpr std::uint64_t kAlign = 256;  // keeps every PTLRPC_BULK_OPS_COUNT block

}  // namespace

XidShift::XidShift(const std::vector<std::uint8_t>& key) {
  static constexpr char kDomain[] = "xid-offset";
  std::uint8_t d[32];
  gsize n = sizeof(d);
  GHmac* h = g_hmac_new(G_CHECKSUM_SHA256, key.data(), key.size());
  g_hmac_update(h, reinterpret_cast<const guchar*>(kDomain), sizeof(kDomain));
  g_hmac_get_digest(h, d, &n);
  g_hmac_unref(h);
  k_ = (kLow + load_le64(d) % (kHigh - kLow)) & ~(kAlign - 1);
}

std::uint64_t XidShift::xid(std::uint64_t v) const {
  if (v == 0 || v == LNETCAP_LNET_PING_MATCHBITS) return v;
  return v + k_;
}

std::size_t XidShift::rewrite_lnet_header(std::span<std::uint8_t> hdr) const {
  std::size_t msg, type_at;
  if (hdr.size() == LNETCAP_HDR_NID4_LEN) {
    msg = LNETCAP_OFFSETOF(struct lnetcap_hdr_nid4, msg);
    type_at = LNETCAP_OFFSETOF(struct lnetcap_hdr_nid4, type);
  } else if (hdr.size() == LNETCAP_HDR_NID16_LEN) {
    msg = LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, msg);
    type_at = LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, type);
  } else {
    return 0;
  }
  // PUT, GET and ACK carry match bits at one place of the union (lnet.h
  // asserts it); REPLY and HELLO carry none.
  static_assert(LNETCAP_OFFSETOF(struct lnetcap_put, match_bits) == LNETCAP_OFFSETOF(struct lnetcap_get, match_bits) &&
                LNETCAP_OFFSETOF(struct lnetcap_put, match_bits) == LNETCAP_OFFSETOF(struct lnetcap_ack, match_bits));
  const std::uint32_t type = load_le32(&hdr[type_at]);
  if (type != LNETCAP_MSG_PUT && type != LNETCAP_MSG_GET && type != LNETCAP_MSG_ACK) return 0;
  std::uint8_t* mb = &hdr[msg + LNETCAP_OFFSETOF(struct lnetcap_put, match_bits)];
  const std::uint64_t in = load_le64(mb), out = xid(in);
  store_le64(mb, out);
  return in != out;
}

std::size_t XidShift::rewrite_ptlrpc_body(std::span<std::uint8_t> body, bool little) const {
  WireWriter w(body, Endian{little});
  std::size_t n = 0;
  for (auto f : {LNETCAP_FIELD(struct lnetcap_ptlrpc_body, pb_last_xid), LNETCAP_FIELD(struct lnetcap_ptlrpc_body, pb_mbits)}) {
    if (!w.has(f)) continue;
    const std::uint64_t in = w.reader().u64(f), out = xid(in);
    w.u64(f, out);
    n += in != out;
  }
  return n;
}

}  // namespace lnetcap::anon
