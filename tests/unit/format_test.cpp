// SPDX-License-Identifier: GPL-2.0-or-later
#include "text/format.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "error.h"
#include "lnetcap/record.h"
#include "message_fixtures.h"
#include "text/line.h"
#include "lnet_builders.h"

using namespace lnetcap;
using lnetcap::text::Format;

namespace {
std::string render(const char* spec, const Message& m, std::uint64_t counter = 7) {
  std::string out;
  Format::compile(spec).render(m, counter, out);
  return out;
}

class FormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};
}  // namespace

TEST_F(FormatTest, EveryLnetdumpCode) {
  auto req = test::enqueue_request();
  const Message& m = req.msg;
  EXPECT_EQ(render("%c", m), "7");
  EXPECT_EQ(render("%Ls", m), "SEND");
  EXPECT_EQ(render("%Lt", m), "PUT");
  EXPECT_EQ(render("%Ll", m), std::to_string(m.lnet.payload_length));
  EXPECT_EQ(render("%LP", m), "MDS_REQUEST_PORTAL");
  EXPECT_EQ(render("%Lm", m), "0x5F0000000080");
  EXPECT_EQ(render("%Po", m), "LDLM_ENQUEUE");
  EXPECT_EQ(render("%Pj", m), "dd.500");
  EXPECT_EQ(render("%Pu", m), "500");
  EXPECT_EQ(render("%Pg", m), "100");
  EXPECT_EQ(render("%Pp", m), "7");
  EXPECT_EQ(render("%PL", test::enoent_reply().msg), "1234");
  EXPECT_EQ(render("%PS", test::enoent_reply().msg), "987654321");
  EXPECT_EQ(render("%Dt", m), "IBITS");
  EXPECT_EQ(render("%Dc", m), "1");
  EXPECT_EQ(render("%Dn", m), "[0x200000007:0x1:0x0]");
}

TEST_F(FormatTest, EveryLnetcapCode) {
  auto req = test::enqueue_request();
  auto rep = test::enoent_reply();
  auto ping = test::ping_get();
  EXPECT_EQ(render("%T", req.msg), "22:13:20.123456");
  EXPECT_EQ(render("%Ts", req.msg), "1700000000.123456789");
  EXPECT_EQ(render("%Ns>%Nd", req.msg), "10.0.3.2@tcp>10.0.3.1@tcp");
  EXPECT_EQ(render("%Ni %Np", rep.msg), "10.0.3.2@tcp 10.0.3.1@tcp");
  EXPECT_EQ(render("%Px", rep.msg), "0x5F0000000080");
  EXPECT_EQ(render("%Pt", rep.msg), "error");
  EXPECT_EQ(render("%Ps", rep.msg), "-2 (ENOENT)");
  EXPECT_EQ(render("%Hs %Hr", ping.msg), "REMOTE_TIMEOUT 1");
  EXPECT_EQ(render("100%%", ping.msg), "100%");
}

TEST_F(FormatTest, NotApplicableValuesFollowLnetdump) {
  auto ping = test::ping_get();
  EXPECT_EQ(render("%LP", ping.msg), "LNET_RESERVED_PORTAL");
  EXPECT_EQ(render("%Po %Pj", ping.msg), "no_ptlrpc no_ptlrpc");
  EXPECT_EQ(render("%Dt %Dc %Dn", ping.msg), "no_dlm no_dlm no_dlm");
  EXPECT_EQ(render("%Px", ping.msg), "NA");  // portal 0 carries no XID
  EXPECT_EQ(render("%Dt", test::enoent_reply().msg), "no_dlm");
  // A message LNet finalized before choosing a local NI has none: not 0@<0:0>.
  auto no_ni = test::ping_get();
  no_ni.msg.rec.hdr.local_nid = Nid{};
  EXPECT_EQ(render("%Ni %Np", no_ni.msg), "NA 17@kfi");
}

TEST_F(FormatTest, WidthsAndAlignment) {
  auto req = test::enqueue_request();
  EXPECT_EQ(render("[%-6Lt]", req.msg), "[PUT   ]");
  EXPECT_EQ(render("[%6Lt]", req.msg), "[   PUT]");
  EXPECT_EQ(render("[%2Po]", req.msg), "[LDLM_ENQUEUE]");  // never cut
  EXPECT_EQ(render("%-5c|", req.msg, 12), "12   |");
}

TEST_F(FormatTest, LnetdumpDefaultAndTalkFormatsCompile) {
  auto req = test::enqueue_request();
  EXPECT_EQ(render(std::string(text::kLnetdumpDefaultFormat).c_str(), req.msg, 1),
            "1     0x5F0000000080 SEND  PUT   MDS_REQUEST_PORTAL   [dd.500          ] "
            "LDLM_ENQUEUE                   IBITS 1 [0x200000007:0x1:0x0]");
  EXPECT_NO_THROW(Format::compile("%-5c [%-15Lm] %-5Ls %-5Lt %-20LP [%-16Pj] %-30Po"));
}

