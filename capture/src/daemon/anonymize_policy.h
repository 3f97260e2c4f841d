// SPDX-License-Identifier: GPL-2.0-or-later
// anonymize_policy.h - which subscribers the daemon forces through the
// anonymizer (docs/ANONYMIZE.md), from lnetcapd.conf's [subscribers]:
// every one, local users (by the uid the kernel reports for the ipc
// connection, not what the client claims) or CurveZMQ public keys (the key
// the handshake proved).  Reloaded by SIGHUP.
#pragma once

#include <sys/types.h>

#include <set>
#include <string>

#include "../subscribe/zmq_frames.h"

namespace lnetcap::daemon {

struct AnonymizePolicy {
  bool all = false;                 // anonymize-all
  std::set<uid_t> users;            // anonymize-users (names resolved when read)
  std::set<std::string> keys;       // anonymize-keys (Z85 client public keys)
  std::string key_file = "/var/lib/lnetcap/anon.key";  // anonymize-key: the HMAC key

  bool forces_anyone() const { return all || !users.empty() || !keys.empty(); }
  /// Why `peer` is forced ("" when it is not): the config key that says so.
  std::string forces(const subscribe::Peer& peer) const;
  bool operator==(const AnonymizePolicy& o) const {
    return all == o.all && users == o.users && keys == o.keys && key_file == o.key_file;
  }
};

/// "uid 1000", "key Z85..." or the peer's address, for logs.
std::string describe(const subscribe::Peer& peer);

}  // namespace lnetcap::daemon
