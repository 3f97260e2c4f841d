// SPDX-License-Identifier: GPL-2.0-or-later
// source_pump.h - runs the daemon's one RecordSource in its own thread, so
// that a live source blocking in next() never delays subscribers joining,
// leaving or being served.  Records are copied into a bounded queue, their
// bytes back to back in one buffer; the daemon's poll loop waits on
// event_fd() and takes the whole queue at once, giving back the one it
// emptied, so that in a steady stream no record costs an allocation.  A full queue blocks the reader
// (a live source's kernel ring then fills and counts its own drops): the
// daemon's work per record is the same for every subscriber, slow
// subscribers are dealt with downstream (subscriber_set.h).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
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
  CapturedRecord meta;  // meta.bytes is empty: the bytes are in the batch's arena
  std::size_t offset = 0, length = 0;            // of its bytes in PumpedBatch::arena
  std::vector<CaptureInterface> new_interfaces;  // appeared since the previous item
  SourceStats stats;                             // the source's counters after it
  bool end = false;                              // the source ended (or failed)
  std::string error, hint;                       // why it failed (end only)
};

/// What the pump hands over at once: records in order, their bytes back to
/// back in `arena` (one copy per record, no buffer per record).
struct PumpedBatch {
  std::vector<PumpedRecord> items;
  std::vector<std::uint8_t> arena;
  /// The i-th record, its bytes pointing into the arena (valid until the
  /// batch is given back).
  CapturedRecord record(std::size_t i) const {
    CapturedRecord r = items[i].meta;
    r.bytes = ByteSpan(arena.data() + items[i].offset, items[i].length);
    return r;
  }
  ByteSpan bytes(std::size_t i) const {
    return ByteSpan(arena.data() + items[i].offset, items[i].length);
  }
  bool empty() const { return items.empty(); }
  void clear() {
    items.clear();
    arena.clear();
  }
};

class SourcePump {
 public:
  /// An unpaced replay wakes the daemon once per this many records.
  static constexpr std::size_t kReplayWakeRecords = 64;
  SourcePump(std::unique_ptr<RecordSource> source, Pacing pacing, std::size_t capacity = 1024);
  ~SourcePump();
  void start();
  /// Asks the source to stop; an end item follows what it still drains.
  void stop();
  /// Readable while items are queued (an eventfd).
  int event_fd() const { return event_fd_; }
  /// Hands over every queued item (oldest first) by swapping batches:
  /// `out`, whose records the caller has finished with, is cleared and
  /// becomes the pump's queue (its buffers filled again without
  /// allocating).  False when nothing is queued (`out` is then empty).
  bool take_all(PumpedBatch& out);

 private:
  void run();
  /// Queues the item, copying `bytes` into the queue's arena.
  void push(PumpedRecord& item, ByteSpan bytes);
  void pace(std::uint64_t ts_ns, std::uint64_t index);

  std::unique_ptr<RecordSource> source_;
  Pacing pacing_;
  std::size_t capacity_;
  std::size_t wake_at_;  // queued records that wake the daemon (see push)
  int event_fd_ = -1;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable space_;
  PumpedBatch queue_;
  std::chrono::steady_clock::time_point pace_start_;  // when the first record went out
  std::uint64_t pace_first_ts_ = 0;                   // and its timestamp
};

}  // namespace lnetcap::daemon
