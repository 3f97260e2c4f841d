// SPDX-License-Identifier: GPL-2.0-or-later
#include "anon/anonymizer.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>

#include "error.h"
#include "codec/lustre_msg.h"
#include "codec/ping_info.h"
#include "codec/wire_reader.h"
#include "lnetcap/lnet.h"
#include "lnetcap/mdt_reint.h"
#include "lnetcap/rpc_formats.h"
#include "message_fixtures.h"

using namespace lnetcap;
using anon::Anonymizer;
using anon::XidShift;

namespace {

std::vector<std::uint8_t> key(std::uint8_t fill) { return std::vector<std::uint8_t>(32, fill); }

bool contains(const std::vector<std::uint8_t>& hay, const void* needle, std::size_t n) {
  const auto* b = static_cast<const std::uint8_t*>(needle);
  return std::search(hay.begin(), hay.end(), b, b + n) != hay.end();
}
bool contains(const std::vector<std::uint8_t>& hay, const std::string& s) {
  return contains(hay, s.data(), s.size());
}

// Every encoding of a NID that can appear in a record.
void expect_nid_absent(const std::vector<std::uint8_t>& out, const char* text) {
  const Nid n = *Nid::parse(text);
  std::uint8_t nid4[8], raw[20];
  store_le64(nid4, n.to_nid4());
  n.to_lnet_nid(raw);
  EXPECT_FALSE(contains(out, nid4, 8)) << text << " as nid4";
  EXPECT_FALSE(contains(out, raw + LNETCAP_OFFSETOF(struct lnetcap_nid, nid_addr), 4))
      << text << " address bytes";
  EXPECT_FALSE(contains(out, std::string(text))) << text << " as text";
}

// An MDS_REINT create of "secret-report.txt" under a user's directory.
test::OwnedMessage reint_create() {
  test::RpcSpec rpc;
  rpc.opc = LNETCAP_OPC_MDS_REINT;
  rpc.version = 0x00020003;
  rpc.uid = 1234;
  rpc.gid = 5678;
  rpc.jobid = "simulate.1234";
  std::vector<std::uint8_t> rec(sizeof(struct lnetcap_mdt_rec_create), 0);
  store_le32(&rec[LNETCAP_OFFSETOF(struct lnetcap_mdt_rec_create, cr_opcode)], LNETCAP_REINT_CREATE);
  store_le32(&rec[LNETCAP_OFFSETOF(struct lnetcap_mdt_rec_create, cr_fsuid)], 1234);
  store_le32(&rec[LNETCAP_OFFSETOF(struct lnetcap_mdt_rec_create, cr_fsgid)], 5678);
  store_le64(&rec[LNETCAP_OFFSETOF(struct lnetcap_mdt_rec_create, cr_fid1)], 0x200000401ULL);
  rpc.buffers.push_back(rec);
  rpc.buffers.push_back({});  // CAPA1
  const std::string name = "secret-report.txt";
  rpc.buffers.emplace_back(name.begin(), name.end());
  rpc.buffers.back().push_back(0);
  auto payload = test::lustre_msg(rpc);
  test::LnetHeaderSpec h;
  h.src = test::nid("192.168.5.17@o2ib3");
  h.dst = test::nid("192.168.5.1@o2ib3");
  h.portal = LNETCAP_PORTAL_MDS_REQUEST;
  h.match_bits = 0x1000;
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  test::RecordSpec r;
  r.local = h.src;
  r.peer = h.dst;
  r.flags = 1;
  r.comm = "simulate";
  return test::make_message(r, h, payload);
}

// A request of opcode opc carrying `buffers` after its ptlrpc_body.
test::OwnedMessage request(std::uint32_t opc, std::vector<std::vector<std::uint8_t>> buffers) {
  test::RpcSpec rpc;
  rpc.opc = opc;
  rpc.buffers = std::move(buffers);
  auto payload = test::lustre_msg(rpc);
  test::LnetHeaderSpec h;
  h.src = test::nid("10.0.3.2@tcp");
  h.dst = test::nid("10.0.3.1@tcp");
  h.portal = LNETCAP_PORTAL_OST_IO;
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  test::RecordSpec r;
  r.local = h.src;
  r.peer = h.dst;
  r.flags = 1;
  return test::make_message(r, h, payload);
}

std::vector<std::uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

// Buffer i of an anonymized record's PtlRPC message.
std::vector<std::uint8_t> buffer(const std::vector<std::uint8_t>& record, std::uint32_t i) {
  std::string why;
  auto v = parse_record(record, &why);
  EXPECT_TRUE(v) << why;
  const WireReader msg{v->payload};
  const std::uint32_t count = msg.u32(LNETCAP_FIELD(struct lnetcap_lustre_msg_v2, lm_bufcount));
  std::size_t off = LNETCAP_LUSTRE_MSG_HDR_SIZE(count);
  for (std::uint32_t k = 0; k < i; ++k) off += LNETCAP_LUSTRE_MSG_ROUND8(msg.u32(lustre_msg_buflen(k)));
  const std::uint32_t len = msg.u32(lustre_msg_buflen(i));
  return {v->payload.begin() + static_cast<std::ptrdiff_t>(off),
          v->payload.begin() + static_cast<std::ptrdiff_t>(off + len)};
}

bool all_zero(const std::vector<std::uint8_t>& b) {
  return std::all_of(b.begin(), b.end(), [](std::uint8_t c) { return c == 0; });
}

}  // namespace

