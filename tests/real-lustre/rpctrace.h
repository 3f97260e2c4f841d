// SPDX-License-Identifier: GPL-2.0-or-later
// rpctrace.h - live captures against Lustre's own account of the RPCs it
// handled: the "Handled RPC" lines that ptlrpc writes to the debug log
// with `lctl set_param debug=+rpctrace` (ptlrpc_server_handle_request in
// lustre/ptlrpc/service.c), read from `lctl dk`.
//
// Each such line is one request a node's service handled and the reply it
// sent: the requester's NID (its LNet process id, "12345-<nid>"), XID,
// opcode, jobid, the request's pb_status (the sender's pid), the reply's
// transno and the reply's pb_status ("rc <rq_status>/<reply status>", -999
// when no reply message was made).  The handler's capture must hold the
// request received and the reply sent; the requester's capture (the other
// node, or the same one for a request over 0@lo) the request sent and the
// reply received, all with those values.  A request is known by its XID
// and its requester: XIDs are counted per node, so two nodes can use the
// same one.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "capture_compare.h"

namespace lnetcap::real_lustre {

struct HandledRpc {
  std::string thread;     // the service thread's name (ll_mgs_0001, ldlm_cb00_001, ...)
  std::string peer;       // the requester's NID, without the "12345-" pid
  std::uint64_t xid = 0;
  std::uint32_t opc = 0;
  std::string jobid;
  std::int32_t req_status = 0;    // the request's pb_status
  std::uint64_t transno = 0;
  std::int32_t rq_status = 0;     // the handler's result
  std::int32_t reply_status = 0;  // the reply's pb_status; -999: no reply message
  // "(N us total)": the request's arrival at ptlrpc (rq_arrival_time, set
  // in request_in_callback) to the end of its handling (work_end, after the
  // handler sent the reply).
  std::int64_t total_us = -1;
};

/// One "Handled RPC" line of `lctl dk` output; nullopt for any other line.
std::optional<HandledRpc> parse_handled(const std::string& line);

/// Every "Handled RPC" line of a debug log file.  Throws lnetcap::Error.
std::vector<HandledRpc> read_handled(const std::string& path);

struct TraceNode {
  std::string nid;  // the node's own NID (10.77.0.2@tcp)
  std::vector<Captured> capture;
  std::vector<HandledRpc> handled;
};

/// How far lnetcap's server time may be from rpctrace's total, and how
/// often.  The two intervals share their middle but not their ends:
/// lnetcap's starts at lnet_parse, before request_in_callback stamps
/// rq_arrival_time once the request's bytes are in (and before a request
/// that found no free request buffer waits for one), and ends when the
/// handler hands its reply to LNet, before the handler returns and
/// work_end is taken (its work after the reply: commits, precreates over
/// 0@lo).  Neither gap is visible to LNet, and under TCG either can reach
/// tens of milliseconds, so no bound holds for every RPC; the check is
/// that nearly every RPC agrees closely.  Measured on Lustre 2.15.8, both
/// attach modes (docs/REAL-LUSTRE.md): p50 of |total - lnetcap| ~0.1 ms,
/// 97-99% within this tolerance.
struct ServerTimeTolerance {
  std::int64_t abs_us = 5000;  // |total - lnetcap| within this many us,
  double rel = 0.10;           // or within this fraction of the longer of the two;
  double min_within = 0.95;    // for at least this fraction of the timed RPCs (all nodes)
  bool within(std::int64_t total_us, std::int64_t server_us) const;
};

struct TraceVerdict {
  struct PerNode {
    std::string nid;
    std::size_t handled = 0, over_lo = 0, found = 0;
    std::size_t no_reply_message = 0;  // rc x/-999: a request with no reply to look for
    // missing records: handler's request received / reply sent,
    // requester's request sent / reply received
    std::size_t missing_recv_request = 0, missing_send_reply = 0;
    std::size_t missing_send_request = 0, missing_recv_reply = 0;
    std::size_t wrong = 0;  // found, but a field differs
    std::map<std::string, std::size_t> wrong_fields;
    std::map<std::string, std::size_t> by_opcode;  // opcode name -> handled
    // lnetcap's server time (the handler's reply SEND minus its request
    // RECV) against the line's total, for every found RPC with a reply.
    std::size_t timed = 0, time_outside = 0, time_outside_lo = 0;
    std::vector<std::int64_t> total_minus_server_us;  // one per timed RPC
  };
  std::vector<PerNode> nodes;
  std::vector<std::string> examples;
  ServerTimeTolerance tolerance;
  bool passed() const;
};

/// Checks every node's handled RPCs against the captures of all nodes.
TraceVerdict compare_rpctrace(const std::vector<TraceNode>& nodes,
                              const ServerTimeTolerance& tolerance = {});

/// The verdict as short key=value lines ending in verdict=PASS|FAIL.
std::string format_trace_verdict(const TraceVerdict& v);

}  // namespace lnetcap::real_lustre