TEST_F(FormatTest, UnknownCodeNamesItsColumn) {
  try {
    Format::compile("%Lt %Qz");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'%Qz' at column 5"), std::string::npos) << e.what();
  }
}

// A successful bulk reply carries the bytes moved in pb_status (1 MiB
// here): the line says so instead of printing "status 1048576".
TEST_F(FormatTest, BulkReplyShowsBytesNotStatus) {
  test::RpcSpec rpc;
  rpc.type = LNETCAP_PTL_RPC_MSG_REPLY;
  rpc.opc = LNETCAP_OPC_OST_READ;
  rpc.version = 3;
  rpc.status = 1048576;
  auto payload = test::lustre_msg(rpc);
  test::LnetHeaderSpec h;
  h.src = test::nid("10.0.3.1@tcp");
  h.dst = test::nid("10.0.3.2@tcp");
  h.portal = LNETCAP_PORTAL_OSC_REPLY;
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  test::RecordSpec r;
  r.direction = 2;
  r.local = h.dst;
  r.peer = h.src;
  std::string out;
  text::format_line(test::make_message(r, h, payload).msg, {}, out);
  EXPECT_NE(out.find(": OST_READ reply 1048576 bytes"), std::string::npos) << out;
  EXPECT_EQ(out.find("status"), std::string::npos) << out;
  // A failed read still reports its errno.
  rpc.status = -5;
  payload = test::lustre_msg(rpc);
  out.clear();
  text::format_line(test::make_message(r, h, payload).msg, {}, out);
  EXPECT_NE(out.find("OST_READ reply status -5 (EIO)"), std::string::npos) << out;
}

