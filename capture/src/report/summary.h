// SPDX-License-Identifier: GPL-2.0-or-later
// summary.h - the figures behind --summary: per opcode, portal, remote NID
// and jobid: messages, bytes, requests, replies, request->reply latency and
// errors by status.  Pure accounting over Message; the renderers
// (summary_format.h) turn a SummaryReport into a table, JSON or Prometheus.
//
// Attribution rules (also in docs/REPORTS.md):
//  - messages, bytes, requests, replies: by the message's own opcode,
//    portal, remote NID and jobid (a reply inherits the jobid of its request,
//    since replies carry none);
//  - latency, errors and unanswered requests are RPC figures: they count for
//    the groups of the request (an unmatched error reply for its own groups);
//  - bytes are the LNet payload length (what LNet moved, without headers);
//  - bulk (report/bulk_linker.h): a bulk GET or PUT and the REPLY or ACK
//    that completes it, once linked to their RPC, count as messages of the
//    RPC's opcode, jobid and target too; their bytes are in bytes and also
//    in bulk_bytes (so an opcode's bytes are its PtlRPC messages' plus its
//    bulk); a bulk REPLY or ACK takes the portal of its GET or PUT instead
//    of "(none)".  The ACK of a reply stays a message of its own;
//  - target: the server NID of the RPC (the request's LNet destination);
//  - an OUTCOME record (record.h: a failed send's DROP, linked to its SEND)
//    is not a message: it counts only in drops by reason;
//  - LNet health: every DROP counts in drops by reason; queue time (how
//    long LNet held a message before the LND, records with QUEUE_VALID) per
//    next-hop peer and per local NI; every SEND/FWD record with health
//    fields is an attempt of its local NI and its next-hop peer NI, a
//    resend (record.h: msg_id of an earlier SEND) also a resend there, and
//    a send-side DROP a failure by its health status (a resend's own health
//    field is the previous attempt's failure, so it is not counted again);
//  - a resend is not a message of its own: it counts only in the health
//    figures, like an outcome record;
//  - a recovery ping (a ping GET sent by LNet's "monitor_thread") counts
//    for its local NI and its peer NI in recovery_pings, besides being an
//    attempt like any send;
//  - an error is a final reply that reports a failure (is_rpc_error: error
//    reply or negative errno); positive statuses are results such as the
//    byte count of OST_READ or ELDLM_LOCK_ABORTED.  Requests are never
//    looked at: their pb_status holds the sender's pid.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bulk_linker.h"
#include "latency_samples.h"
#include "latency_split.h"
#include "message.h"
#include "rpc_matcher.h"

namespace lnetcap::report {

struct GroupStats {
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;       // every message's payload, bulk included
  std::uint64_t bulk_bytes = 0;  // of which bulk transfers linked to an RPC
  std::uint64_t requests = 0;
  std::uint64_t replies = 0;     // final replies, including error replies
  std::uint64_t errors = 0;      // replies reporting a failure (is_rpc_error)
  std::uint64_t unanswered = 0;  // requests without a reply (so far)
  std::map<std::int32_t, std::uint64_t> errors_by_status;
  LatencySamples latencies_ns;  // one per matched request/reply (bounded: latency_samples.h)
};

enum class Dimension { kOpcode = 0, kPortal, kPeer, kJobid, kTarget };
inline constexpr std::array<Dimension, 5> kDimensions = {Dimension::kOpcode, Dimension::kPortal,
                                                         Dimension::kPeer, Dimension::kJobid,
                                                         Dimension::kTarget};
/// "opcode", "portal", "peer", "jobid", "target": table headings, JSON keys,
/// Prometheus labels.
const char* dimension_name(Dimension d);

/// Send attempts through one NI (local) or to one peer NI: what flaps.
struct NiHealth {
  std::uint64_t attempts = 0;  // SEND and FWD records, resends included
  std::uint64_t resends = 0;   // attempts that repeat a failed one
  std::uint64_t failures = 0;  // failed attempts (their DROP records)
  // LNet health's recovery pings sent through this local NI or to this
  // peer NI: LNet pings an NI only while its health is below the maximum,
  // so a count here is an NI in recovery (is_recovery_ping).
  std::uint64_t recovery_pings = 0;
  std::map<std::string, std::uint64_t> failures_by_health;  // "LOCAL_DROPPED" -> n
};

/// LNet's own view: drops and the time messages waited for credits.
struct LnetHealth {
  std::map<std::string, std::uint64_t> drops_by_reason;  // "no-match" -> count
  std::map<std::string, LatencySamples> queue_by_peer, queue_by_ni;  // ns samples
  std::map<std::string, NiHealth> by_local_ni;
  // Keyed "PEER" or, for a multi-rail peer whose NIDs a ping or discovery
  // reply in the capture listed, "PRIMARY NID / PEER NID".
  std::map<std::string, NiHealth> by_peer_ni;
  bool empty() const {
    return drops_by_reason.empty() && queue_by_peer.empty() && queue_by_ni.empty() &&
           by_local_ni.empty();
  }
};

struct SummaryReport {
  GroupStats total;
  std::map<std::string, std::uint64_t> lnet_types;  // "PUT" -> count
  LnetHealth lnet;
  std::array<std::map<std::string, GroupStats>, kDimensions.size()> groups;  // indexed by Dimension
  std::uint64_t first_ts_ns = 0, last_ts_ns = 0;
  /// RPCs whose client and server records are both in the capture.
  LatencySplitReport latency_split;
  const std::map<std::string, GroupStats>& by(Dimension d) const {
    return groups[static_cast<int>(d)];
  }
};

/// Group keys used for messages outside a dimension's domain.
inline constexpr const char* kNoPortal = "(none)";   // ACK, REPLY, HELLO
inline constexpr const char* kNoJobid = "(none)";    // RPC without a jobid
inline constexpr const char* kUnknownJobid = "(unknown)";  // reply to an unseen request

class Summary {
 public:
  void add(const Message& m);
  /// The figures so far, with requests still pending counted as unanswered.
  /// Cheap enough to call for every --stats-interval tick.
  SummaryReport report() const;
  /// Starts a new window (lnetcap --top): the figures go back to zero, but
  /// what ties records together across windows (requests awaiting their
  /// reply, bulk transfers awaiting their REPLY or ACK, multi-rail peers)
  /// is kept, so a reply in this window is still matched to its request of
  /// the last one.  The latency split keeps its samples (--top shows none).
  void reset_figures() { acc_ = SummaryReport{}; }

 private:
  void add_health(const Message& m);
  std::string peer_ni_key(const Nid& nid) const;

  SummaryReport acc_;
  RpcMatcher matcher_;
  BulkLinker bulk_;
  LatencySplit split_;
  std::map<Nid, Nid> primary_;  // NID -> first NID of its peer (ping replies)
};

/// An LNet health recovery ping: the GET of a ping (the reserved portal and
/// match bits of LNet's ping) sent by the kthread "monitor_thread", which
/// pings local and peer NIs whose health is below the maximum (lib-move.c,
/// lnet_recover_local_nis and lnet_recover_peer_nis, 2.13 to master).  The
/// wire cannot tell it from discovery's or lctl's ping; the sending task can.
bool is_recovery_ping(const Message& m);

/// Group keys of one message or request (exposed for the tests).
std::string opcode_key(std::uint32_t opc);
std::string portal_key(const std::optional<std::uint32_t>& portal);
/// A request's jobid as a group key: its printable form, kNoJobid without one.
std::string jobid_key(const std::string& jobid);

}  // namespace lnetcap::report
