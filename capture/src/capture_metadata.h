// SPDX-License-Identifier: GPL-2.0-or-later
// capture_metadata.h - the pcapng section comments that make a shared trace
// explain itself: host, kernel, Lustre and lnetcap versions, command line
// and filter.
#pragma once

#include <string>
#include <vector>

#include "options.h"
#include "pcapng/writer.h"

namespace lnetcap {

/// This node's host name (uname's nodename).
std::string host_name();
/// Section comments for a capture run with opts.  With --anonymize the host
/// name and command line are left out and NIDs in the filter are mapped by
/// the caller.
/// The SHB comments of the pcapng lnetcap writes.  original: the section
/// header of the lnetcap pcapng being rewritten (-r), whose provenance is
/// kept, followed by a line saying who rewrote it and how.
std::vector<std::string> capture_metadata(const Options& opts, bool live,
                                          const pcapng::SectionInfo* original = nullptr);

}  // namespace lnetcap
