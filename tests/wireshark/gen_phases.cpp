// SPDX-License-Identifier: GPL-2.0-or-later
// gen_phases.cpp - SYNTHETIC per-node captures of RPCs between two clients
// and a server, for the RPC phase test (test-phases.sh): what lnetcap would
// write on client1 10.0.5.1@tcp, client2 10.0.5.3@tcp and the server
// 10.0.5.2@tcp, one file per node, to be merged with mergecap.
//
// Provenance: generated, not captured.  The records follow
// include/lnetcap/record.h and the real 2.17.0 merged sample: the client's
// SEND of a request (queue time valid), the server's RECV, the server's
// bulk GET (OST_WRITE) or PUT (OST_READ) on the request's XID, the client's
// REPLY to the GET or ACK of the PUT, the server's SEND of the reply and the
// client's RECV.  What the real sample lacks, and this has: a reply lost
// on the wire and the request resent by PtlRPC (the client's second SEND
// starts the RPC afresh: the bulk phase is the second attempt's), an LNet resend of a request (retry 1: an attempt, not a new
// message), a reply on the request's pb_mbits (REP_MBITS), a SEND with no
// queue time, an RPC only the client saw, and client2, whose clock drifts
// by 2 ms per RPC against the server's, so that no offset keeps all its
// transits non-negative (the interval is empty; negative transits count
// as 0).  The server's clock is 1.8 ms ahead of client1's.  The expected
// figures are lnetcap --summary's on the merged file: the test compares
// the plugin with it, so this file states no figures of its own.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/record.h"
#include "lnet_builders.h"
#include "nid.h"
#include "pcapng/writer.h"
#include "record.h"

using namespace lnetcap;
using namespace lnetcap::test;
using Bytes = std::vector<std::uint8_t>;

namespace {

enum Node { kClient1, kClient2, kServer, kNodes };
const char* const kNames[kNodes] = {"client1", "client2", "server"};
constexpr std::uint64_t kUs = 1000, kMs = 1000000;

struct Ev {
  std::uint64_t ts;
  RecordHeader h;
  Bytes lnet, payload;
};

class Phases {
 public:
  Phases() : nid_{nid("10.0.5.1@tcp"), nid("10.0.5.3@tcp"), nid("10.0.5.2@tcp")} {}

  struct Rpc {
    Node client = kClient1;
    std::uint32_t opc = LNETCAP_OPC_OBD_PING;
    std::uint64_t xid = 0, pb_mbits = 0;
    bool bulk_get = false, bulk_put = false;  // OST_WRITE / OST_READ
    bool queue = true;                        // the client's SEND has a queue time
    bool lost_first = false;                  // its first reply is lost: PtlRPC resends it
    bool lnet_resend = false;                 // LNet resends the SEND (retry 1)
    bool server_sees = true;
  };

  // One RPC starting at true time t.  A reply lost on its way to the
  // client: PtlRPC resends the request 20 ms later, and the server, which
  // saw, served (bulk included) and answered the first, does it again.
  void rpc(std::uint64_t t, const Rpc& r) {
    if (r.lost_first) {
      attempt(t, r, false);
      t += 20 * kMs;
    }
    attempt(t, r, true);
  }

