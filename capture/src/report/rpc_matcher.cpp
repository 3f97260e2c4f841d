// SPDX-License-Identifier: GPL-2.0-or-later
#include "rpc_matcher.h"

#include "nid_names.h"

#include <algorithm>
#include <set>

#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/record.h"
#include "lnetcap/rpc_predicates.h"

namespace lnetcap::report {

bool has_rpc_body(const Message& m) { return m.rpc.present && m.rpc.body_len != 0; }

bool is_rpc_request(const Message& m) {
  return has_rpc_body(m) && m.lnet.present && m.lnet.type == LNETCAP_MSG_PUT &&
         m.rpc.type == LNETCAP_PTL_RPC_MSG_REQUEST && m.lnet.match_bits.has_value();
}

std::uint64_t delivered_bytes(const Message& m) {
  if (m.rec.hdr.direction == LNETCAP_DIR_DROP) return 0;
  return m.lnet.present ? m.lnet.payload_length : m.rec.hdr.payload_len;
}

bool is_rpc_reply(const Message& m) {
  return has_rpc_body(m) && m.lnet.present && m.lnet.type == LNETCAP_MSG_PUT &&
         (m.rpc.type == LNETCAP_PTL_RPC_MSG_REPLY || m.rpc.type == LNETCAP_PTL_RPC_MSG_ERR) &&
         !m.rpc.early_reply && m.lnet.match_bits.has_value();
}

bool is_rpc_error(const Message& m) {
  if (!is_rpc_reply(m)) return false;
  return lnetcap_rpc_is_error(m.rpc.type, m.rpc.status);
}

std::string peer_key(const Message& m) {
  if (!m.lnet.present) return display_nid(m.rec.hdr.peer_nid);
  switch (m.rec.hdr.direction) {
    case LNETCAP_DIR_SEND: return display_nid(m.lnet.dest_nid);
    case LNETCAP_DIR_RECV: return display_nid(m.lnet.src_nid);
    default: break;
  }
  // Both ends are remote: a request and its reply must land in the same
  // group, so the key does not depend on the message's direction.
  std::string a = display_nid(m.lnet.src_nid), b = display_nid(m.lnet.dest_nid);
  if (b < a) std::swap(a, b);
  return a + " <-> " + b;
}

std::optional<RpcMatcher::View> RpcMatcher::request_view(const Message& m) {
  switch (m.rec.hdr.direction) {
    case LNETCAP_DIR_SEND: return View::kClient;
    case LNETCAP_DIR_RECV: return View::kServer;
    case LNETCAP_DIR_DROP: return std::nullopt;
    default: return View::kPath;  // forwarded, a wire recording, unknown
  }
}

std::optional<RpcMatcher::View> RpcMatcher::reply_view(const Message& m) {
  switch (m.rec.hdr.direction) {
    case LNETCAP_DIR_RECV: return View::kClient;
    case LNETCAP_DIR_SEND: return View::kServer;
    case LNETCAP_DIR_DROP: return std::nullopt;
    default: return View::kPath;
  }
}

std::optional<RpcMatch> RpcMatcher::observe(const Message& m) {
  if (is_rpc_request(m)) {
    const std::optional<View> view = request_view(m);
    if (!view) return std::nullopt;
    auto e = std::make_shared<Entry>();
    RpcRequest& r = e->req;
    r.ts_ns = m.ts_ns;
    r.xid = *m.lnet.match_bits;
    r.opc = m.rpc.opc;
    r.portal = m.lnet.portal;
    r.client = m.lnet.src_nid;
    r.server = m.lnet.dest_nid;
    r.peer = peer_key(m);
    r.jobid = m.rpc.jobid;
    r.pid = m.rec.hdr.pid;
    r.comm = m.rec.hdr.comm;
    e->keys.emplace_back(*view, r.client, r.server, r.xid);
    // REP_MBITS: the reply may come back on pb_mbits instead of the XID.
    if (m.rpc.mbits != 0 && m.rpc.mbits != r.xid)
      e->keys.emplace_back(*view, r.client, r.server, m.rpc.mbits);
    for (const Key& k : e->keys) {
      // A resend reuses the XID: the newer request replaces the older one.
      auto old = by_key_.find(k);
      if (old != by_key_.end()) forget(old->second);
      by_key_[k] = e;
    }
    ++live_;
    order_.push_back(e);
    while (live_ > max_pending_ && !order_.empty()) {
      if (auto oldest = order_.front().lock()) {
        forget(oldest);
        ++given_up_;
      }
      order_.pop_front();
    }
    // Answered requests leave expired entries behind: drop them from the
    // front, and compact when they pile up behind an old unanswered one
    // (amortised O(1): the deque at least halves each time).
    while (!order_.empty() && order_.front().expired()) order_.pop_front();
    if (order_.size() > 2 * live_ + 1024) {
      std::erase_if(order_, [](const std::weak_ptr<Entry>& w) { return w.expired(); });
    }
    return std::nullopt;
  }
  if (!is_rpc_reply(m)) return std::nullopt;
  const std::optional<View> view = reply_view(m);
  if (!view) return std::nullopt;
  auto it = by_key_.find(Key{*view, m.lnet.dest_nid, m.lnet.src_nid, *m.lnet.match_bits});
  if (it == by_key_.end()) return std::nullopt;
  std::shared_ptr<Entry> e = it->second;
  forget(e);
  RpcMatch match;
  match.request = e->req;
  match.latency_ns = m.ts_ns > e->req.ts_ns ? m.ts_ns - e->req.ts_ns : 0;
  return match;
}

void RpcMatcher::forget(std::shared_ptr<Entry> e) {
  bool filed = false;
  for (const Key& k : e->keys) {
    auto it = by_key_.find(k);
    if (it != by_key_.end() && it->second == e) filed = true;
  }
  if (filed) --live_;
  for (const Key& k : e->keys) {
    auto it = by_key_.find(k);
    if (it != by_key_.end() && it->second == e) by_key_.erase(it);
  }
}

std::vector<RpcRequest> RpcMatcher::pending() const {
  std::set<const Entry*> seen;
  std::vector<RpcRequest> out;
  for (const auto& [k, e] : by_key_)
    if (seen.insert(e.get()).second) out.push_back(e->req);
  std::stable_sort(out.begin(), out.end(),
                   [](const RpcRequest& a, const RpcRequest& b) { return a.ts_ns < b.ts_ns; });
  return out;
}

}  // namespace lnetcap::report
