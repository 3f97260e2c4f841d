// SPDX-License-Identifier: GPL-2.0-or-later
// message.h - one captured LNet message decoded for printing, filtering and
// summaries: the record header, the LNet header fields and a PtlRPC/LDLM
// summary of the payload prefix.  The Wireshark plugin decodes in full;
// this is the agent's cheap, bounded decoder.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "nid.h"
#include "record.h"

namespace lnetcap {

struct LnetFields {
  bool present = false;
  std::uint32_t type = 0;  // enum lnetcap_msg_type
  Nid dest_nid, src_nid;
  std::uint32_t dest_pid = 0, src_pid = 0;
  std::uint32_t payload_length = 0;
  std::optional<std::uint32_t> portal;      // PUT, GET
  std::optional<std::uint64_t> match_bits;  // ACK, PUT, GET
  std::uint64_t hdr_data = 0;               // PUT
  std::uint32_t offset = 0;                 // PUT offset / GET src_offset
  std::uint32_t sink_length = 0;            // GET
  std::uint32_t mlength = 0;                // ACK
  bool ack_requested = false;               // PUT with a real ack_wmd
  // The message's wire handle (docs/protocol.md 1.2), opaque cookies: a
  // PUT's ack_wmd, a GET's return_wmd, an ACK's or a REPLY's dst_wmd.  A
  // REPLY names the GET it answers by it (dst_wmd = the GET's return_wmd),
  // on socklnd and for the RDMA REPLY of o2iblnd, kfilnd and gnilnd alike.
  std::uint64_t wmd_interface = 0, wmd_object = 0;
};

struct PtlrpcFields {
  bool present = false;
  bool big_endian = false;  // sender was big-endian (swabbed magic)
  std::uint32_t bufcount = 0;
  std::uint32_t secflvr = 0;
  std::uint32_t msg_flags = 0;  // lm_flags
  std::uint32_t body_len = 0;   // 152 (v2) or 184 (v3); 0 when not captured
  std::uint32_t type = 0;       // PTL_RPC_MSG_*
  std::uint32_t version = 0;
  std::uint32_t opc = 0;
  std::int32_t status = 0;
  std::uint64_t handle = 0, last_xid = 0, last_committed = 0, transno = 0;
  std::uint32_t flags = 0, op_flags = 0, conn_cnt = 0, timeout = 0, service_time = 0;
  std::uint32_t limit = 0;
  std::uint64_t slv = 0;
  std::uint64_t mbits = 0;
  std::uint32_t uid = 0, gid = 0, projid = 0;
  std::string jobid;
  bool early_reply = false;  // reply PUT at offset 0 carrying only a body
  // Where buffers 0..kMaxBuffers-1 lie in rec.payload (the declared
  // lengths; what was captured may end sooner): body_fields.h reads them.
  static constexpr std::size_t kMaxBuffers = 16;  // rpc_formats.h's most
  std::uint32_t buf_off[kMaxBuffers] = {};
  std::uint32_t buf_len[kMaxBuffers] = {};
};

struct LdlmFields {
  bool present = false;
  std::uint32_t lock_flags = 0;
  std::uint32_t lock_count = 0;
  std::uint32_t res_type = 0;  // LDLM_PLAIN..LDLM_IBITS
  std::uint64_t res_name[4] = {};
  std::uint32_t req_mode = 0, granted_mode = 0;
};

/// A decoded message.  Owns nothing: rec points into the reader's buffer.
struct Message {
  std::uint64_t ts_ns = 0;  // UTC nanoseconds
  std::uint32_t interface_id = 0;
  std::uint64_t drops_before = 0;  // epb_dropcount
  RecordView rec;
  LnetFields lnet;
  PtlrpcFields rpc;
  LdlmFields dlm;

  /// The RPC's XID when the message belongs to one: the LNet match bits of
  /// a request or reply PUT (docs/protocol.md 3.5).
  std::optional<std::uint64_t> xid() const;
};

/// Decodes the LNet header and payload summary of a validated record.
Message decode_message(const RecordView& rec, std::uint64_t ts_ns, std::uint32_t interface_id);

/// Name tables expanded from the shared X-lists (nullptr when unknown).
const char* msg_type_name(std::uint32_t type);
const char* portal_name(std::uint32_t portal);  // "MDS_REQUEST"
const char* opcode_name(std::uint32_t opc);     // "LDLM_ENQUEUE"
const char* errno_name(std::uint32_t err);      // "ENOENT" for 2
const char* health_name(std::uint32_t hs);
const char* direction_name(std::uint32_t dir);
const char* hook_name(std::uint32_t hook);
const char* drop_reason_name(std::uint32_t reason);  // "no-match"
const char* rpc_type_name(std::uint32_t type);  // "request", "reply", "error"
const char* ldlm_type_name(std::uint32_t type); // "EXTENT"
std::optional<std::uint32_t> portal_from_name(std::string_view name);  // with or without _PORTAL
std::optional<std::uint32_t> opcode_from_name(std::string_view name);
std::optional<std::uint32_t> msg_type_from_name(std::string_view name);
/// "-2 (ENOENT)", "0", "301 (ELDLM_LOCK_ABORTED)".
std::string status_string(std::int32_t status);

}  // namespace lnetcap
