// SPDX-License-Identifier: GPL-2.0-or-later
// rpc_matcher.h - pairs PtlRPC requests with their replies (docs/protocol.md 3.5):
// the key is (requester NID, server NID, match bits of the request PUT); the
// reply PUT carries the same match bits, or the request's pb_mbits when
// OBD_CONNECT2_REP_MBITS was negotiated, so a request is findable by both.
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

/// What the reports remember about a request until its reply shows up.
struct RpcRequest {
  std::uint64_t ts_ns = 0;
  std::uint64_t xid = 0;
  std::uint32_t opc = 0;
  std::optional<std::uint32_t> portal;
  Nid client, server;  // LNet src and dest of the request PUT
  std::string peer;    // peer_key() of the request message
  std::string jobid;
  std::uint32_t pid = 0;  // record header: the process that sent or received it
  std::string comm;
};

struct RpcMatch {
  RpcRequest request;
  std::uint64_t latency_ns = 0;  // reply timestamp - request timestamp (0 if negative)
};

/// True when the ptlrpc_body was captured, so opcode, type and status are known.
bool has_rpc_body(const Message& m);
/// True for the request PUT of an RPC.
bool is_rpc_request(const Message& m);
/// The payload bytes a message counts for in the reports and metrics: what
/// LNet delivered or sent.  A dropped message (LNet refused it, matched it
/// to nothing, or its receive failed) delivered nothing, and on o2iblnd a
/// dropped PUT or a failed RDMA REPLY never moved its data: 0.
std::uint64_t delivered_bytes(const Message& m);
/// True for a final reply (or error reply) PUT; early replies are not final.
bool is_rpc_reply(const Message& m);
/// True for a final reply that reports a failure: an error reply
/// (PTL_RPC_MSG_ERR) or a negative errno (lnetcap_rpc_is_error).  Positive
/// values are results, not errors: OST_READ/OST_WRITE replies carry the
/// byte count, and the ELDLM_* codes are LDLM's non-error return states
/// (ELDLM_LOCK_ABORTED answers every intent enqueue).
bool is_rpc_error(const Message& m);
/// Who a message was exchanged with, as the summaries group it.  For a
/// message sent or received by the capturing node, the NID at the far end
/// (LNet destination of a send, source of a receive).  For records without
/// a local side (socklnd wire imports without --local-nid, forwarded or
/// dropped messages) the conversation "A <-> B" with the NIDs sorted.
std::string peer_key(const Message& m);

class RpcMatcher {
 public:
  /// A live capture that loses replies must not grow without bound: past
  /// this many waiting requests the oldest are given up (counted in
  /// given_up(), no longer in pending()).
  static constexpr std::size_t kDefaultMaxPending = 1u << 18;
  explicit RpcMatcher(std::size_t max_pending = kDefaultMaxPending) : max_pending_(max_pending) {}

  /// Feed every message in capture order.  For a final reply whose request
  /// was seen from the same side (see View), returns the request and the
  /// latency; otherwise nullopt.  DROP records take no part: a dropped
  /// request is not a new request, a dropped reply answers nothing.
  std::optional<RpcMatch> observe(const Message& m);
  /// Requests that have not been answered (yet), oldest first.
  std::vector<RpcRequest> pending() const;
  std::uint64_t given_up() const { return given_up_; }

 private:
  // Whose records pair up.  In a merged capture the client's SEND of a
  // request and the server's RECV of it are two records of one RPC: each
  // node's request is answered by that node's record of the reply (the
  // client's latency, the server's service time, a router's or a wire
  // recording's time in between), never one node's request by another's
  // reply, and never one node's record taken for a resend of another's.
  enum class View : std::uint8_t { kClient, kServer, kPath };
  static std::optional<View> request_view(const Message& m);
  static std::optional<View> reply_view(const Message& m);
  using Key = std::tuple<View, Nid, Nid, std::uint64_t>;  // view, client, server, match bits
  struct Entry {
    RpcRequest req;
    std::vector<Key> keys;  // every key this entry is filed under
  };
  // By value: a caller may pass the map's own shared_ptr, which forget()
  // erases; the copy keeps the entry alive while its keys are walked.
  void forget(std::shared_ptr<Entry> e);

  std::map<Key, std::shared_ptr<Entry>> by_key_;
  std::deque<std::weak_ptr<Entry>> order_;  // requests in arrival order
  std::size_t live_ = 0;                    // entries still waiting
  std::size_t max_pending_;
  std::uint64_t given_up_ = 0;
};

}  // namespace lnetcap::report
