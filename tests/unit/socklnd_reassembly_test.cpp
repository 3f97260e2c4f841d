// SPDX-License-Identifier: GPL-2.0-or-later
// TCP reassembly of one direction: the byte stream must come out exactly
// once, in order, with every hole reported as a gap of the right size.
#include "socklnd/tcp_reassembly.h"

#include <gtest/gtest.h>

#include <string>

#include "socklnd/packet_decode.h"

namespace lnetcap::socklnd {
namespace {

struct Recorder : StreamSink {
  std::string stream;           // data, with '#' per gap byte
  std::vector<std::string> log; // "D<ts>:<text>" / "G<bytes>"
  void on_data(std::uint64_t ts, ByteSpan d) override {
    std::string s(d.begin(), d.end());
    stream += s;
    log.push_back("D" + std::to_string(ts) + ":" + s);
  }
  void on_gap(std::uint64_t, std::uint64_t n) override {
    stream += std::string(n, '#');
    log.push_back("G" + std::to_string(n));
  }
};

struct SocklndReassembly : ::testing::Test {
  Recorder sink;
  ReassemblyBudget budget;
  ReassemblyCounters counters;
  TcpReassembler tcp{sink, budget, counters};
  static constexpr std::uint32_t kIsn = 0xfffffff0u;  // data crosses 2^32

  void syn() { tcp.add(0, kIsn, kTcpSyn, {}, 0); }
  // Text at stream offset off.
  void seg(std::uint64_t ts, std::uint32_t off, const std::string& text,
           std::uint32_t wire_extra = 0) {
    tcp.add(ts, kIsn + 1 + off, kTcpAck,
            ByteSpan(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()),
            static_cast<std::uint32_t>(text.size()) + wire_extra);
  }
};

TEST_F(SocklndReassembly, InOrderAcrossSequenceWrap) {
  syn();
  seg(1, 0, "abcdefghij");
  seg(2, 10, "klmnopqrst");  // sequence numbers wrapped to 0x4..
  seg(3, 20, "uv");
  EXPECT_EQ(sink.stream, "abcdefghijklmnopqrstuv");
  EXPECT_EQ(counters.gaps, 0u);
  EXPECT_TRUE(tcp.saw_syn());
}

TEST_F(SocklndReassembly, OutOfOrderWaitsThenDeliversWithOwnTimestamps) {
  syn();
  seg(1, 0, "abc");
  seg(2, 6, "ghi");
  seg(3, 3, "def");
  EXPECT_EQ(sink.stream, "abcdefghi");
  ASSERT_EQ(sink.log.size(), 3u);
  EXPECT_EQ(sink.log[1], "D3:def");
  EXPECT_EQ(sink.log[2], "D2:ghi");  // the buffered segment keeps its capture time
  EXPECT_EQ(counters.out_of_order, 1u);
  EXPECT_EQ(tcp.buffered(), 0u);
  EXPECT_EQ(budget.used, 0u);
}

TEST_F(SocklndReassembly, RetransmissionIsDroppedAndOverlapTrimmed) {
  syn();
  seg(1, 0, "abcdef");
  seg(2, 0, "abcdef");     // full retransmission
  seg(3, 4, "efghij");     // overlaps 2 delivered bytes
  seg(4, 2, "XXXX");       // entirely old, different bytes: first copy wins
  EXPECT_EQ(sink.stream, "abcdefghij");
  EXPECT_EQ(counters.retransmitted, 6u + 2u + 4u);
}

TEST_F(SocklndReassembly, OverlappingOutOfOrderSegments) {
  syn();
  seg(1, 0, "ab");
  seg(2, 5, "fgh");
  seg(3, 4, "efghijk");  // covers and extends the pending one
  seg(4, 2, "cd");
  EXPECT_EQ(sink.stream, "abcdefghijk");
}

TEST_F(SocklndReassembly, LostSegmentBecomesAGapWhenThePeerAcksPastIt) {
  syn();
  seg(1, 0, "abc");
  seg(2, 6, "ghi");                        // "def" was never captured
  EXPECT_EQ(sink.stream, "abc");           // still waiting
  tcp.peer_acked(3, kIsn + 1 + 9);         // the receiver had everything
  EXPECT_EQ(sink.stream, "abc###ghi");
  EXPECT_EQ(counters.gaps, 1u);
  EXPECT_EQ(counters.gap_bytes, 3u);
}

TEST_F(SocklndReassembly, AckSeenBeforeTheOutOfOrderSegment) {
  syn();
  seg(1, 0, "abc");
  tcp.peer_acked(2, kIsn + 1 + 9);
  seg(3, 6, "ghi");
  EXPECT_EQ(sink.stream, "abc###ghi");
}

TEST_F(SocklndReassembly, FlushDeliversPendingDataWithGaps) {
  syn();
  seg(1, 0, "a");
  seg(2, 3, "d");
  seg(3, 6, "g");
  tcp.flush(4);
  EXPECT_EQ(sink.stream, "a##d##g");
}

TEST_F(SocklndReassembly, PerStreamBudgetForcesTheGap) {
  budget.per_stream = 8;
  syn();
  seg(1, 0, "a");
  seg(2, 2, "cdef");
  EXPECT_EQ(sink.stream, "a");
  seg(3, 6, "ghijk");  // 9 bytes would be buffered: give the hole up
  EXPECT_EQ(sink.stream, "a#cdefghijk");
  EXPECT_EQ(counters.overflows, 1u);
  EXPECT_EQ(budget.used, 0u);
}

TEST_F(SocklndReassembly, SnaplenCutSegmentReportsTheMissingTail) {
  syn();
  seg(1, 0, "abc", 5);  // 8 bytes on the wire, 3 captured
  seg(2, 8, "ij");
  EXPECT_EQ(sink.stream, "abc#####ij");
}

TEST_F(SocklndReassembly, MidStreamPickupStartsAtTheFirstSegment) {
  tcp.add(1, 123456, kTcpAck, ByteSpan(reinterpret_cast<const std::uint8_t*>("xyz"), 3), 3);
  tcp.add(2, 123450, kTcpAck, ByteSpan(reinterpret_cast<const std::uint8_t*>("uvwxyz"), 6), 6);
  EXPECT_EQ(sink.stream, "xyz");
  EXPECT_FALSE(tcp.saw_syn());
}

TEST_F(SocklndReassembly, RstEndsTheStream) {
  syn();
  seg(1, 0, "ab");
  tcp.add(2, kIsn + 3, kTcpRst, {}, 0);
  EXPECT_TRUE(tcp.finished());
}

}  // namespace
}  // namespace lnetcap::socklnd
