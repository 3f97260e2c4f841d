// SPDX-License-Identifier: GPL-2.0-or-later
#include "handle_pseudonyms.h"

#include <cstring>
#include <optional>

#include "../bytes.h"
#include "../error.h"
#include "codec/wire_reader.h"
#include "lnetcap/bodies.h"
#include "lnetcap/lnet.h"
#include "lnetcap/mdt_reint.h"
#include "lnetcap/ptlrpc.h"

namespace lnetcap::anon {
namespace {

constexpr std::size_t kCookie = sizeof(std::uint64_t);  // struct lustre_handle, one wire cookie
constexpr std::uint64_t kNoCookie = 0;
constexpr std::uint64_t kCookieNone = LNETCAP_LNET_WIRE_COOKIE_NONE;

bool is_sentinel(std::uint64_t v) { return v == kNoCookie || v == kCookieNone; }

// Where the msg union starts and the message type lies, by header form.
struct HeaderForm {
  std::size_t type, msg;
};
std::optional<HeaderForm> header_form(std::size_t len) {
  if (len == LNETCAP_HDR_NID4_LEN)
    return HeaderForm{LNETCAP_OFFSETOF(struct lnetcap_hdr_nid4, type), LNETCAP_OFFSETOF(struct lnetcap_hdr_nid4, msg)};
  if (len == LNETCAP_HDR_NID16_LEN)
    return HeaderForm{LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, type),
                      LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, msg)};
  return std::nullopt;
}

}  // namespace

HandlePseudonyms::HandlePseudonyms(const std::vector<std::uint8_t>& key)
    : keyed_(g_hmac_new(G_CHECKSUM_SHA256, key.data(), key.size())) {
  if (!keyed_) throw Error("cannot set up HMAC-SHA256 for handle pseudonyms");
}

// HMAC(key, domain NUL cookie), read 8 bytes at a time until one is not a
// sentinel (a 2^-63 event each time).
std::uint64_t HandlePseudonyms::prf(const char* domain, std::uint64_t cookie) const {
  GHmac* h = g_hmac_copy(keyed_.get());
  g_hmac_update(h, reinterpret_cast<const guchar*>(domain), static_cast<gssize>(std::strlen(domain) + 1));
  std::uint8_t in[kCookie];
  store_le64(in, cookie);
  g_hmac_update(h, in, sizeof(in));
  std::uint8_t d[32];
  gsize n = sizeof(d);
  g_hmac_get_digest(h, d, &n);
  g_hmac_unref(h);
  for (std::size_t i = 0; i + kCookie <= n; i += kCookie)
    if (const std::uint64_t v = load_le64(d + i); !is_sentinel(v)) return v;
  return 1;  // all four words sentinels: never in practice
}

std::uint64_t HandlePseudonyms::lustre_cookie(std::uint64_t cookie) const {
  return is_sentinel(cookie) ? cookie : prf("lustre-handle", cookie);
}

std::uint64_t HandlePseudonyms::lnet_interface_cookie(std::uint64_t cookie) const {
  return is_sentinel(cookie) ? cookie : prf("lnet-interface-cookie", cookie);
}

std::uint64_t HandlePseudonyms::lnet_object_cookie(std::uint64_t cookie) const {
  if (is_sentinel(cookie)) return cookie;
  // The type bits are a protocol constant (MD = 1 in every wmd) and show
  // the value is an MD cookie; the CPT's width is not on the wire, so the
  // CPT goes with the counter.
  std::uint64_t out = (prf("lnet-object-cookie", cookie) & ~LNETCAP_LNET_COOKIE_TYPE_MASK) |
                      (cookie & LNETCAP_LNET_COOKIE_TYPE_MASK);
  if (is_sentinel(out)) out ^= LNETCAP_LNET_COOKIE_TYPE_MASK + 1;
  return out;
}

