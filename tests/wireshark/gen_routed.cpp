// SPDX-License-Identifier: GPL-2.0-or-later
// gen_routed.cpp - SYNTHETIC three-node routed captures for the cross-node
// linking test (test-xnode-routed.sh): what lnetcap would write on a client
// 10.0.1.1@tcp, a router with NIs 10.0.1.254@tcp and 192.168.2.254@o2ib,
// and a server 192.168.2.1@o2ib, one file per node.
//
// Provenance: generated, not captured.  The record layout follows
// include/lnetcap/record.h and what issue 22's real routed run reported of
// real Lustre 2.16.1: the sender's SEND (lnet_ni_send, peer = the router),
// one FWD record per forwarded message on the router (outgoing NI as
// local_nid, next hop as peer, queue time valid), the receiver's RECV
// (lnet_parse, peer = the router's NI on its net), all with the LNet header
// unchanged end to end.  The router's clock runs 2 ms ahead and the
// server's 3 ms behind, so a server RECV can come before the client's SEND
// in the merged file.  The workload is the hard case for linking: repeated
// byte-identical pings, lnet_selftest-like requests sharing their match
// bits (half with identical payload prefixes), bulk REPLYs whose headers
// are all the same, a resend, a message lost before the router followed by
// one with the same header, and a message dropped by the receiver; a ping
// lost after the router and an identical one 142 s later; then three pings
// from the router (recovery, discovery, a user's).
//
// Ground truth for the test, which the plugin never reads: every record of
// one message has the message's serial number as pid; comm is "xn-alone"
// on records that must be linked to none (an attempt that never left, the
// outcome records) and anything else ("xn-linked", or the task name of the
// router's pings) on records that must be linked to the others of their
// message.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lnetcap/lnet.h"
#include "lnetcap/record.h"
#include "nid.h"
#include "pcapng/writer.h"
#include "record.h"
#include "lnet_builders.h"
#include "wire_builders.h"

using namespace lnetcap;
using namespace lnetcap::test::wire;
using Bytes = std::vector<std::uint8_t>;

namespace {

enum Node { kClient, kRouter, kServer };

struct Ev {
  std::uint64_t ts;
  RecordHeader h;
  Bytes lnet;
  Bytes payload;
};

struct Hdr {
  Nid src, dst;
  std::uint32_t type = LNETCAP_MSG_PUT;
  std::uint32_t portal = 0;
  std::uint64_t mbits = 0;
  std::uint64_t cookie = 0x1234;  // MD cookie (ack/return/dst wmd)
  std::uint32_t sink_length = 0;
};

Bytes header(const Hdr& h, std::uint32_t payload_len) {
  test::LnetHeaderSpec spec;
  spec.type = h.type;
  spec.src = h.src;
  spec.dst = h.dst;
  spec.payload_length = payload_len;
  spec.match_bits = h.mbits;
  spec.portal = h.portal;
  spec.sink_length = h.sink_length;
  spec.wmd = std::make_pair(h.cookie, std::uint64_t{0x5678});
  return test::lnet_header(spec);
}

class Routed {
 public:
  Routed() : c_(*Nid::parse("10.0.1.1@tcp")), ra_(*Nid::parse("10.0.1.254@tcp")),
             rb_(*Nid::parse("192.168.2.254@o2ib")), s_(*Nid::parse("192.168.2.1@o2ib")) {}

  const Nid& client() const { return c_; }
  const Nid& server() const { return s_; }

  enum Fate { kDelivered, kResent, kLostBeforeRouter, kDroppedByReceiver, kLostAfterRouter };

  // One message sent at true time t (ns) from the client or the server.
  void message(std::uint64_t t, const Hdr& h, const Bytes& payload, Fate fate = kDelivered) {
    const std::uint32_t truth = ++serial_;
    const bool from_client = h.src == c_;
    const Node o = from_client ? kClient : kServer, d = from_client ? kServer : kClient;
    const Nid& first_hop = from_client ? ra_ : rb_;
    const Nid& router_out = from_client ? rb_ : ra_;
    const Bytes lnet = header(h, std::uint32_t(payload.size()));
    std::uint64_t msg_id = 0;
    std::uint8_t retry = 0, health = LNETCAP_HEALTH_OK;
    if (fate == kResent || fate == kLostBeforeRouter) {
      // The first attempt fails in the local LND: its SEND and the
      // outcome record saying so are linked to nothing across nodes.
      RecordHeader s = rec(o, LNETCAP_DIR_SEND, h.src, first_hop, truth, "xn-alone");
      msg_id = s.msg_id;
      push(o, t, s, lnet, payload);
      RecordHeader out = rec(o, LNETCAP_DIR_DROP, h.src, first_hop, truth, "xn-alone");
      out.flags |= LNETCAP_REC_F_OUTCOME | LNETCAP_REC_F_STATUS_VALID;
      out.hook = LNETCAP_HOOK_LNET_FINALIZE;
      out.msg_id = msg_id;
      out.health_status = LNETCAP_HEALTH_LOCAL_DROPPED;
      out.status = -5;
      out.drop_reason = LNETCAP_DROP_SEND_FAILED;
      push(o, t + 100000, out, lnet, payload);
      if (fate == kLostBeforeRouter) return;
      // LNet resends it: same message id, retry 1, and (as the BPF reads
      // msg_health_status before LNet resets it) the previous failure.
      t += 1000000;
      retry = 1;
      health = LNETCAP_HEALTH_LOCAL_DROPPED;
    }
    RecordHeader s = rec(o, LNETCAP_DIR_SEND, h.src, first_hop, truth, "xn-linked");
    if (msg_id) s.msg_id = msg_id;
    s.retry_count = retry;
    s.health_status = health;
    push(o, t, s, lnet, payload);
    RecordHeader f = rec(kRouter, LNETCAP_DIR_FORWARD, router_out, h.dst, truth, "xn-linked");
    f.flags |= LNETCAP_REC_F_QUEUE_VALID;
    f.queue_ns = 76000;
    push(kRouter, t + 300000, f, lnet, payload);
    if (fate == kLostAfterRouter) return;  // the server never saw it
    const Nid& prev_hop = from_client ? rb_ : ra_;
    RecordHeader r = rec(d, LNETCAP_DIR_RECV, h.dst, prev_hop, truth, "xn-linked");
    if (fate == kDroppedByReceiver) {
      r.direction = LNETCAP_DIR_DROP;
      r.hook = LNETCAP_HOOK_LNET_DROP;
      r.drop_reason = LNETCAP_DROP_RECV_NO_MATCH;
    }
    push(d, t + 700000, r, lnet, payload);
  }

