// SPDX-License-Identifier: GPL-2.0-or-later
#include "message.h"

#include <gtest/gtest.h>

#include "message_fixtures.h"

using namespace lnetcap;

TEST(DecodeMessage, LnetPutWithPtlrpcAndLdlm) {
  auto o = test::enqueue_request();
  const Message& m = o.msg;
  ASSERT_TRUE(m.lnet.present);
  EXPECT_EQ(m.lnet.type, LNETCAP_MSG_PUT);
  EXPECT_EQ(m.lnet.src_nid.to_string(), "10.0.3.2@tcp");
  EXPECT_EQ(m.lnet.dest_nid.to_string(), "10.0.3.1@tcp");
  EXPECT_EQ(m.lnet.portal, LNETCAP_PORTAL_MDS_REQUEST);
  EXPECT_FALSE(m.lnet.ack_requested);
  EXPECT_EQ(m.xid(), 0x5f0000000080ULL);
  ASSERT_TRUE(m.rpc.present);
  EXPECT_EQ(m.rpc.body_len, 184u);
  EXPECT_EQ(m.rpc.opc, LNETCAP_OPC_LDLM_ENQUEUE);
  EXPECT_EQ(m.rpc.type, LNETCAP_PTL_RPC_MSG_REQUEST);
  EXPECT_EQ(m.rpc.jobid, "dd.500");
  EXPECT_EQ(m.rpc.uid, 500u);
  EXPECT_EQ(m.rpc.projid, 7u);
  ASSERT_TRUE(m.dlm.present);
  EXPECT_EQ(m.dlm.res_type, LNETCAP_LDLM_IBITS);
  EXPECT_EQ(m.dlm.lock_count, 1u);
  EXPECT_EQ(m.dlm.res_name[0], 0x200000007ULL);
  EXPECT_EQ(m.dlm.req_mode, 4u);
}

TEST(DecodeMessage, ErrorReplyStatusAndNames) {
  auto o = test::enoent_reply();
  EXPECT_EQ(o.msg.rpc.type, LNETCAP_PTL_RPC_MSG_ERR);
  EXPECT_EQ(o.msg.rpc.status, -2);
  EXPECT_EQ(o.msg.lnet.offset, 224u);
  EXPECT_EQ(status_string(o.msg.rpc.status), "-2 (ENOENT)");
  EXPECT_EQ(status_string(301), "301 (ELDLM_LOCK_ABORTED)");
  EXPECT_EQ(status_string(0), "0");
  EXPECT_FALSE(o.msg.dlm.present);  // an error reply has no ldlm_reply buffer
}

TEST(DecodeMessage, PortalZeroIsNeverPtlrpc) {
  auto o = test::ping_get();
  EXPECT_EQ(o.msg.lnet.type, LNETCAP_MSG_GET);
  EXPECT_EQ(o.msg.lnet.sink_length, 272u);
  EXPECT_FALSE(o.msg.rpc.present);
  EXPECT_FALSE(o.msg.xid());
}

TEST(DecodeMessage, Nid16HeaderAndBigEndianLustreMsgWithPartialBody) {
  auto o = test::ost_write_v6_be();
  EXPECT_EQ(o.msg.rec.lnet_header.size(), 96u);
  EXPECT_EQ(o.msg.lnet.src_nid.to_string(), "2001:db8::2@tcp");
  EXPECT_EQ(o.msg.lnet.portal, LNETCAP_PORTAL_OST_IO);
  ASSERT_TRUE(o.msg.rpc.present);
  EXPECT_TRUE(o.msg.rpc.big_endian);
  EXPECT_EQ(o.msg.rpc.opc, LNETCAP_OPC_OST_WRITE);  // bytes 56+16..56+20 are within 64
  EXPECT_EQ(o.msg.rpc.uid, 0u);                      // not captured: stays 0
  EXPECT_TRUE(o.msg.rec.truncated());
}

TEST(DecodeMessage, NameLookupsAcceptLustreSpellings) {
  EXPECT_EQ(portal_from_name("MDS_REQUEST_PORTAL"), 12u);
  EXPECT_EQ(portal_from_name("ost_io"), 6u);
  EXPECT_EQ(opcode_from_name("ldlm_enqueue"), 101u);
  EXPECT_EQ(opcode_from_name("OST_FALLOCATE"), 22u);
  EXPECT_FALSE(opcode_from_name("NOPE"));
  EXPECT_STREQ(opcode_name(1102), "LFSCK_QUERY");
  EXPECT_STREQ(errno_name(110), "ETIMEDOUT");
}