std::size_t HandlePseudonyms::rewrite_lnet_header(std::span<std::uint8_t> hdr) const {
  const auto form = header_form(hdr.size());
  if (!form) return 0;
  const std::uint32_t type = load_le32(&hdr[form->type]);
  std::uint8_t* m = &hdr[form->msg];
  auto map = [](std::uint8_t* p, std::uint64_t to) {
    const bool changed = load_le64(p) != to;
    store_le64(p, to);
    return changed ? std::size_t{1} : std::size_t{0};
  };
  if (type == LNETCAP_MSG_HELLO) {
    std::uint8_t* inc = m + LNETCAP_OFFSETOF(struct lnetcap_hello, incarnation);
    return map(inc, lnet_interface_cookie(load_le64(inc)));
  }
  // ACK, PUT, GET and REPLY all begin their part of the union with the
  // wire handle (lnet.h asserts the other fields' offsets after it).
  static_assert(LNETCAP_OFFSETOF(struct lnetcap_ack, dst_wmd) == 0 &&
                LNETCAP_OFFSETOF(struct lnetcap_put, ack_wmd) == 0 &&
                LNETCAP_OFFSETOF(struct lnetcap_get, return_wmd) == 0 &&
                LNETCAP_OFFSETOF(struct lnetcap_reply, dst_wmd) == 0);
  if (type != LNETCAP_MSG_ACK && type != LNETCAP_MSG_PUT && type != LNETCAP_MSG_GET && type != LNETCAP_MSG_REPLY)
    return 0;
  std::uint8_t* ifc = m + LNETCAP_OFFSETOF(struct lnetcap_handle_wire, wh_interface_cookie);
  std::uint8_t* obj = m + LNETCAP_OFFSETOF(struct lnetcap_handle_wire, wh_object_cookie);
  return map(ifc, lnet_interface_cookie(load_le64(ifc))) + map(obj, lnet_object_cookie(load_le64(obj)));
}

bool HandlePseudonyms::lustre_cookie_at(std::span<std::uint8_t> buf, std::size_t off) const {
  if (off + kCookie > buf.size()) return false;
  std::uint8_t* p = &buf[off];
  const std::uint64_t in = load_le64(p), out = lustre_cookie(in);
  store_le64(p, out);
  return in != out;
}

std::size_t HandlePseudonyms::rewrite_buffer(enum lnetcap_rmf kind, std::span<std::uint8_t> buf,
                                             bool little) const {
  std::size_t n = 0;
  switch (kind) {
    case LNETCAP_RMF_PTLRPC_BODY:  // the export's or import's handle
      n += lustre_cookie_at(buf, LNETCAP_OFFSETOF(struct lnetcap_ptlrpc_body, pb_handle));
      break;
    case LNETCAP_RMF_DLM_REQ:
      // lock_handle[] after the struct: the enqueued, called-back or
      // cancelled locks (ldlm_request_bufsize() may make it longer).
      for (std::size_t off = sizeof(struct lnetcap_ldlm_request); off + kCookie <= buf.size(); off += kCookie)
        n += lustre_cookie_at(buf, off);
      break;
    case LNETCAP_RMF_DLM_REP:
      n += lustre_cookie_at(buf, LNETCAP_OFFSETOF(struct lnetcap_ldlm_reply, lock_handle));
      break;
    case LNETCAP_RMF_CONN:  // struct lustre_handle: the import's connection cookie
      n += lustre_cookie_at(buf, 0);
      break;
    case LNETCAP_RMF_MDT_BODY:
      n += lustre_cookie_at(buf, LNETCAP_OFFSETOF(struct lnetcap_mdt_body, mbo_open_handle));
      break;
    case LNETCAP_RMF_MDT_EPOCH:
      n += lustre_cookie_at(buf, LNETCAP_OFFSETOF(struct lnetcap_mdt_ioepoch, mio_open_handle));
      break;
    case LNETCAP_RMF_OST_BODY:  // a lock handle (OBD_MD_FLHANDLE: punch, setattr)
      n += lustre_cookie_at(buf, LNETCAP_OFFSETOF(struct lnetcap_obdo, o_handle));
      break;
    case LNETCAP_RMF_REC_REINT: {
      const WireReader rec{ByteSpan(buf.data(), buf.size()), Endian{little}};
      const std::uint32_t op = rec.u32(LNETCAP_FIELD(struct lnetcap_mdt_rec_reint, rr_opcode));
      if (op == LNETCAP_REINT_CREATE || op == LNETCAP_REINT_OPEN)  // the open being replayed
        n += lustre_cookie_at(buf, LNETCAP_OFFSETOF(struct lnetcap_mdt_rec_create, cr_open_handle_old));
      else if (op == LNETCAP_REINT_RESYNC)
        n += lustre_cookie_at(buf, LNETCAP_OFFSETOF(struct lnetcap_mdt_rec_resync, rs_lease_handle));
      break;
    }
    default:
      // The other kinds the anonymizer keeps hold no handle (numbers,
      // FIDs, extents, flags); those that hold one are zeroed whole
      // (CLOSE_DATA, DLM_GL_DESC, QUOTA_BODY, LVB).
      break;
  }
  return n;
}

}  // namespace lnetcap::anon
