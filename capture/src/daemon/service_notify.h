// SPDX-License-Identifier: GPL-2.0-or-later
// service_notify.h - systemd's readiness protocol (sd_notify(3)) without
// linking libsystemd: one datagram ("READY=1", "STOPPING=1", "STATUS=...")
// to the socket named by $NOTIFY_SOCKET, when the service manager set it.
#pragma once

#include <string>

namespace lnetcap::daemon {

/// Sends `state` to $NOTIFY_SOCKET; does nothing without it.  Returns false
/// when the variable is set but the message could not be sent.
bool notify_service_manager(const std::string& state);

}  // namespace lnetcap::daemon
