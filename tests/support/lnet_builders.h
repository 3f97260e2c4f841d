// SPDX-License-Identifier: GPL-2.0-or-later
// lnet_builders.h - build LNet headers and PtlRPC messages byte by byte,
// laid out exactly as Lustre puts them on the wire (docs/protocol.md 1.2, 1.3,
// 3.1, 3.3, 4.3), for tests and the synthetic sample generator.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bytes.h"
#include "lnetcap/bodies.h"
#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "message.h"
#include "nid.h"
#include "record.h"
#include "wire_builders.h"

namespace lnetcap::test {

// The one LNet header builder of the tests (unit tests, synthetic sample,
// socklnd streams, the plugin's test vectors), field by field at the
// offsets include/lnetcap/lnet.h pins.
struct LnetHeaderSpec {
  std::uint32_t type = LNETCAP_MSG_PUT;
  Nid src, dst;
  std::uint32_t src_pid = LNETCAP_LNET_PID_LUSTRE, dst_pid = LNETCAP_LNET_PID_LUSTRE;
  std::uint32_t payload_length = 0;
  std::uint64_t match_bits = 0;
  std::uint32_t portal = 0;
  std::uint32_t offset = 0;       // PUT offset / GET src_offset
  std::uint32_t sink_length = 0;  // GET
  std::uint32_t mlength = 0;      // ACK
  bool want_ack = false;          // PUT
  bool nid16 = false;             // 96-byte form
  // The MD handle (interface cookie, object cookie): a PUT's ack_wmd when
  // it wants an ACK, a GET's return_wmd, an ACK's or REPLY's dst_wmd.
  // Unset: {0x1234, 0x5678} for PUT and ACK, {0xabc, 0xdef} for GET and REPLY.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> wmd;
  std::uint64_t hello_incarnation = 0;  // HELLO
  std::uint32_t hello_type = 0;
};

inline std::vector<std::uint8_t> lnet_header(const LnetHeaderSpec& s) {
  wire::W w(s.nid16 ? LNETCAP_HDR_NID16_LEN : LNETCAP_HDR_NID4_LEN);
  std::size_t m;  // start of the type-specific msg union
  if (s.nid16) {
    std::uint8_t raw[20];
    s.dst.to_lnet_nid(raw);
    w.raw(OFF(lnetcap_hdr_nid16, dest_nid), raw, 20);
    s.src.to_lnet_nid(raw);
    w.raw(OFF(lnetcap_hdr_nid16, src_nid), raw, 20);
    m = OFF(lnetcap_hdr_nid16, msg);
  } else {
    w.u64(OFF(lnetcap_hdr_nid4, dest_nid), s.dst.to_nid4());
    w.u64(OFF(lnetcap_hdr_nid4, src_nid), s.src.to_nid4());
    m = OFF(lnetcap_hdr_nid4, msg);
  }
  // dest_pid, src_pid, type and payload_length precede the union in both forms.
  w.u32(m - 16, s.dst_pid);
  w.u32(m - 12, s.src_pid);
  w.u32(m - 8, s.type);
  w.u32(m - 4, s.payload_length);
  const bool put_or_ack = s.type == LNETCAP_MSG_PUT || s.type == LNETCAP_MSG_ACK;
  const auto wmd = s.wmd.value_or(put_or_ack ? std::make_pair(0x1234ULL, 0x5678ULL)
                                             : std::make_pair(0xabcULL, 0xdefULL));
  switch (s.type) {
    case LNETCAP_MSG_PUT:
      w.u64(m + OFF(lnetcap_put, ack_wmd), s.want_ack ? wmd.first : ~0ULL);
      w.u64(m + OFF(lnetcap_put, ack_wmd) + 8, s.want_ack ? wmd.second : ~0ULL);
      w.u64(m + OFF(lnetcap_put, match_bits), s.match_bits);
      w.u32(m + OFF(lnetcap_put, ptl_index), s.portal);
      w.u32(m + OFF(lnetcap_put, offset), s.offset);
      break;
    case LNETCAP_MSG_GET:
      w.u64(m + OFF(lnetcap_get, return_wmd), wmd.first);
      w.u64(m + OFF(lnetcap_get, return_wmd) + 8, wmd.second);
      w.u64(m + OFF(lnetcap_get, match_bits), s.match_bits);
      w.u32(m + OFF(lnetcap_get, ptl_index), s.portal);
      w.u32(m + OFF(lnetcap_get, src_offset), s.offset);
      w.u32(m + OFF(lnetcap_get, sink_length), s.sink_length);
      break;
    case LNETCAP_MSG_ACK:
      w.u64(m + OFF(lnetcap_ack, dst_wmd), wmd.first);
      w.u64(m + OFF(lnetcap_ack, dst_wmd) + 8, wmd.second);
      w.u64(m + OFF(lnetcap_ack, match_bits), s.match_bits);
      w.u32(m + OFF(lnetcap_ack, mlength), s.mlength);
      break;
    case LNETCAP_MSG_REPLY:
      w.u64(m + OFF(lnetcap_reply, dst_wmd), wmd.first);
      w.u64(m + OFF(lnetcap_reply, dst_wmd) + 8, wmd.second);
      break;
    case LNETCAP_MSG_HELLO:
      w.u64(m + OFF(lnetcap_hello, incarnation), s.hello_incarnation);
      w.u32(m + OFF(lnetcap_hello, type), s.hello_type);
      break;
    default:
      break;
  }
  return w.b;
}

// The one lnet_ping_info builder of the new tests (parser, anonymizer,
// text, the plugin's metadata vectors), laid out as Lustre 2.17's
// lnet_ping_target_install_locked() does: nid4-form NIs in pi_ni[], the
// others as lnet_ni_large_status entries after them (LARGE_ADDR, the size of
// the whole NI part in pi_ni[0].ns_msg_size), then the metadata trailer.
struct PingNiSpec {
  Nid nid;
  std::uint32_t status = LNETCAP_LNET_NI_STATUS_UP;
};
struct PingMetadataSpec {
  Nid nid;
  std::array<std::uint8_t, LNETCAP_LNET_MD_BUFFER_SZ> buffer{};
};
struct PingInfoSpec {
  std::uint32_t features = LNETCAP_PING_FEAT_BASE | LNETCAP_PING_FEAT_NI_STATUS |
                           LNETCAP_PING_FEAT_MULTI_RAIL | LNETCAP_PING_FEAT_DISCOVERY;
  std::uint32_t pid = LNETCAP_LNET_PID_LUSTRE;
  std::vector<PingNiSpec> nis;  // 0@lo first, as Lustre lists it
  /// With entries (or md_count), METADATA is set and the trailer written.
  std::vector<PingMetadataSpec> metadata;
  std::optional<std::uint32_t> md_count;  // a count other than the entries'
  bool big_endian = false;
};

inline std::vector<std::uint8_t> ping_info(const PingInfoSpec& s) {
  std::vector<PingNiSpec> nid4, large;
  for (const PingNiSpec& n : s.nis) (n.nid.is_nid4_compatible() ? nid4 : large).push_back(n);
  std::uint32_t features = s.features;
  if (!large.empty()) features |= LNETCAP_PING_FEAT_LARGE_ADDR;
  const bool md = !s.metadata.empty() || s.md_count;
  if (md) features |= LNETCAP_PING_FEAT_METADATA;
  constexpr std::size_t kNidHead = OFF(lnetcap_nid, nid_addr);
  constexpr std::size_t kLargeNid = OFF(lnetcap_ni_large_status, ns_nid);
  std::size_t size = sizeof(struct lnetcap_ping_info) + sizeof(struct lnetcap_ni_status) * nid4.size();
  for (const PingNiSpec& n : large) size += (kLargeNid + kNidHead + n.nid.size + 4 + 3) & ~std::size_t{3};
  const std::size_t ni_end = size;
  if (md) size += sizeof(struct lnetcap_nid_metadata) + sizeof(struct lnetcap_nid_md_entry) * s.metadata.size();
  wire::W w(size, s.big_endian);
  w.u32(OFF(lnetcap_ping_info, pi_magic), LNETCAP_LNET_PROTO_PING_MAGIC);
  w.u32(OFF(lnetcap_ping_info, pi_features), features);
  w.u32(OFF(lnetcap_ping_info, pi_pid), s.pid);
  w.u32(OFF(lnetcap_ping_info, pi_nnis), static_cast<std::uint32_t>(nid4.size()));
  std::size_t o = sizeof(struct lnetcap_ping_info);
  for (std::size_t i = 0; i < nid4.size(); ++i, o += sizeof(struct lnetcap_ni_status)) {
    w.u64(o + OFF(lnetcap_ni_status, ns_nid), nid4[i].nid.to_nid4());
    w.u32(o + OFF(lnetcap_ni_status, ns_status), nid4[i].status);
    if (i == 0 && !large.empty())
      w.u32(o + OFF(lnetcap_ni_status, ns_msg_size), static_cast<std::uint32_t>(ni_end));
  }
  for (const PingNiSpec& n : large) {
    w.u32(o + OFF(lnetcap_ni_large_status, ns_status), n.status);
    std::uint8_t raw[sizeof(struct lnetcap_nid)];
    n.nid.to_lnet_nid(raw);
    const std::size_t nid_len = kNidHead + n.nid.size + 4;
    w.raw(o + kLargeNid, raw, nid_len);
    o += (kLargeNid + nid_len + 3) & ~std::size_t{3};
  }
  if (md) {
    w.u32(o + OFF(lnetcap_nid_metadata, num_nid_mappings),
          s.md_count.value_or(static_cast<std::uint32_t>(s.metadata.size())));
    o += sizeof(struct lnetcap_nid_metadata);
    for (const PingMetadataSpec& m : s.metadata) {
      w.u64(o + OFF(lnetcap_nid_md_entry, nid), m.nid.to_nid4());
      w.raw(o + OFF(lnetcap_nid_md_entry, buffer), m.buffer.data(), m.buffer.size());
      o += sizeof(struct lnetcap_nid_md_entry);
    }
  }
  return w.b;
}

struct RpcSpec {
  std::uint32_t type = LNETCAP_PTL_RPC_MSG_REQUEST;
  std::uint32_t opc = LNETCAP_OPC_OBD_PING;
  std::uint32_t version = 0x00010003;
  std::int32_t status = 0;
  std::uint32_t flags = 0;
  std::uint32_t uid = 0, gid = 0, projid = 0;
  std::uint32_t limit = 0;
  std::uint64_t slv = 0, mbits = 0, transno = 0;
  std::string jobid;
  std::vector<std::vector<std::uint8_t>> buffers;  // buffers 1..n after the body
  bool big_endian = false;
};

/// A lustre_msg_v2 with a v3 ptlrpc_body and the given extra buffers
/// (framing from wire_builders.h; AT support flagged, as Lustre does).
inline std::vector<std::uint8_t> lustre_msg(const RpcSpec& s) {
  wire::Body b;
  b.type = s.type;
  b.opc = s.opc;
  b.version = s.version;
  b.status = s.status;
  b.flags = s.flags;
  b.mbits = s.mbits;
  b.transno = s.transno;
  b.jobid = s.jobid.substr(0, LNETCAP_LUSTRE_JOBID_SIZE - 1);
  b.uid = s.uid;
  b.gid = s.gid;
  b.projid = s.projid;
  b.limit = s.limit;
  b.slv = s.slv;
  std::vector<wire::Bytes> bufs{wire::ptlrpc_body(s.big_endian, b)};
  bufs.insert(bufs.end(), s.buffers.begin(), s.buffers.end());
  return wire::lustre_msg(s.big_endian, bufs, LNETCAP_MSGHDR_AT_SUPPORT);
}

/// An ldlm_request (2 handles) on a FID resource with an inodebits policy.
inline std::vector<std::uint8_t> ldlm_request(std::uint64_t seq, std::uint32_t oid,
                                              std::uint32_t type = LNETCAP_LDLM_IBITS,
                                              std::uint32_t mode = 4 /* PR */) {
  std::vector<std::uint8_t> r(sizeof(struct lnetcap_ldlm_request) + 16, 0);
  const std::size_t desc = OFF(lnetcap_ldlm_request, lock_desc);
  const std::size_t name = desc + OFF(lnetcap_ldlm_lock_desc, l_resource) +
                           OFF(lnetcap_ldlm_resource_desc, lr_name);
  const std::size_t policy = desc + OFF(lnetcap_ldlm_lock_desc, l_policy_data);
  store_le32(r.data() + OFF(lnetcap_ldlm_request, lock_flags), LNETCAP_LDLM_FL_HAS_INTENT);
  store_le32(r.data() + OFF(lnetcap_ldlm_request, lock_count), 1);
  store_le32(r.data() + desc + OFF(lnetcap_ldlm_resource_desc, lr_type), type);
  store_le64(r.data() + name, seq);                                 // name[0] = f_seq
  store_le64(r.data() + name + sizeof(std::uint64_t), oid);         // name[1] = (ver << 32) | oid
  store_le32(r.data() + desc + OFF(lnetcap_ldlm_lock_desc, l_req_mode), mode);
  store_le64(r.data() + policy + OFF(lnetcap_ldlm_inodebits, bits), 0x13);  // LOOKUP|UPDATE|PERM
  store_le64(r.data() + sizeof(struct lnetcap_ldlm_request), 0xc0ffee);      // lock_handle[0]
  return r;
}

struct RecordSpec {
  std::uint8_t direction = 1;  // send
  Nid local, peer;
  std::uint32_t snaplen = 1024;
  std::uint64_t seq = 1;
  std::uint8_t health = 0;
  std::uint8_t retries = 0;
  std::uint16_t flags = 0;
  std::int32_t status = 0;
  std::uint32_t pid = 0;
  std::string comm;
  std::uint64_t queue_ns = 0;  // set with flags LNETCAP_REC_F_QUEUE_VALID
  std::uint64_t msg_id = 0;
  std::uint8_t drop_reason = 0;
  std::uint8_t hook = 6;  // synthetic
  std::optional<std::uint32_t> payload_len;  // default: the payload given
};

/// A whole record: header + LNet header + payload prefix (cut at snaplen).
inline std::vector<std::uint8_t> record(const RecordSpec& r, const std::vector<std::uint8_t>& hdr,
                                        const std::vector<std::uint8_t>& payload) {
  RecordHeader h;
  h.direction = r.direction;
  h.hook = r.hook;
  h.lnd_type = r.local.type;
  h.flags = r.flags;
  h.health_status = r.health;
  h.retry_count = r.retries;
  h.seq = r.seq;
  h.payload_len = r.payload_len.value_or(static_cast<std::uint32_t>(payload.size()));
  h.local_nid = r.local;
  h.peer_nid = r.peer;
  h.status = r.status;
  h.pid = r.pid;
  h.comm = r.comm;
  h.queue_ns = r.queue_ns;
  h.msg_id = r.msg_id;
  h.drop_reason = r.drop_reason;
  std::vector<std::uint8_t> out;
  const std::size_t cap = payload.size() < r.snaplen ? payload.size() : r.snaplen;
  encode_record(h, hdr, ByteSpan(payload.data(), cap), out);
  return out;
}

inline Nid nid(const char* s) { return *Nid::parse(s); }

}  // namespace lnetcap::test
