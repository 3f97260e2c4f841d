// SPDX-License-Identifier: GPL-2.0-or-later
#include "source_pump.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "../error.h"
#include "../signals.h"

namespace lnetcap::daemon {

SourcePump::SourcePump(std::unique_ptr<RecordSource> source, Pacing pacing, std::size_t capacity)
    : source_(std::move(source)),
      pacing_(pacing),
      capacity_(capacity),
      wake_at_(pacing.replay && !pacing.realtime && pacing.records_per_second <= 0 ? kReplayWakeRecords : 1) {
  event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (event_fd_ < 0) throw Error(std::string("eventfd: ") + std::strerror(errno));
}

SourcePump::~SourcePump() {
  stop();
  if (thread_.joinable()) thread_.join();
  ::close(event_fd_);
}

void SourcePump::start() { thread_ = std::thread([this] { run(); }); }

void SourcePump::stop() {
  stop_ = true;
  space_.notify_all();
}

bool SourcePump::take_all(PumpedBatch& out) {
  out.clear();  // outside the lock: destroying what the records held
  std::lock_guard<std::mutex> lock(mutex_);
  // Cleared under the lock: a push after this sees an empty queue and
  // re-arms it.
  std::uint64_t ignored;
  (void)!::read(event_fd_, &ignored, sizeof ignored);
  if (queue_.empty()) return false;
  // One handover for the whole batch; the emptied one, with its buffers,
  // is what the reader fills next.
  std::swap(out, queue_);
  space_.notify_one();
  return true;
}

void SourcePump::push(PumpedRecord& item, ByteSpan bytes) {
  std::unique_lock<std::mutex> lock(mutex_);
  // The end item always goes in, so the daemon learns the source is done.
  space_.wait(lock, [&] { return queue_.items.size() < capacity_ || stop_ || item.end; });
  item.offset = queue_.arena.size();
  item.length = bytes.size();
  queue_.arena.insert(queue_.arena.end(), bytes.begin(), bytes.end());
  const bool end = item.end;
  queue_.items.push_back(std::move(item));
  // Only the first item wakes the daemon: it takes everything queued at
  // once, so one syscall and one wake-up serve a whole batch.  An unpaced
  // replay keeps no clock: it wakes the daemon every kReplayWakeRecords
  // records (and at its end), not whenever the daemon, faster than the
  // file, has emptied the queue - per record, that wake-up cost more than
  // the record.
  const std::size_t wake = std::min(wake_at_, capacity_);
  if (queue_.items.size() == wake || (end && queue_.items.size() < wake)) {
    const std::uint64_t one = 1;
    (void)!::write(event_fd_, &one, sizeof one);
  }
}

// Sleeps in short steps so that a stop request is never kept waiting.
void SourcePump::pace(std::uint64_t ts_ns, std::uint64_t index) {
  using Clock = std::chrono::steady_clock;
  if (index == 0) {
    pace_start_ = Clock::now();
    pace_first_ts_ = ts_ns;
  }
  std::chrono::nanoseconds offset{0};
  if (pacing_.records_per_second > 0)
    offset = std::chrono::nanoseconds(static_cast<std::int64_t>(index * 1e9 / pacing_.records_per_second));
  else if (pacing_.realtime && ts_ns > pace_first_ts_)
    offset = std::chrono::nanoseconds(ts_ns - pace_first_ts_);
  const auto due = pace_start_ + offset;
  while (!stop_ && !stop_requested() && Clock::now() < due)
    std::this_thread::sleep_for(std::min<Clock::duration>(due - Clock::now(), std::chrono::milliseconds(50)));
}

void SourcePump::run() {
  std::size_t known_interfaces = 0;
  std::uint64_t index = 0;
  auto new_interfaces = [&] {
    std::vector<CaptureInterface> fresh;
    const auto& all = source_->interfaces();
    for (; known_interfaces < all.size(); ++known_interfaces) fresh.push_back(all[known_interfaces]);
    return fresh;
  };
  PumpedRecord end;
  end.end = true;
  try {
    CapturedRecord rec;
    SourceStats counters;
    PumpedRecord item;  // moved into the queue by push
    bool stopping = false;
    for (;;) {
      if (!stopping && (stop_ || stop_requested())) {
        source_->request_stop();  // a live source drains what it holds, then ends
        stopping = true;
      }
      if (stopping && pacing_.replay) break;
      if (!source_->next(rec)) break;
      if (rec.bytes.empty()) continue;  // an idle live source's tick
      if (pacing_.realtime || pacing_.records_per_second > 0) pace(rec.ts_ns, index);
      ++index;
      const ByteSpan bytes = rec.bytes;
      item.meta = rec;
      item.meta.bytes = {};
      item.new_interfaces = new_interfaces();
      // The counters subscribers see, refreshed every 64 records (a source's
      // stats() builds its detail strings: per record that cost more than
      // the record); their details only go with the end item.
      if (index % 64 == 1) {
        counters = source_->stats();
        counters.details.clear();
      }
      item.stats = counters;
      push(item, bytes);
    }
  } catch (const Error& e) {
    end.error = e.what();
    end.hint = e.hint();
  } catch (const std::exception& e) {
    end.error = std::string("internal error: ") + e.what();
  }
  end.new_interfaces = new_interfaces();
  end.stats = source_->stats();
  push(end, {});
}

}  // namespace lnetcap::daemon
