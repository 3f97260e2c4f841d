// SPDX-License-Identifier: GPL-2.0-or-later
#include "summary.h"
#include "codec/ping_info.h"

#include "nid_names.h"

#include "lnetcap/lnet.h"
#include "lnetcap/record.h"
#include "text_escape.h"

namespace lnetcap::report {

const char* dimension_name(Dimension d) {
  switch (d) {
    case Dimension::kOpcode: return "opcode";
    case Dimension::kPortal: return "portal";
    case Dimension::kPeer: return "peer";
    case Dimension::kJobid: return "jobid";
    case Dimension::kTarget: return "target";
  }
  return "?";
}

std::string opcode_key(std::uint32_t opc) {
  const char* n = opcode_name(opc);
  return n ? n : "opc_" + std::to_string(opc);
}

std::string portal_key(const std::optional<std::uint32_t>& portal) {
  if (!portal) return kNoPortal;
  const char* n = portal_name(*portal);
  return n ? n : "portal_" + std::to_string(*portal);
}

// The jobid comes from the wire: the key is its printable form, so every
// summary format (table, JSON, Prometheus) shows the same escaped text.
std::string jobid_key(const std::string& jobid) {
  return jobid.empty() ? kNoJobid : wire_text(jobid);
}

namespace {

// The groups an RPC (not a single message) is accounted to.
struct RpcKeys {
  std::string opcode, portal, peer, jobid, target;
};

RpcKeys request_keys(const RpcRequest& r) {
  return {opcode_key(r.opc), portal_key(r.portal), r.peer, jobid_key(r.jobid), display_nid(r.server)};
}

void add_rpc_figure(SummaryReport& acc, const RpcKeys& k,
                    void (*apply)(GroupStats&, const void*), const void* arg) {
  apply(acc.total, arg);
  apply(acc.groups[static_cast<int>(Dimension::kOpcode)][k.opcode], arg);
  apply(acc.groups[static_cast<int>(Dimension::kPortal)][k.portal], arg);
  apply(acc.groups[static_cast<int>(Dimension::kPeer)][k.peer], arg);
  apply(acc.groups[static_cast<int>(Dimension::kJobid)][k.jobid], arg);
  apply(acc.groups[static_cast<int>(Dimension::kTarget)][k.target], arg);
}

}  // namespace

// The NIDs a ping or discovery reply lists are one peer's (lnet_ping_info:
// its first entry after the loopback is the primary NID, or with
// PRIMARY_LARGE its first large-address one).  At most 64 are taken.
static std::vector<Nid> ping_reply_nids(const Message& m) {
  std::vector<Nid> nids;
  if (!m.lnet.present || (m.lnet.type != LNETCAP_MSG_REPLY && m.lnet.type != LNETCAP_MSG_PUT)) return nids;
  const auto info = parse_ping_info(m.rec.payload, m.lnet.payload_length);
  if (!info) return nids;
  constexpr std::size_t kMaxNids = 64;
  bool large_primary = info->has_feature(LNETCAP_PING_FEAT_PRIMARY_LARGE);
  for (const PingNi& ni : info->nis) {
    if (nids.size() == kMaxNids) break;
    if (ni.nid.type == LNETCAP_LND_LOLND) continue;
    if (ni.large && large_primary) {
      nids.insert(nids.begin(), ni.nid);
      large_primary = false;
    } else {
      nids.push_back(ni.nid);
    }
  }
  return nids;
}

std::string Summary::peer_ni_key(const Nid& nid) const {
  auto it = primary_.find(nid);
  if (it == primary_.end() || it->second == nid) return display_nid(nid);
  return display_nid(it->second) + " / " + display_nid(nid);
}

void Summary::add_health(const Message& m) {
  const RecordHeader& h = m.rec.hdr;
  const std::vector<Nid> peer = ping_reply_nids(m);
  if (peer.size() > 1)
    for (const Nid& n : peer) primary_.emplace(n, peer.front());
  if (!(h.flags & LNETCAP_REC_F_HEALTH_VALID)) return;
  const bool attempt = (h.direction == LNETCAP_DIR_SEND || h.direction == LNETCAP_DIR_FORWARD) &&
                       !h.is_outcome();
  const bool failure = h.direction == LNETCAP_DIR_DROP && h.health_status != LNETCAP_HEALTH_OK &&
                       (h.drop_reason == LNETCAP_DROP_SEND_FAILED ||
                        h.drop_reason == LNETCAP_DROP_SEND_BEFORE_LND ||
                        h.drop_reason == LNETCAP_DROP_RESPONSE_TIMEOUT);
  // A response timeout names the peer NI only (no local NI is at hand).
  const bool peer_only = h.drop_reason == LNETCAP_DROP_RESPONSE_TIMEOUT;
  if (!attempt && !failure) return;
  const char* hs = health_name(h.health_status);
  const std::string why = hs ? hs : "health_" + std::to_string(h.health_status);
  std::vector<NiHealth*> nis{&acc_.lnet.by_peer_ni[h.peer_nid.to_string()]};
  if (!peer_only) nis.push_back(&acc_.lnet.by_local_ni[h.local_nid.to_string()]);
  for (NiHealth* n : nis) {
    if (attempt) {
      ++n->attempts;
      if (h.is_resend() || h.retry_count) ++n->resends;
    } else {
      ++n->failures;
      ++n->failures_by_health[why];
    }
  }
}

bool is_recovery_ping(const Message& m) {
  const RecordHeader& h = m.rec.hdr;
  return (h.direction == LNETCAP_DIR_SEND) && !h.is_outcome() && m.lnet.type == LNETCAP_MSG_GET &&
         m.lnet.portal == 0u && m.lnet.match_bits == LNETCAP_LNET_PING_MATCHBITS &&
         (h.flags & LNETCAP_REC_F_TASK_VALID) && h.comm == LNETCAP_LNET_MONITOR_TASK;
}

void Summary::add(const Message& m) {
  const RecordHeader& h = m.rec.hdr;
  if (h.direction == LNETCAP_DIR_DROP) {
    const char* why = drop_reason_name(h.drop_reason);
    ++acc_.lnet.drops_by_reason[why ? why : "reason_" + std::to_string(h.drop_reason)];
  }
  if (h.flags & LNETCAP_REC_F_QUEUE_VALID) {
    acc_.lnet.queue_by_peer[h.peer_nid.to_string()].push_back(h.queue_ns);
    acc_.lnet.queue_by_ni[h.local_nid.to_string()].push_back(h.queue_ns);
  }
  add_health(m);
  if (is_recovery_ping(m)) {
    ++acc_.lnet.by_local_ni[h.local_nid.to_string()].recovery_pings;
    ++acc_.lnet.by_peer_ni[h.peer_nid.to_string()].recovery_pings;  // re-keyed in report()
  }
  // Outcomes and resends belong to a message counted by its first record.
  if (h.is_outcome() || h.is_resend()) return;
  if (acc_.total.messages == 0 || m.ts_ns < acc_.first_ts_ns) acc_.first_ts_ns = m.ts_ns;
  if (m.ts_ns > acc_.last_ts_ns) acc_.last_ts_ns = m.ts_ns;

  const std::optional<RpcMatch> match = matcher_.observe(m);
  const std::optional<BulkLink> found = bulk_.observe(m);
  split_.add(m, found);
  // A bulk transfer or its REPLY/ACK: a message of its RPC.  (The ACK of
  // a reply is named in the text but stays an LNet message of its own.)
  const BulkLink* link = found && found->bulk() && !m.rpc.present ? &*found : nullptr;
  const bool request = is_rpc_request(m);
  const bool reply = is_rpc_reply(m);
  const std::uint64_t bytes = delivered_bytes(m);  // a dropped message: still a message
  auto group = [this](Dimension d, const std::string& key) {
    return &acc_.groups[static_cast<int>(d)][key];
  };

  // Per-message figures, by the message's own keys (a linked one's RPC's).
  std::vector<GroupStats*> own;
  own.push_back(&acc_.total);
  if (has_rpc_body(m)) own.push_back(group(Dimension::kOpcode, opcode_key(m.rpc.opc)));
  else if (link) own.push_back(group(Dimension::kOpcode, opcode_key(link->rpc->opc)));
  // The REPLY or ACK of a bulk GET or PUT carries no portal: its GET's or PUT's.
  own.push_back(group(Dimension::kPortal, portal_key(link && !m.lnet.portal ? link->bulk_portal
                                                                             : m.lnet.portal)));
  own.push_back(group(Dimension::kPeer, peer_key(m)));
  if (has_rpc_body(m)) {
    std::string job = m.rpc.jobid;
    // Only requests carry a jobid: a final reply takes its request's; an
    // early reply or a reply to an unseen request has none we can know.
    std::string key = jobid_key(job);
    if (job.empty() && !request) key = match ? jobid_key(match->request.jobid) : kUnknownJobid;
    own.push_back(group(Dimension::kJobid, key));
    // The server: where a request goes, where anything else comes from.
    own.push_back(group(Dimension::kTarget, display_nid(request ? m.lnet.dest_nid : m.lnet.src_nid)));
  } else if (link) {
    own.push_back(group(Dimension::kJobid, jobid_key(link->rpc->jobid)));
    own.push_back(group(Dimension::kTarget, display_nid(link->rpc->server)));
  }
  const bool bulk = link != nullptr;
  for (GroupStats* g : own) {
    ++g->messages;
    g->bytes += bytes;
    if (bulk) g->bulk_bytes += bytes;
    if (request) ++g->requests;
    if (reply) ++g->replies;
  }
  if (m.lnet.present) {
    const char* t = msg_type_name(m.lnet.type);
    ++acc_.lnet_types[t ? t : "type_" + std::to_string(m.lnet.type)];
  }

  if (!reply) return;
  // RPC figures go to the request's groups; an orphan reply keeps its own.
  RpcKeys keys = match ? request_keys(match->request)
                       : RpcKeys{opcode_key(m.rpc.opc), portal_key(m.lnet.portal),
                                 peer_key(m), kUnknownJobid, display_nid(m.lnet.src_nid)};
  if (match) {
    add_rpc_figure(acc_, keys, [](GroupStats& g, const void* a) {
      g.latencies_ns.push_back(*static_cast<const std::uint64_t*>(a));
    }, &match->latency_ns);
  }
  if (is_rpc_error(m)) {
    add_rpc_figure(acc_, keys, [](GroupStats& g, const void* a) {
      ++g.errors;
      ++g.errors_by_status[*static_cast<const std::int32_t*>(a)];
    }, &m.rpc.status);
  }
}

SummaryReport Summary::report() const {
  SummaryReport r = acc_;
  // A multi-rail peer's NIDs under its primary NID, once any ping reply
  // named them (also for attempts recorded before that reply).
  // Names for NIDs apply here too (keys are NIDs while counting).
  r.lnet.by_peer_ni.clear();
  for (const auto& [k, v] : acc_.lnet.by_peer_ni) {
    const std::optional<Nid> nid = Nid::parse(k);
    r.lnet.by_peer_ni[nid ? peer_ni_key(*nid) : k] = v;
  }
  r.lnet.by_local_ni.clear();
  for (const auto& [k, v] : acc_.lnet.by_local_ni) {
    const std::optional<Nid> nid = Nid::parse(k);
    r.lnet.by_local_ni[nid ? display_nid(*nid) : k] = v;
  }
  r.latency_split = split_.report();
  for (const RpcRequest& req : matcher_.pending())
    add_rpc_figure(r, request_keys(req), [](GroupStats& g, const void*) { ++g.unanswered; },
                   nullptr);
  return r;
}

}  // namespace lnetcap::report
