// SPDX-License-Identifier: GPL-2.0-or-later
// codec/wire_reader.h: fields by offsetof, never past the bytes given.
#include "codec/wire_reader.h"

#include <gtest/gtest.h>

#include <vector>

#include "codec/lustre_msg.h"
#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/rpc_predicates.h"

using namespace lnetcap;

namespace {

TEST(WireReader, ReadsFieldsAtTheirStructOffsetsInEitherByteOrder) {
  std::vector<std::uint8_t> b(sizeof(struct lnetcap_lustre_msg_v2) + 4, 0);
  store_le32(b.data() + offsetof(struct lnetcap_lustre_msg_v2, lm_magic), LNETCAP_LUSTRE_MSG_MAGIC_V2);
  store_le32(b.data() + offsetof(struct lnetcap_lustre_msg_v2, lm_bufcount), 3);
  store_le32(b.data() + sizeof(struct lnetcap_lustre_msg_v2), 184);  // lm_buflens[0]
  Endian e;
  ASSERT_TRUE(lustre_msg_order(WireReader(b), &e));
  EXPECT_TRUE(e.little);
  const WireReader r(b, e);
  EXPECT_EQ(r.u32(LNETCAP_FIELD(struct lnetcap_lustre_msg_v2, lm_bufcount)), 3u);
  EXPECT_EQ(r.u32(lustre_msg_buflen(0)), 184u);

  // The same bytes read big-endian swap every field.
  const WireReader big = r.with_order(Endian{false});
  EXPECT_EQ(big.u32(LNETCAP_FIELD(struct lnetcap_lustre_msg_v2, lm_bufcount)), 0x03000000u);
}

TEST(WireReader, AFieldPastTheEndReadsZeroAndIsNotThere) {
  std::vector<std::uint8_t> b(LNETCAP_HDR_NID4_LEN, 0xff);
  const WireReader r(b);
  constexpr auto sink = LNETCAP_FIELD(struct lnetcap_get, sink_length);
  // The msg union is 40 bytes in: sink_length (32..36) fits, the whole union too.
  const WireReader msg = r.at(LNETCAP_FIELD(struct lnetcap_hdr_nid4, msg));
  EXPECT_EQ(msg.size(), sizeof(union lnetcap_msg_union));
  EXPECT_TRUE(msg.has(sink));
  EXPECT_EQ(msg.u32(sink), 0xffffffffu);

  // Cut one byte short of the field: absent, and read as 0, never past.
  const WireReader cut = msg.first(sink.off + sink.size - 1);
  EXPECT_FALSE(cut.has(sink));
  EXPECT_EQ(cut.u32(sink), 0u);
  EXPECT_TRUE(cut.span(sink).empty());
  // An offset beyond the end gives an empty reader, not a wild pointer.
  EXPECT_EQ(r.from(b.size() + 100).size(), 0u);
  EXPECT_FALSE(r.from(b.size() + 100).has(0, 1));
  // has(off, len) does not overflow on huge values.
  EXPECT_FALSE(r.has(SIZE_MAX, 2));
  EXPECT_FALSE(r.has(2, SIZE_MAX));
}

TEST(WireReader, WriterStoresInTheMessageOrderAndDropsWritesOutside) {
  std::vector<std::uint8_t> b(sizeof(struct lnetcap_ptlrpc_body), 0);
  WireWriter w(std::span<std::uint8_t>(b), Endian{false});
  constexpr auto uid = LNETCAP_FIELD(struct lnetcap_ptlrpc_body, pb_uid);
  w.u32(uid, 0x01020304);
  EXPECT_EQ(load_be32(b.data() + offsetof(struct lnetcap_ptlrpc_body, pb_uid)), 0x01020304u);
  EXPECT_EQ(w.reader().u32(uid), 0x01020304u);
  WireWriter tail = w.from(b.size() - 2);
  tail.u64(LNETCAP_FIELD(struct lnetcap_ptlrpc_body, pb_handle), 0xdeadbeef);  // would overrun: dropped
  EXPECT_EQ(b[b.size() - 2], 0);
  EXPECT_EQ(b[b.size() - 1], 0);
}

// The shared predicates, on the cases Lustre 2.16.1 distinguishes.
TEST(RpcPredicates, EarlyReplyErrorAndByteCount) {
  // Early: a 1-buffer reply at offset 0 with lm_cksum set.
  EXPECT_TRUE(lnetcap_rpc_is_early_reply(LNETCAP_PTL_RPC_MSG_REPLY, 1, 0x1234, 0));
  EXPECT_FALSE(lnetcap_rpc_is_early_reply(LNETCAP_PTL_RPC_MSG_REPLY, 1, 0, 0));  // final, no AT
  EXPECT_FALSE(lnetcap_rpc_is_early_reply(LNETCAP_PTL_RPC_MSG_REPLY, 1, 0x1234, LNETCAP_LUSTRE_MSG_EARLY_SIZE));
  EXPECT_FALSE(lnetcap_rpc_is_early_reply(LNETCAP_PTL_RPC_MSG_REPLY, 2, 0x1234, 0));
  EXPECT_FALSE(lnetcap_rpc_is_early_reply(LNETCAP_PTL_RPC_MSG_REQUEST, 1, 0x1234, 0));
  // Errors: PTL_RPC_MSG_ERR or a negative status on a reply; ELDLM_* are not.
  EXPECT_TRUE(lnetcap_rpc_is_error(LNETCAP_PTL_RPC_MSG_ERR, 0));
  EXPECT_TRUE(lnetcap_rpc_is_error(LNETCAP_PTL_RPC_MSG_REPLY, -2));
  EXPECT_FALSE(lnetcap_rpc_is_error(LNETCAP_PTL_RPC_MSG_REPLY, 301));  // ELDLM_LOCK_ABORTED
  EXPECT_FALSE(lnetcap_rpc_is_error(LNETCAP_PTL_RPC_MSG_REPLY, 400));
  EXPECT_FALSE(lnetcap_rpc_is_error(LNETCAP_PTL_RPC_MSG_REQUEST, -1));  // a pid, not a status
  // Byte count: successful OST_READ/OST_WRITE replies only.
  EXPECT_TRUE(lnetcap_rpc_status_is_byte_count(LNETCAP_OPC_OST_READ, LNETCAP_PTL_RPC_MSG_REPLY, 4096));
  EXPECT_TRUE(lnetcap_rpc_status_is_byte_count(LNETCAP_OPC_OST_WRITE, LNETCAP_PTL_RPC_MSG_REPLY, 1));
  EXPECT_FALSE(lnetcap_rpc_status_is_byte_count(LNETCAP_OPC_OST_READ, LNETCAP_PTL_RPC_MSG_REPLY, -5));
  EXPECT_FALSE(lnetcap_rpc_status_is_byte_count(LNETCAP_OPC_OST_READ, LNETCAP_PTL_RPC_MSG_REQUEST, 4096));
  EXPECT_FALSE(lnetcap_rpc_status_is_byte_count(LNETCAP_OPC_LDLM_ENQUEUE, LNETCAP_PTL_RPC_MSG_REPLY, 301));
}

}  // namespace
