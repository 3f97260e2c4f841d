// SPDX-License-Identifier: GPL-2.0-or-later
// trigger_feed.h - what the daemon's loop does with each record, for the
// flight recorder and trigger tests: the record goes into the recorder, and
// the trigger sees it with its message.
#pragma once

#include <cstdint>
#include <vector>

#include "daemon/flight_recorder.h"
#include "daemon/trigger.h"
#include "message_fixtures.h"

namespace lnetcap::daemon::test_feed {

// feed: one copy of m stamped ts_ns.
inline void feed(const test::OwnedMessage& m, std::uint64_t ts_ns, FlightRecorder& recorder, TriggerWriter& trigger,
                 const std::vector<CaptureInterface>& interfaces) {
  CapturedRecord r;
  r.ts_ns = ts_ns;
  r.bytes = ByteSpan(m.bytes);
  r.orig_len = static_cast<std::uint32_t>(m.bytes.size());
  Message msg = m.msg;
  msg.ts_ns = ts_ns;
  trigger.observe(recorder.add(r), msg, recorder, interfaces);
}

}  // namespace lnetcap::daemon::test_feed
