// SPDX-License-Identifier: GPL-2.0-or-later
// Several --from streams merged in time order (subscribe/merge_source.h):
// oldest first, ties to the stream given last (as mergecap), a stream with nothing
// queued holds the merge back unless its watermark allows, interfaces
// numbered per stream and NI, drop counters summed.
#include <gtest/gtest.h>

#include <deque>

#include "subscribe/merge_source.h"

namespace lnetcap::subscribe {
namespace {

// A scripted stream: a record is a timestamp and an interface; 0 stands for
// "nothing yet" (an idle tick) once, then the script goes on.
class ScriptedStream : public TimedSource {
 public:
  ScriptedStream(std::string name, std::deque<std::pair<std::uint64_t, std::uint32_t>> script,
                 std::uint32_t interface_count = 1)
      : script_(std::move(script)) {
    for (std::uint32_t i = 0; i < interface_count; ++i)
      interfaces_.push_back(CaptureInterface{name + "-ni" + std::to_string(i), "", "", "", "", 0});
  }
  bool next(CapturedRecord& out) override {
    ++calls;
    if (script_.empty()) return false;
    auto [ts, iface] = script_.front();
    script_.pop_front();
    out = CapturedRecord{};
    if (ts == 0) return true;  // idle tick
    byte_ = static_cast<std::uint8_t>(ts);
    out.ts_ns = ts;
    out.interface_id = iface;
    out.bytes = ByteSpan(&byte_, 1);
    return true;
  }
  const std::vector<CaptureInterface>& interfaces() const override { return interfaces_; }
  SourceStats stats() const override {
    SourceStats s;
    s.received = 1;
    s.dropped = dropped;
    s.queue_dropped = dropped;
    return s;
  }
  std::uint64_t watermark_ns() const override { return watermark; }

  std::uint64_t watermark = 0, dropped = 0;
  int calls = 0;

 private:
  std::deque<std::pair<std::uint64_t, std::uint32_t>> script_;
  std::vector<CaptureInterface> interfaces_;
  std::uint8_t byte_ = 0;
};

std::vector<std::pair<std::uint64_t, std::uint32_t>> drain(MergeSource& m) {
  std::vector<std::pair<std::uint64_t, std::uint32_t>> out;
  CapturedRecord r;
  for (int guard = 0; guard < 1000 && m.next(r); ++guard)
    if (!r.bytes.empty()) out.emplace_back(r.ts_ns, r.interface_id);
  return out;
}

TEST(TimeOrderedMerge, OldestFirstTiesToTheLastStreamAsMergecap) {
  std::vector<std::unique_ptr<TimedSource>> s;
  s.push_back(std::make_unique<ScriptedStream>("a", std::deque<std::pair<std::uint64_t, std::uint32_t>>{{10, 0}, {30, 0}, {50, 0}}));
  s.push_back(std::make_unique<ScriptedStream>("b", std::deque<std::pair<std::uint64_t, std::uint32_t>>{{20, 0}, {30, 0}, {40, 0}, {60, 0}}));
  MergeSource m(std::move(s));
  const auto got = drain(m);
  // Merged ids: a's interface is 0, b's is 1 (first seen order).  Both
  // have a record at 30: b's goes first, as `mergecap a b` orders them
  // (Debian 12's mergecap 4.0.17 checked on the corpus, daemon.netns-cluster).
  const std::vector<std::pair<std::uint64_t, std::uint32_t>> want{
      {10, 0}, {20, 1}, {30, 1}, {30, 0}, {40, 1}, {50, 0}, {60, 1}};
  EXPECT_EQ(got, want);
  ASSERT_EQ(m.interfaces().size(), 2u);
  EXPECT_EQ(m.interfaces()[0].name, "a-ni0");
  EXPECT_EQ(m.interfaces()[1].name, "b-ni0");
}

TEST(TimeOrderedMerge, IdleStreamHoldsBackUnlessItsWatermarkAllows) {
  // b is idle once before its record 15: without a watermark the merge
  // must wait for it rather than hand out a's 20 first.
  std::vector<std::unique_ptr<TimedSource>> s;
  s.push_back(std::make_unique<ScriptedStream>("a", std::deque<std::pair<std::uint64_t, std::uint32_t>>{{20, 0}}));
  s.push_back(std::make_unique<ScriptedStream>("b", std::deque<std::pair<std::uint64_t, std::uint32_t>>{{0, 0}, {15, 0}}));
  MergeSource m(std::move(s));
  const auto got = drain(m);
  // Interface ids are given in the order streams first deliver: b's is 0.
  const std::vector<std::pair<std::uint64_t, std::uint32_t>> want{{15, 0}, {20, 1}};
  EXPECT_EQ(got, want);
}

TEST(TimeOrderedMerge, WatermarkLetsTheOtherStreamGoOn) {
  auto a = std::make_unique<ScriptedStream>("a", std::deque<std::pair<std::uint64_t, std::uint32_t>>{{20, 0}, {25, 0}});
  auto b = std::make_unique<ScriptedStream>("b", std::deque<std::pair<std::uint64_t, std::uint32_t>>{{0, 0}, {0, 0}, {0, 0}, {30, 0}});
  b->watermark = 22;  // b promises nothing older than 22 will come
  std::vector<std::unique_ptr<TimedSource>> s;
  s.push_back(std::move(a));
  s.push_back(std::move(b));
  MergeSource m(std::move(s));
  CapturedRecord r;
  ASSERT_TRUE(m.next(r));
  EXPECT_EQ(r.ts_ns, 20u);  // handed out while b is still idle
  const auto rest = drain(m);
  const std::vector<std::pair<std::uint64_t, std::uint32_t>> want{{25, 0}, {30, 1}};
  EXPECT_EQ(rest, want);
}

TEST(TimeOrderedMerge, InterfacesPerStreamAndNiAndSummedDrops) {
  auto a = std::make_unique<ScriptedStream>("a", std::deque<std::pair<std::uint64_t, std::uint32_t>>{{10, 1}, {40, 0}}, 2);
  auto b = std::make_unique<ScriptedStream>("b", std::deque<std::pair<std::uint64_t, std::uint32_t>>{{20, 1}}, 2);
  a->dropped = 3;
  b->dropped = 4;
  std::vector<std::unique_ptr<TimedSource>> s;
  s.push_back(std::move(a));
  s.push_back(std::move(b));
  MergeSource m(std::move(s));
  const auto got = drain(m);
  // a's NIs are 0 and 1, b's 2 and 3: a's ni1 record -> 1, b's ni1 -> 3.
  const std::vector<std::pair<std::uint64_t, std::uint32_t>> want{{10, 1}, {20, 3}, {40, 0}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(m.interfaces().size(), 4u);
  EXPECT_EQ(m.interfaces()[3].name, "b-ni1");
  EXPECT_EQ(m.stats().dropped, 7u);
  EXPECT_EQ(m.stats().queue_dropped, 7u);
  EXPECT_EQ(m.stats().received, 2u);
}

}  // namespace
}  // namespace lnetcap::subscribe
