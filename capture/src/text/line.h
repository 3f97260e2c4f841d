// SPDX-License-Identifier: GPL-2.0-or-later
// line.h - lnetcap's default one-line-per-message text, tcpdump style:
//   12:00:01.123456 SEND PUT 10.0.3.2@tcp > 10.0.3.1@tcp MDS_REQUEST xid 0x5f8a0000 len 224: OBD_PING request
#pragma once

#include <string>

#include "../message.h"
#include "../report/bulk_linker.h"

namespace lnetcap::text {

struct LineStyle {
  bool quiet = false;  // -q: time, direction, type, NIDs and the RPC name only
  int verbose = 0;     // -v: record metadata and more PtlRPC/LDLM fields
  bool nano = false;   // --nano
};

/// link: what report::BulkLinker found for the message (a bulk GET, PUT,
/// REPLY or ACK names its RPC: ": bulk of OST_WRITE xid 0x... jobid dd.0").
void format_line(const Message& m, const LineStyle& style, std::string& out,
                 const report::BulkLink* link = nullptr);
/// tcpdump -x style hex dump of bytes, 16 per line, indented.
void format_hex(ByteSpan bytes, std::string& out);

}  // namespace lnetcap::text
