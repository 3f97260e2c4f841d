// SPDX-License-Identifier: GPL-2.0-or-later
// The flight recorder's bound (daemon/flight_recorder.h): after every
// record it holds exactly the newest records that fit the configured bytes
// and/or seconds - checked against an independent computation of that
// window - and never more memory than configured.  And the trigger's storm
// limit (daemon/trigger.h): at most N files a minute, the rest counted.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "daemon/flight_recorder.h"
#include "daemon/trigger.h"
#include "pcapng/reader.h"
#include "trigger_feed.h"
#include "error.h"
#include "message_fixtures.h"

namespace lnetcap::daemon {
namespace {

struct Fed {
  std::vector<std::vector<std::uint8_t>> bytes;
  std::vector<std::uint64_t> ts;
};

// Records of varied lengths (the recorder does not parse them).
Fed varied_records(std::size_t n, std::uint64_t step_ns) {
  Fed f;
  for (std::size_t i = 0; i < n; ++i) {
    f.bytes.emplace_back(100 + (i * 37) % 900, static_cast<std::uint8_t>(i));
    f.ts.push_back(1'700'000'000'000'000'000ULL + i * step_ns);
  }
  return f;
}

CapturedRecord captured(const Fed& f, std::size_t i) {
  CapturedRecord r;
  r.ts_ns = f.ts[i];
  r.bytes = ByteSpan(f.bytes[i]);
  r.orig_len = static_cast<std::uint32_t>(f.bytes[i].size());
  return r;
}

// The window computed from scratch: from the newest record back, while
// both bounds hold.
std::size_t expected_first(const Fed& f, std::size_t last, const RecorderConfig& c) {
  std::uint64_t bytes = 0;
  std::size_t first = last + 1;
  while (first > 0) {
    const std::size_t i = first - 1;
    const std::uint64_t b = f.bytes[i].size() + kRecordOverhead;
    if (c.max_bytes && bytes + b > c.max_bytes) break;
    if (c.max_ns && f.ts[i] < f.ts[last] - c.max_ns) break;
    bytes += b;
    first = i;
  }
  return first;
}

void check_window_after_every_record(const RecorderConfig& config, std::size_t n, std::uint64_t step_ns) {
  const Fed f = varied_records(n, step_ns);
  FlightRecorder rec(config);
  for (std::size_t i = 0; i < n; ++i) {
    rec.add(captured(f, i));
    const std::size_t first = expected_first(f, i, config);
    ASSERT_EQ(rec.records_held(), i + 1 - first) << "after record " << i;
    std::uint64_t bytes = 0;
    for (std::size_t k = first; k <= i; ++k) {
      EXPECT_EQ(rec.held()[k - first]->ts_ns, f.ts[k]);
      const ByteSpan b = rec.held()[k - first]->bytes;
      EXPECT_EQ(std::vector<std::uint8_t>(b.begin(), b.end()), f.bytes[k]);
      bytes += f.bytes[k].size() + kRecordOverhead;
    }
    ASSERT_EQ(rec.bytes_held(), bytes);
    if (config.max_bytes) {
      ASSERT_LE(rec.bytes_held(), config.max_bytes);
    }
    if (config.max_ns) {
      ASSERT_LE(rec.window_ns(), config.max_ns);
    }
  }
  EXPECT_EQ(rec.evicted() + rec.records_held(), n);
}

TEST(FlightRecorder, HoldsExactlyTheWindowBySize) {
  check_window_after_every_record({20000, 0}, 500, 1000);
}

TEST(FlightRecorder, HoldsExactlyTheWindowByTime) {
  // 100 ms apart, a 1.05 s window: 11 records once full.
  check_window_after_every_record({0, 1'050'000'000}, 200, 100'000'000);
}

TEST(FlightRecorder, BothBoundsWhicheverHoldsLess) {
  check_window_after_every_record({8000, 2'000'000'000}, 300, 150'000'000);
  check_window_after_every_record({100000, 500'000'000}, 300, 10'000'000);
}

TEST(FlightRecorder, FreesBlocksOfEvictedRecords) {
  const Fed f = varied_records(5000, 1000);
  FlightRecorder rec({20000, 0});
  const std::weak_ptr<const RecordBlock> first_block = rec.add(captured(f, 0))->block;
  for (std::size_t i = 1; i < f.bytes.size(); ++i) rec.add(captured(f, i));
  EXPECT_TRUE(first_block.expired()) << "the block of long-evicted records is still allocated";
  std::set<const RecordBlock*> blocks;
  std::size_t capacity = 0;
  for (const auto& r : rec.held())
    if (blocks.insert(r->block.get()).second) capacity += r->block->data.capacity();
  // The records' bytes, plus the oldest block's evicted part and the
  // newest block's free part (4 KiB blocks for this bound), plus less than
  // one record (at most 999 bytes here) left unused at the end of each.
  std::uint64_t record_bytes = 0;
  for (const auto& r : rec.held()) record_bytes += r->bytes.size();
  EXPECT_LE(capacity, record_bytes + 2 * 4096 + blocks.size() * 999);
}

TEST(FlightRecorder, KeepsRecordBytesAndMetadata) {
  std::vector<std::uint8_t> bytes{1, 2, 3, 4};
  CapturedRecord r;
  r.ts_ns = 42;
  r.interface_id = 3;
  r.bytes = ByteSpan(bytes);
  r.orig_len = 99;
  r.epb_flags = 2;
  r.has_drops_before = true;
  r.drops_before = 7;
  r.comments = {"note"};
  FlightRecorder rec({1 << 20, 0});
  const auto stored = rec.add(r);
  bytes.assign(4, 0);  // the source's buffer is reused: the recorder has its own copy
  const CapturedRecord v = stored->view();
  EXPECT_EQ(std::vector<std::uint8_t>(v.bytes.begin(), v.bytes.end()), (std::vector<std::uint8_t>{1, 2, 3, 4}));
  EXPECT_EQ(v.ts_ns, 42u);
  EXPECT_EQ(v.interface_id, 3u);
  EXPECT_EQ(v.orig_len, 99u);
  EXPECT_EQ(v.epb_flags, 2u);
  EXPECT_TRUE(v.has_drops_before);
  EXPECT_EQ(v.drops_before, 7u);
  EXPECT_EQ(v.comments, std::vector<std::string>{"note"});
  EXPECT_EQ(rec.bytes_held(), 4 + 4 + kRecordOverhead);
}

// A storm: a request every second for 3 minutes, trigger on every request,
// at most 4 files a minute (of capture time).
TEST(Trigger, StormWritesAtMostTheLimitAMinuteAndCountsTheRest) {
  char dir_template[] = "/tmp/lnetcap-trigger-test.XXXXXX";
  ASSERT_NE(::mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  TriggerConfig config;
  config.filter = "opcode LDLM_ENQUEUE";
  config.directory = dir;
  config.before_ns = 500'000'000;
  config.after_ns = 500'000'000;
  config.max_per_minute = 4;
  TriggerWriter trigger(config, "node1");
  FlightRecorder recorder({0, 2'000'000'000});
  std::vector<CaptureInterface> interfaces{CaptureInterface{"tcp", "10.0.3.2@tcp", "", "", "", 1224}};
  const std::uint64_t t0 = 1'700'000'000'000'000'000ULL;
  const test::OwnedMessage m = test::enqueue_request();
  for (int s = 0; s < 180; ++s) {
    test_feed::feed(m, t0 + static_cast<std::uint64_t>(s) * 1'000'000'000ULL, recorder, trigger, interfaces);
  }
  trigger.finish(interfaces);
  EXPECT_EQ(trigger.counts().fired, 180u);
  EXPECT_EQ(trigger.counts().written, 12u);  // 4 in each of the 3 minutes
  EXPECT_EQ(trigger.counts().skipped, 168u);
  EXPECT_EQ(trigger.counts().failed, 0u);
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_GT(std::filesystem::file_size(e.path()), 0u);
  }
  EXPECT_EQ(files, 12u);
  ASSERT_EQ(trigger.files().size(), 12u);
  EXPECT_NE(trigger.files()[0].find("/node1-20231114T221320.000000000Z-1.pcapng"), std::string::npos)
      << trigger.files()[0];
  std::filesystem::remove_all(dir);
}

// Issue 25 item 5: trigger windows sat outside the recorder's bound - each
// kept every record of its later part, so a 16 MB recorder reached 352 MB.
// A storm of matches with a long `after` window over a small recorder: no
// record may outlive the recorder's window (the open windows stream to
// their files), and each file still holds its whole window.
TEST(Trigger, OpenWindowsHoldNoRecordsBeyondTheRecorder) {
  char dir_template[] = "/tmp/lnetcap-trigger-test.XXXXXX";
  ASSERT_NE(::mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  TriggerConfig config;
  config.filter = "opcode LDLM_ENQUEUE";  // every record: a storm
  config.directory = dir;
  config.before_ns = 1'000'000'000;
  config.after_ns = 1000'000'000'000ULL;  // open for the whole run
  config.max_per_minute = 6;
  TriggerWriter trigger(config, "node1");
  const RecorderConfig bound{64 * 1024, 0};
  FlightRecorder recorder(bound);
  std::vector<CaptureInterface> interfaces{CaptureInterface{"tcp", "10.0.3.2@tcp", "", "", "", 1224}};
  const std::uint64_t t0 = 1'700'000'000'000'000'000ULL;
  const test::OwnedMessage m = test::enqueue_request();
  constexpr std::size_t kRecords = 20000;  // 1 ms apart: 20 s, one minute's 6 windows stay open
  std::vector<std::weak_ptr<const StoredRecord>> fed;
  std::vector<std::size_t> held_at_match;  // the recorder's records when each window opened
  std::uint64_t peak_alive_bytes = 0;
  for (std::size_t i = 0; i < kRecords; ++i) {
    const std::uint64_t written = trigger.counts().fired - trigger.counts().skipped;
    test_feed::feed(m, t0 + i * 1'000'000ULL, recorder, trigger, interfaces);
    fed.push_back(recorder.held().back());
    if (trigger.counts().fired - trigger.counts().skipped > written) held_at_match.push_back(recorder.records_held());
    if (i % 1000 == 999) {
      std::uint64_t alive = 0;
      for (const auto& w : fed)
        if (const auto r = w.lock()) alive += r->accounted_bytes();
      peak_alive_bytes = std::max(peak_alive_bytes, alive);
    }
  }
  EXPECT_EQ(trigger.open_windows(), 6u);
  EXPECT_LE(peak_alive_bytes, bound.max_bytes)
      << "records kept alive beyond the recorder's bound (by the open trigger windows)";
  trigger.finish(interfaces);
  EXPECT_EQ(trigger.counts().written, 6u);
  EXPECT_EQ(trigger.counts().failed, 0u);
  ASSERT_EQ(trigger.files().size(), 6u);
  ASSERT_EQ(held_at_match.size(), 6u);
  // Window k opened at record k (the first six matches): its earlier part
  // is what the recorder held then, its later part every record after.
  for (std::size_t k = 0; k < 6; ++k) {
    pcapng::Reader reader(trigger.files()[k]);
    pcapng::Packet p;
    std::size_t n = 0;
    std::uint64_t last_ts = 0;
    while (reader.next(p)) {
      ++n;
      last_ts = p.ts_ns;
    }
    EXPECT_EQ(n, held_at_match[k] + (kRecords - 1 - k)) << trigger.files()[k];
    EXPECT_EQ(last_ts, t0 + (kRecords - 1) * 1'000'000ULL);
  }
  std::filesystem::remove_all(dir);
}

TEST(Trigger, BadFilterIsRefusedWithItsError) {
  TriggerConfig config;
  config.filter = "type pot";
  try {
    TriggerWriter t(config, "n");
    FAIL() << "accepted a bad filter";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'pot'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lnetcap::daemon
