// SPDX-License-Identifier: GPL-2.0-or-later
#include "record.h"

#include <gtest/gtest.h>

#include "lnet_builders.h"
#include "lnetcap/record.h"

using namespace lnetcap;

namespace {
std::vector<std::uint8_t> sample_record() {
  test::LnetHeaderSpec s;
  s.src = test::nid("10.0.3.2@tcp");
  s.dst = test::nid("10.0.3.1@tcp");
  s.payload_length = 300;
  s.portal = LNETCAP_PORTAL_MDS_REQUEST;
  s.match_bits = 0x5f00000000080ULL;
  std::vector<std::uint8_t> payload(300, 0xab);
  test::RecordSpec r;
  r.local = s.src;
  r.peer = s.dst;
  r.snaplen = 100;
  r.seq = 42;
  r.health = LNETCAP_HEALTH_REMOTE_DROPPED;
  r.retries = 2;
  r.flags = LNETCAP_REC_F_TASK_VALID | LNETCAP_REC_F_HEALTH_VALID;
  r.pid = 4242;
  r.comm = "dd";
  r.status = -110;
  return test::record(r, test::lnet_header(s), payload);
}
}  // namespace

TEST(RecordCodec, EncodesTheDocumentedLayout) {
  auto b = sample_record();
  ASSERT_EQ(b.size(), 104u + 72u + 100u);
  EXPECT_EQ(std::string(b.begin(), b.begin() + 4), "LNCR");  // magic bytes on disk
  EXPECT_EQ(load_le16(&b[4]), 1);                             // version
  EXPECT_EQ(load_le16(&b[6]), 104);                           // rec_hdr_len
  EXPECT_EQ(b[8], LNETCAP_DIR_SEND);
  EXPECT_EQ(b[10], LNETCAP_LND_SOCKLND);
  EXPECT_EQ(b[11], 72);
  EXPECT_EQ(b[14], LNETCAP_HEALTH_REMOTE_DROPPED);
  EXPECT_EQ(b[15], 2);
  EXPECT_EQ(load_le32(&b[16]), 0xffffffffu);  // cpu unknown
  EXPECT_EQ(load_le32(&b[20]), 4242u);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(&b[24])), "dd");
  EXPECT_EQ(load_le64(&b[40]), 42u);
  EXPECT_EQ(load_le32(&b[48]), 300u);  // original payload length
  EXPECT_EQ(load_le32(&b[52]), 100u);  // captured
  // local NID in struct lnet_nid form: size 0, type tcp, net 0, addr BE
  const std::uint8_t local[8] = {0, 2, 0, 0, 10, 0, 3, 2};
  EXPECT_EQ(0, memcmp(&b[56], local, 8));
  EXPECT_EQ(static_cast<std::int32_t>(load_le32(&b[96])), -110);
}

TEST(RecordCodec, ParsesBackEveryField) {
  auto b = sample_record();
  std::string why;
  auto v = parse_record(b, &why);
  ASSERT_TRUE(v) << why;
  EXPECT_EQ(v->hdr.seq, 42u);
  EXPECT_EQ(v->hdr.comm, "dd");
  EXPECT_EQ(v->hdr.pid, 4242u);
  EXPECT_EQ(v->hdr.local_nid.to_string(), "10.0.3.2@tcp");
  EXPECT_EQ(v->hdr.peer_nid.to_string(), "10.0.3.1@tcp");
  EXPECT_EQ(v->hdr.status, -110);
  EXPECT_EQ(v->lnet_header.size(), 72u);
  EXPECT_EQ(v->payload.size(), 100u);
  EXPECT_TRUE(v->truncated());
  EXPECT_EQ(record_orig_len(*v), 104u + 72u + 300u);
}

TEST(RecordCodec, RejectsDamagedRecordsWithAReason) {
  auto good = sample_record();
  std::string why;
  auto bad = good;
  bad[0] = 'X';
  EXPECT_FALSE(parse_record(bad, &why));
  EXPECT_NE(why.find("magic"), std::string::npos);

  bad = good;
  bad[4] = 9;  // unknown version
  EXPECT_FALSE(parse_record(bad, &why));
  EXPECT_NE(why.find("version 9"), std::string::npos);

  bad = good;
  bad[11] = 80;  // impossible LNet header length
  EXPECT_FALSE(parse_record(bad, &why));
  EXPECT_NE(why.find("80"), std::string::npos);

  bad.assign(good.begin(), good.end() - 1);  // truncated
  EXPECT_FALSE(parse_record(bad, &why));
  EXPECT_NE(why.find("announces"), std::string::npos);

  bad = good;
  store_le32(&bad[52], 400);  // captured > original
  EXPECT_FALSE(parse_record(bad, &why));
  EXPECT_NE(why.find("exceeds"), std::string::npos);

  EXPECT_FALSE(parse_record(ByteSpan(good.data(), 5), &why));
}

