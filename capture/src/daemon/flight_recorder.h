// SPDX-License-Identifier: GPL-2.0-or-later
// flight_recorder.h - lnetcapd's flight recorder: the newest records the
// source delivered, kept in memory within a configured bound (bytes and/or
// seconds), so that `lnetcap --from URI --dump` can save what led up to an
// incident, and triggers (trigger.h) can save the window around a match.
//
// The window, exactly (docs/DAEMON.md "Flight recorder"):
//  - by bytes: the newest records whose accounted sizes add up to at most
//    max_bytes, where a record accounts for its length (the EPB's packet
//    data), its comments and kRecordOverhead bytes of bookkeeping;
//  - by time: the records no older than max_ns before the newest record's
//    timestamp (the capture's clock, proof against steps back: record_clock.h;
//    so a replay keeps what a live capture
//    of the same traffic would have kept);
//  - with both, whichever holds less.  Records leave oldest first (in
//    arrival order).
//
// Record bytes are copied into large blocks (no allocation per record's
// bytes; a block is freed when no record in it is held, by the recorder, a
// dump or a trigger window), so the memory used is the accounted bytes
// plus at most two blocks (the oldest's evicted part, the newest's free
// part) and, per block, less than one record left unused at its end.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "../source.h"
#include "record_clock.h"

namespace lnetcap::daemon {

/// [recorder] in the config file, --recorder-* on the command line.
struct RecorderConfig {
  std::uint64_t max_bytes = 0;  // 0 = no bound by size
  std::uint64_t max_ns = 0;     // 0 = no bound by time
  /// The recorder runs when at least one bound is set (never unbounded).
  bool enabled() const { return max_bytes != 0 || max_ns != 0; }
};

/// A block of record bytes, shared by the records stored in it.
struct RecordBlock {
  std::vector<std::uint8_t> data;  // reserved once: records never move
};

/// A record owned by the recorder (the pipeline's CapturedRecord only
/// points into the source's buffer).
struct StoredRecord {
  std::uint64_t ts_ns = 0;
  std::uint64_t bound_ns = 0;  // its place on the recorder's timeline (record_clock.h)
  std::uint32_t interface_id = 0;
  std::uint32_t orig_len = 0;
  std::uint32_t epb_flags = 0;
  bool has_drops_before = false;
  std::uint64_t drops_before = 0;
  ByteSpan bytes;                            // inside *block
  std::shared_ptr<const RecordBlock> block;  // keeps the bytes alive
  std::vector<std::string> comments;

  StoredRecord(const CapturedRecord& rec, ByteSpan bytes, std::shared_ptr<const RecordBlock> block,
               std::uint64_t bound_ns);
  /// A view for the sinks (valid while this object lives).
  CapturedRecord view() const;
  /// What the record counts against max_bytes.
  std::uint64_t accounted_bytes() const;
};

using StoredRecordPtr = std::shared_ptr<const StoredRecord>;

/// Bookkeeping per record (the object, its shared_ptr control block, the
/// deque slot and the allocator's headers), counted against max_bytes so
/// that the bound is on memory, not only on record bytes.
inline constexpr std::uint64_t kRecordOverhead = 160;
/// Size of the blocks record bytes are copied into (a size bound below
/// 64 blocks gets blocks of a 64th of it, at least 4 KiB).
inline constexpr std::size_t kBlockSize = 1 << 20;

class FlightRecorder {
 public:
  explicit FlightRecorder(RecorderConfig config);
  const RecorderConfig& config() const { return config_; }

  /// Keeps the record and lets the oldest ones go; returns it (shared with
  /// triggers collecting a window).
  StoredRecordPtr add(const CapturedRecord& rec);
  /// The records held, oldest first (cheap: the records are shared).
  std::vector<StoredRecordPtr> snapshot() const { return {held_.begin(), held_.end()}; }
  const std::deque<StoredRecordPtr>& held() const { return held_; }

  std::uint64_t bytes_held() const { return bytes_held_; }
  std::uint64_t records_held() const { return held_.size(); }
  /// The time the records held cover: newest timestamp minus the oldest
  /// record's (0 when empty).
  std::uint64_t window_ns() const;
  std::uint64_t evicted() const { return evicted_; }

 private:
  // The bytes' place in the current block (a new block when they do not fit).
  ByteSpan copy_bytes(ByteSpan bytes);

  RecorderConfig config_;
  std::size_t block_size_;
  std::shared_ptr<RecordBlock> block_;  // the block being filled
  std::deque<StoredRecordPtr> held_;
  std::uint64_t bytes_held_ = 0;
  std::uint64_t newest_ts_ = 0;  // on clock_'s timeline
  RecordClock clock_;
  std::uint64_t evicted_ = 0;
};

}  // namespace lnetcap::daemon
