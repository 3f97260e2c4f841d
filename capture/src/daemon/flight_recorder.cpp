// SPDX-License-Identifier: GPL-2.0-or-later
#include "flight_recorder.h"

#include <algorithm>

namespace lnetcap::daemon {

StoredRecord::StoredRecord(const CapturedRecord& rec, ByteSpan b, std::shared_ptr<const RecordBlock> blk,
                           std::uint64_t bound)
    : ts_ns(rec.ts_ns),
      bound_ns(bound),
      interface_id(rec.interface_id),
      orig_len(rec.orig_len),
      epb_flags(rec.epb_flags),
      has_drops_before(rec.has_drops_before),
      drops_before(rec.drops_before),
      bytes(b),
      block(std::move(blk)),
      comments(rec.comments) {}

CapturedRecord StoredRecord::view() const {
  CapturedRecord r;
  r.ts_ns = ts_ns;
  r.interface_id = interface_id;
  r.bytes = bytes;
  r.orig_len = orig_len;
  r.epb_flags = epb_flags;
  r.has_drops_before = has_drops_before;
  r.drops_before = drops_before;
  r.comments = comments;
  return r;
}

std::uint64_t StoredRecord::accounted_bytes() const {
  std::uint64_t n = bytes.size() + kRecordOverhead;
  for (const auto& c : comments) n += c.size();
  return n;
}

FlightRecorder::FlightRecorder(RecorderConfig config)
    : config_(config),
      block_size_(config.max_bytes ? std::clamp<std::size_t>(config.max_bytes / 64, 4096, kBlockSize)
                                   : kBlockSize) {}

ByteSpan FlightRecorder::copy_bytes(ByteSpan bytes) {
  if (!block_ || block_->data.size() + bytes.size() > block_->data.capacity()) {
    block_ = std::make_shared<RecordBlock>();
    block_->data.reserve(std::max(block_size_, bytes.size()));
  }
  const std::size_t at = block_->data.size();
  block_->data.insert(block_->data.end(), bytes.begin(), bytes.end());
  return ByteSpan(block_->data.data() + at, bytes.size());
}

StoredRecordPtr FlightRecorder::add(const CapturedRecord& rec) {
  const ByteSpan bytes = copy_bytes(rec.bytes);
  auto stored = std::make_shared<const StoredRecord>(rec, bytes, block_, clock_.at(rec.ts_ns));
  held_.push_back(stored);
  bytes_held_ += stored->accounted_bytes();
  newest_ts_ = std::max(newest_ts_, stored->bound_ns);
  auto too_much = [&] {
    const StoredRecord& oldest = *held_.front();
    if (config_.max_bytes && bytes_held_ > config_.max_bytes) return true;
    return config_.max_ns && newest_ts_ > config_.max_ns && oldest.bound_ns < newest_ts_ - config_.max_ns;
  };
  while (!held_.empty() && too_much()) {
    bytes_held_ -= held_.front()->accounted_bytes();
    held_.pop_front();
    ++evicted_;
  }
  return stored;
}

std::uint64_t FlightRecorder::window_ns() const {
  if (held_.empty() || newest_ts_ < held_.front()->bound_ns) return 0;
  return newest_ts_ - held_.front()->bound_ns;
}

}  // namespace lnetcap::daemon
