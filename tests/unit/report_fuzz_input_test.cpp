// SPDX-License-Identifier: GPL-2.0-or-later
// The fuzz_report target's input language (tests/fuzz/report_input.h): each
// step makes the message it says, as decode_message sees it, so the fuzzer
// really reaches resends, early replies, merged captures and the rest; and
// one sequence it makes, a bulk RPC recorded at both ends (two captures
// merged), which reached the RpcMatcher::forget use-after-free of issue 33
// without any resend.
#include <gtest/gtest.h>

#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/record.h"
#include "report/rpc_matcher.h"
#include "report/summary.h"
#include "report_input.h"

namespace lnetcap::fuzz {
namespace {

using report::is_rpc_error;
using report::is_rpc_reply;
using report::is_rpc_request;

// One step [kind | who | bits | time] (report_input.h), time +1 us.
std::vector<std::uint8_t> step(Kind k, unsigned mod = 0, unsigned who = 0x04 /* client 0, server 1 */,
                               unsigned bits = 0) {
  return {static_cast<std::uint8_t>(static_cast<unsigned>(k) | mod << 4), static_cast<std::uint8_t>(who),
          static_cast<std::uint8_t>(bits), 0x41};
}

struct Decoded {
  ReportInput in;
  std::vector<Message> msgs;
};

Decoded decode(const std::vector<std::vector<std::uint8_t>>& steps, std::uint8_t bounds = 0xff) {
  std::vector<std::uint8_t> data{bounds};
  for (const auto& s : steps) data.insert(data.end(), s.begin(), s.end());
  Decoded d{read_report_input(data.data(), data.size()), {}};
  for (const GeneratedRecord& g : d.in.records) {
    std::string why;
    const auto view = parse_record(g.bytes, &why);
    EXPECT_TRUE(view) << why;
    if (view) d.msgs.push_back(decode_message(*view, g.ts_ns, 0));
  }
  return d;
}

constexpr unsigned kBulkMbits = 2 << 3;  // bits: pb_mbits = XID + 1
constexpr unsigned kOstWrite = 3 << 5;   // bits: opcode OST_WRITE

TEST(ReportFuzzInput, EachKindMakesTheMessageItNames) {
  const Decoded d = decode({
      step(Kind::kRequest, 0, 0x04 | 1 << 6, kBulkMbits | kOstWrite),  // 0 jobid dd.500
      step(Kind::kEarlyReply, 0, 0x04, kOstWrite),                   // 1
      step(Kind::kBulkGet, 0, 0x04, kBulkMbits),                     // 2
      step(Kind::kReply, 0, 0x04, kBulkMbits | kOstWrite),           // 3
      step(Kind::kErrorReply, 1, 0x04, 0),                           // 4
      step(Kind::kBulkPut, 1, 0x04, 0),                              // 5
      step(Kind::kAck, 0, 0x04, 0),                                  // 6
      step(Kind::kForward, 0, 0x04, 0),                              // 7
      step(Kind::kDrop, 0, 0, 3),                                    // 8 (drop of the FWD)
      step(Kind::kTick),                                             // no record
      step(Kind::kDuplicate, 0, 8),                                  // 9 = record 0
      step(Kind::kOtherEnd, 0, 9),                                   // 10 = record 0 at the server
      step(Kind::kResend, 0, 10),                                    // 11 resend of record 0
      step(Kind::kOutcome, 1, 0),                                    // 12 outcome of record 11
      step(Kind::kPing, 2),                                          // 13 ping REPLY, 2 NIDs
      step(Kind::kRpcNoBody, 2),                                     // 14 request cut at 8 bytes
  });
  ASSERT_EQ(d.msgs.size(), 15u);
  EXPECT_EQ(d.in.ticks, std::vector<std::size_t>{9});
  EXPECT_EQ(d.in.max_pending, 8u);
  EXPECT_EQ(d.in.max_arrows, 28u);
  EXPECT_EQ(d.in.label_budget, 4u);
  const auto& m = d.msgs;
  ASSERT_TRUE(is_rpc_request(m[0]));
  EXPECT_EQ(*m[0].lnet.match_bits, 0x1000u);
  EXPECT_EQ(m[0].rpc.mbits, 0x1001u);  // pb_mbits differ from the XID: a bulk RPC
  EXPECT_EQ(m[0].rpc.opc, LNETCAP_OPC_OST_WRITE);
  EXPECT_EQ(m[0].rpc.jobid, "dd.500");
  EXPECT_EQ(m[0].rec.hdr.direction, LNETCAP_DIR_SEND);
  EXPECT_TRUE(m[1].rpc.early_reply);
  EXPECT_FALSE(is_rpc_reply(m[1]));
  EXPECT_EQ(m[2].lnet.type, LNETCAP_MSG_GET);
  EXPECT_EQ(*m[2].lnet.match_bits, 0x1001u);
  EXPECT_TRUE(is_rpc_reply(m[3]));
  EXPECT_EQ(*m[3].lnet.match_bits, 0x1001u);  // the reply comes back on pb_mbits
  EXPECT_TRUE(is_rpc_error(m[4]));
  EXPECT_EQ(m[4].rpc.status, -2);
  EXPECT_EQ(m[5].lnet.type, LNETCAP_MSG_PUT);
  EXPECT_FALSE(m[5].rpc.present);
  EXPECT_TRUE(m[5].lnet.ack_requested);
  EXPECT_EQ(m[6].lnet.type, LNETCAP_MSG_ACK);
  EXPECT_EQ(m[7].rec.hdr.direction, LNETCAP_DIR_FORWARD);
  EXPECT_EQ(m[7].rec.hdr.local_nid, *Nid::parse(kRouter));
  EXPECT_EQ(m[8].rec.hdr.direction, LNETCAP_DIR_DROP);
  EXPECT_EQ(m[8].rec.hdr.drop_reason, 3);
  EXPECT_EQ(d.in.records[9].bytes, d.in.records[0].bytes);
  EXPECT_EQ(m[10].rec.hdr.direction, LNETCAP_DIR_RECV);
  EXPECT_EQ(m[10].rec.hdr.local_nid, m[0].rec.hdr.peer_nid);
  EXPECT_TRUE(is_rpc_request(m[10]));
  EXPECT_TRUE(m[11].rec.hdr.is_resend());
  EXPECT_TRUE(m[12].rec.hdr.is_outcome());
  EXPECT_EQ(m[12].rec.hdr.msg_id, m[11].rec.hdr.msg_id);
  EXPECT_EQ(m[13].lnet.type, LNETCAP_MSG_REPLY);
  EXPECT_EQ(load_le32(m[13].rec.payload.data()), LNETCAP_LNET_PROTO_PING_MAGIC);
  EXPECT_FALSE(report::has_rpc_body(m[14]));
  // Out of order: time byte 0x8a goes back 10 us.
  const Decoded back = decode({step(Kind::kAck), {0x06, 0x04, 0, 0x8a}});
  ASSERT_EQ(back.in.records.size(), 2u);
  EXPECT_EQ(back.in.records[0].ts_ns - back.in.records[1].ts_ns, 10000u);
}

// Two nodes' captures merged: the client's SEND and the server's RECV of an
// OST_WRITE whose pb_mbits differ from its XID.  They were once filed under
// the same two keys, so the second replaced the first as a resend would, and
// with forget() taking the map's own shared_ptr by reference that read the
// freed entry (ASan: heap-use-after-free in RpcMatcher::forget; the input is
// kept in tests/fuzz/regressions).  Each side now waits for its own reply
// (RpcMatcher::View); the resend path is ResendOfABulkRpcReplacesTheOldRequestSafely.
TEST(ReportFuzzInput, MergedCaptureOfABulkRpcMatchesOnce) {
  const Decoded d = decode({step(Kind::kRequest, 0, 0x04, kBulkMbits | kOstWrite),
                            step(Kind::kOtherEnd, 0, 0),
                            step(Kind::kReply, 0, 0x04, kBulkMbits | kOstWrite)});
  ASSERT_EQ(d.msgs.size(), 3u);
  report::Summary summary;
  for (const Message& m : d.msgs) summary.add(m);
  const report::SummaryReport r = summary.report();
  EXPECT_EQ(r.total.requests, 2u);
  EXPECT_EQ(r.total.latencies_ns.size(), 1u);
  // The server's RECV of the request waits for the server's own SEND of the
  // reply, which this capture lacks (RpcMatcher::View); it no longer
  // replaces the client's request.
  EXPECT_EQ(r.total.unanswered, 1u);
}

}  // namespace
}  // namespace lnetcap::fuzz
