// SPDX-License-Identifier: GPL-2.0-or-later
#include "command_scope.h"

#include "rpc_matcher.h"

namespace lnetcap::report {

CommandScope::Key CommandScope::key(const Nid& a, const Nid& b, std::uint64_t bits) {
  return b < a ? Key{b, a, bits} : Key{a, b, bits};
}

void CommandScope::remember(const Key& k) {
  if (!rpcs_.insert(k).second) return;
  order_.push_back(k);
  if (order_.size() > max_rpcs_) {
    rpcs_.erase(order_.front());
    order_.pop_front();
  }
}

bool CommandScope::includes(const Message& m) {
  bool mine = false;
  const std::optional<BulkLink> link = bulk_.observe(m);
  if (is_rpc_request(m)) {
    mine = m.rpc.jobid == jobid_;
    if (mine) {
      remember(key(m.lnet.src_nid, m.lnet.dest_nid, *m.lnet.match_bits));
      // Bulk and replies may use pb_mbits rather than the XID.
      if (m.rpc.mbits != 0) remember(key(m.lnet.src_nid, m.lnet.dest_nid, m.rpc.mbits));
    }
  } else if (m.lnet.present && m.lnet.match_bits) {
    mine = rpcs_.count(key(m.lnet.src_nid, m.lnet.dest_nid, *m.lnet.match_bits)) != 0;
  }
  if (!mine && link && !m.rpc.present) mine = link->rpc->jobid == jobid_;
  ++(mine ? included_ : excluded_);
  return mine;
}

}  // namespace lnetcap::report
