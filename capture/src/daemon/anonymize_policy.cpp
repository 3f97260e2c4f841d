// SPDX-License-Identifier: GPL-2.0-or-later
#include "anonymize_policy.h"

namespace lnetcap::daemon {

std::string AnonymizePolicy::forces(const subscribe::Peer& peer) const {
  if (all) return "anonymize-all";
  if (peer.uid >= 0 && users.count(static_cast<uid_t>(peer.uid))) return "anonymize-users";
  if (!peer.user_id.empty() && keys.count(peer.user_id)) return "anonymize-keys";
  return {};
}

std::string describe(const subscribe::Peer& peer) {
  if (!peer.user_id.empty()) return "key " + peer.user_id;
  if (peer.uid >= 0) return "uid " + std::to_string(peer.uid);
  return peer.address.empty() ? "unknown peer" : peer.address;
}

}  // namespace lnetcap::daemon
