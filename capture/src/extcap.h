// SPDX-License-Identifier: GPL-2.0-or-later
// extcap.h - lnetcap as a Wireshark extcap: Wireshark runs the program
// with --extcap-interfaces, --extcap-dlts, --extcap-config and finally
// --capture --fifo PATH; the capture itself is the ordinary pipeline
// writing pcapng into the fifo (docs/EXTCAP.md).
#pragma once

#include <optional>

#include "options.h"

namespace lnetcap {

constexpr const char* kExtcapInterface = "lnet";
/// The same messages through lnetcapd: no privileges, the filter runs in
/// the daemon (docs/EXTCAP.md, docs/DAEMON.md).
constexpr const char* kExtcapDaemonInterface = "lnetcapd";

/// Handles the extcap queries.  Returns an exit status when the options were
/// an extcap query that is now answered, nullopt for a capture (with opts
/// rewritten into ordinary capture options) or an ordinary invocation.
std::optional<int> handle_extcap(Options& opts);

}  // namespace lnetcap