  // A ping GET from the router to the server (one hop, no FWD), sent by
  // task comm: LNet health's recovery pings come from "monitor_thread",
  // discovery's from "lnet_discovery", a user's from "lctl".
  void router_ping(std::uint64_t t, const char* comm) {
    const std::uint32_t truth = ++serial_;
    Hdr h{rb_, s_, LNETCAP_MSG_GET, LNETCAP_PORTAL_LNET_RESERVED, LNETCAP_LNET_PING_MATCHBITS,
          0x900 + truth, 0};
    const Bytes lnet = header(h, 0);
    RecordHeader s = rec(kRouter, LNETCAP_DIR_SEND, rb_, s_, truth, comm);
    push(kRouter, t, s, lnet, {});
    push(kServer, t + 200000, rec(kServer, LNETCAP_DIR_RECV, s_, rb_, truth, "xn-linked"), lnet, {});
  }

  void write(const std::string& dir) {
    static const char* names[] = {"client", "router", "server"};
    for (int n = 0; n < 3; ++n) {
      std::stable_sort(ev_[n].begin(), ev_[n].end(),
                       [](const Ev& a, const Ev& b) { return a.ts < b.ts; });
      pcapng::Writer w(dir + "/" + names[n] + ".pcapng");
      w.begin_section({"lnetcap gen_routed (SYNTHETIC)", "Linux", "x86_64",
                       {std::string("synthetic routed capture, node ") + names[n] +
                        "; see tests/wireshark/gen_routed.cpp"}});
      // One interface per NI, named by its NID and described as lnetcap
      // describes a live capture's ("LNet NI ..., on HOST"): the plugin
      // tells the nodes of the merged file apart by that.
      std::map<std::string, std::uint32_t> ifaces;
      for (const Ev& e : ev_[n]) {
        const std::string nid = e.h.local_nid.to_string();
        if (ifaces.count(nid)) continue;
        CaptureInterface i;
        i.name = nid;
        i.description = "LNet NI " + nid + ", synthetic, on " + names[n];
        ifaces[nid] = w.add_interface(LNETCAP_LINKTYPE, i);
      }
      for (const Ev& e : ev_[n]) {
        const std::uint32_t id = ifaces[e.h.local_nid.to_string()];
        Bytes out;
        const std::size_t cap = std::min<std::size_t>(64, e.payload.size());
        RecordHeader h = e.h;
        h.payload_len = std::uint32_t(e.payload.size());
        encode_record(h, e.lnet, ByteSpan(e.payload.data(), cap), out);
        w.write_packet(id, e.ts, out, std::uint32_t(out.size() + e.payload.size() - cap), 0,
                       std::nullopt);
      }
      w.close();
    }
  }

 private:
  RecordHeader rec(Node n, std::uint8_t dir, const Nid& local, const Nid& peer,
                   std::uint32_t truth, const char* tag) {
    RecordHeader h;
    h.direction = dir;
    h.hook = dir == LNETCAP_DIR_RECV ? LNETCAP_HOOK_LNET_PARSE : LNETCAP_HOOK_LNET_NI_SEND;
    h.lnd_type = local.type;
    h.flags = LNETCAP_REC_F_TASK_VALID | LNETCAP_REC_F_HEALTH_VALID;
    h.cpu = 0;
    h.pid = truth;
    h.comm = tag;
    h.seq = seq_[n]++;
    h.local_nid = local;
    h.peer_nid = peer;
    h.msg_id = LNETCAP_MSG_ID(0, h.seq);
    return h;
  }
  void push(Node n, std::uint64_t t, const RecordHeader& h, const Bytes& lnet, const Bytes& pay) {
    static const std::int64_t skew_ns[] = {0, 2000000, -3000000};
    ev_[n].push_back({std::uint64_t(std::int64_t(t) + skew_ns[n]), h, lnet, pay});
  }

