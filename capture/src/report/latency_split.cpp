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

const char* split_dimension_name(SplitBy d) {
  switch (d) {
    case SplitBy::kOpcode: return "opcode";
    case SplitBy::kJobid: return "jobid";
    case SplitBy::kClient: return "client";
    case SplitBy::kTarget: return "target";
  }
  return "?";
}

// --- the RPCs both ends saw, in bounded groups ------------------------------

std::uint32_t LatencySplitFigures::group_of(std::size_t d, const std::string& key) {
  auto& index = group_index_[d];
  auto it = index.find(key);
  if (it != index.end()) return it->second;
  // Past the budget every new key shares one group (a key already admitted
  // keeps its own).
  const std::string& k = group_names_[d].size() < kMaxGroups ? key : std::string(kOtherSplitGroup);
  it = index.find(k);
  if (it != index.end()) return it->second;
  const auto i = static_cast<std::uint32_t>(group_names_[d].size());
  index.emplace(k, i);
  group_names_[d].push_back(k);
  groups_[d].emplace_back();
  return i;
}

std::int64_t LatencySplitFigures::offset(std::uint32_t pair) const {
  const Pair& p = pairs_[pair];
  if (p.one_clock) return 0;
  return p.lo + (p.hi - p.lo) / 2;
}

void LatencySplitFigures::add(const SplitRpc& r) {
  auto found = pair_index_.find({r.client, r.server});
  if (found == pair_index_.end()) {
    if (pairs_.size() >= kMaxPairs) {
      ++not_split_;
      return;
    }
    found = pair_index_.emplace(std::make_pair(r.client, r.server), static_cast<std::uint32_t>(pairs_.size())).first;
    pairs_.push_back({r.client, r.server, std::numeric_limits<std::int64_t>::min(),
                      std::numeric_limits<std::int64_t>::max(), r.client == r.server});
  }
  Pair& p = pairs_[found->second];
  Done d{};
  d.pair = found->second;
  d.to_server = static_cast<std::int64_t>(r.s_recv - r.c_send);
  d.to_client = static_cast<std::int64_t>(r.c_recv - r.s_send);
  p.lo = std::max(p.lo, -d.to_client);
  p.hi = std::min(p.hi, d.to_server);
  d.has_bulk = r.bulk_first && r.bulk_last > r.bulk_first;
  d.bulk = d.has_bulk ? r.bulk_last - r.bulk_first : 0;
  const std::int64_t server = static_cast<std::int64_t>(r.s_send - r.s_recv) - static_cast<std::int64_t>(d.bulk);
  d.server = static_cast<std::uint64_t>(std::max<std::int64_t>(server, 0));
  d.has_queue = r.has_queue;
  d.queue = r.queue;
  d.group[static_cast<int>(SplitBy::kOpcode)] = group_of(static_cast<int>(SplitBy::kOpcode), opcode_key(r.opc));
  d.group[static_cast<int>(SplitBy::kJobid)] = group_of(static_cast<int>(SplitBy::kJobid), jobid_key(r.jobid));
  d.group[static_cast<int>(SplitBy::kClient)] = group_of(static_cast<int>(SplitBy::kClient), display_nid(r.client));
  d.group[static_cast<int>(SplitBy::kTarget)] = group_of(static_cast<int>(SplitBy::kTarget), display_nid(r.server));
  batch_.push_back(d);
  if (batch_.size() < kBatch) return;
  // The batch is full: its transits are split with the offsets known now.
  for (const Done& done : batch_) negative_ += bin(done, total_, groups_);
  batch_.clear();
}

bool LatencySplitFigures::bin(const Done& d, LatencySplitStats& total, Groups& groups) const {
  const std::int64_t t = offset(d.pair);
  auto nonneg = [](std::int64_t v) { return static_cast<std::uint64_t>(std::max<std::int64_t>(v, 0)); };
  const std::uint64_t request = nonneg(d.to_server - t), reply = nonneg(d.to_client + t);
  auto put = [&](LatencySplitStats& s) {
    if (d.has_queue) s.client_queue.push_back(d.queue);
    s.request_transit.push_back(request);
    s.reply_transit.push_back(reply);
    if (d.has_bulk) s.bulk.push_back(d.bulk);
    s.server.push_back(d.server);
  };
  put(total);
  for (std::size_t i = 0; i < groups.size(); ++i) put(groups[i][d.group[i]]);
  return d.to_server - t < 0 || d.to_client + t < 0;
}

LatencySplitReport LatencySplitFigures::report() const {
  LatencySplitReport out;
  out.total = total_;
  Groups groups = groups_;
  out.negative_transits = negative_;
  for (const Done& d : batch_) out.negative_transits += bin(d, out.total, groups);
  for (std::size_t i = 0; i < groups.size(); ++i)
    for (std::size_t g = 0; g < groups[i].size(); ++g)
      out.groups[i].emplace(group_names_[i][g], std::move(groups[i][g]));
  for (std::uint32_t i = 0; i < pairs_.size(); ++i)
    out.clock_offset_ns[{display_nid(pairs_[i].client), display_nid(pairs_[i].server)}] = offset(i);
  out.rpcs_not_split = not_split_;
  return out;
}

// --- pairing each RPC's records of both ends --------------------------------

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
    if (r && ((send && r->t.c_send) || (recv && r->t.s_recv))) {
      for (const auto& k : r->keys) by_key_.erase(k);
      r = nullptr;
    }
    if (!r) {
      r = std::make_shared<Rpc>();
      r->t.opc = m.rpc.opc;
      r->t.client = l.src_nid;
      r->t.server = l.dest_nid;
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
    // Either end's copy of the request carries the jobid (if it was captured).
    if (r->t.jobid.empty()) r->t.jobid = m.rpc.jobid;
    if (send && local == r->t.client) {
      r->t.c_send = m.ts_ns;
      r->t.has_queue = h.flags & LNETCAP_REC_F_QUEUE_VALID;
      r->t.queue = h.queue_ns;
    } else if (recv && local == r->t.server) {
      r->t.s_recv = m.ts_ns;
    }
    return;
  }
  if (is_rpc_reply(m)) {
    auto it = by_key_.find(std::make_tuple(l.dest_nid, l.src_nid, *l.match_bits));
    if (it == by_key_.end()) return;
    const std::shared_ptr<Rpc> r = it->second;
    if (send && local == r->t.server) r->t.s_send = m.ts_ns;
    else if (recv && local == r->t.client) r->t.c_recv = m.ts_ns;
    if (r->t.c_send && r->t.s_recv && r->t.s_send && r->t.c_recv) finish(r);
    return;
  }
  if (!link || !link->bulk()) return;
  auto it = by_key_.find(std::make_tuple(link->rpc->client, link->rpc->server, link->rpc->xid));
  if (it == by_key_.end() || local != it->second->t.server) return;  // the server's bulk phase
  SplitRpc& r = it->second->t;
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
  figures_.add(keep->t);
}

}  // namespace lnetcap::report
