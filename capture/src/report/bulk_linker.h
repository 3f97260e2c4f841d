// SPDX-License-Identifier: GPL-2.0-or-later
// bulk_linker.h - names the RPC a bulk transfer belongs to, for the text
// lines, --summary and lnetcapd's metrics alike (docs/protocol.md 3.5,
// docs/REPORTS.md "Bulk"):
//
//  - a PtlRPC request files its bulk match bits under (client NID, server
//    NID): its XID, and the chunks up to pb_mbits (one per MiB), which
//    start at the XID (at most 128 values: XIDs step by
//    PTLRPC_BULK_OPS_COUNT) or, for a resend that took a new block, at the
//    start of pb_mbits' block of 128;
//  - a bulk PUT (OST_READ: the server pushes the data) or GET (OST_WRITE:
//    the server pulls it) from the server to the client, on any portal,
//    with those match bits is the RPC's;
//  - the REPLY that answers a bulk GET carries no match bits and no portal:
//    it names the GET by its wire handle (REPLY dst_wmd = GET return_wmd).
//    That is so on socklnd and for the RDMA REPLY that o2iblnd, kfilnd and
//    gnilnd make of a large GET, which lnetcap records with the header a
//    REPLY message would carry;
//  - the ACK of a bulk PUT carries the PUT's match bits; the ACK of a
//    "difficult" reply PUT carries the reply's.  With REP_MBITS a reply may
//    use the same match bits as the last bulk chunk, so an ACK is told apart
//    by the last PUT with those match bits that asked for one;
//  - LNet's src and dest NIDs are the end points, so FWD records on a
//    router link like the end points' records, and a capture merged from
//    several nodes (each message seen more than once) links each record.
//
// Memory is bounded: past max_rpcs requests (or 4 x max_rpcs match-bit
// keys, or max_transfers GETs and PUTs waiting for their REPLY or ACK) the
// oldest are given up and counted, as RpcMatcher does.
// A request is kept until a newer request takes one of its keys (a resend
// with the same XID, a reused XID) or until retire_ns after its reply, so
// that late bulk ACKs and the other node's records of a merged capture
// still link.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "message.h"

namespace lnetcap::report {

/// The RPC a bulk transfer belongs to, as its request named it.
struct BulkRpc {
  std::uint64_t xid = 0;  // match bits of the request PUT
  std::uint32_t opc = 0;
  std::optional<std::uint32_t> request_portal;
  Nid client, server;  // LNet src and dest of the request PUT
  std::string jobid;   // raw bytes from the wire (print with wire_text)
};

struct BulkLink {
  enum class Kind {
    kBulk,      // a bulk GET or PUT, or the REPLY or ACK that completes one
    kReplyAck,  // the ACK of the RPC's own reply PUT (no bulk)
  };
  Kind kind = Kind::kBulk;
  std::shared_ptr<const BulkRpc> rpc;
  /// The bulk portal of the transfer: the GET's or PUT's own, inherited by
  /// its REPLY or ACK (which carry none).  Unset for a reply ACK.
  std::optional<std::uint32_t> bulk_portal;
  bool bulk() const { return kind == Kind::kBulk; }
};

class BulkLinker {
 public:
  /// Requests remembered (each under its XID and bulk match bits).
  static constexpr std::size_t kDefaultMaxRpcs = 1u << 16;
  /// GETs waiting for a REPLY and PUTs waiting for an ACK.
  static constexpr std::size_t kDefaultMaxTransfers = 1u << 16;
  /// How long a request is kept after its reply, and a GET or PUT after
  /// it was seen (merged captures: the nodes' clocks differ).
  static constexpr std::uint64_t kDefaultRetireNs = 60ull * 1000000000ull;

  explicit BulkLinker(std::size_t max_rpcs = kDefaultMaxRpcs,
                      std::size_t max_transfers = kDefaultMaxTransfers,
                      std::uint64_t retire_ns = kDefaultRetireNs);

  /// Feed every message in capture order (outcome and resend records too:
  /// they are ignored).  For a bulk GET/PUT, its REPLY/ACK, or the ACK of a
  /// reply whose RPC is known, the link; otherwise nullopt.
  std::optional<BulkLink> observe(const Message& m);

  /// Requests forgotten before their reply (the cap, or unanswered for ten
  /// times retire_ns), and GETs/PUTs the cap pushed out before their
  /// REPLY/ACK came.
  std::uint64_t given_up() const { return given_up_; }
  std::size_t rpcs() const { return live_; }
  std::size_t transfers() const { return transfers_.size(); }
  /// Requests in the arrival-order queue, those forgotten since included
  /// (bounded too: tests check it under a flood of resends).
  std::size_t queued() const { return order_.size(); }
  /// The request that filed `mbits` between these two NIDs (its XID, a
  /// bulk chunk's bits, or pb_mbits, on which a request resent with new
  /// bulk match bits gets its reply), or nullptr.
  std::shared_ptr<const BulkRpc> rpc_of(const Nid& client, const Nid& server, std::uint64_t mbits) const {
    const auto e = find(client, server, mbits);
    return e ? e->rpc : nullptr;
  }

 private:
  using Key = std::tuple<Nid, Nid, std::uint64_t>;  // client, server, match bits
  struct Entry {
    std::shared_ptr<const BulkRpc> rpc;
    std::vector<Key> keys;         // every key this entry is filed under
    std::uint64_t request_ts = 0;
    std::uint64_t reply_ts = 0;    // 0 until the final reply was seen
  };
  // What a GET (by its return wire handle) or a PUT that asked for an ACK
  // (by its match bits) belongs to, until its REPLY or ACK.
  using TransferKey = std::tuple<int, Nid, Nid, std::uint64_t, std::uint64_t>;
  struct Transfer {
    BulkLink link;
    std::uint64_t ts = 0;
    bool answered = false;  // its REPLY or ACK was seen
  };

  void add_request(const Message& m);
  // By value: a caller may pass the map's own shared_ptr, which forget()
  // erases (the use-after-free RpcMatcher had, issue 33).
  void forget(std::shared_ptr<Entry> e);
  void remember_transfer(const TransferKey& k, const BulkLink& link, std::uint64_t ts);
  void retire(std::uint64_t now);
  void compact_order();
  std::shared_ptr<Entry> find(const Nid& client, const Nid& server, std::uint64_t mbits) const;

  std::size_t max_rpcs_, max_transfers_;
  std::uint64_t retire_ns_;
  std::map<Key, std::shared_ptr<Entry>> by_key_;
  std::deque<std::weak_ptr<Entry>> order_;  // requests in arrival order
  std::size_t live_ = 0;
  std::map<TransferKey, Transfer> transfers_;
  std::deque<std::pair<TransferKey, std::uint64_t>> transfer_order_;  // key, ts it was filed
  std::uint64_t now_ = 0;
  std::uint64_t given_up_ = 0;
};

}  // namespace lnetcap::report
