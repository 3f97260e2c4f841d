// SPDX-License-Identifier: GPL-2.0-or-later
#include "consumer_group.h"

#include <algorithm>

namespace lnetcap::daemon {
namespace {

// splitmix64's finalizer: every input bit reaches every output bit, so
// neighbouring XIDs (consecutive RPCs of one client) spread evenly.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::uint64_t nid_hash(const Nid& nid) {
  std::uint64_t h = mix((std::uint64_t{nid.size} << 24) | (std::uint64_t{nid.type} << 16) | nid.num);
  for (std::size_t i = 0; i < nid.addr.size(); i += 8) {
    std::uint64_t word = 0;
    for (std::size_t j = 0; j < 8; ++j) word = (word << 8) | nid.addr[i + j];
    h = mix(h ^ word);
  }
  return h;
}

}  // namespace

std::uint64_t rpc_key(std::uint64_t xid, const Nid& a, const Nid& b) {
  std::uint64_t ha = nid_hash(a), hb = nid_hash(b);
  if (hb < ha) std::swap(ha, hb);  // the same for the request and its reply
  return mix(mix(ha ^ mix(hb)) ^ xid);
}

std::uint64_t group_key(const Message& msg) {
  if (msg.lnet.present)
    if (const auto xid = msg.xid()) return rpc_key(*xid, msg.lnet.src_nid, msg.lnet.dest_nid);
  return mix(nid_hash(msg.rec.hdr.peer_nid) ^ 0x70656572ull);  // "peer": apart from the XID keys
}

std::size_t pick_member(std::uint64_t key, const std::vector<std::uint64_t>& members) {
  std::size_t best = 0;
  std::uint64_t best_weight = 0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const std::uint64_t weight = mix(key ^ mix(members[i]));
    if (i == 0 || weight > best_weight) {
      best = i;
      best_weight = weight;
    }
  }
  return best;
}

}  // namespace lnetcap::daemon
