// SPDX-License-Identifier: GPL-2.0-or-later
// ping_detail.h - lnetcap -v's lines under a ping REPLY or a discovery push
// (PUT to portal 0): the lnet_ping_info it carries, NI by NI, and Lustre
// 2.17's NID metadata trailer, entry by entry:
//   	ping pid 12345 features 0x9b: 0@lo seq 7, 10.0.0.1@efa up
//   	metadata 1 entry: 10.0.0.1@efa [5a5a...5a]
// and what the capture or the message cut.
#pragma once

#include <string>

#include "../message.h"

namespace lnetcap::text {

/// Appends the detail lines (each "\n\t...") when m carries a ping info;
/// nothing otherwise.
void format_ping_detail(const Message& m, std::string& out);

}  // namespace lnetcap::text
