// SPDX-License-Identifier: GPL-2.0-or-later
// snap_length.h - a subscriber's snap length applied to a record the daemon
// captured with more payload: the same record with fewer payload bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "../bytes.h"
#include "../source.h"

namespace lnetcap::daemon {

/// The record cut to at most snaplen payload bytes: `record` itself when it
/// has no more than that, else a copy in *scratch with payload_caplen
/// lowered (payload_len, and so the EPB's orig_len, stay as captured).
/// `record` must be a valid record (parse_record accepted it).
ByteSpan cut_payload(ByteSpan record, std::uint32_t snaplen, std::vector<std::uint8_t>* scratch);

/// The interface as a subscriber with this snap length sees it (if_snaplen
/// no larger than its longest record can be).
CaptureInterface interface_for_snaplen(CaptureInterface iface, std::uint32_t snaplen);

}  // namespace lnetcap::daemon
