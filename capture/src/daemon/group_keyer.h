// SPDX-License-Identifier: GPL-2.0-or-later
// group_keyer.h - the consumer-group key of every record (consumer_group.h)
// with bulk kept with its RPC: a bulk GET or PUT, the REPLY or ACK that
// completes it, and a reply sent on the request's pb_mbits (a resend with
// new bulk match bits) get the key of the request that named their match
// bits, whatever those bits are (chunk 2, 3, ... of a multi-chunk bulk, or
// the new block a resent OST_READ/OST_WRITE took).
//
// Which request named which bits is report::BulkLinker's knowledge, the
// same the text lines, --summary and the metrics use; this class only
// turns its answer into a key.  It must see every record the daemon gets,
// in order, once - including records no member's filter takes (a request
// filtered out still names its bulk) - and nothing else: the daemon keeps
// one keyer for the real records and, while an anonymized group exists,
// one for the pseudonymous ones (an anonymized group's key must come from
// what its members see, or the choice of member would be an oracle on the
// real NIDs).  The key does not depend on the group otherwise, so those two
// serve every group.
//
// Bounded: kMaxRpcs requests (and four match-bit keys each on average),
// kMaxTransfers GETs and PUTs waiting for their REPLY or ACK; past that the
// oldest are given up and counted (given_up()), and a bulk record whose
// request was given up is keyed by its own match bits as before.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../message.h"
#include "../report/bulk_linker.h"

namespace lnetcap::daemon {

class GroupKeyer {
 public:
  /// Enough for the RPCs in flight on a busy server (a request is kept
  /// until its reply and then report::BulkLinker's retire time, or until
  /// pushed out): 17.6 MiB resident per keyer when full (docs/DAEMON.md).
  static constexpr std::size_t kMaxRpcs = 1u << 14;
  static constexpr std::size_t kMaxTransfers = 1u << 14;

  explicit GroupKeyer(std::size_t max_rpcs = kMaxRpcs, std::size_t max_transfers = kMaxTransfers)
      : linker_(max_rpcs, max_transfers) {}

  /// The key of m, the next record in capture order (consumer_group.h's
  /// group_key(), except that what the linker ties to a request gets the
  /// request's key).
  std::uint64_t key(const Message& m);

  /// Requests and transfers given up before their bulk or completion came
  /// (the caps above, or a request unanswered for ten minutes).
  std::uint64_t given_up() const { return linker_.given_up(); }
  std::size_t rpcs() const { return linker_.rpcs(); }
  std::size_t transfers() const { return linker_.transfers(); }
  std::size_t queued() const { return linker_.queued(); }

 private:
  report::BulkLinker linker_;
};

}  // namespace lnetcap::daemon