TEST(Anonymizer, NothingIdentifyingSurvivesAPtlrpcRequest) {
  auto in = reint_create();
  Anonymizer a(key(1));
  const auto out = a.rewrite_record(in.bytes);
  expect_nid_absent(out, "192.168.5.17@o2ib3");
  expect_nid_absent(out, "192.168.5.1@o2ib3");
  EXPECT_FALSE(contains(out, std::string("secret-report")));
  EXPECT_FALSE(contains(out, std::string("simulate")));  // jobid and task name
  const std::uint8_t uid[4] = {0xd2, 0x04, 0, 0}, gid[4] = {0x2e, 0x16, 0, 0};
  EXPECT_FALSE(contains(out, uid, 4));
  EXPECT_FALSE(contains(out, gid, 4));
  EXPECT_EQ(a.changes().jobids, 1u);
  EXPECT_GE(a.changes().ids, 4u);
  EXPECT_EQ(a.changes().buffers, 1u);  // the name
}

TEST(Anonymizer, TheResultStillDecodesTheSame) {
  auto in = reint_create();
  Anonymizer a(key(1));
  const auto out = a.rewrite_record(in.bytes);
  std::string why;
  auto v = parse_record(out, &why);
  ASSERT_TRUE(v) << why;
  const Message m = decode_message(*v, 0, 0);
  EXPECT_EQ(m.lnet.type, in.msg.lnet.type);
  EXPECT_EQ(m.lnet.portal, in.msg.lnet.portal);
  ASSERT_TRUE(m.xid());  // moved by the key's offset (xid_shift.h), low byte kept
  EXPECT_EQ(*m.xid(), *in.msg.xid() + XidShift(key(1)).offset());
  EXPECT_EQ(*m.xid() % 256, *in.msg.xid() % 256);
  EXPECT_EQ(m.rpc.opc, LNETCAP_OPC_MDS_REINT);
  EXPECT_EQ(m.rpc.jobid.size(), std::string("simulate.1234").size());
  EXPECT_EQ(m.lnet.src_nid.net().to_string(), "o2ib3");  // LND and net are kept
  EXPECT_EQ(m.lnet.src_nid, a.map_nid(in.msg.lnet.src_nid));
  EXPECT_EQ(m.rec.hdr.local_nid, m.lnet.src_nid);  // the same NID everywhere
  EXPECT_EQ(v->payload.size(), in.msg.rec.payload.size());  // layout kept
}