  Nid c_, ra_, rb_, s_;
  std::uint32_t serial_ = 0;
  std::array<std::uint64_t, 3> seq_{{1, 1, 1}};
  std::vector<Ev> ev_[3];
};

Bytes bytes(std::size_t n, std::uint8_t fill, std::uint32_t tag = 0) {
  Bytes b(n, fill);
  for (int i = 0; i < 4 && n >= 16; ++i) b[12 + i] = std::uint8_t(tag >> (8 * i));
  return b;
}

}  // namespace

// Writes client.pcapng, router.pcapng and server.pcapng into dir.
int routed_vectors(const std::string& dir) {
  Routed r;
  std::uint64_t t = 1700000000ULL * 1000000000ULL;
  const std::uint64_t ms = 1000000;
  // Five byte-identical pings and their identical replies, 1 s apart.
  Hdr ping{r.client(), r.server(), LNETCAP_MSG_GET, LNETCAP_PORTAL_LNET_RESERVED,
           LNETCAP_LNET_PING_MATCHBITS, 0x77, 0};
  // The reply is the server's lnet_ping_info: two NIs on o2ib, so the
  // server is a multi-rail peer with primary NID 192.168.2.2@o2ib.
  Hdr pong{r.server(), r.client(), LNETCAP_MSG_REPLY, 0, 0, 0x77, 0};
  const std::size_t ni = sizeof(struct lnetcap_ping_info), nis = sizeof(struct lnetcap_ni_status);
  W pi(ni + 3 * nis);
  pi.u32(OFF(lnetcap_ping_info, pi_magic), LNETCAP_LNET_PROTO_PING_MAGIC);
  pi.u32(OFF(lnetcap_ping_info, pi_pid), LNETCAP_LNET_PID_LUSTRE);
  pi.u32(OFF(lnetcap_ping_info, pi_nnis), 3);
  pi.u64(ni + 0 * nis + OFF(lnetcap_ni_status, ns_nid), Nid::parse("0@lo")->to_nid4());
  pi.u64(ni + 1 * nis + OFF(lnetcap_ni_status, ns_nid), Nid::parse("192.168.2.2@o2ib")->to_nid4());
  pi.u64(ni + 2 * nis + OFF(lnetcap_ni_status, ns_nid), r.server().to_nid4());
  for (int i = 0; i < 5; ++i, t += 1000 * ms) {
    r.message(t, ping, {});
    r.message(t + 1 * ms, pong, pi.b);
  }
  // lnet_selftest-like requests: one portal, one match-bits value for all,
  // the first ten with identical payload prefixes, then the replies.
  Hdr req{r.client(), r.server(), LNETCAP_MSG_PUT, 50, 0x7000000000000001ULL, 0, 0};
  Hdr rep{r.server(), r.client(), LNETCAP_MSG_PUT, 51, 0x7000000000000002ULL, 0, 0};
  for (std::uint32_t i = 0; i < 20; ++i, t += 2 * ms) {
    r.message(t, req, bytes(136, 0x11, i < 10 ? 0 : i));
    r.message(t + ms / 2, rep, bytes(136, 0x22, i < 10 ? 0 : i));
  }
  // brw write: the server GETs 1 MB from the client; every REPLY has the
  // same header (dst_wmd of the server's MD, no match bits) and zeroes.
  for (std::uint32_t i = 0; i < 10; ++i, t += 3 * ms) {
    Hdr get{r.server(), r.client(), LNETCAP_MSG_GET, 52, 0x9000 + i, 0xbeef, 1 << 20};
    Hdr reply{r.client(), r.server(), LNETCAP_MSG_REPLY, 0, 0, 0xbeef, 0};
    r.message(t, get, {});
    r.message(t + ms, reply, Bytes(1 << 20, 0));
  }
  // A resend (first attempt dropped locally), a request lost before the
  // router and then one with the same header, one the server drops.
  t += 10 * ms;
  r.message(t, req, bytes(136, 0x33, 1), Routed::kResent);
  t += 10 * ms;
  r.message(t, req, bytes(136, 0x44, 2), Routed::kLostBeforeRouter);
  r.message(t + 2 * ms, req, bytes(136, 0x44, 2));
  t += 10 * ms;
  r.message(t, req, bytes(136, 0x55, 3), Routed::kDroppedByReceiver);
  // A ping lost after the router, and 142 s later an identical one that
  // arrives: its RECV must not link to the first (time window, 60 s).
  t += 10 * ms;
  r.message(t, ping, {}, Routed::kLostAfterRouter);
  r.message(t + 142000 * ms, ping, {});
  t += 142000 * ms;
  // The router pings the server three times: health recovery, discovery,
  // a user's lctl ping.
  t += 10 * ms;
  r.router_ping(t, "monitor_thread");
  r.router_ping(t + ms, "lnet_discovery");
  r.router_ping(t + 2 * ms, "lctl");
  r.write(dir);
  return 0;
}