 private:
  void attempt(std::uint64_t t, const Rpc& r, bool reply_arrives) {
    const Nid& c = nid_[r.client];
    const Nid& s = nid_[kServer];
    const std::uint32_t portal = r.opc == LNETCAP_OPC_OBD_PING ? LNETCAP_PORTAL_OST_REQUEST
                                                               : LNETCAP_PORTAL_OST_IO;
    RpcSpec rq;
    rq.opc = r.opc;
    rq.mbits = r.pb_mbits;
    rq.jobid = "gen.0";
    const Bytes req = lustre_msg(rq);
    const Bytes req_hdr = put(c, s, portal, r.xid, req.size(), 0);
    push(r.client, t, rec(r.client, LNETCAP_DIR_SEND, c, s, r.queue), req_hdr, req);
    if (r.lnet_resend) {
      RecordHeader h = rec(r.client, LNETCAP_DIR_SEND, c, s, true);
      h.flags |= LNETCAP_REC_F_HEALTH_VALID;
      h.retry_count = 1;
      push(r.client, t + 150 * kUs, h, req_hdr, req);
    }
    if (r.server_sees) push(kServer, t + 200 * kUs, rec(kServer, LNETCAP_DIR_RECV, s, c), req_hdr, req);
    if (r.server_sees && r.bulk_get) {  // the server GETs the data the client writes
      LnetHeaderSpec g;
      g.type = LNETCAP_MSG_GET;
      g.src = s;
      g.dst = c;
      g.match_bits = r.xid;
      g.portal = LNETCAP_PORTAL_OST_BULK;
      g.sink_length = 4096;
      g.wmd = std::make_pair(0x7000 + r.xid, std::uint64_t{0x11});
      const Bytes gh = lnet_header(g);
      push(kServer, t + 1 * kMs, rec(kServer, LNETCAP_DIR_SEND, s, c, true), gh, {});
      push(r.client, t + 1200 * kUs, rec(r.client, LNETCAP_DIR_RECV, c, s), gh, {});
      LnetHeaderSpec rp;
      rp.type = LNETCAP_MSG_REPLY;
      rp.src = c;
      rp.dst = s;
      rp.payload_length = 4096;
      rp.wmd = g.wmd;
      const Bytes rh = lnet_header(rp);
      const Bytes data(4096, 0x5a);
      push(r.client, t + 1300 * kUs, rec(r.client, LNETCAP_DIR_SEND, c, s, true), rh, data);
      push(kServer, t + 1700 * kUs, rec(kServer, LNETCAP_DIR_RECV, s, c), rh, data);
    }
    if (r.server_sees && r.bulk_put) {  // the server PUTs the data the client reads
      const Bytes data(4096, 0xa5);
      LnetHeaderSpec p;
      p.type = LNETCAP_MSG_PUT;
      p.src = s;
      p.dst = c;
      p.match_bits = r.xid;
      p.portal = LNETCAP_PORTAL_OST_BULK;
      p.payload_length = 4096;
      p.want_ack = true;
      const Bytes ph = lnet_header(p);
      push(kServer, t + 1 * kMs, rec(kServer, LNETCAP_DIR_SEND, s, c, true), ph, data);
      push(r.client, t + 1200 * kUs, rec(r.client, LNETCAP_DIR_RECV, c, s), ph, data);
      LnetHeaderSpec a;
      a.type = LNETCAP_MSG_ACK;
      a.src = c;
      a.dst = s;
      a.match_bits = r.xid;
      a.mlength = 4096;
      const Bytes ah = lnet_header(a);
      push(r.client, t + 1300 * kUs, rec(r.client, LNETCAP_DIR_SEND, c, s, true), ah, {});
      push(kServer, t + 1600 * kUs, rec(kServer, LNETCAP_DIR_RECV, s, c), ah, {});
    }
    RpcSpec rs;
    rs.type = LNETCAP_PTL_RPC_MSG_REPLY;
    rs.opc = r.opc;
    const Bytes rep = lustre_msg(rs);
    const Bytes rep_hdr = put(s, c, LNETCAP_PORTAL_OSC_REPLY, r.pb_mbits && !r.bulk_get && !r.bulk_put
                                                                  ? r.pb_mbits : r.xid,
                              rep.size(), 224);
    if (r.server_sees) push(kServer, t + 3 * kMs, rec(kServer, LNETCAP_DIR_SEND, s, c, true), rep_hdr, rep);
    if (reply_arrives) push(r.client, t + 3200 * kUs, rec(r.client, LNETCAP_DIR_RECV, c, s), rep_hdr, rep);
  }

 public:
  void write(const std::string& dir) {
    for (int n = 0; n < kNodes; ++n) {
      std::stable_sort(ev_[n].begin(), ev_[n].end(), [](const Ev& a, const Ev& b) { return a.ts < b.ts; });
      pcapng::Writer w(dir + "/" + kNames[n] + ".pcapng");
      w.begin_section({"lnetcap gen_phases (SYNTHETIC)", "Linux", "x86_64",
                       {std::string("synthetic RPC phases capture, node ") + kNames[n] +
                        "; see tests/wireshark/gen_phases.cpp"}});
      CaptureInterface i;
      i.name = nid_[n].to_string();
      i.description = "LNet NI " + i.name + ", synthetic, on " + kNames[n];
      const std::uint32_t id = w.add_interface(LNETCAP_LINKTYPE, i);
      for (const Ev& e : ev_[n]) {
        Bytes out;
        const std::size_t cap = std::min<std::size_t>(512, e.payload.size());
        RecordHeader h = e.h;
        h.payload_len = std::uint32_t(e.payload.size());
        encode_record(h, e.lnet, ByteSpan(e.payload.data(), cap), out);
        w.write_packet(id, e.ts, out, std::uint32_t(out.size() + e.payload.size() - cap), 0, std::nullopt);
      }
      w.close();
    }
  }

