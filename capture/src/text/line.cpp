// SPDX-License-Identifier: GPL-2.0-or-later
#include "line.h"

#include "nid_names.h"

#include <cinttypes>
#include <cstdio>

#include "../body_fields.h"
#include "../report/text_escape.h"
#include "format.h"
#include "ping_detail.h"
#include "lnetcap/rpc_predicates.h"
#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/direction_words.h"
#include "lnetcap/record.h"

namespace lnetcap::text {
namespace {

// Which of LNet's pings a ping GET is: the wire cannot tell (lnet_send_ping,
// lnet_ping and discovery send the same GET), the sending task can: LNet
// health's recovery pings come from the kthread "monitor_thread", discovery
// pings from "lnet_discovery" (Lustre 2.16 lib-move.c, peer.c).
const char* ping_kind(const RecordHeader& h) {
  if (h.flags & LNETCAP_REC_F_TASK_VALID) {
    if (h.comm == LNETCAP_LNET_MONITOR_TASK) return ": LNet recovery ping";
    if (h.comm == LNETCAP_LNET_DISCOVERY_TASK) return ": LNet discovery ping";
  }
  return ": LNet ping";
}

void appendf(std::string& out, const char* fmt, auto... args) {
  char b[128];
  const int n = std::snprintf(b, sizeof(b), fmt, args...);
  if (n > 0) out.append(b, static_cast<std::size_t>(n) < sizeof(b) ? n : sizeof(b) - 1);
}

const char* direction_word(std::uint32_t d) {
  const char* word = lnetcap_direction_word(d);
  return word ? word : "?";
}

// Lustre prints a process id as "12345-10.0.0.1@tcp"; the usual kernel pid
// 12345 is left out to keep lines short.
void endpoint(std::string& out, const Nid& nid, std::uint32_t pid) {
  if (pid != LNETCAP_LNET_PID_LUSTRE) appendf(out, "%" PRIu32 "-", pid);
  out += display_nid(nid);
}

void rpc_summary(const Message& m, const LineStyle& st, std::string& out) {
  const PtlrpcFields& r = m.rpc;
  if (!r.present || !r.body_len) {
    if (r.present) out += ": PtlRPC (body not captured)";
    return;
  }
  out += ": ";
  const char* op = opcode_name(r.opc);
  if (op) out += op;
  else appendf(out, "opc %" PRIu32, r.opc);
  const char* type = rpc_type_name(r.type);
  out += ' ';
  out += r.early_reply ? "early reply" : (type ? type : "?");
  // A successful OST_READ/OST_WRITE reply's pb_status is the bytes it
  // moved: a result, not a status (include/lnetcap/rpc_predicates.h).
  if (lnetcap_rpc_status_is_byte_count(r.opc, r.type, r.status))
    appendf(out, " %" PRId32 " bytes", r.status);
  else if (lnetcap_rpc_has_status(r.type) && r.status != 0)
    out += " status " + status_string(r.status);
  if (!r.jobid.empty()) out += " jobid " + report::wire_text(r.jobid);
  if (r.flags & 0x2) out += " RESENT";
  if (r.flags & 0x4) out += " REPLAY";
  // The body fields with a text label (include/lnetcap/fields.h), when
  // the message's format carries them and they are valid.
  for (const std::size_t row : body_fields_with_label()) {
    const BodyField& f = body_field(row);
    if (const auto v = body_field_value(m, f)) {
      out += ' ';
      out += f.label;
      out += ' ';
      out += body_field_text(f, *v);
    }
  }
  if (st.verbose > 0) {
    appendf(out, " [handle 0x%" PRIx64 " transno %" PRIu64 " last_xid 0x%" PRIx64 " flags 0x%" PRIx32, r.handle,
            r.transno, r.last_xid, r.flags);
    if (r.type == LNETCAP_PTL_RPC_MSG_REQUEST) appendf(out, " uid %" PRIu32 " gid %" PRIu32, r.uid, r.gid);
    if (r.mbits) appendf(out, " mbits 0x%" PRIx64, r.mbits);
    appendf(out, " timeout %" PRIu32 "]", r.timeout);
  }
  if (m.dlm.present && m.dlm.res_type == 0) {
    // LDLM_CANCEL and friends carry only lock handles, no lock descriptor.
    appendf(out, " locks %" PRIu32, m.dlm.lock_count);
  } else if (m.dlm.present) {
    const char* t = ldlm_type_name(m.dlm.res_type);
    out += " ";
    out += t ? t : "?";
    out += " " + resource_fid(m.dlm.res_name);
    if (st.verbose > 0)
      appendf(out, " mode %" PRIu32 "/%" PRIu32 " flags 0x%" PRIx32, m.dlm.req_mode,
              m.dlm.granted_mode, m.dlm.lock_flags);
  }
}

// ": bulk of OST_WRITE xid 0x... jobid dd.500": the RPC a bulk transfer
// (or its REPLY/ACK), or a reply's ACK, belongs to.
void link_summary(const report::BulkLink& link, bool quiet, std::string& out) {
  const report::BulkRpc& r = *link.rpc;
  out += link.bulk() ? ": bulk of " : ": reply ACK of ";
  const char* op = opcode_name(r.opc);
  if (op) out += op;
  else appendf(out, "opc %" PRIu32, r.opc);
  if (quiet) return;
  appendf(out, " xid 0x%" PRIx64, r.xid);
  if (!r.jobid.empty()) out += " jobid " + report::wire_text(r.jobid);
}

}  // namespace

void format_line(const Message& m, const LineStyle& st, std::string& out,
                 const report::BulkLink* link) {
  // A PtlRPC message names its own RPC; the link is for the others.
  if (link && (m.rpc.present || !link->rpc)) link = nullptr;
  const RecordHeader& h = m.rec.hdr;
  const LnetFields& l = m.lnet;
  out += clock_time(m.ts_ns, st.nano);
  out += ' ';
  out += direction_word(h.direction);
  out += ' ';
  if (!l.present) {
    // A response timeout: LNet gave up waiting for a peer NI's ACK/REPLY;
    // no message is at hand, only the peer NI whose health it lowered.
    if (h.direction == LNETCAP_DIR_DROP && h.drop_reason == LNETCAP_DROP_RESPONSE_TIMEOUT) {
      out += "response timeout from " + display_nid(h.peer_nid) + " drop response-timeout";
      if (h.flags & LNETCAP_REC_F_HEALTH_VALID) {
        const char* hs = health_name(h.health_status);
        out += " health ";
        out += hs ? hs : std::to_string(h.health_status);
      }
      return;
    }
    out += "(no LNet header)";
    return;
  }
  const char* type = msg_type_name(l.type);
  if (type) out += type;
  else appendf(out, "type%" PRIu32, l.type);
  out += ' ';
  endpoint(out, l.src_nid, l.src_pid);
  out += " > ";
  endpoint(out, l.dest_nid, l.dest_pid);
  if (st.quiet) {
    if (m.rpc.present && m.rpc.body_len) {
      const char* op = opcode_name(m.rpc.opc);
      const char* rt = rpc_type_name(m.rpc.type);
      out += ": ";
      out += op ? op : "?";
      out += ' ';
      out += rt ? rt : "?";
    } else if (link) {
      link_summary(*link, true, out);
    }
    return;
  }
  if (l.portal) {
    const char* p = portal_name(*l.portal);
    out += ' ';
    if (p) out += p;
    else appendf(out, "portal %" PRIu32, *l.portal);
  }
  if (l.match_bits) {
    const bool lnet_internal = l.portal && *l.portal == 0;
    appendf(out, lnet_internal ? " mb 0x%" PRIx64 : " xid 0x%" PRIx64, *l.match_bits);
  }
  if (l.type == LNETCAP_MSG_PUT && l.offset) appendf(out, " off %" PRIu32, l.offset);
  if (l.type == LNETCAP_MSG_GET) appendf(out, " sink %" PRIu32, l.sink_length);
  if (l.type == LNETCAP_MSG_ACK) appendf(out, " mlen %" PRIu32, l.mlength);
  appendf(out, " len %" PRIu32, l.payload_length);
  // A DROP carries no payload by design (the bytes never went or landed).
  if (m.rec.truncated() && l.payload_length && h.direction != LNETCAP_DIR_DROP)
    appendf(out, " [%" PRIu32 " captured]", h.payload_caplen);
  // Left out by design, not by failure: GPU pages and discarded receives.
  if (h.flags & LNETCAP_REC_F_PAYLOAD_DEVICE_MEMORY)
    out += " [payload in GPU memory, not captured]";
  else if (h.flags & LNETCAP_REC_F_PAYLOAD_DISCARDED)
    out += " [payload discarded by LNet, not captured]";
  else if (h.flags & LNETCAP_REC_F_PAYLOAD_UNREADABLE)
    out += " [payload unreadable]";
  if (h.flags & LNETCAP_REC_F_GAP_BEFORE) out += " [gap before]";
  // A resend's own health is OK (the attempt is under way); older captures
  // read msg_health_status before the LND reset it, so their resend holds
  // the failure of the attempt before it: printed with the resend, not as
  // this attempt's health.
  if ((h.flags & LNETCAP_REC_F_HEALTH_VALID) && h.health_status && !h.is_resend()) {
    const char* hs = health_name(h.health_status);
    out += " health ";
    out += hs ? hs : std::to_string(h.health_status);
  }
  if (h.retry_count) appendf(out, " retry %u", static_cast<unsigned>(h.retry_count));
  if ((h.flags & LNETCAP_REC_F_STATUS_VALID) && h.status) out += " rc " + status_string(h.status);
  if (h.direction == LNETCAP_DIR_DROP && h.drop_reason) {
    const char* why = drop_reason_name(h.drop_reason);
    out += " drop ";
    out += why ? why : std::to_string(h.drop_reason);
  }
  if (h.is_outcome())  // the record of the message it completes: seq S on CPU C
    appendf(out, " [outcome of seq %" PRIu64 " cpu %" PRIu64 "]", h.msg_id & 0xffffffffffffULL,
            (h.msg_id >> 48) - 1);
  if (h.is_resend()) {  // which SEND this attempt repeats, after which failure
    if (h.msg_id)
      appendf(out, " [resend of seq %" PRIu64 " cpu %" PRIu64, h.msg_id & 0xffffffffffffULL,
              (h.msg_id >> 48) - 1);
    else
      out += " [resend";
    const char* hs = health_name(h.health_status);
    if ((h.flags & LNETCAP_REC_F_HEALTH_VALID) && h.health_status)
      out += std::string(" after ") + (hs ? hs : std::to_string(h.health_status));
    out += ']';
  }
  if (h.flags & LNETCAP_REC_F_QUEUE_VALID) out += " queue " + report::format_duration(h.queue_ns);
  if (l.portal && *l.portal == 0 && l.match_bits == LNETCAP_LNET_PING_MATCHBITS)
    out += l.type == LNETCAP_MSG_GET ? ping_kind(h) : ": LNet discovery push";
  else if (link)
    link_summary(*link, false, out);
  else
    rpc_summary(m, st, out);
  if (st.verbose > 0) {
    appendf(out, " {%s ni %s peer %s seq %" PRIu64, hook_name(h.hook) ? hook_name(h.hook) : "?",
            display_nid(h.local_nid).c_str(), display_nid(h.peer_nid).c_str(), h.seq);
    if (h.cpu != LNETCAP_CPU_UNKNOWN) appendf(out, " cpu %" PRIu32, h.cpu);
    if (h.flags & LNETCAP_REC_F_TASK_VALID)
      appendf(out, " task %s[%" PRIu32 "]", report::wire_text(h.comm).c_str(), h.pid);
    out += '}';
    format_ping_detail(m, out);
  }
}

void format_hex(ByteSpan bytes, std::string& out) {
  for (std::size_t i = 0; i < bytes.size(); i += 16) {
    appendf(out, "\n\t0x%04zx: ", i);
    for (std::size_t j = i; j < i + 16 && j < bytes.size(); j += 2) {
      if (j + 1 < bytes.size()) appendf(out, " %02x%02x", bytes[j], bytes[j + 1]);
      else appendf(out, " %02x", bytes[j]);
    }
  }
}

}  // namespace lnetcap::text
