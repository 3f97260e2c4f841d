// SPDX-License-Identifier: GPL-2.0-or-later
// Pins the shared protocol definition with literal numbers from Lustre's
// wiretest.c / lnet-idl.h (docs/protocol.md), and checks the X-lists are sorted
// and free of duplicates (the plugin relies on both for value_string_ext).
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "lnetcap/bodies.h"
#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/record.h"

namespace {
template <typename T>
bool strictly_increasing(const std::vector<T>& v) {
  for (std::size_t i = 1; i < v.size(); ++i)
    if (!(v[i - 1] < v[i])) return false;
  return true;
}
}  // namespace

TEST(ProtoLayout, WireStructSizes) {
  EXPECT_EQ(sizeof(lnetcap_hdr_nid4), 72u);
  EXPECT_EQ(sizeof(lnetcap_hdr_nid16), 96u);
  EXPECT_EQ(sizeof(lnetcap_nid), 20u);
  EXPECT_EQ(sizeof(lnetcap_lustre_msg_v2), 32u);
  EXPECT_EQ(sizeof(lnetcap_ptlrpc_body), 184u);
  EXPECT_EQ(offsetof(lnetcap_ptlrpc_body, pb_jobid), 152u);  // v2 ends here
  EXPECT_EQ(sizeof(lnetcap_obdo), 208u);
  EXPECT_EQ(sizeof(lnetcap_mdt_body), 216u);
  EXPECT_EQ(sizeof(lnetcap_mdt_rec_reint), 136u);
  EXPECT_EQ(sizeof(lnetcap_ldlm_request), 88u);
  EXPECT_EQ(sizeof(lnetcap_ldlm_reply), 112u);
  EXPECT_EQ(sizeof(lnetcap_obd_connect_data), 192u);
  EXPECT_EQ(sizeof(lnetcap_rec_hdr), 128u);
  EXPECT_EQ(LNETCAP_LUSTRE_MSG_HDR_SIZE(1), 40u);
  EXPECT_EQ(LNETCAP_LUSTRE_MSG_HDR_SIZE(6), 56u);
  EXPECT_EQ(LNETCAP_LUSTRE_MSG_HDR_SIZE(7), 64u);
}

TEST(ProtoLayout, UnionOffsetsInBothHeaderForms) {
  EXPECT_EQ(offsetof(lnetcap_hdr_nid4, msg) + offsetof(lnetcap_put, ptl_index), 64u);
  EXPECT_EQ(offsetof(lnetcap_hdr_nid16, msg) + offsetof(lnetcap_put, ptl_index), 88u);
  EXPECT_EQ(offsetof(lnetcap_hdr_nid16, msg) + offsetof(lnetcap_get, sink_length), 88u);
  EXPECT_EQ(offsetof(lnetcap_hdr_nid16, msg) + offsetof(lnetcap_ack, mlength), 80u);
}

TEST(ProtoLayout, XListsAreSortedAndUnique) {
  std::vector<unsigned> v;
#define X(n, val, s) v.push_back(val);
  LNETCAP_OPCODE_LIST(X)
  EXPECT_TRUE(strictly_increasing(v)) << "opcodes";
  EXPECT_EQ(v.size(), 92u);  // every row of docs/protocol.md 4.1, obsolete ones included
  v.clear();
  LNETCAP_MSG_TYPE_LIST(X)
  EXPECT_TRUE(strictly_increasing(v));
  v.clear();
  LNETCAP_HEALTH_LIST(X)
  EXPECT_TRUE(strictly_increasing(v));
  v.clear();
  LNETCAP_DIR_LIST(X)
  EXPECT_TRUE(strictly_increasing(v));
  v.clear();
#undef X
#define X(n, val) v.push_back(val);
  LNETCAP_PORTAL_LIST(X)
  EXPECT_TRUE(strictly_increasing(v)) << "portals";
  v.clear();
  LNETCAP_ERRNO_LIST(X)
  EXPECT_TRUE(strictly_increasing(v)) << "errno";
  v.clear();
#undef X
#define X(n, val, s, style) v.push_back(val);
  LNETCAP_LND_LIST(X)
  EXPECT_TRUE(strictly_increasing(v)) << "LNDs";
  EXPECT_EQ(v.size(), 19u);
#undef X
}

TEST(ProtoLayout, CurrentOpcodesThatWiresharkLacks) {
  EXPECT_EQ(LNETCAP_OPC_OST_FALLOCATE, 22);
  EXPECT_EQ(LNETCAP_OPC_OST_SEEK, 23);
  EXPECT_EQ(LNETCAP_OPC_MDS_BATCH, 63);
  EXPECT_EQ(LNETCAP_OPC_MDS_HSM_DATA_VERSION, 64);
  EXPECT_EQ(LNETCAP_OPC_SEC_CTX_INIT, 801);
  EXPECT_EQ(LNETCAP_OPC_LFSCK_NOTIFY, 1101);
  EXPECT_EQ(LNETCAP_LND_KFILND, 16);
  EXPECT_EQ(LNETCAP_LND_EFALND, 18);
}