namespace {
// A failed send's outcome: 128-byte header with the health fields.
std::vector<std::uint8_t> outcome_record() {
  test::LnetHeaderSpec s;
  s.src = test::nid("10.0.3.2@tcp");
  s.dst = test::nid("10.0.3.1@tcp");
  test::RecordSpec r;
  r.direction = LNETCAP_DIR_DROP;
  r.local = s.src;
  r.peer = s.dst;
  r.flags = LNETCAP_REC_F_OUTCOME | LNETCAP_REC_F_QUEUE_VALID | LNETCAP_REC_F_STATUS_VALID;
  r.status = -5;
  r.queue_ns = 1500000;
  r.msg_id = LNETCAP_MSG_ID(3, 77);
  r.drop_reason = LNETCAP_DROP_SEND_FAILED;
  return test::record(r, test::lnet_header(s), {});
}
}  // namespace

TEST(RecordCodec, HealthFieldsAreAppendedAt104) {
  auto b = outcome_record();
  ASSERT_EQ(b.size(), 128u + 72u);
  EXPECT_EQ(load_le16(&b[6]), 128);
  EXPECT_EQ(load_le64(&b[104]), 1500000u);
  EXPECT_EQ(load_le64(&b[112]), (4ULL << 48) | 77);  // cpu 3 + 1, seq 77
  EXPECT_EQ(b[120], LNETCAP_DROP_SEND_FAILED);
  for (int i = 121; i < 128; i++) EXPECT_EQ(b[i], 0) << i;
  std::string why;
  auto v = parse_record(b, &why);
  ASSERT_TRUE(v) << why;
  EXPECT_EQ(v->hdr.queue_ns, 1500000u);
  EXPECT_EQ(v->hdr.msg_id, LNETCAP_MSG_ID(3, 77));
  EXPECT_EQ(v->hdr.drop_reason, LNETCAP_DROP_SEND_FAILED);
  EXPECT_TRUE(v->hdr.is_outcome());
  EXPECT_EQ(v->lnet_header.size(), 72u);
}

TEST(RecordCodec, RecordsWithoutHealthFieldsKeepThe104ByteHeader) {
  // Converted and synthetic records carry none of the appended fields:
  // they are written exactly as before, and read back as zeros.
  auto b = sample_record();
  EXPECT_EQ(load_le16(&b[6]), 104);
  std::string why;
  auto v = parse_record(b, &why);
  ASSERT_TRUE(v) << why;
  EXPECT_EQ(v->hdr.queue_ns, 0u);
  EXPECT_EQ(v->hdr.msg_id, 0u);
  EXPECT_EQ(v->hdr.drop_reason, 0u);
  EXPECT_FALSE(v->hdr.is_outcome());
}

TEST(RecordCodec, OlderReadersSkipAppendedHeaderFields) {
  // The 104-byte reader's view of a 128-byte record (what an lnetcap
  // before the health fields does): only rec_hdr_len locates the LNet
  // header.  And a future layout appending 8 more bytes reads the same.
  auto b = outcome_record();
  std::vector<std::uint8_t> longer(b.begin(), b.begin() + 128);
  longer.insert(longer.end(), 8, 0xee);
  longer.insert(longer.end(), b.begin() + 128, b.end());
  store_le16(&longer[6], 136);
  std::string why;
  auto v = parse_record(longer, &why);
  ASSERT_TRUE(v) << why;
  EXPECT_EQ(load_le64(v->lnet_header.data()), test::nid("10.0.3.1@tcp").to_nid4());
  EXPECT_EQ(v->hdr.msg_id, LNETCAP_MSG_ID(3, 77));
  EXPECT_EQ(load_le64(b.data() + load_le16(&b[6])), test::nid("10.0.3.1@tcp").to_nid4());
}
