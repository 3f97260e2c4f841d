// SPDX-License-Identifier: GPL-2.0-or-later
// capture_metadata.h - the pcapng section comments that make a shared trace
// explain itself: host, kernel, Lustre and lnetcap versions, command line
// and filter.
#pragma once

#include <string>
#include <vector>

#include "options.h"

namespace lnetcap {

/// This node's host name (uname's nodename).
std::string host_name();
/// Section comments for a capture run with opts.  With --anonymize the host
/// name and command line are left out and NIDs in the filter are mapped by
/// the caller.
std::vector<std::string> capture_metadata(const Options& opts, bool live);

}  // namespace lnetcap
