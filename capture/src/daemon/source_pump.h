// SPDX-License-Identifier: GPL-2.0-or-later
// source_pump.h - runs the daemon's one RecordSource in its own thread, so
// that a live source blocking in next() never delays subscribers joining,
// leaving or being served.  Records are copied into a bounded queue; the
// daemon's poll loop waits on event_fd().  A full queue blocks the reader
// (a live source's kernel ring then fills and counts its own drops): the
// daemon's work per record is the same for every subscriber, slow
// subscribers are dealt with downstream (subscriber_set.h).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../source.h"

namespace lnetcap::daemon {

/// How a replayed file is paced: as fast as possible (default), at the
/// speed it was recorded, or at a fixed number of records per second.
struct Pacing {
  bool realtime = false;
  double records_per_second = 0;  // 0 = unpaced
  // A replay ends at once on stop; a live source first drains what it holds.
  bool replay = false;
};

struct PumpedRecord {
  CapturedRecord meta;  // meta.bytes is empty: the bytes are in `bytes`
  std::vector<std::uint8_t> bytes;
  std::vector<CaptureInterface> new_interfaces;  // appeared since the previous item
  SourceStats stats;                             // the source's counters after it
  bool end = false;                              // the source ended (or failed)
  std::string error, hint;                       // why it failed (end only)
  CapturedRecord record() const {
    CapturedRecord r = meta;
    r.bytes = ByteSpan(bytes);
    return r;
  }
};

class SourcePump {
 public:
  SourcePump(std::unique_ptr<RecordSource> source, Pacing pacing, std::size_t capacity = 1024);
  ~SourcePump();
  void start();
  /// Asks the source to stop; an end item follows what it still drains.
  void stop();
  /// Readable while items are queued (an eventfd).
  int event_fd() const { return event_fd_; }
  /// Moves every queued item (oldest first) into `out`, which must be
  /// empty; false when none is queued.
  bool take_all(std::deque<PumpedRecord>& out);
  /// The same, giving back the byte buffers of items already handled: the
  /// reader thread fills them again instead of allocating a buffer per
  /// record (and this thread freeing it).  `used` is left empty.
  bool take_all(std::deque<PumpedRecord>& out, std::vector<std::vector<std::uint8_t>>& used);

 private:
  void run();
  /// Queues the item; returns a buffer for the next record's bytes (one
  /// given back, or an empty one).
  std::vector<std::uint8_t> push(PumpedRecord item);
  void pace(std::uint64_t ts_ns, std::uint64_t index);

  std::unique_ptr<RecordSource> source_;
  Pacing pacing_;
  std::size_t capacity_;
  int event_fd_ = -1;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable space_;
  std::deque<PumpedRecord> queue_;
  std::vector<std::vector<std::uint8_t>> spare_;  // buffers given back (at most capacity_)
  std::chrono::steady_clock::time_point pace_start_;  // when the first record went out
  std::uint64_t pace_first_ts_ = 0;                   // and its timestamp
};

}  // namespace lnetcap::daemon