TEST(Anonymizer, SameKeySamePseudonymsAcrossFilesAndNodes) {
  Anonymizer a(key(7)), b(key(7)), c(key(8));
  const Nid n = test::nid("10.0.3.2@tcp");
  EXPECT_EQ(a.map_nid(n), b.map_nid(n));
  EXPECT_NE(a.map_nid(n), c.map_nid(n));
  EXPECT_NE(a.map_nid(n), n);
  EXPECT_EQ(a.map_nid(n).to_string().substr(0, 3), "10.");
  EXPECT_EQ(a.map_id(500), b.map_id(500));
  EXPECT_EQ(a.map_id(0), 0u);  // root stays root
  EXPECT_EQ(a.map_nid(test::nid("0@lo")), test::nid("0@lo"));
  EXPECT_EQ(a.map_nid(test::nid("fe80::1@tcp")).to_string().substr(0, 2), "fd");
  EXPECT_EQ(a.map_nid(test::nid("16@kfi")).net().to_string(), "kfi");
  EXPECT_EQ(a.rewrite_text("filter: nid 10.0.3.2@tcp and net tcp"),
            "filter: nid " + a.map_nid(n).to_string() + " and net tcp");
}

TEST(Anonymizer, BulkPayloadIsDroppedAndPingNidsRewritten) {
  Anonymizer a(key(3));
  test::LnetHeaderSpec h;
  h.type = LNETCAP_MSG_PUT;
  h.src = test::nid("10.0.3.1@tcp");
  h.dst = test::nid("10.0.3.2@tcp");
  h.portal = LNETCAP_PORTAL_OST_BULK;
  std::vector<std::uint8_t> data(512, 'D');
  h.payload_length = 512;
  test::RecordSpec r;
  r.local = h.dst;
  r.peer = h.src;
  auto bulk = test::record(r, test::lnet_header(h), data);
  auto out = a.rewrite_record(bulk);
  std::string why;
  auto v = parse_record(out, &why);
  ASSERT_TRUE(v) << why;
  EXPECT_EQ(v->payload.size(), 0u);
  EXPECT_EQ(v->hdr.payload_len, 512u);  // the original length is still known
  EXPECT_EQ(a.changes().payload_bytes_dropped, 512u);

  // lnet_ping_info with two lnet_ni_status entries.
  const std::size_t ni0 = sizeof(struct lnetcap_ping_info);
  const std::size_t ni1 = ni0 + sizeof(struct lnetcap_ni_status);
  std::vector<std::uint8_t> info(ni1 + sizeof(struct lnetcap_ni_status), 0);
  store_le32(&info[LNETCAP_OFFSETOF(struct lnetcap_ping_info, pi_magic)], LNETCAP_LNET_PROTO_PING_MAGIC);
  store_le32(&info[LNETCAP_OFFSETOF(struct lnetcap_ping_info, pi_nnis)], 2);
  store_le64(&info[ni0 + LNETCAP_OFFSETOF(struct lnetcap_ni_status, ns_nid)], test::nid("0@lo").to_nid4());
  store_le64(&info[ni1 + LNETCAP_OFFSETOF(struct lnetcap_ni_status, ns_nid)],
             test::nid("10.0.3.1@tcp").to_nid4());
  h.type = LNETCAP_MSG_REPLY;
  h.payload_length = static_cast<std::uint32_t>(info.size());
  auto ping = a.rewrite_record(test::record(r, test::lnet_header(h), info));
  expect_nid_absent(ping, "10.0.3.1@tcp");
  v = parse_record(ping, &why);
  ASSERT_TRUE(v);
  EXPECT_EQ(load_le64(v->payload.data() + ni1), a.map_nid(test::nid("10.0.3.1@tcp")).to_nid4());
  EXPECT_EQ(load_le64(v->payload.data() + ni0), test::nid("0@lo").to_nid4());
}

