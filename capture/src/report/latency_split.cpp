// SPDX-License-Identifier: GPL-2.0-or-later
#include "latency_split.h"

#include <algorithm>
#include <limits>

#include "lnetcap/lnet.h"
#include "lnetcap/record.h"
#include "nid_names.h"
#include "rpc_matcher.h"
#include "summary.h"

namespace lnetcap::report {

void LatencySplit::add(const Message& m, const std::optional<BulkLink>& link) {
  if (!m.lnet.present) return;
  const RecordHeader& h = m.rec.hdr;
  const bool send = h.direction == LNETCAP_DIR_SEND, recv = h.direction == LNETCAP_DIR_RECV;
  if (!send && !recv) return;  // a router's, a wire's or a dropped record: no end's clock
  const Nid& local = h.local_nid;
  const LnetFields& l = m.lnet;
  if (is_rpc_request(m)) {
    const auto key = std::make_tuple(l.src_nid, l.dest_nid, *l.match_bits);
    auto it = by_key_.find(key);
    std::shared_ptr<Rpc> r = it == by_key_.end() ? nullptr : it->second;
    // The same end seeing the request again: a resend, timed afresh.
    if (r && ((send && r->c_send) || (recv && r->s_recv))) {
      for (const auto& k : r->keys) by_key_.erase(k);
      r = nullptr;
    }
    if (!r) {
      r = std::make_shared<Rpc>();
      r->opc = m.rpc.opc;
      r->client = l.src_nid;
      r->server = l.dest_nid;
      r->keys.push_back(key);
      if (m.rpc.mbits && m.rpc.mbits != *l.match_bits)  // REP_MBITS replies
        r->keys.emplace_back(l.src_nid, l.dest_nid, m.rpc.mbits);
      for (const auto& k : r->keys) by_key_[k] = r;
      order_.push_back(r);
      while (order_.size() > kMaxPending) {
        if (auto old = order_.front().lock())
          for (const auto& k : old->keys) {
            auto o = by_key_.find(k);
            if (o != by_key_.end() && o->second == old) by_key_.erase(o);
          }
        order_.pop_front();
      }
    }
    if (send && local == r->client) {
      r->c_send = m.ts_ns;
      r->has_queue = h.flags & LNETCAP_REC_F_QUEUE_VALID;
      r->queue = h.queue_ns;
    } else if (recv && local == r->server) {
      r->s_recv = m.ts_ns;
    }
    return;
  }
  if (is_rpc_reply(m)) {
    auto it = by_key_.find(std::make_tuple(l.dest_nid, l.src_nid, *l.match_bits));
    if (it == by_key_.end()) return;
    const std::shared_ptr<Rpc> r = it->second;
    if (send && local == r->server) r->s_send = m.ts_ns;
    else if (recv && local == r->client) r->c_recv = m.ts_ns;
    if (r->c_send && r->s_recv && r->s_send && r->c_recv) finish(r);
    return;
  }
  if (!link || !link->bulk()) return;
  auto it = by_key_.find(std::make_tuple(link->rpc->client, link->rpc->server, link->rpc->xid));
  if (it == by_key_.end() || local != it->second->server) return;  // the server's bulk phase
  Rpc& r = *it->second;
  if (send && (l.type == LNETCAP_MSG_GET || l.type == LNETCAP_MSG_PUT))
    r.bulk_first = r.bulk_first ? std::min(r.bulk_first, m.ts_ns) : m.ts_ns;
  if (recv && (l.type == LNETCAP_MSG_REPLY || l.type == LNETCAP_MSG_ACK))
    r.bulk_last = std::max(r.bulk_last, m.ts_ns);
}

void LatencySplit::finish(const std::shared_ptr<Rpc>& r) {
  const std::shared_ptr<Rpc> keep = r;  // erasing the keys drops the map's references
  for (const auto& k : keep->keys) {
    auto o = by_key_.find(k);
    if (o != by_key_.end() && o->second == keep) by_key_.erase(o);
  }
  if (samples_.size() < kMaxSamples) {
    samples_.push_back(*keep);
    samples_.back().keys.clear();
  }
}

LatencySplitReport LatencySplit::report() const {
  LatencySplitReport out;
  // Per client and server: theta within [max(s_send - c_recv), min(s_recv - c_send)].
  struct Bounds {
    std::int64_t lo = std::numeric_limits<std::int64_t>::min();
    std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  };
  std::map<std::pair<Nid, Nid>, Bounds> bounds;
  for (const Rpc& r : samples_) {
    Bounds& b = bounds[{r.client, r.server}];
    b.lo = std::max(b.lo, static_cast<std::int64_t>(r.s_send - r.c_recv));
    b.hi = std::min(b.hi, static_cast<std::int64_t>(r.s_recv - r.c_send));
  }
  std::map<std::pair<Nid, Nid>, std::int64_t> theta;
  for (const auto& [pair, b] : bounds) {
    const std::int64_t t = b.lo + (b.hi - b.lo) / 2;
    theta[pair] = t;
    out.clock_offset_ns[display_nid(pair.first) + " -> " + display_nid(pair.second)] = t;
  }
  auto nonneg = [](std::int64_t v) { return static_cast<std::uint64_t>(std::max<std::int64_t>(v, 0)); };
  for (const Rpc& r : samples_) {
    const std::int64_t t = theta[{r.client, r.server}];
    LatencySplitStats& s = out.by_opcode[opcode_key(r.opc)];
    if (r.has_queue) s.client_queue.push_back(r.queue);
    s.request_transit.push_back(nonneg(static_cast<std::int64_t>(r.s_recv - r.c_send) - t));
    s.reply_transit.push_back(nonneg(static_cast<std::int64_t>(r.c_recv - r.s_send) + t));
    std::uint64_t bulk = 0;
    if (r.bulk_first && r.bulk_last > r.bulk_first) {
      bulk = r.bulk_last - r.bulk_first;
      s.bulk.push_back(bulk);
    }
    const std::int64_t server = static_cast<std::int64_t>(r.s_send - r.s_recv);
    s.server.push_back(nonneg(server - static_cast<std::int64_t>(bulk)));
  }
  return out;
}

}  // namespace lnetcap::report
