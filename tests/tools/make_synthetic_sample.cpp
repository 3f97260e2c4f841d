// SPDX-License-Identifier: GPL-2.0-or-later
// make_synthetic_sample - writes samples/synthetic-rpcs.pcapng: a small,
// deterministic lnetcap capture whose messages are built byte by byte as
// Lustre lays them out (tests/support/lnet_builders.h), covering what the
// real corpus lacks: nid16 headers and IPv6/kfi/o2ib NIDs, a big-endian
// sender, an error reply, health failures and retries, a forwarded
// message, truncated payloads and a drop gap.
//
// Usage: make_synthetic_sample OUTPUT.pcapng
#include <cstdio>

#include "error.h"
#include "lnet_builders.h"
#include "lnetcap/record.h"
#include "pcapng/pcapng.h"
#include "pcapng/writer.h"
#include "pcapng_sink.h"

using namespace lnetcap;
using namespace lnetcap::test;

namespace {

struct Emitter {
  pcapng::Writer& w;
  std::uint64_t ts = 1700000000000000000ULL;  // 2023-11-14T22:13:20Z
  std::uint64_t seq = 0;

  void emit(std::uint32_t iface, RecordSpec r, const LnetHeaderSpec& h,
            const std::vector<std::uint8_t>& payload, std::uint64_t gap = 0) {
    r.seq = ++seq + gap;
    seq = r.seq;
    const auto rec = record(r, lnet_header(h), payload);
    const std::uint32_t orig = static_cast<std::uint32_t>(rec.size() - std::min<std::size_t>(payload.size(), r.snaplen) + payload.size());
    const std::uint32_t flags = r.direction == 2 ? pcapng::kEpbInbound : pcapng::kEpbOutbound;
    w.write_packet(iface, ts, rec, orig, flags, gap ? std::optional<std::uint64_t>(gap) : std::nullopt);
    ts += 137000;  // 137 us between messages
  }
};

LnetHeaderSpec put(const char* src, const char* dst, std::uint32_t portal, std::uint64_t xid,
                   const std::vector<std::uint8_t>& payload, std::uint32_t offset = 0) {
  LnetHeaderSpec h;
  h.type = LNETCAP_MSG_PUT;
  h.src = nid(src);
  h.dst = nid(dst);
  h.portal = portal;
  h.match_bits = xid;
  h.offset = offset;
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  return h;
}

RecordSpec rec(std::uint8_t dir, const char* local, const char* peer) {
  RecordSpec r;
  r.direction = dir;
  r.local = nid(local);
  r.peer = nid(peer);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.pcapng\n", argv[0]);
    return 1;
  }
  try {
    pcapng::Writer w(argv[1]);
    pcapng::SectionInfo s;
    s.user_appl = "lnetcap make_synthetic_sample";  // fixed: the file must be reproducible
    s.os = "synthetic";
    s.comments = {"Synthetic capture built by tests/tools/make_synthetic_sample.cpp; not real traffic."};
    w.begin_section(s);
    w.add_interface(LNETCAP_LINKTYPE, {"tcp", "10.0.3.2@tcp (synthetic client)", "", "", "", 0});
    w.add_interface(LNETCAP_LINKTYPE, {"kfi", "16@kfi (synthetic)", "", "", "", 0});
    w.add_interface(LNETCAP_LINKTYPE, {"tcp1", "2001:db8::9@tcp1 (synthetic router)", "", "", "", 0});
    Emitter e{w};

    // 1-2: OBD_PING request and its reply (AT: reply lands at offset 224).
    RpcSpec ping;
    ping.opc = LNETCAP_OPC_OBD_PING;
    ping.uid = 0;
    ping.jobid = "ping.0";
    auto p = lustre_msg(ping);
    RecordSpec r = rec(1, "10.0.3.2@tcp", "10.0.3.1@tcp");
    r.flags = LNETCAP_REC_F_TASK_VALID;
    r.pid = 2011;
    r.comm = "ll_ping";
    e.emit(0, r, put("10.0.3.2@tcp", "10.0.3.1@tcp", LNETCAP_PORTAL_OST_REQUEST, 0x655400000000ULL, p), p);
    RpcSpec pong = ping;
    pong.type = LNETCAP_PTL_RPC_MSG_REPLY;
    pong.version = 3;
    pong.jobid.clear();
    auto pp = lustre_msg(pong);
    e.emit(0, rec(2, "10.0.3.2@tcp", "10.0.3.1@tcp"),
           put("10.0.3.1@tcp", "10.0.3.2@tcp", LNETCAP_PORTAL_OSC_REPLY, 0x655400000000ULL, pp, 224), pp);

    // 3-4: LDLM_ENQUEUE with intent, answered by an ENOENT error.
    RpcSpec enq;
    enq.opc = LNETCAP_OPC_LDLM_ENQUEUE;
    enq.version = 0x00040003;
    enq.uid = 500;
    enq.gid = 100;
    enq.jobid = "dd.500";
    enq.buffers.push_back(ldlm_request(0x200000007ULL, 0x1));
    r = rec(1, "10.0.3.2@tcp", "10.0.3.1@tcp");
    r.flags = LNETCAP_REC_F_TASK_VALID;
    r.pid = 4321;
    r.comm = "dd";
    auto ep = lustre_msg(enq);
    e.emit(0, r, put("10.0.3.2@tcp", "10.0.3.1@tcp", LNETCAP_PORTAL_MDS_REQUEST, 0x655400000080ULL, ep), ep);
    RpcSpec err;
    err.type = LNETCAP_PTL_RPC_MSG_ERR;
    err.opc = LNETCAP_OPC_LDLM_ENQUEUE;
    err.version = 3;
    err.status = -2;
    auto xp = lustre_msg(err);
    e.emit(0, rec(2, "10.0.3.2@tcp", "10.0.3.1@tcp"),
           put("10.0.3.1@tcp", "10.0.3.2@tcp", LNETCAP_PORTAL_MDC_REPLY, 0x655400000080ULL, xp, 224), xp);

    // 5-6: LNet ping GET over kfi that timed out once, then its REPLY.
    LnetHeaderSpec g;
    g.type = LNETCAP_MSG_GET;
    g.src = nid("16@kfi");
    g.dst = nid("17@kfi");
    g.match_bits = LNETCAP_LNET_PING_MATCHBITS;
    g.sink_length = 272;
    r = rec(1, "16@kfi", "17@kfi");
    r.flags = LNETCAP_REC_F_HEALTH_VALID;
    r.health = LNETCAP_HEALTH_REMOTE_TIMEOUT;
    r.retries = 1;
    e.emit(1, r, g, {});
    std::vector<std::uint8_t> info(16 + 32, 0);
    store_le32(&info[0], LNETCAP_LNET_PROTO_PING_MAGIC);
    store_le32(&info[4], 0x1 | 0x2 | 0x8 | 0x10);
    store_le32(&info[8], LNETCAP_LNET_PID_LUSTRE);
    store_le32(&info[12], 2);
    store_le64(&info[16], nid("0@lo").to_nid4());
    store_le32(&info[24], 7);  // ping target sequence
    store_le64(&info[32], nid("17@kfi").to_nid4());
    store_le32(&info[40], LNETCAP_LNET_NI_STATUS_UP);
    LnetHeaderSpec rp;
    rp.type = LNETCAP_MSG_REPLY;
    rp.src = nid("17@kfi");
    rp.dst = nid("16@kfi");
    rp.payload_length = static_cast<std::uint32_t>(info.size());
    e.emit(1, rec(2, "16@kfi", "17@kfi"), rp, info);

    // 7: OST_WRITE in nid16 form from a big-endian IPv6 client, forwarded by
    // a router, payload cut at 64 bytes; two records were lost before it.
    RpcSpec wr;
    wr.opc = LNETCAP_OPC_OST_WRITE;
    wr.version = 0x00030003;
    wr.big_endian = true;
    wr.buffers.push_back(std::vector<std::uint8_t>(208, 0));
    auto wp = lustre_msg(wr);
    LnetHeaderSpec h6 = put("2001:db8::2@tcp1", "2001:db8::1@tcp1", LNETCAP_PORTAL_OST_IO, 0x655400000100ULL, wp);
    h6.nid16 = true;
    r = rec(3, "2001:db8::9@tcp1", "2001:db8::1@tcp1");
    r.snaplen = 64;
    e.emit(2, r, h6, wp, 2);

    // 8: an ACK for a bulk PUT, dropped by LNet after a local error.
    LnetHeaderSpec ack;
    ack.type = LNETCAP_MSG_ACK;
    ack.src = nid("10.0.3.1@tcp");
    ack.dst = nid("10.0.3.2@tcp");
    ack.match_bits = 0x655400000101ULL;
    ack.mlength = 1048576;
    r = rec(4, "10.0.3.2@tcp", "10.0.3.1@tcp");
    r.flags = LNETCAP_REC_F_HEALTH_VALID | LNETCAP_REC_F_STATUS_VALID;
    r.health = LNETCAP_HEALTH_LOCAL_ERROR;
    r.status = -5;
    e.emit(0, r, ack, {});

    pcapng::InterfaceStats st;
    st.timestamp_ns = e.ts;
    st.if_drop = 2;
    st.usr_deliv = 8;
    w.write_interface_stats(0, st);
    w.close();
  } catch (const Error& err) {
    std::fprintf(stderr, "make_synthetic_sample: %s\n", err.what());
    return 1;
  }
  return 0;
}