// Lustre 2.17's NID metadata trailer (after the large list here): count
// and entries stay, each entry's NID is mapped like every other NID, and
// its LND bytes (EFA: GID and queue pair addresses) become zeros.
TEST(Anonymizer, PingMetadataKeepsItsShapeNotItsAddresses) {
  Anonymizer a(key(9));
  const std::string secret = "gid=fe80::a1:b2 qpn=77 qkey=0x11";
  ASSERT_EQ(secret.size(), std::size_t{LNETCAP_LNET_MD_BUFFER_SZ});
  test::PingInfoSpec ping;
  ping.nis = {{test::nid("0@lo"), 3}, {test::nid("10.0.3.1@efa")}, {test::nid("fe80::7@tcp1")}};
  ping.metadata = {{test::nid("10.0.3.1@efa"), {}}, {test::nid("10.0.3.9@efa"), {}}};
  std::copy(secret.begin(), secret.end(), ping.metadata[0].buffer.begin());
  ping.metadata[1].buffer.fill(0x5a);
  const auto info = test::ping_info(ping);
  test::LnetHeaderSpec h;
  h.type = LNETCAP_MSG_REPLY;
  h.src = test::nid("10.0.3.1@efa");
  h.dst = test::nid("10.0.3.2@efa");
  h.payload_length = static_cast<std::uint32_t>(info.size());
  test::RecordSpec r;
  r.local = h.dst;
  r.peer = h.src;
  const auto out = a.rewrite_record(test::record(r, test::lnet_header(h), info));
  for (std::size_t i = 0; i + 4 <= secret.size(); ++i)
    EXPECT_FALSE(contains(out, secret.substr(i, 4))) << "\"" << secret.substr(i, 4) << "\" survived";
  expect_nid_absent(out, "10.0.3.1@efa");
  expect_nid_absent(out, "10.0.3.9@efa");
  expect_nid_absent(out, "fe80::7@tcp1");
  std::string why;
  const auto v = parse_record(out, &why);
  ASSERT_TRUE(v) << why;
  EXPECT_EQ(v->payload.size(), info.size());  // nothing dropped: the trailer is kept
  const auto p = parse_ping_info(v->payload, v->payload.size());
  ASSERT_TRUE(p);
  ASSERT_EQ(p->nis.size(), 3u);
  EXPECT_EQ(p->nis[2].nid, a.map_nid(test::nid("fe80::7@tcp1")));
  ASSERT_TRUE(p->md_count);
  EXPECT_EQ(*p->md_count, 2u);
  ASSERT_EQ(p->metadata.size(), 2u);
  EXPECT_EQ(p->metadata[0].nid, a.map_nid(test::nid("10.0.3.1@efa")));
  EXPECT_EQ(p->metadata[1].nid, a.map_nid(test::nid("10.0.3.9@efa")));
  for (const PingMetadataEntry& e : p->metadata)
    EXPECT_TRUE(std::all_of(e.buffer.begin(), e.buffer.end(), [](std::uint8_t b) { return b == 0; }));
  EXPECT_EQ(a.changes().ping_metadata, 2u);
  EXPECT_NE(a.changes().summary().find(", 2 ping NID metadata entries zeroed"), std::string::npos);

  // Cut by the snap length inside the second entry: the part of it that
  // was captured (its NID) is dropped, not copied.
  r.snaplen = static_cast<std::uint32_t>(info.size() - LNETCAP_LNET_MD_BUFFER_SZ);
  const auto cut = a.rewrite_record(test::record(r, test::lnet_header(h), info));
  expect_nid_absent(cut, "10.0.3.9@efa");
  const auto c = parse_record(cut, &why);
  ASSERT_TRUE(c) << why;
  EXPECT_EQ(c->payload.size(), info.size() - sizeof(struct lnetcap_nid_md_entry));
}

TEST(Anonymizer, InterfacesKeepOnlyMappedNids) {
  Anonymizer a(key(5));
  CaptureInterface in{"o2ib1", "node17.example.org 192.168.5.17@o2ib1", "Linux", "mlx5_0", "", 0};
  auto out = a.rewrite_interface(in);
  EXPECT_EQ(out.name, "o2ib1");
  EXPECT_EQ(out.description.find("node17"), std::string::npos) << out.description;
  EXPECT_NE(out.description.find(a.map_nid(test::nid("192.168.5.17@o2ib1")).to_string()),
            std::string::npos)
      << out.description;
  EXPECT_TRUE(out.hardware.empty());
}

