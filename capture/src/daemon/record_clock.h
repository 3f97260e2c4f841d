// SPDX-License-Identifier: GPL-2.0-or-later
// record_clock.h - the timeline the flight recorder's time bound and the
// trigger's windows and per-minute limit are measured on: the records'
// own timestamps (so a replay keeps what the live capture it replays would
// have kept), made proof against the wall clock being stepped back.
//
// A live source stamps records with the wall clock (a socklnd capture, or
// an eBPF capture started before an NTP step).  Stepped back by an hour,
// every new record looked an hour older than the newest one held: the
// recorder evicted each record as it arrived, and the trigger's
// files-per-minute limit waited an hour for its minute to pass.  Here a
// record older than the newest by more than the reordering any source
// shows (per-CPU rings: well under a second) is taken as a step of the
// clock: the timeline carries on from the newest instead, like
// CLOCK_MONOTONIC would.  Forward steps cannot be told from a quiet
// period, and are kept.
#pragma once

#include <algorithm>
#include <cstdint>

namespace lnetcap::daemon {

class RecordClock {
 public:
  static constexpr std::uint64_t kReorderSlackNs = 2'000'000'000;
  /// The record's place on the timeline (its timestamp, shifted by every
  /// backward step so far).
  std::uint64_t at(std::uint64_t ts_ns) {
    if (!started_) {
      started_ = true;
      newest_ = ts_ns;
      return ts_ns;
    }
    std::uint64_t t = ts_ns + offset_;
    if (t + kReorderSlackNs < newest_) {
      offset_ += newest_ - t;
      t = newest_;
      ++steps_back_;
    }
    newest_ = std::max(newest_, t);
    return t;
  }
  std::uint64_t steps_back() const { return steps_back_; }

 private:
  bool started_ = false;
  std::uint64_t newest_ = 0, offset_ = 0, steps_back_ = 0;
};

}  // namespace lnetcap::daemon
