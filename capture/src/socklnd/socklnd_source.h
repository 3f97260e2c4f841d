// SPDX-License-Identifier: GPL-2.0-or-later
// socklnd_source.h - LNet messages reassembled from socklnd TCP traffic
// (tcpdump captures read through libpcap, or a live network interface).
#pragma once

#include <memory>

#include "../options.h"
#include "../source.h"

namespace lnetcap {

/// Reads a pcap/pcapng file of TCP traffic (opts.read_file, opts.lnet_port,
/// opts.local_nid).  Throws Error for unreadable files or unsupported link types.
std::unique_ptr<RecordSource> open_socklnd_file(const Options& opts);
/// Captures live from the network interface opts.interface with libpcap.
std::unique_ptr<RecordSource> open_socklnd_live(const Options& opts);

}  // namespace lnetcap
