// SPDX-License-Identifier: GPL-2.0-or-later
#include "group_keyer.h"

#include "../report/rpc_matcher.h"
#include "consumer_group.h"
#include "lnetcap/lnet.h"

namespace lnetcap::daemon {

std::uint64_t GroupKeyer::key(const Message& m) {
  if (const auto link = linker_.observe(m)) {
    const report::BulkRpc& rpc = *link->rpc;
    return rpc_key(rpc.xid, rpc.client, rpc.server);
  }
  // A reply goes on its request's match bits: the XID, or pb_mbits when
  // the request was resent with new bulk match bits (REP_MBITS).  Either
  // way the request filed them; ask which request that was.
  const LnetFields& l = m.lnet;
  if (l.present && l.type == LNETCAP_MSG_PUT && l.match_bits && l.portal &&
      (report::is_rpc_reply(m) || (!m.rpc.present && lnetcap_portal_is_reply(*l.portal))))
    if (const auto rpc = linker_.rpc_of(l.dest_nid, l.src_nid, *l.match_bits))
      return rpc_key(rpc->xid, rpc->client, rpc->server);
  return group_key(m);
}

}  // namespace lnetcap::daemon
