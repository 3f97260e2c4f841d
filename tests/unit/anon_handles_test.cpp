// SPDX-License-Identifier: GPL-2.0-or-later
// The random cookies an anonymized trace keeps for pairing become keyed
// pseudonyms (anon/handle_pseudonyms.h, issue 32): no byte of a raw cookie
// survives, in any kept struct, header form or byte order, while the same
// cookie still gives the same pseudonym everywhere, so bulk transfers, ACKs
// and a lock's enqueue, callback and cancel still pair.
#include "anon/anonymizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "bulk_messages.h"
#include "codec/lustre_msg.h"
#include "lnetcap/bodies.h"
#include "lnetcap/lnet.h"
#include "lnetcap/mdt_reint.h"
#include "lnetcap/ptlrpc.h"
#include "message_fixtures.h"
#include "report/bulk_linker.h"

using namespace lnetcap;
using anon::Anonymizer;

namespace {

constexpr std::size_t kCookie = sizeof(std::uint64_t);

std::vector<std::uint8_t> key(std::uint8_t fill) { return std::vector<std::uint8_t>(32, fill); }

// A cookie of printable bytes, as real ones can be ("tR[+", "IH  " were
// found in a Lustre 2.15.8 trace): every 4 of its bytes in a row hold two
// punctuation marks, so no keyed token (letters and digits) can spell them.
std::uint64_t cookie(char tag) {
  const std::uint8_t b[kCookie] = {std::uint8_t(tag), '!', std::uint8_t(tag), '#',
                                   std::uint8_t(tag), '%', std::uint8_t(tag), '&'};
  return load_le64(b);
}

// Where a run of 4 bytes of any cookie of `cookies` is still in `out`.
std::vector<std::string> cookie_runs_in(const std::vector<std::uint8_t>& out, const std::vector<std::uint64_t>& cookies) {
  std::vector<std::string> found;
  for (std::uint64_t c : cookies) {
    std::uint8_t b[kCookie];
    store_le64(b, c);
    for (std::size_t i = 0; i + 4 <= kCookie; ++i)
      if (std::search(out.begin(), out.end(), b + i, b + i + 4) != out.end())
        found.emplace_back(reinterpret_cast<const char*>(b + i), 4);
  }
  return found;
}

struct Form {
  bool nid16;
  bool big_endian;
};
std::string form_name(const Form& f) {
  return std::string(f.nid16 ? "nid16" : "nid4") + (f.big_endian ? " big-endian" : " little-endian");
}
void PrintTo(const Form& f, std::ostream* os) { *os << form_name(f); }

// An RPC record of opcode opc with pb_handle `handle` and buffers 1..n.
std::vector<std::uint8_t> rpc_record(const Form& f, std::uint32_t type, std::uint32_t opc, std::uint64_t handle,
                                     std::vector<std::vector<std::uint8_t>> buffers, std::uint64_t xid = 0x6b0250000080) {
  test::RpcSpec rpc;
  rpc.type = type;
  rpc.opc = opc;
  rpc.big_endian = f.big_endian;
  rpc.buffers = std::move(buffers);
  auto payload = test::lustre_msg(rpc);
  // pb_handle, in buffer 0: opaque bytes, copied whatever the byte order.
  const std::size_t body = LNETCAP_LUSTRE_MSG_HDR_SIZE(rpc.buffers.size() + 1);
  store_le64(&payload[body + LNETCAP_OFFSETOF(struct lnetcap_ptlrpc_body, pb_handle)], handle);
  const bool request = type == LNETCAP_PTL_RPC_MSG_REQUEST;
  test::LnetHeaderSpec h;
  h.nid16 = f.nid16;
  h.src = test::nid(request ? "10.0.3.2@tcp" : "10.0.3.1@tcp");
  h.dst = test::nid(request ? "10.0.3.1@tcp" : "10.0.3.2@tcp");
  h.portal = request ? LNETCAP_PORTAL_MDS_REQUEST : LNETCAP_PORTAL_MDC_REPLY;
  h.match_bits = xid;
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  test::RecordSpec r;
  r.local = h.src;
  r.peer = h.dst;
  return test::record(r, test::lnet_header(h), payload);
}

// An ldlm_request whose lock_handle[] holds `handles` (at least the two the
// struct has room for; more, as ldlm_request_bufsize() makes for cancels).
std::vector<std::uint8_t> dlm_request(const std::vector<std::uint64_t>& handles) {
  auto r = test::ldlm_request(0x200000007ULL, 0x1);
  r.resize(sizeof(struct lnetcap_ldlm_request) + std::max<std::size_t>(handles.size(), LNETCAP_LDLM_LOCKREQ_HANDLES) * kCookie, 0);
  for (std::size_t i = 0; i < handles.size(); ++i)
    store_le64(&r[sizeof(struct lnetcap_ldlm_request) + i * kCookie], handles[i]);
  return r;
}

std::vector<std::uint8_t> dlm_reply(std::uint64_t handle) {
  std::vector<std::uint8_t> r(sizeof(struct lnetcap_ldlm_reply), 0);
  store_le64(&r[LNETCAP_OFFSETOF(struct lnetcap_ldlm_reply, lock_handle)], handle);
  return r;
}

template <class T>
std::vector<std::uint8_t> with_handle(std::size_t off, std::uint64_t handle) {
  std::vector<std::uint8_t> b(sizeof(T), 0);
  store_le64(&b[off], handle);
  return b;
}

// A reint record of opcode op (in the message's byte order) with a handle at off.
std::vector<std::uint8_t> reint(const Form& f, std::uint32_t op, std::size_t off, std::uint64_t handle) {
  auto b = with_handle<struct lnetcap_mdt_rec_reint>(off, handle);
  const std::size_t at = LNETCAP_OFFSETOF(struct lnetcap_mdt_rec_reint, rr_opcode);
  f.big_endian ? store_be32(&b[at], op) : store_le32(&b[at], op);
  return b;
}

std::vector<std::uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

// The ldlm handles of an anonymized record's buffer 1: lock_handle[0] of a
// request, lock_handle of a reply.
std::uint64_t lock_handle(const std::vector<std::uint8_t>& record, bool reply) {
  std::string why;
  auto v = parse_record(record, &why);
  EXPECT_TRUE(v) << why;
  const WireReader msg{v->payload};
  const std::uint32_t count = msg.u32(LNETCAP_FIELD(struct lnetcap_lustre_msg_v2, lm_bufcount));
  const std::size_t buf1 =
      LNETCAP_LUSTRE_MSG_HDR_SIZE(count) + LNETCAP_LUSTRE_MSG_ROUND8(msg.u32(lustre_msg_buflen(0)));
  const std::size_t off =
      reply ? LNETCAP_OFFSETOF(struct lnetcap_ldlm_reply, lock_handle) : sizeof(struct lnetcap_ldlm_request);
  return load_le64(v->payload.data() + buf1 + off);
}

Message decoded(const std::vector<std::uint8_t>& record) {
  std::string why;
  auto v = parse_record(record, &why);
  EXPECT_TRUE(v) << why;
  return decode_message(*v, 0, 0);
}

class AnonymizerCookieSites : public ::testing::TestWithParam<Form> {};

// Every struct the anonymizer keeps that holds a handle, with a known
// printable cookie in each handle: none of their bytes survive, and each
// was counted as a handle rewritten.
TEST_P(AnonymizerCookieSites, NoByteOfAKeptCookieSurvives) {
  const Form f = GetParam();
  SCOPED_TRACE(form_name(f));
  const std::uint32_t req = LNETCAP_PTL_RPC_MSG_REQUEST, rep = LNETCAP_PTL_RPC_MSG_REPLY;
  std::vector<std::uint64_t> planted;
  auto c = [&](char tag) {
    planted.push_back(cookie(tag));
    return planted.back();
  };
  std::vector<std::vector<std::uint8_t>> records;
  // pb_handle and lock_handle[] of an enqueue (lock 0, one early cancel, one
  // more than the struct's two), and the reply's lock handle.
  records.push_back(rpc_record(f, req, LNETCAP_OPC_LDLM_ENQUEUE, c('a'), {dlm_request({c('b'), c('c'), c('d')})}));
  records.push_back(rpc_record(f, rep, LNETCAP_OPC_LDLM_ENQUEUE, c('e'), {dlm_reply(c('f'))}));
  records.push_back(rpc_record(f, req, LNETCAP_OPC_LDLM_BL_CALLBACK, c('g'), {dlm_request({c('h')})}));
  records.push_back(rpc_record(f, req, LNETCAP_OPC_LDLM_CANCEL, c('i'), {dlm_request({c('j'), c('k')})}));
  records.push_back(rpc_record(f, req, LNETCAP_OPC_LDLM_CONVERT, c('l'), {dlm_request({c('m')})}));
  records.push_back(rpc_record(f, rep, LNETCAP_OPC_LDLM_CONVERT, c('n'), {dlm_reply(c('o'))}));
  // RMF_CONN: the import's connection cookie; the export's comes back in pb_handle.
  std::vector<std::uint8_t> conn(kCookie);
  store_le64(conn.data(), c('p'));
  records.push_back(rpc_record(f, req, LNETCAP_OPC_MDS_CONNECT, 0,
                               {bytes("lustre-MDT0000_UUID"), bytes("client-uuid"), conn,
                                std::vector<std::uint8_t>(sizeof(struct lnetcap_obd_connect_data), 0)}));
  // Open handles: mdt_body (getattr reply), mdt_ioepoch (close).
  records.push_back(rpc_record(f, rep, LNETCAP_OPC_MDS_GETATTR, c('q'),
                               {with_handle<struct lnetcap_mdt_body>(
                                   LNETCAP_OFFSETOF(struct lnetcap_mdt_body, mbo_open_handle), c('r'))}));
  records.push_back(rpc_record(
      f, req, LNETCAP_OPC_MDS_CLOSE, c('s'),
      {with_handle<struct lnetcap_mdt_ioepoch>(LNETCAP_OFFSETOF(struct lnetcap_mdt_ioepoch, mio_open_handle), c('t')),
       reint(f, LNETCAP_REINT_SETATTR, LNETCAP_OFFSETOF(struct lnetcap_mdt_rec_reint, rr_fid1), 0), {}}));
  // obdo's o_handle: the lock of a punch.
  records.push_back(rpc_record(
      f, req, LNETCAP_OPC_OST_PUNCH, c('u'),
      {with_handle<struct lnetcap_obdo>(LNETCAP_OFFSETOF(struct lnetcap_obdo, o_handle), c('v')), {}}));
  // Reint records: an open replay's old open handle, a resync's lease.
  records.push_back(rpc_record(
      f, req, LNETCAP_OPC_MDS_REINT, c('w'),
      {reint(f, LNETCAP_REINT_OPEN, LNETCAP_OFFSETOF(struct lnetcap_mdt_rec_create, cr_open_handle_old), c('x'))}));
  records.push_back(rpc_record(
      f, req, LNETCAP_OPC_MDS_REINT, c('y'),
      {reint(f, LNETCAP_REINT_RESYNC, LNETCAP_OFFSETOF(struct lnetcap_mdt_rec_resync, rs_lease_handle), c('z')),
       dlm_request({c('0')})}));
  // LNet wire handles: a PUT that wants an ACK, a GET, an ACK, a REPLY; a
  // HELLO's incarnation.
  for (std::uint32_t type : {LNETCAP_MSG_PUT, LNETCAP_MSG_GET, LNETCAP_MSG_ACK, LNETCAP_MSG_REPLY}) {
    test::LnetHeaderSpec h;
    h.nid16 = f.nid16;
    h.type = type;
    h.src = test::nid("10.0.3.1@tcp");
    h.dst = test::nid("10.0.3.2@tcp");
    h.portal = LNETCAP_PORTAL_OST_BULK;
    h.want_ack = true;
    const char tag = static_cast<char>('1' + type);
    h.wmd = std::make_pair(c(tag), c(static_cast<char>(tag + 4)));
    test::RecordSpec r;
    r.local = h.src;
    r.peer = h.dst;
    records.push_back(test::record(r, test::lnet_header(h), {}));
  }
  test::LnetHeaderSpec hello;
  hello.nid16 = f.nid16;
  hello.type = LNETCAP_MSG_HELLO;
  hello.src = test::nid("10.0.3.1@tcp");
  hello.dst = test::nid("10.0.3.2@tcp");
  hello.hello_incarnation = c('Z');
  test::RecordSpec r;
  r.local = hello.src;
  r.peer = hello.dst;
  records.push_back(test::record(r, test::lnet_header(hello), {}));

  Anonymizer a(key(11));
  std::vector<std::uint8_t> all_in, all_out;
  for (const auto& rec : records) {
    all_in.insert(all_in.end(), rec.begin(), rec.end());
    const auto out = a.rewrite_record(rec);
    all_out.insert(all_out.end(), out.begin(), out.end());
  }
  ASSERT_EQ(cookie_runs_in(all_in, planted).size(), planted.size() * 5);  // the check can see them
  EXPECT_EQ(cookie_runs_in(all_out, planted), std::vector<std::string>{});
  // Each planted cookie counted once: nothing else was taken for a handle
  // (the MDS_CONNECT request's pb_handle is 0, kept).
  EXPECT_EQ(a.changes().handles, planted.size());
}

INSTANTIATE_TEST_SUITE_P(Forms, AnonymizerCookieSites,
                         ::testing::Values(Form{false, false}, Form{false, true}, Form{true, false}, Form{true, true}),
                         [](const auto& info) {
                           return std::string(info.param.nid16 ? "Nid16" : "Nid4") +
                                  (info.param.big_endian ? "BigEndian" : "LittleEndian");
                         });

// What carries meaning stays: "no handle" (0) and "no ACK wanted"
// (LNET_WIRE_HANDLE_COOKIE_NONE) are kept, an MD cookie keeps its type
// bits, and one cookie is one pseudonym under one key (another under
// another key).
TEST(AnonymizerHandles, SentinelsAndTypeBitsStay) {
  Anonymizer a(key(11)), b(key(11)), other(key(12));
  test::LnetHeaderSpec h;
  h.src = test::nid("10.0.3.1@tcp");
  h.dst = test::nid("10.0.3.2@tcp");
  h.portal = LNETCAP_PORTAL_OST_BULK;
  h.want_ack = false;  // ack_wmd = COOKIE_NONE twice
  test::RecordSpec r;
  r.local = h.src;
  r.peer = h.dst;
  const Message put = decoded(a.rewrite_record(test::record(r, test::lnet_header(h), {})));
  EXPECT_FALSE(put.lnet.ack_requested);
  EXPECT_EQ(put.lnet.wmd_interface, LNETCAP_LNET_WIRE_COOKIE_NONE);

  h.type = LNETCAP_MSG_GET;
  const std::uint64_t md = (0x5eedULL << (LNETCAP_LNET_COOKIE_TYPE_BITS + 2)) | LNETCAP_LNET_COOKIE_TYPE_MD;
  h.wmd = std::make_pair(0x187a2b3c4d5e6f70ULL, md);
  const auto get = test::record(r, test::lnet_header(h), {});
  const Message ga = decoded(a.rewrite_record(get)), gb = decoded(b.rewrite_record(get)),
                go = decoded(other.rewrite_record(get));
  EXPECT_NE(ga.lnet.wmd_object, md);
  EXPECT_NE(ga.lnet.wmd_interface, 0x187a2b3c4d5e6f70ULL);
  EXPECT_EQ(ga.lnet.wmd_object & LNETCAP_LNET_COOKIE_TYPE_MASK, LNETCAP_LNET_COOKIE_TYPE_MD);
  EXPECT_EQ(ga.lnet.wmd_object, gb.lnet.wmd_object);
  EXPECT_EQ(ga.lnet.wmd_interface, gb.lnet.wmd_interface);
  EXPECT_NE(ga.lnet.wmd_object, go.lnet.wmd_object);

  const Form f{false, false};
  const auto none = a.rewrite_record(rpc_record(f, LNETCAP_PTL_RPC_MSG_REQUEST, LNETCAP_OPC_LDLM_CANCEL, 0,
                                                {dlm_request({0})}));
  EXPECT_EQ(decoded(none).rpc.handle, 0u);
  EXPECT_EQ(lock_handle(none, false), 0u);
}

// A lock is named by two handles: the client's (enqueue request
// lock_handle[0], and the server's blocking callback) and the server's
// (enqueue reply, and the client's cancel).  After anonymization each
// still names one lock, in every message that holds it.
TEST(AnonymizerHandles, ALocksEnqueueCallbackAndCancelStillPair) {
  const Form f{false, false};
  const std::uint64_t client_lock = cookie('c'), server_lock = cookie('s'), export_handle = cookie('e');
  const std::uint32_t req = LNETCAP_PTL_RPC_MSG_REQUEST, rep = LNETCAP_PTL_RPC_MSG_REPLY;
  Anonymizer a(key(13));
  const auto enqueue =
      a.rewrite_record(rpc_record(f, req, LNETCAP_OPC_LDLM_ENQUEUE, export_handle, {dlm_request({client_lock})}));
  const auto granted = a.rewrite_record(rpc_record(f, rep, LNETCAP_OPC_LDLM_ENQUEUE, 0, {dlm_reply(server_lock)}));
  const auto callback = a.rewrite_record(
      rpc_record(f, req, LNETCAP_OPC_LDLM_BL_CALLBACK, 0, {dlm_request({client_lock})}, 0x6b0250000100));
  const auto cancel = a.rewrite_record(
      rpc_record(f, req, LNETCAP_OPC_LDLM_CANCEL, export_handle, {dlm_request({server_lock})}, 0x6b0250000180));
  EXPECT_NE(lock_handle(enqueue, false), client_lock);
  EXPECT_NE(lock_handle(granted, true), server_lock);
  EXPECT_EQ(lock_handle(enqueue, false), lock_handle(callback, false));
  EXPECT_EQ(lock_handle(granted, true), lock_handle(cancel, false));
  EXPECT_NE(lock_handle(enqueue, false), lock_handle(granted, true));
  // The export's handle: the same connection in both requests.
  EXPECT_EQ(decoded(enqueue).rpc.handle, decoded(cancel).rpc.handle);
  EXPECT_NE(decoded(enqueue).rpc.handle, export_handle);
}

// Bulk transfers after anonymization: lnetcap's own linker still names the
// RPC of a GET's REPLY (by the wire handle) and tells a bulk PUT's ACK from
// the reply's ACK on the same match bits (by the MD each names).
TEST(AnonymizerHandles, BulkRepliesAndAcksStillPairByWireHandle) {
  test::BulkRecords b("10.0.3.2@tcp", "10.0.3.1@tcp", test::Seen::kClient);
  constexpr std::uint64_t kXid = 0x6b02500e01a80;
  b.request(1, kXid, kXid, LNETCAP_OPC_OST_WRITE, "dd.500");
  b.get(2, kXid, {0x1111, 0x2221});
  b.data_reply(3, {0x1111, 0x2221});
  b.reply(4, kXid, LNETCAP_OPC_OST_WRITE);
  b.request(10, kXid + 0x80, kXid + 0x80, LNETCAP_OPC_OST_READ, "cat.0");
  b.put(11, kXid + 0x80, {0x3333, 0x4441});
  b.ack(12, kXid + 0x80, {0x3333, 0x4441});
  b.reply(13, kXid + 0x80, LNETCAP_OPC_OST_READ, true, {0x3333, 0x6661});
  b.ack(14, kXid + 0x80, {0x3333, 0x6661}, 224);
  // A REPLY naming an MD no GET returned must stay unpaired.
  b.data_reply(15, {0x1111, 0x2225});

  Anonymizer a(key(14));
  std::vector<std::vector<std::uint8_t>> anon;
  for (const auto& m : b.all()) anon.push_back(a.rewrite_record(m.bytes));
  report::BulkLinker linker;
  std::vector<std::optional<report::BulkLink>> links;
  for (const auto& rec : anon) links.push_back(linker.observe(decoded(rec)));
  ASSERT_EQ(links.size(), 10u);
  EXPECT_NE(decoded(anon[2]).lnet.wmd_object, 0x2221u);  // really rewritten
  ASSERT_TRUE(links[2]);  // the REPLY of the GET
  EXPECT_EQ(links[2]->rpc->opc, LNETCAP_OPC_OST_WRITE);
  ASSERT_TRUE(links[6]);  // the bulk PUT's ACK
  EXPECT_EQ(links[6]->kind, report::BulkLink::Kind::kBulk);
  ASSERT_TRUE(links[8]);  // the reply's ACK
  EXPECT_EQ(links[8]->kind, report::BulkLink::Kind::kReplyAck);
  EXPECT_FALSE(links[9]);
}

// XIDs are sequence numbers read for their order and differences: they
// move by one keyed offset (anon/xid_shift.h), in the LNet header's match
// bits and in pb_last_xid and pb_mbits alike, in either byte order, keeping
// the low byte (bulk blocks), 0 and LNet's ping match bits.
TEST(AnonymizerXids, AllMoveByOneOffsetThatKeepsOrderAndDifferences) {
  constexpr std::uint64_t kXid = 0x6b0c12a604140ULL;  // seconds << 20, as ptlrpc_init_xid() makes them
  for (bool big : {false, true}) {
    SCOPED_TRACE(big ? "big-endian" : "little-endian");
    test::RpcSpec rpc;
    rpc.opc = LNETCAP_OPC_OST_WRITE;
    rpc.big_endian = big;
    rpc.mbits = kXid + 3;  // four bulk chunks
    rpc.buffers.push_back(std::vector<std::uint8_t>(sizeof(struct lnetcap_obdo), 0));
    auto payload = test::lustre_msg(rpc);
    test::LnetHeaderSpec h;
    h.src = test::nid("10.0.3.2@tcp");
    h.dst = test::nid("10.0.3.1@tcp");
    h.portal = LNETCAP_PORTAL_OST_IO;
    h.match_bits = kXid;
    h.payload_length = static_cast<std::uint32_t>(payload.size());
    test::RecordSpec r;
    r.local = h.src;
    r.peer = h.dst;
    const auto in = test::record(r, test::lnet_header(h), payload);
    Anonymizer a(key(15));
    const Message raw = decoded(in), out = decoded(a.rewrite_record(in));
    ASSERT_TRUE(out.xid());
    EXPECT_NE(*out.xid(), kXid);
    EXPECT_EQ(*out.xid() % 256, kXid % 256);
    EXPECT_EQ(out.rpc.mbits - *out.xid(), 3u);
    EXPECT_EQ(*out.xid() - out.rpc.last_xid, kXid - raw.rpc.last_xid);  // pb_last_xid trails by as much
    // A GET of the bulk, with the request's match bits: the same value.
    h.type = LNETCAP_MSG_GET;
    h.match_bits = kXid + 2;
    EXPECT_EQ(decoded(a.rewrite_record(test::record(r, test::lnet_header(h), {}))).lnet.match_bits, *out.xid() + 2);
    // LNet's own ping keeps its match bits.
    h.portal = 0;
    h.match_bits = LNETCAP_LNET_PING_MATCHBITS;
    EXPECT_EQ(decoded(a.rewrite_record(test::record(r, test::lnet_header(h), {}))).lnet.match_bits,
              LNETCAP_LNET_PING_MATCHBITS);
  }
}

}  // namespace
