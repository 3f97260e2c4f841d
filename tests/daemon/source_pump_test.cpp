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
#include <deque>

#include "../../capture/src/daemon/source_pump.h"

namespace lnetcap::daemon {
namespace {

// Records whose 8 bytes are their index.
class CountingSource : public RecordSource {
 public:
  CountingSource(std::uint64_t n, std::chrono::microseconds delay) : n_(n), delay_(delay) {
    interfaces_.resize(1);
  }
  bool next(CapturedRecord& out) override {
    if (delay_.count()) std::this_thread::sleep_for(delay_);
    if (i_ == n_) return false;
    std::memcpy(bytes_, &i_, sizeof i_);
    out = CapturedRecord{};
    out.ts_ns = i_++;
    out.bytes = ByteSpan(bytes_, sizeof bytes_);
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
  std::uint8_t bytes_[8] = {};
  std::vector<CaptureInterface> interfaces_;
};

bool readable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, timeout_ms) == 1;
}

// Takes every record from a pump fed by kRecords records, each `delay`
// apart, waiting on the eventfd as the daemon does.
void drain(std::uint64_t kRecords, std::chrono::microseconds delay) {
  SourcePump pump(std::make_unique<CountingSource>(kRecords, delay), Pacing{}, 64);
  pump.start();
  std::uint64_t next = 0;
  bool ended = false;
  std::deque<PumpedRecord> batch;
  while (!ended) {
    // Records are queued or coming: the eventfd must say so well within 2 s.
    ASSERT_TRUE(readable(pump.event_fd(), 2000)) << "no wake-up after record " << next;
    if (!pump.take_all(batch)) continue;
    // Everything queued came in one handover; what comes next must wake us.
    while (!batch.empty()) {
      PumpedRecord item = std::move(batch.front());
      batch.pop_front();
      if (item.end) {
        ended = true;
        EXPECT_EQ(item.stats.received, kRecords);
        break;
      }
      std::uint64_t got = 0;
      ASSERT_EQ(item.bytes.size(), sizeof got);
      std::memcpy(&got, item.bytes.data(), sizeof got);
      ASSERT_EQ(got, next) << "records out of order";
      ++next;
    }
  }
  EXPECT_EQ(next, kRecords);
  EXPECT_FALSE(readable(pump.event_fd(), 0)) << "the eventfd stays readable with nothing queued";
}

// A fast source: the queue fills, batches are handed over whole.
TEST(SourcePump, FastSourceEveryRecordInOrder) { drain(20000, std::chrono::microseconds(0)); }

// A slow source: every record finds the queue empty and must wake the daemon.
TEST(SourcePump, SlowSourceEveryRecordWakesTheDaemon) { drain(50, std::chrono::microseconds(2000)); }

}  // namespace
}  // namespace lnetcap::daemon
