// SPDX-License-Identifier: GPL-2.0-or-later
#include "anonymize_policy.h"

#include "log_text.h"

namespace lnetcap::daemon {

std::string AnonymizePolicy::forces(const subscribe::Peer& peer) const {
  if (all) return "anonymize-all";
  if (peer.uid >= 0 && users.count(static_cast<uid_t>(peer.uid))) return "anonymize-users";
  if (!peer.user_id.empty() && keys.count(peer.user_id)) return "anonymize-keys";
  // A TCP peer without a CurveZMQ key (--allow-insecure-tcp) shows no
  // identity at all: any local user can connect to 127.0.0.1, a forced one
  // included, so when the policy forces anyone by identity it forces these.
  if ((!users.empty() || !keys.empty()) && peer.uid < 0 && peer.user_id.empty())
    return "anonymize-users/keys (a peer without a uid or key could be any of them)";
  return {};
}

std::string describe(const subscribe::Peer& peer) {
  // Peer text, escaped for the log (log_text.h).
  if (!peer.user_id.empty()) return "key " + log_text(peer.user_id, 100);
  if (peer.uid >= 0) return "uid " + std::to_string(peer.uid);
  return peer.address.empty() ? "unknown peer" : log_text(peer.address, 100);
}

}  // namespace lnetcap::daemon