TEST(Anonymizer, KeyFileIsCreatedOnceAndReused) {
  const std::string path = ::testing::TempDir() + "/anon-key-" + std::to_string(getpid());
  std::remove(path.c_str());
  auto k1 = Anonymizer::load_or_create_key(path);
  auto k2 = Anonymizer::load_or_create_key(path);
  EXPECT_EQ(k1, k2);
  EXPECT_EQ(k1.size(), 32u);
  std::remove(path.c_str());
  EXPECT_THROW(Anonymizer(std::vector<std::uint8_t>(4, 1)), Error);
}

// An opcode the format table does not know: every buffer after the
// ptlrpc_body is zeros, whatever it looks like (a handle-sized name, a
// struct-sized blob).  The old code kept any 8- or 24-byte buffer.
TEST(Anonymizer, AnUnknownOpcodeIsScrubbedWhole) {
  for (std::uint32_t opc : {4242u, unsigned{LNETCAP_OPC_LDLM_SET_INFO}, unsigned{LNETCAP_OPC_MDS_SETXATTR}}) {
    SCOPED_TRACE(opc);
    auto in = request(opc, {bytes("striped"), std::vector<std::uint8_t>(24, 'S'), bytes("name-of-a-file.txt")});
    Anonymizer a(key(2));
    const auto out = a.rewrite_record(in.bytes);
    EXPECT_FALSE(contains(out, std::string("striped")));
    EXPECT_FALSE(contains(out, std::string("SSSS")));
    EXPECT_FALSE(contains(out, std::string("name-of")));
    for (std::uint32_t i = 1; i <= 3; ++i) EXPECT_TRUE(all_zero(buffer(out, i))) << "buffer " << i;
    std::string why;
    EXPECT_EQ(decode_message(*parse_record(out, &why), 0, 0).rpc.opc, opc);  // the body stays
  }
}

// A known opcode with more buffers than any of its formats has: the extra
// ones are of no known kind, so zeros; the known ones keep their numbers.
TEST(Anonymizer, BuffersPastTheFormatAreScrubbed) {
  Anonymizer a(key(2));
  const auto out = a.rewrite_record(request(LNETCAP_OPC_OBD_PING, {bytes("extra-secret")}).bytes);
  EXPECT_FALSE(contains(out, std::string("extra-secret")));
  EXPECT_TRUE(all_zero(buffer(out, 1)));
}

// OST_WRITE with short I/O (issue 32): the 8 bytes of file data in
// RMF_SHORT_IO were kept as a "handle"; the niobuf's numbers stay.
TEST(Anonymizer, ShortIoDataIsScrubbedAndExtentsKept) {
  std::vector<std::uint8_t> obdo(sizeof(struct lnetcap_obdo), 0), ioobj(sizeof(struct lnetcap_obd_ioobj), 1),
      niobuf(sizeof(struct lnetcap_niobuf_remote), 0);
  store_le64(niobuf.data(), 0x1000);  // rnb_offset
  Anonymizer a(key(4));
  const auto out =
      a.rewrite_record(request(LNETCAP_OPC_OST_WRITE, {obdo, ioobj, niobuf, {}, bytes("hello-1\n")}).bytes);
  EXPECT_FALSE(contains(out, std::string("hello-1")));
  EXPECT_TRUE(all_zero(buffer(out, 5)));
  EXPECT_EQ(buffer(out, 3), niobuf);
  EXPECT_EQ(buffer(out, 2), ioobj);
}