 private:
  static Bytes put(const Nid& src, const Nid& dst, std::uint32_t portal, std::uint64_t mbits,
                   std::size_t len, std::uint32_t offset) {
    LnetHeaderSpec h;
    h.src = src;
    h.dst = dst;
    h.portal = portal;
    h.match_bits = mbits;
    h.payload_length = std::uint32_t(len);
    h.offset = offset;
    return lnet_header(h);
  }

  RecordHeader rec(Node n, std::uint8_t dir, const Nid& local, const Nid& peer, bool queue = false) {
    RecordHeader h;
    h.direction = dir;
    h.hook = dir == LNETCAP_DIR_RECV ? LNETCAP_HOOK_LNET_PARSE : LNETCAP_HOOK_LNET_NI_SEND;
    h.lnd_type = local.type;
    h.cpu = 0;
    h.seq = seq_[n]++;
    h.local_nid = local;
    h.peer_nid = peer;
    h.msg_id = LNETCAP_MSG_ID(0, h.seq);
    if (dir == LNETCAP_DIR_SEND && queue) {
      h.flags |= LNETCAP_REC_F_QUEUE_VALID;
      h.queue_ns = 40 * kUs + 7 * h.seq;
    }
    return h;
  }

  // Each node's clock: the server 1.8 ms ahead of client1, so that an RPC's
  // records on both nodes interleave in the merged file as its attempts do,
  // and the server's RECV of an OST_READ's bulk ACK comes after the client's
  // RECV of the reply, on the same match bits (only the ACK's MD tells it
  // is the bulk's); client2 1 s behind, drifting 2 ms further behind per RPC it makes.
  void push(Node n, std::uint64_t t, const RecordHeader& h, const Bytes& lnet, const Bytes& pay) {
    std::int64_t skew = n == kServer ? 1800 * std::int64_t(kUs) : 0;
    if (n == kClient2) skew = -1000 * std::int64_t(kMs) - 2 * std::int64_t(kMs) * drift_;
    ev_[n].push_back({std::uint64_t(std::int64_t(t) + skew), h, lnet, pay});
  }

 public:
  std::int64_t drift_ = 0;

 private:
  Nid nid_[kNodes];
  std::uint64_t seq_[kNodes] = {1, 1, 1};
  std::vector<Ev> ev_[kNodes];
};

}  // namespace

// Writes client1.pcapng, client2.pcapng and server.pcapng into dir.
int phases_vectors(const std::string& dir) {
  Phases p;
  std::uint64_t t = 1700000000ULL * 1000000000ULL;
  std::uint64_t xid = 0x6b0c000000100ULL;
  auto next = [&] { return xid += 0x40; };
  for (int i = 0; i < 6; ++i, t += 10 * kMs) {
    Phases::Rpc w;
    w.opc = LNETCAP_OPC_OST_WRITE;
    w.xid = w.pb_mbits = next();
    w.bulk_get = true;
    w.queue = i != 2;
    w.lnet_resend = i == 4;
    p.rpc(t, w);
  }
  for (int i = 0; i < 3; ++i, t += 10 * kMs) {
    Phases::Rpc r;
    r.opc = LNETCAP_OPC_OST_READ;
    r.xid = r.pb_mbits = next();
    r.bulk_put = true;
    r.lost_first = i == 1;
    p.rpc(t, r);
  }
  Phases::Rpc ping;
  ping.xid = next();
  ping.pb_mbits = ping.xid + 1;  // the reply comes on pb_mbits (REP_MBITS)
  p.rpc(t, ping);
  t += 10 * kMs;
  Phases::Rpc alone;
  alone.xid = next();
  alone.server_sees = false;  // only the client's records
  p.rpc(t, alone);
  t += 10 * kMs;
  for (int i = 0; i < 4; ++i, t += 10 * kMs) {
    Phases::Rpc c2;
    c2.client = kClient2;
    c2.xid = next();
    p.drift_ = i;
    p.rpc(t, c2);
  }
  p.write(dir);
  return 0;
}
