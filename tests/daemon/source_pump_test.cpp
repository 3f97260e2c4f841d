// SPDX-License-Identifier: GPL-2.0-or-later
// The daemon's source pump: every record arrives, in order, each woken by
// its eventfd - including items still queued after a take, and a source
// that finished while the daemon was busy (the eventfd used to be cleared
// with items left in the queue, stalling the daemon on its poll timeout).
#include <gtest/gtest.h>
#include <poll.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "../../capture/src/daemon/source_pump.h"

namespace lnetcap::daemon {
namespace {

// Records whose first 8 bytes are their index, followed by index % 13
// bytes of 0xab (records of different lengths share the pump's buffer).
class CountingSource : public RecordSource {
 public:
  CountingSource(std::uint64_t n, std::chrono::microseconds delay) : n_(n), delay_(delay) {
    interfaces_.resize(1);
  }
  bool next(CapturedRecord& out) override {
    if (delay_.count()) std::this_thread::sleep_for(delay_);
    if (i_ == n_) return false;
    std::memcpy(bytes_, &i_, sizeof i_);
    std::memset(bytes_ + 8, 0xab, sizeof bytes_ - 8);
    out = CapturedRecord{};
    out.bytes = ByteSpan(bytes_, 8 + i_ % 13);
    out.ts_ns = i_++;
    return true;
  }
  const std::vector<CaptureInterface>& interfaces() const override { return interfaces_; }
  SourceStats stats() const override {
    SourceStats s;
    s.received = i_;
    return s;
  }

 private:
  std::uint64_t n_, i_ = 0;
  std::chrono::microseconds delay_;
  std::uint8_t bytes_[8 + 12] = {};
  std::vector<CaptureInterface> interfaces_;
};

bool readable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, timeout_ms) == 1;
}

// Takes every record from a pump fed by kRecords records, each `delay`
// apart, waiting on the eventfd as the daemon does.
// Returns how many handovers it took.
std::uint64_t drain(std::uint64_t kRecords, std::chrono::microseconds delay, Pacing pacing = {}) {
  std::uint64_t handovers = 0;
  SourcePump pump(std::make_unique<CountingSource>(kRecords, delay), pacing, 64);
  pump.start();
  std::uint64_t next = 0;
  bool ended = false;
  PumpedBatch batch;
  while (!ended) {
    // Records are queued or coming: the eventfd must say so well within 2 s.
    EXPECT_TRUE(readable(pump.event_fd(), 2000)) << "no wake-up after record " << next;
    if (::testing::Test::HasFailure()) return handovers;
    if (!pump.take_all(batch)) continue;
    ++handovers;
    // Everything queued came in one handover; what comes next must wake us.
    for (std::size_t i = 0; i < batch.items.size(); ++i) {
      const PumpedRecord& item = batch.items[i];
      if (item.end) {
        ended = true;
        EXPECT_EQ(item.stats.received, kRecords);
        break;
      }
      std::uint64_t got = 0;
      const ByteSpan bytes = batch.bytes(i);
      EXPECT_EQ(bytes.size(), 8 + next % 13) << "record " << next;
      if (bytes.size() != 8 + next % 13) return handovers;
      std::memcpy(&got, bytes.data(), sizeof got);
      EXPECT_EQ(got, next) << "records out of order";
      if (got != next) return handovers;
      for (std::size_t b = 8; b < bytes.size(); ++b) EXPECT_EQ(bytes[b], 0xab) << "record " << next;
      EXPECT_EQ(batch.record(i).ts_ns, next) << "a record's metadata with another's bytes";
      ++next;
    }
  }
  EXPECT_EQ(next, kRecords);
  EXPECT_FALSE(readable(pump.event_fd(), 0)) << "the eventfd stays readable with nothing queued";
  return handovers;
}

// A fast source: the queue fills, batches are handed over whole.
TEST(SourcePump, FastSourceEveryRecordInOrder) { drain(20000, std::chrono::microseconds(0)); }

// A slow source: every record finds the queue empty and must wake the daemon.
// 51 hand-overs (each record and the end) on an idle machine; a busy one
// may deschedule the daemon past a record or two, so the check is that the
// records were not held back for a batch (that would be 1 or 2).
TEST(SourcePump, SlowSourceEveryRecordWakesTheDaemon) {
  EXPECT_GE(drain(50, std::chrono::microseconds(5000)), 10u);
}

// An unpaced replay slower than the daemon wakes it once per
// kReplayWakeRecords records (a wake-up per record cost more than the
// record), and its end wakes it for the last few.
TEST(SourcePump, UnpacedReplayWakesTheDaemonPerBatch) {
  Pacing replay;
  replay.replay = true;
  const std::uint64_t n = 3 * 64 + 10;
  // 3 full batches, then 10 + end (fewer when this thread is descheduled
  // past a batch, never more).
  EXPECT_LE(drain(n, std::chrono::microseconds(200), replay), 4u);
}

}  // namespace
}  // namespace lnetcap::daemon