TEST_F(FormatTest, DefaultLine) {
  std::string out;
  text::format_line(test::enqueue_request().msg, {}, out);
  EXPECT_EQ(out.substr(0, 16), "22:13:20.123456 ");
  EXPECT_NE(out.find("SEND PUT 10.0.3.2@tcp > 10.0.3.1@tcp MDS_REQUEST xid 0x5f0000000080"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(": LDLM_ENQUEUE request jobid dd.500 IBITS [0x200000007:0x1:0x0]"),
            std::string::npos)
      << out;
  out.clear();
  text::format_line(test::enoent_reply().msg, {}, out);
  EXPECT_NE(out.find("RECV PUT 10.0.3.1@tcp > 10.0.3.2@tcp MDC_REPLY xid 0x5f0000000080 off 224"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("LDLM_ENQUEUE error status -2 (ENOENT)"), std::string::npos) << out;
  out.clear();
  text::format_line(test::ping_get().msg, {}, out);
  EXPECT_NE(out.find("GET 16@kfi > 17@kfi LNET_RESERVED mb 0x8000000000000000 sink 272 len 0 "
                     "retry 1 [resend after REMOTE_TIMEOUT]: LNet ping"),
            std::string::npos)
      << out;
  out.clear();
  text::format_line(test::ost_write_v6_be().msg, {}, out);
  EXPECT_NE(out.find("FWD PUT 2001:db8::2@tcp > 2001:db8::1@tcp OST_IO"), std::string::npos) << out;
  EXPECT_NE(out.find("[64 captured]"), std::string::npos) << out;
  out.clear();
  text::format_line(test::enqueue_request().msg, {true, 0, false}, out);
  EXPECT_EQ(out, "22:13:20.123456 SEND PUT 10.0.3.2@tcp > 10.0.3.1@tcp: LDLM_ENQUEUE request");
  out.clear();
  text::format_line(test::enqueue_request().msg, {false, 1, true}, out);
  EXPECT_NE(out.find("22:13:20.123456789"), std::string::npos);
  EXPECT_NE(out.find("task dd[4321]"), std::string::npos) << out;
  EXPECT_NE(out.find("uid 500 gid 100"), std::string::npos) << out;
}

TEST_F(FormatTest, CancelWithoutLockDescriptorShowsTheLockCount) {
  test::RpcSpec rpc;
  rpc.opc = LNETCAP_OPC_LDLM_CANCEL;
  auto req = test::ldlm_request(0, 0, 0, 0);  // cancels carry handles only
  store_le32(req.data() + LNETCAP_OFFSETOF(struct lnetcap_ldlm_request, lock_count), 2);
  rpc.buffers.push_back(req);
  auto payload = test::lustre_msg(rpc);
  test::LnetHeaderSpec h;
  h.src = test::nid("10.0.3.2@tcp");
  h.dst = test::nid("10.0.3.1@tcp");
  h.portal = LNETCAP_PORTAL_LDLM_CANCEL_REQUEST;
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  test::RecordSpec r;
  r.local = h.src;
  r.peer = h.dst;
  auto o = test::make_message(r, h, payload);
  std::string out;
  text::format_line(o.msg, {}, out);
  EXPECT_NE(out.find(": LDLM_CANCEL request locks 2"), std::string::npos) << out;
}

TEST_F(FormatTest, WidthsAboveTheLimitAreRefusedWithTheLimit) {
  EXPECT_NO_THROW(Format::compile("%-1000Lt"));
  for (const char* spec : {"%-99999999Lt", "%1001Pj", "%99999999999999999999999Lt"}) {
    try {
      Format::compile(spec);
      FAIL() << spec;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("is too large (0 to 1000)"), std::string::npos) << e.what();
    }
  }
}

TEST_F(FormatTest, WireStringsAreEscapedInLinesAndFormats) {
  auto o = test::enqueue_request();
  o.msg.rpc.jobid = "\x1b]0;X\x07";
  o.msg.rec.hdr.comm = "a\r\nb";
  o.msg.rec.hdr.flags |= LNETCAP_REC_F_TASK_VALID;
  EXPECT_EQ(render("[%Pj]", o.msg), "[\\033]0;X\\007]");
  std::string line;
  text::format_line(o.msg, {false, 1, false}, line);
  EXPECT_NE(line.find("jobid \\033]0;X\\007 "), std::string::npos) << line;
  EXPECT_NE(line.find("task a\\015\\012b["), std::string::npos) << line;
  EXPECT_EQ(line.find_first_of("\x1b\x07\r\n"), std::string::npos) << line;
}

TEST_F(FormatTest, LnetHealthOnTheLine) {
  // Queue time on a send, LNet's status, the drop reason and the link from
  // an outcome to its message's record (seq 7 on CPU 1).
  std::string out;
  text::format_line(test::queued_send().msg, {}, out);
  EXPECT_NE(out.find("SEND PUT 192.168.1.10@tcp > 192.168.1.20@tcp OST_REQUEST xid 0x65f1a0c000001 "
                     "len 0 queue 1.50ms"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("drop"), std::string::npos) << out;
  out.clear();
  text::format_line(test::failed_send_outcome().msg, {}, out);
  EXPECT_NE(out.find("DROP PUT 192.168.1.10@tcp > 192.168.1.20@tcp OST_REQUEST xid 0x65f1a0c000001 "
                     "len 224 health LOCAL_DROPPED rc -5 (EIO) drop send-failed "
                     "[outcome of seq 7 cpu 1]"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("queue"), std::string::npos) << out;
  out.clear();
  text::format_line(test::unmatched_put_drop().msg, {}, out);
  EXPECT_NE(out.find("DROP PUT 192.168.1.20@tcp > 192.168.1.10@tcp LDLM_CANCEL_REQUEST xid "
                     "0x65f1a0c000001 len 0 rc -2 (ENOENT) drop no-match"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("outcome"), std::string::npos) << out;
}

// -v under a ping REPLY: its NIs and Lustre 2.17's NID metadata trailer,
// with what the snap length cut; the default line stays one line.
TEST_F(FormatTest, VerbosePingReplyShowsNisAndMetadata) {
  test::PingInfoSpec ping;
  ping.nis = {{test::nid("0@lo"), 7}, {test::nid("10.0.0.1@efa")}, {test::nid("fe80::2@tcp1"), LNETCAP_LNET_NI_STATUS_DOWN}};
  ping.metadata = {{test::nid("10.0.0.1@efa"), {}}};
  ping.metadata[0].buffer.fill(0x5a);
  ping.metadata[0].buffer[31] = 0x01;
  const auto payload = test::ping_info(ping);
  test::LnetHeaderSpec h;
  h.type = LNETCAP_MSG_REPLY;
  h.src = test::nid("10.0.0.1@efa");
  h.dst = test::nid("10.0.0.2@efa");
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  test::RecordSpec r;
  r.direction = 2;
  r.local = h.dst;
  r.peer = h.src;
  const auto m = test::make_message(r, h, payload);
  std::string out;
  text::format_line(m.msg, {}, out);
  EXPECT_EQ(out.find('\n'), std::string::npos) << out;
  out.clear();
  text::format_line(m.msg, text::LineStyle{false, 1, false}, out);
  std::string buffer;
  for (int i = 0; i < 31; ++i) buffer += "5a";
  buffer += "01";
  EXPECT_NE(out.find("\n\tping pid 12345 features 0xbb: 0@lo seq 7, 10.0.0.1@efa up, fe80::2@tcp1 down"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\n\tmetadata 1 entry: 10.0.0.1@efa [" + buffer + "]"), std::string::npos) << out;

  // Cut by the snap length inside the entry: the count, no entry, and why.
  r.snaplen = static_cast<std::uint32_t>(payload.size() - 8);
  out.clear();
  text::format_line(test::make_message(r, h, payload).msg, text::LineStyle{false, 1, false}, out);
  EXPECT_NE(out.find("\n\tmetadata 1 entry: [0 of 1 captured]"), std::string::npos) << out;
}