// Interface names: socklnd streams and live NIs named by their NID were
// kept whole, with the real addresses (issue 32).
TEST(Anonymizer, InterfaceNamesLoseAddressesAndHostNames) {
  Anonymizer a(key(6));
  const std::string tcp = a.map_nid(test::nid("10.0.3.2@tcp")).to_string();
  const std::string peer = a.map_nid(test::nid("10.0.3.1@tcp")).to_string();
  EXPECT_EQ(a.rewrite_interface_name("10.0.3.2:1023-10.0.3.1:988"),
            tcp.substr(0, tcp.find('@')) + ":1023-" + peer.substr(0, peer.find('@')) + ":988");
  EXPECT_EQ(a.rewrite_interface_name("10.77.0.1@tcp"), a.map_nid(test::nid("10.77.0.1@tcp")).to_string());
  EXPECT_EQ(a.rewrite_interface_name("o2ib1"), "o2ib1");
  EXPECT_EQ(a.rewrite_interface_name("node17-ib0"), "anonymized");
  const auto v6 = a.rewrite_interface_name("[2001:db8::2]:1023-[2001:db8::1]:988");
  EXPECT_EQ(v6.find("2001:db8"), std::string::npos) << v6;
  CaptureInterface in{"10.0.3.2:1023-10.0.3.1:988", "10.0.3.2:1023 -> 10.0.3.1:988 socklnd V3 control",
                      "Linux node17", "x86_64", "tcp port 988 and host node17", 0};
  const auto out = a.rewrite_interface(in);
  for (const std::string* s : {&out.name, &out.description, &out.os, &out.hardware, &out.filter})
    EXPECT_EQ(s->find("10.0.3"), std::string::npos) << *s;
  EXPECT_TRUE(out.os.empty());
  EXPECT_TRUE(out.filter.empty());
}

// A reply carries no selector: the one its request had picks its format.
// An LDLM_ENQUEUE with a getattr intent answers DLM_REP, MDT_BODY, ...; an
// enqueue without an intent DLM_REP, DLM_LVB.  Seen after its request, the
// reply keeps its mdt_body (ids rewritten); alone, buffer 2 is unknown.
TEST(Anonymizer, AReplyTakesTheFormatItsRequestChose) {
  const std::uint64_t xid = 0x655400000080ULL;
  auto rpc_message = [&](std::uint32_t type, std::vector<std::vector<std::uint8_t>> buffers) {
    test::RpcSpec rpc;
    rpc.type = type;
    rpc.opc = LNETCAP_OPC_LDLM_ENQUEUE;
    rpc.buffers = std::move(buffers);
    auto payload = test::lustre_msg(rpc);
    const bool request = type == LNETCAP_PTL_RPC_MSG_REQUEST;
    test::LnetHeaderSpec h;
    h.src = test::nid(request ? "10.0.3.2@tcp" : "10.0.3.1@tcp");
    h.dst = test::nid(request ? "10.0.3.1@tcp" : "10.0.3.2@tcp");
    h.portal = request ? LNETCAP_PORTAL_MDS_REQUEST : LNETCAP_PORTAL_MDC_REPLY;
    h.match_bits = xid;
    h.payload_length = static_cast<std::uint32_t>(payload.size());
    test::RecordSpec r;
    r.local = h.src;
    r.peer = h.dst;
    r.flags = 1;
    return test::make_message(r, h, payload).bytes;
  };
  std::vector<std::uint8_t> intent(sizeof(struct lnetcap_ldlm_intent), 0);
  store_le64(intent.data(), LNETCAP_ITF_GETATTR);
  std::vector<std::uint8_t> body(sizeof(struct lnetcap_mdt_body), 0);
  store_le64(body.data(), 0x200000401ULL);  // mbo_fid1.f_seq
  const auto request = rpc_message(
      LNETCAP_PTL_RPC_MSG_REQUEST, {std::vector<std::uint8_t>(sizeof(struct lnetcap_ldlm_request), 0), intent,
                                    body, {}, bytes("secret-name")});
  const auto reply = rpc_message(LNETCAP_PTL_RPC_MSG_REPLY,
                                 {std::vector<std::uint8_t>(sizeof(struct lnetcap_ldlm_reply), 0), body});
  Anonymizer seen(key(9)), alone(key(9));
  const auto out_request = seen.rewrite_record(request);
  EXPECT_FALSE(contains(out_request, std::string("secret-name")));
  EXPECT_EQ(buffer(out_request, 3), body);  // the request's mdt_body: its format is known
  EXPECT_EQ(buffer(seen.rewrite_record(reply), 2), body);
  EXPECT_TRUE(all_zero(buffer(alone.rewrite_record(reply), 2)));
}
