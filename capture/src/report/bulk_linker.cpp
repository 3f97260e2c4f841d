// SPDX-License-Identifier: GPL-2.0-or-later
#include "bulk_linker.h"

#include <algorithm>
#include <cstddef>

#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/record.h"
#include "rpc_matcher.h"

namespace lnetcap::report {
namespace {

// A request's bulk uses at most PTLRPC_BULK_OPS_COUNT match bits
// (docs/protocol.md 3.5); a wider XID..pb_mbits range is not a range.
constexpr std::uint64_t kBulkRangeMax = 128;
// Keys per remembered request on average before the oldest are given up
// (most RPCs have one to a few: their XID and a chunk per MiB).
constexpr std::size_t kKeysPerRpc = 4;


// A PUT whose payload was captured past lm_magic and is no PtlRPC message
// is data.
constexpr std::size_t kMagicEnd =
    offsetof(struct lnetcap_lustre_msg_v2, lm_magic) + sizeof(std::uint32_t);

enum TransferKind { kGetReturn = 0, kPutAck = 1 };

}  // namespace

BulkLinker::BulkLinker(std::size_t max_rpcs, std::size_t max_transfers, std::uint64_t retire_ns)
    : max_rpcs_(std::max<std::size_t>(max_rpcs, 1)),
      max_transfers_(std::max<std::size_t>(max_transfers, 1)),
      retire_ns_(retire_ns) {}

std::shared_ptr<BulkLinker::Entry> BulkLinker::find(const Nid& client, const Nid& server,
                                                    std::uint64_t mbits) const {
  auto it = by_key_.find(Key{client, server, mbits});
  return it == by_key_.end() ? nullptr : it->second;
}

void BulkLinker::forget(std::shared_ptr<Entry> e) {
  bool filed = false;
  for (const Key& k : e->keys) {
    auto it = by_key_.find(k);
    if (it != by_key_.end() && it->second == e) {
      filed = true;
      by_key_.erase(it);
    }
  }
  if (filed) --live_;
}

void BulkLinker::add_request(const Message& m) {
  auto e = std::make_shared<Entry>();
  auto rpc = std::make_shared<BulkRpc>();
  rpc->xid = *m.lnet.match_bits;
  rpc->opc = m.rpc.opc;
  rpc->request_portal = m.lnet.portal;
  rpc->client = m.lnet.src_nid;
  rpc->server = m.lnet.dest_nid;
  rpc->jobid = m.rpc.jobid;
  e->rpc = rpc;
  e->request_ts = m.ts_ns;
  const std::uint64_t lo = rpc->xid, hi = m.rpc.mbits;
  e->keys.emplace_back(rpc->client, rpc->server, lo);
  // The chunks end at pb_mbits.  They start at the XID, or, for a resend
  // (with OBD_CONNECT_BULK_MBITS a resent bulk RPC takes a new XID block
  // for its bulk and keeps its XID), at the start of pb_mbits' block: XIDs
  // are multiples of PTLRPC_BULK_OPS_COUNT (ptlrpc_init_xid), so a block
  // holds one RPC's match bits and nobody else's.
  std::uint64_t first = hi;
  if (hi > lo && hi - lo < kBulkRangeMax) first = lo + 1;
  else if (hi != 0 && hi != lo) first = hi - hi % kBulkRangeMax;
  if (hi != 0 && hi != lo)
    for (std::uint64_t b = first;; ++b) {  // by count: hi may be 2^64-1
      e->keys.emplace_back(rpc->client, rpc->server, b);
      if (b == hi) break;
    }
  for (const Key& k : e->keys) {
    // A resend or a reused XID: the newer request replaces the older one,
    // all of whose keys go with it.
    auto old = by_key_.find(k);
    if (old != by_key_.end() && old->second != e) forget(old->second);
    by_key_[k] = e;
  }
  ++live_;
  order_.push_back(e);
  // Past the cap (requests, or their keys: up to 128 each) the oldest are
  // given up; never the request just filed.
  while ((live_ > max_rpcs_ || by_key_.size() > kKeysPerRpc * max_rpcs_) && order_.size() > 1) {
    if (auto oldest = order_.front().lock()) {
      forget(oldest);
      ++given_up_;
    }
    order_.pop_front();
  }
  // Requests replaced by a resend stay queued, forgotten, until retire()
  // passes them; a flood of resends within one clock tick must not grow
  // the queue while live_ stays small.
  compact_order();
}

void BulkLinker::compact_order() {
  if (order_.size() > 2 * live_ + 1024)
    std::erase_if(order_, [](const std::weak_ptr<Entry>& w) { return w.expired(); });
}

void BulkLinker::remember_transfer(const TransferKey& k, const BulkLink& link, std::uint64_t ts) {
  transfers_[k] = Transfer{link, ts};
  transfer_order_.emplace_back(k, ts);
  while (transfers_.size() > max_transfers_ || transfer_order_.size() > 2 * max_transfers_) {
    const auto [key, filed] = transfer_order_.front();
    transfer_order_.pop_front();
    auto it = transfers_.find(key);
    if (it != transfers_.end() && it->second.ts == filed) {
      if (!it->second.answered) ++given_up_;
      transfers_.erase(it);
    }
  }
}

void BulkLinker::retire(std::uint64_t now) {
  // A request is kept retire_ns after its reply; one never answered ten
  // times as long (Lustre has given up on it by then).
  while (!order_.empty()) {
    const std::shared_ptr<Entry> e = order_.front().lock();
    if (e) {
      const bool done = e->reply_ts && e->reply_ts + retire_ns_ <= now;
      const bool stale = !e->reply_ts && e->request_ts + 10 * retire_ns_ <= now;
      if (!done && !stale) break;
      forget(e);
      if (stale) ++given_up_;
    }
    order_.pop_front();
  }
  compact_order();
  while (!transfer_order_.empty() && transfer_order_.front().second + retire_ns_ <= now) {
    const auto [key, filed] = transfer_order_.front();
    transfer_order_.pop_front();
    auto it = transfers_.find(key);
    if (it != transfers_.end() && it->second.ts == filed) transfers_.erase(it);
  }
}

std::optional<BulkLink> BulkLinker::observe(const Message& m) {
  const LnetFields& l = m.lnet;
  if (!l.present) return std::nullopt;
  const RecordHeader& h = m.rec.hdr;
  // A DROP (a failed send's outcome, a message dropped on arrival) is
  // named like its message but teaches nothing: it never arrived.
  const bool learn = h.direction != LNETCAP_DIR_DROP && !h.is_outcome();
  if (learn && m.ts_ns > now_) {
    now_ = m.ts_ns;
    retire(now_);
  }
  switch (l.type) {
    case LNETCAP_MSG_PUT: {
      if (!l.match_bits || (l.portal && *l.portal == LNETCAP_PORTAL_LNET_RESERVED)) return std::nullopt;
      if (is_rpc_request(m)) {
        if (learn) add_request(m);
        return std::nullopt;
      }
      // A PtlRPC message that is no request: a reply (final, early or an
      // error), or one whose body was not captured.
      if (m.rpc.present) {
        if (!learn || !is_rpc_reply(m)) return std::nullopt;
        const auto e = find(l.dest_nid, l.src_nid, *l.match_bits);
        if (!e) return std::nullopt;
        if (!e->reply_ts) e->reply_ts = std::max<std::uint64_t>(m.ts_ns, 1);
        if (l.ack_requested)  // a "difficult" reply: its ACK is the RPC's
          remember_transfer(TransferKey{kPutAck, l.dest_nid, l.src_nid, l.wmd_interface, l.wmd_object},
                            BulkLink{BulkLink::Kind::kReplyAck, e->rpc, std::nullopt}, m.ts_ns);
        return std::nullopt;
      }
      const bool data = m.rec.payload.size() >= kMagicEnd || (l.portal && !lnetcap_portal_is_reply(*l.portal));
      if (!data) return std::nullopt;
      const auto e = find(l.dest_nid, l.src_nid, *l.match_bits);  // server -> client
      if (!e) return std::nullopt;
      BulkLink link{BulkLink::Kind::kBulk, e->rpc, l.portal};
      if (learn && l.ack_requested)
        remember_transfer(TransferKey{kPutAck, l.dest_nid, l.src_nid, l.wmd_interface, l.wmd_object},
                          link, m.ts_ns);
      return link;
    }
    case LNETCAP_MSG_GET: {
      if (!l.match_bits || (l.portal && *l.portal == LNETCAP_PORTAL_LNET_RESERVED)) return std::nullopt;
      const auto e = find(l.dest_nid, l.src_nid, *l.match_bits);  // server -> client
      if (!e) return std::nullopt;
      BulkLink link{BulkLink::Kind::kBulk, e->rpc, l.portal};
      if (learn)
        remember_transfer(TransferKey{kGetReturn, l.dest_nid, l.src_nid, l.wmd_interface, l.wmd_object},
                          link, m.ts_ns);
      return link;
    }
    case LNETCAP_MSG_REPLY:
    case LNETCAP_MSG_ACK: {
      // Client -> server, naming the GET's return MD or the PUT's ACK MD.
      const int kind = l.type == LNETCAP_MSG_REPLY ? kGetReturn : kPutAck;
      auto it = transfers_.find(TransferKey{kind, l.src_nid, l.dest_nid, l.wmd_interface, l.wmd_object});
      if (it == transfers_.end()) return std::nullopt;
      // Kept, not erased: a merged capture holds the REPLY or ACK once per node.
      if (learn) it->second.answered = true;
      return it->second.link;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace lnetcap::report
