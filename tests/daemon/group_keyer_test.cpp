// SPDX-License-Identifier: GPL-2.0-or-later
// Consumer groups keep bulk with its RPC (daemon/group_keyer.h): the chunks
// of a multi-chunk bulk (match bits XID+1, ...), the bulk of a request
// resent with new match bits (a new block, and its reply on pb_mbits), the
// REPLY and ACK that complete them, all get the request's key, so the
// request's member; the keyer's memory stays within its cap under a flood
// of distinct requests or of resends, and what it gives up is counted.
// And over real ZeroMQ sockets (daemon/subscriber_set.h): a member that is
// gone without BYE passes what was gathered for it to the other members.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

#include <zmq.hpp>

#include "bulk_messages.h"
#include "daemon/consumer_group.h"
#include "daemon/group_keyer.h"
#include "daemon/subscriber_set.h"
#include "subscribe/zmq_frames.h"

namespace lnetcap::daemon {
namespace {

using test::BulkRecords;
using test::Seen;

constexpr std::uint64_t kXid = 0x5f0000001000;  // XIDs are multiples of 128 (PTLRPC_BULK_OPS_COUNT)
const std::vector<std::uint64_t> kMembers{21, 22, 23, 24, 25, 26, 27, 28};

// Every record of `br` after the first (its request) has the request's
// key, and so its member among any members.
void every_record_goes_with_the_request(const BulkRecords& br) {
  GroupKeyer keyer;
  const auto msgs = br.messages();
  const std::uint64_t request = keyer.key(*msgs[0]);
  for (std::size_t i = 1; i < msgs.size(); ++i) {
    const std::uint64_t k = keyer.key(*msgs[i]);
    EXPECT_EQ(k, request) << "record " << i << " (type " << msgs[i]->lnet.type << ")";
    EXPECT_EQ(pick_member(k, kMembers), pick_member(request, kMembers)) << "record " << i;
  }
}

TEST(GroupKeyer, EveryChunkOfAMultiChunkBulkGoesToTheRequestsMember) {
  // A 4 MiB OST_WRITE (GET + REPLY per chunk) and a 4 MiB OST_READ (PUT +
  // ACK per chunk): match bits XID .. XID+3.
  for (const std::uint32_t opc : {LNETCAP_OPC_OST_WRITE, LNETCAP_OPC_OST_READ}) {
    BulkRecords br("10.0.3.2@tcp", "10.0.3.1@tcp", Seen::kServer);
    br.request(0, kXid, kXid + 3, opc, "dd.0");
    for (std::uint64_t chunk = 0; chunk < 4; ++chunk) {
      const std::pair<std::uint64_t, std::uint64_t> wmd{0x100 + chunk, 0x200 + chunk};
      if (opc == LNETCAP_OPC_OST_WRITE) {
        br.get(1 + chunk, kXid + chunk, wmd);
        br.data_reply(1 + chunk, wmd);
      } else {
        br.put(1 + chunk, kXid + chunk, wmd);
        br.ack(1 + chunk, kXid + chunk, wmd);
      }
    }
    br.reply(9, kXid, opc);
    every_record_goes_with_the_request(br);
  }
  // Without the keyer, the later chunks are keyed on their own bits: the
  // case this exists for.
  BulkRecords br("10.0.3.2@tcp", "10.0.3.1@tcp", Seen::kServer);
  EXPECT_NE(group_key(br.request(0, kXid, kXid + 3, LNETCAP_OPC_OST_WRITE, "dd.0")),
            group_key(br.get(1, kXid + 2, {1, 2})));
}

TEST(GroupKeyer, TheBulkOfAResendWithNewMatchBitsAndItsReplyGoToTheRequestsMember) {
  // Lustre 2.17 over o2ib: an OST_WRITE resent with its XID kept and a new
  // block of match bits for its bulk (OBD_CONNECT_BULK_MBITS); its reply
  // goes on pb_mbits (REP_MBITS).
  const std::uint64_t block = 0x5f0000009000;
  for (const std::uint32_t opc : {LNETCAP_OPC_OST_WRITE, LNETCAP_OPC_OST_READ}) {
    BulkRecords br("10.0.3.2@o2ib", "10.0.3.1@o2ib", Seen::kClient);
    br.request(0, kXid, kXid, opc, "dd.0");
    br.request(5000, kXid, block + 1, opc, "dd.0");  // the resend: two chunks
    for (std::uint64_t chunk = 0; chunk < 2; ++chunk) {
      const std::pair<std::uint64_t, std::uint64_t> wmd{0x300 + chunk, 0x400 + chunk};
      if (opc == LNETCAP_OPC_OST_WRITE) {
        br.get(5001, block + chunk, wmd);
        br.data_reply(5001, wmd);
      } else {
        br.put(5001, block + chunk, wmd);
        br.ack(5001, block + chunk, wmd);
      }
    }
    br.reply(5002, block + 1, opc);
    every_record_goes_with_the_request(br);
  }
}

TEST(GroupKeyer, WithoutItsRequestABulkRecordKeepsItsOwnKey) {
  GroupKeyer keyer;
  BulkRecords br("10.0.3.2@tcp", "10.0.3.1@tcp", Seen::kServer);
  EXPECT_EQ(keyer.key(br.get(1, kXid + 2, {1, 2})), group_key(br.get(1, kXid + 2, {1, 2})));
}

TEST(GroupKeyer, ItsCapHoldsUnderAFloodAndWhatItGivesUpIsCounted) {
  constexpr std::size_t kCap = 1000;
  GroupKeyer keyer(kCap, kCap);
  BulkRecords br("10.0.3.2@tcp", "10.0.3.1@tcp", Seen::kServer);
  // Distinct requests, each naming a full block of 128 match bits, and
  // bulk GETs that wait for a REPLY that never comes.
  constexpr std::uint64_t kFlood = 20000;
  for (std::uint64_t i = 0; i < kFlood; ++i) {
    const std::uint64_t xid = kXid + 128 * i;
    keyer.key(br.request(i, xid, xid + 127, LNETCAP_OPC_OST_WRITE, "flood"));
    keyer.key(br.get(i, xid, {i, i}));
    ASSERT_LE(keyer.rpcs(), kCap);
    ASSERT_LE(keyer.transfers(), kCap);
    if (i % 4096 == 0) br = BulkRecords("10.0.3.2@tcp", "10.0.3.1@tcp", Seen::kServer);  // its own memory
  }
  EXPECT_GE(keyer.given_up(), 2 * (kFlood - kCap)) << "every request and GET pushed out is counted";
  // The newest request still keeps its bulk.
  const std::uint64_t last = kXid + 128 * (kFlood - 1);
  EXPECT_EQ(keyer.key(br.get(kFlood, last + 100, {7, 7})), rpc_key(last, *Nid::parse("10.0.3.2@tcp"),
                                                                     *Nid::parse("10.0.3.1@tcp")));
  // Resends of one request within one clock tick: replaced, not piled up.
  GroupKeyer resends(kCap, kCap);
  BulkRecords again("10.0.3.2@tcp", "10.0.3.1@tcp", Seen::kServer);
  for (std::uint64_t i = 0; i < 20000; ++i) {
    resends.key(again.request(1, kXid, kXid + 1 + i % 64, LNETCAP_OPC_OST_WRITE, "flood"));
    ASSERT_LE(resends.queued(), 2 * kCap + 1024) << "after " << i << " resends";
    if (i % 4096 == 0) again = BulkRecords("10.0.3.2@tcp", "10.0.3.1@tcp", Seen::kServer);
  }
  EXPECT_EQ(resends.rpcs(), 1u);
}

}  // namespace
}  // namespace lnetcap::daemon
