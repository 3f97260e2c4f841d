// SPDX-License-Identifier: GPL-2.0-or-later
// consumer_group.h - LCAP's round-robin strategy for lnetcapd: subscribers
// that join the same named group share its stream, each record going to
// exactly one member (docs/DAEMON.md, "Consumer groups").
//
// Which member is chosen by rendezvous (highest random weight) hashing of
// the record's key over the members: the key keeps an RPC together (its
// request, reply and the LNet messages that carry its XID as match bits go
// to one member; its other bulk too, through group_keyer.h), and when a member leaves only its own keys move - to the
// remaining members, spread among them - while every other key stays
// where it was.  Plain modulo hashing would reshuffle every key on each
// leave and split the RPCs in flight across members.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../message.h"

namespace lnetcap::daemon {

/// Members of one group at most: choosing a member costs a hash per member
/// for every record.  (Members are subscribers too: --max-subscribers and
/// --max-subscribers-per-user bound them, and the groups, as well.)
inline constexpr std::size_t kMaxGroupMembers = 64;

/// The key that decides a record's member.  Records that carry an XID (the
/// LNet match bits of a PtlRPC request or reply PUT, and of the ACK or GET
/// that names the same bits) are keyed by the XID and the two NIDs of the
/// exchange taken as an unordered pair: a request (client -> server) and
/// its reply (server -> client) have the same pair, and no knowledge of
/// which side is the client is needed, so it holds for records captured
/// without their PtlRPC body too.  Other records are keyed by the peer NID.
/// (Bulk whose match bits are not the XID: group_keyer.h.)
std::uint64_t group_key(const Message& msg);

/// The key of the RPC exchange `xid` between two NIDs (in either order):
/// group_key() of its request and reply.
std::uint64_t rpc_key(std::uint64_t xid, const Nid& a, const Nid& b);

/// Of `members` (each member's token: distinct, stable while it is a
/// member), the index of the one that takes `key`.  members must not be
/// empty.
std::size_t pick_member(std::uint64_t key, const std::vector<std::uint64_t>& members);

}  // namespace lnetcap::daemon
