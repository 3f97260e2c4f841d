// SPDX-License-Identifier: GPL-2.0-or-later
// rig_check - compares what lnetcap captured in the kernel rig with what the
// LNet test double says it produced.
//
//   rig_check [options] CAPTURE.pcapng DOUBLE_LOG
//     --snaplen N        the -s the capture ran with (default 1024)
//     (every payload prefix must be there, byte for byte, in every attach
//     mode: the double's MDs are all page vectors, as on Lustre 2.15+)
//     --expect-drops     the ring was made tiny: require dropped > 0 and
//                        captured + dropped == generated, instead of an
//                        exact one-to-one match
//     --no-held          the traffic has no message the double held in
//                        lnet_send (the RDMA GET runs): do not require one
//
// The double's log (kmod/lnet, docs/kernel-contract.md) has one line per
// hook call with the exact 96-byte struct lnet_hdr and payload bytes.  From
// it we derive the messages lnetcap must record, by the contract's rules:
//   - every lnet_ni_send call: one SEND record (FORWARD when routing=1),
//     header and retry count as sent, payload as sent, local and peer NID
//     as logged (IPv6 NIDs included);
//   - every received, non-forwarded message: one RECV record, header as
//     received, payload as the peer sent it (PUT/REPLY: the bytes logged
//     at lnet_parse, which must also be what landed in the MD at the
//     message's offset) or none (GET/ACK);
//   - a send finalized that never passed lnet_send (LNetGetForce's GET,
//     handed to the LND directly): one SEND at lnet_finalize, local NID
//     its src_nid, peer its dest_nid, or, failed, one DROP send-failed;
//   - every REPLY an RDMA GET carried (lnd_rdma_reply: the double's RDMA
//     LND logs it with the header a message would have had): one SEND
//     record on the responder, one RECV on the initiator, with its payload;
//   - every message LNet drops is one DROP with its drop_reason: a send
//     that failed after lnet_ni_send is the OUTCOME of that SEND (same
//     msg_id), one dropped in lnet_send never reached the LND (a DROP of its
//     own); a received PUT/REPLY refused in lnet_parse is a DROP instead of
//     a RECV, a GET/ACK's drop the OUTCOME of its RECV;
//   - every SEND, FORWARD and before-LND DROP carries queue_ns, at least
//     the time the double held it in lnet_send (hold_ms); a FORWARD also
//     the time it waited for a router buffer before that (rtr_buffer_wait);
//   - health: a SEND or FORWARD is the start of an attempt, health OK
//     (LNet still has the previous attempt's failure in msg_health_status:
//     a resend must not carry it); a failed send's DROP carries the health
//     status the LND gave that attempt;
//   - a response timeout (lnet_handle_remote_failure_locked from the
//     monitor thread, cause=response_timeout): one DROP response-timeout,
//     no LNet header, the peer NI, an OUTCOME of no recorded message
//     (msg_id 0); the same call from a send's health check (cause=health)
//     is that send's failure, already its DROP: no record;
//   - every REPLY received pairs with a recorded GET (SEND or DROP) of the
//     same two NIDs whose return_wmd is the REPLY's dst_wmd.
// The capture is read with the project's own pcapng reader and record
// decoder.  Every expected message must match exactly one record and
// every record exactly one message; mismatches are listed.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <cstddef>

#include "error.h"
#include "nid.h"
#include "lnetcap/lnet.h"
#include "pcapng/reader.h"
#include "record.h"
#include "lnetcap/record.h"

namespace {

using Bytes = std::vector<std::uint8_t>;

struct Expected {
  std::string what;  // log line summary, for messages
  std::uint8_t dir = 0;
  Bytes hdr96;
  unsigned retry = 0;
  std::uint32_t plen = 0;   // payload_length of the message
  std::uint32_t have = 0;   // bytes actually present (received/sent)
  Bytes payload;            // first <= 1024 bytes
  Bytes wire;               // RECV: the bytes sent (logged at lnet_parse)
  bool check_plen = true;
  std::optional<int> status;  // checked when set (DROP records)
  bool status_valid = false;  // DROP: STATUS_VALID must be set (or clear)
  std::uint8_t reason = 0;    // drop_reason
  std::uint8_t hook = 0;      // checked when set
  bool need_queue = false;    // QUEUE_VALID with queue_ns >= hold_ns
  std::uint64_t hold_ns = 0;
  std::optional<std::size_t> outcome_of;  // OUTCOME of this expected entry
  bool outcome_untracked = false;  // OUTCOME with msg_id 0 (response timeout)
  std::optional<unsigned> health;  // health_status, HEALTH_VALID required
  std::string peer;                // peer NID text, checked when set
  std::string local;               // local NID text, checked when set
  // The payload must be left out, with PAYLOAD_UNREADABLE and this reason
  // (the double's nocap=device|discard: GPU pages, a discarding MD).
  std::uint16_t left_out = 0;
  int matched = 0;
  std::uint64_t rec_msg_id = 0;  // msg_id of the record it matched
};

std::uint16_t left_out_reason(const std::string& nocap) {
  if (nocap == "device") return LNETCAP_REC_F_PAYLOAD_DEVICE_MEMORY;
  if (nocap == "discard") return LNETCAP_REC_F_PAYLOAD_DISCARDED;
  return 0;
}

// A NID the double logged (its libcfs_nidstr form, IPv6 compressed as
// inet_ntop writes it), or "" for "-": unknown, not checked.
std::string known_nid(const std::string& logged) { return logged == "-" ? "" : logged; }

Bytes unhex(const std::string& s) {
  Bytes out;
  for (std::size_t i = 0; i + 1 < s.size(); i += 2)
    out.push_back(static_cast<std::uint8_t>(std::stoul(s.substr(i, 2), nullptr, 16)));
  return out;
}

std::map<std::string, std::string> fields(const std::string& line) {
  std::map<std::string, std::string> f;
  std::istringstream in(line);
  std::string tok;
  in >> f["hook"];
  while (in >> tok) {
    auto eq = tok.find('=');
    if (eq != std::string::npos) f[tok.substr(0, eq)] = tok.substr(eq + 1);
  }
  return f;
}

// 96-byte in-memory header -> 72-byte nid4 wire header (little-endian).
Bytes to_nid4(const Bytes& h) {
  if (h.empty()) return h;  // no LNet header
#define N4(f) LNETCAP_OFFSETOF(struct lnetcap_hdr_nid4, f)
#define N16(f) LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, f)
#define NID(f) LNETCAP_OFFSETOF(struct lnetcap_nid, f)
  Bytes w(LNETCAP_HDR_NID4_LEN, 0);
  // struct lnet_nid (type, big-endian net number and IPv4 address) -> nid4.
  auto nid4 = [&](std::size_t off, std::size_t dst) {
    const std::uint8_t* n = &h[off];
    std::uint64_t type = n[NID(nid_type)];
    std::uint64_t num = (n[NID(nid_num)] << 8) | n[NID(nid_num) + 1];
    const std::uint8_t* a = n + NID(nid_addr);
    std::uint64_t addr = (std::uint64_t(a[0]) << 24) | (a[1] << 16) | (a[2] << 8) | a[3];
    std::uint64_t v = (type << 48) | (num << 32) | addr;
    for (int i = 0; i < 8; i++) w[dst + i] = static_cast<std::uint8_t>(v >> (8 * i));
  };
  nid4(N16(dest_nid), N4(dest_nid));
  nid4(N16(src_nid), N4(src_nid));
  // pids, type, payload_length and the msg union: the same in both forms.
  std::memcpy(&w[N4(dest_pid)], &h[N16(dest_pid)], LNETCAP_HDR_NID4_LEN - N4(dest_pid));
#undef N4
#undef N16
#undef NID
  return w;
}

std::string hexs(const std::uint8_t* p, std::size_t n) {
  std::string s;
  char b[3];
  for (std::size_t i = 0; i < n; i++) {
    std::snprintf(b, sizeof(b), "%02x", p[i]);
    s += b;
  }
  return s;
}

const char* dir_name(unsigned d) {
  switch (d) {
    case LNETCAP_DIR_SEND: return "send";
    case LNETCAP_DIR_RECV: return "recv";
    case LNETCAP_DIR_FORWARD: return "forward";
    case LNETCAP_DIR_DROP: return "drop";
    default: return "?";
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::uint32_t snaplen = 1024;
  bool expect_drops = false, need_held = true;
  std::vector<std::string> pos;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--snaplen" && i + 1 < argc) snaplen = std::stoul(argv[++i]);
    else if (a == "--expect-drops") expect_drops = true;
    else if (a == "--no-held") need_held = false;
    else pos.push_back(a);
  }
  if (pos.size() != 2) {
    std::fprintf(stderr, "usage: rig_check [--snaplen N] "
                         "[--expect-drops] [--no-held] CAPTURE.pcapng DOUBLE_LOG\n");
    return 2;
  }

  // ---- expected messages from the double's log --------------------------
  std::ifstream logf(pos[1]);
  if (!logf) {
    std::fprintf(stderr, "rig_check: cannot read %s\n", pos[1].c_str());
    return 2;
  }
  std::vector<Expected> exp;
  std::size_t double_bad = 0;  // the double's own receive went wrong
  std::map<std::string, std::size_t> rx_of_msg;  // msg id -> pending RX entry
  struct TxState {
    unsigned hold_ms = 0;
    unsigned rtr_ms = 0;               // forwarded: router buffer wait
    bool sent = false;                 // this attempt reached lnet_ni_send
    std::optional<std::size_t> first;  // the message's first record
  };
  std::map<std::string, TxState> tx;  // double msg id -> send state
  std::string line;
  auto drop_of = [&](const std::string& what, const Bytes& hdr, std::uint8_t reason,
                     std::uint8_t hook) {
    Expected e;
    e.what = what;
    e.dir = LNETCAP_DIR_DROP;
    e.hdr96 = hdr;
    e.reason = reason;
    e.hook = hook;
    e.check_plen = false;
    return e;
  };
  while (std::getline(logf, line)) {
    auto f = fields(line);
    const std::string& hook = f["hook"];
    if (hook == "rtr_buffer_wait") {
      tx[f["msg"]].rtr_ms = std::stoul(f["wait_ms"]);
    } else if (hook == "lnet_handle_remote_failure_locked") {
      if (f["cause"] != "response_timeout") continue;  // a send's health check
      Expected e = drop_of(line.substr(0, 110), Bytes{}, LNETCAP_DROP_RESPONSE_TIMEOUT,
                           LNETCAP_HOOK_LNET_REMOTE_FAILURE);
      e.status = -110;
      e.status_valid = true;
      e.health = LNETCAP_HEALTH_REMOTE_TIMEOUT;
      e.outcome_untracked = true;
      e.peer = f["peer"];
      exp.push_back(e);
    } else if (hook == "lnet_send") {
      TxState& t = tx[f["msg"]];
      t.hold_ms = std::stoul(f["hold_ms"]);
      t.sent = false;
    } else if (hook == "lnet_ni_send") {
      Expected e;
      e.what = line.substr(0, 110);
      e.dir = f["routing"] == "1" ? LNETCAP_DIR_FORWARD : LNETCAP_DIR_SEND;
      e.hdr96 = unhex(f["hdr"]);
      e.retry = std::stoul(f["retry"]);
      e.plen = std::stoul(f["plen"]);
      e.have = e.plen;
      e.payload = unhex(f["payload"]);
      e.left_out = left_out_reason(f["nocap"]);
      e.local = known_nid(f["ni"]);
      e.peer = known_nid(f["peer"]);
      TxState& t = tx[f["msg"]];
      e.need_queue = true;  // every send of the double goes through lnet_send
      e.hold_ns = (t.hold_ms + t.rtr_ms) * 1000000ull;
      e.health = 0;  // this attempt has not completed
      t.rtr_ms = 0;
      t.sent = true;
      if (!t.first) t.first = exp.size();
      else e.outcome_of = *t.first;  // a resend: same message, same msg_id
      exp.push_back(e);
    } else if (hook == "lnet_parse") {
      if (f["dir"] == "forward") continue;  // recorded once, as FORWARD
      Expected e;
      e.what = line.substr(0, 110);
      e.dir = LNETCAP_DIR_RECV;
      e.hdr96 = unhex(f["hdr"]);
      e.plen = std::stoul(f["plen"]);
      e.have = 0;  // GET/ACK carry nothing; PUT/REPLY filled at finalize
      e.wire = unhex(f["payload"]);  // the bytes the peer sent
      e.local = known_nid(f["ni"]);
      e.peer = known_nid(f["peer"]);
      rx_of_msg[f["msg"]] = exp.size();
      exp.push_back(e);
    } else if (hook == "lnd_rdma_reply") {
      // The REPLY of an RDMA GET: sent by RDMA from the receive path
      // (responder: the GET's message became it, so its finalize is not
      // a receive) or landed in the GET's MD (initiator).
      Expected e;
      e.what = line.substr(0, 110);
      e.dir = f["dir"] == "send" ? LNETCAP_DIR_SEND : LNETCAP_DIR_RECV;
      e.hdr96 = unhex(f["hdr"]);
      e.plen = std::stoul(f["plen"]);
      e.have = e.plen;
      e.payload = unhex(f["payload"]);
      if (e.dir == LNETCAP_DIR_SEND) rx_of_msg.erase(f["msg"]);
      exp.push_back(e);
    } else if (hook == "lnet_parse_refused") {
      // Refused before a message existed: a GET/ACK was recorded as RECV at
      // lnet_parse and the DROP is its outcome; a PUT/REPLY is one DROP.
      unsigned type = std::stoul(f["type"]);
      bool proto = f["why"] == "proto";
      Expected d = drop_of(line.substr(0, 110), unhex(f["hdr"]),
                           proto ? LNETCAP_DROP_MALFORMED : LNETCAP_DROP_DROP_RULE,
                           proto ? LNETCAP_HOOK_LNET_PARSE : LNETCAP_HOOK_LNET_DROP);
      if (proto) {
        d.status = std::stoi(f["rc"]);
        d.status_valid = true;
      }
      if (type == LNETCAP_MSG_GET || type == LNETCAP_MSG_ACK) {
        Expected r;
        r.what = d.what;
        r.dir = LNETCAP_DIR_RECV;
        r.hdr96 = d.hdr96;
        r.check_plen = false;
        d.outcome_of = exp.size();
        exp.push_back(r);
      }
      exp.push_back(d);
    } else if (hook == "lnet_finalize" && f["dir"] == "send" && !tx.count(f["msg"])) {
      // A send finalized that never passed lnet_send: LNetGetForce's GET,
      // handed to the LND directly (no lnet_send, no lnet_ni_send, no NI
      // or peer NI in the message).  One SEND at lnet_finalize with the
      // header as sent, local NID its src_nid, peer its dest_nid; failed,
      // one DROP send-failed of its own.  No queue time: LNet never held it.
      const bool ok = f["rc"] == "0";
      const Bytes hdr = unhex(f["hdr"]);
      Expected e = drop_of(line.substr(0, 110), hdr,
                           ok ? 0 : LNETCAP_DROP_SEND_FAILED, LNETCAP_HOOK_LNET_FINALIZE);
      if (ok) e.dir = LNETCAP_DIR_SEND;
      e.check_plen = true;
      e.plen = std::stoul(f["plen"]);
      e.status = std::stoi(f["rc"]);
      e.status_valid = true;
      e.health = std::stoul(f["hs"]);
      using H = struct lnetcap_hdr_nid16;
      e.peer = lnetcap::Nid::from_lnet_nid(hdr.data() + offsetof(H, dest_nid)).to_string();
      e.local = lnetcap::Nid::from_lnet_nid(hdr.data() + offsetof(H, src_nid)).to_string();
      exp.push_back(e);
    } else if (hook == "lnet_finalize" && f["dir"] != "recv" && f["rc"] != "0") {
      // A failed send: after lnet_ni_send the OUTCOME of its SEND, before
      // it a DROP of its own with the time LNet held it.
      TxState& t = tx[f["msg"]];
      Expected e = drop_of(line.substr(0, 110), unhex(f["hdr"]),
                           t.sent ? LNETCAP_DROP_SEND_FAILED : LNETCAP_DROP_SEND_BEFORE_LND,
                           LNETCAP_HOOK_LNET_FINALIZE);
      e.retry = std::stoul(f["retry"]);
      e.status = std::stoi(f["rc"]);
      e.status_valid = true;
      e.health = std::stoul(f["hs"]);  // this attempt's, as the LND set it
      if (t.first) e.outcome_of = *t.first;
      if (!t.sent) {
        e.need_queue = true;
        e.hold_ns = t.hold_ms * 1000000ull;
        t.first = exp.size();
      }
      t.sent = false;
      exp.push_back(e);
    } else if (hook == "lnet_finalize" && f["dir"] == "recv") {
      auto it = rx_of_msg.find(f["msg"]);
      if (it == rx_of_msg.end()) continue;
      Expected& e = exp[it->second];
      if (f["rc"] == "0") {
        // What landed in the MD (read back at the message's offset) must
        // be what the peer sent; the record is compared with the sent
        // bytes, so a capture that reads a multi-use request buffer
        // anywhere but at the request's own offset fails.
        e.have = std::stoul(f["plen"]);
        e.left_out = left_out_reason(f["nocap"]);
        Bytes landed = unhex(f["payload"]);
        std::size_t n = std::min(landed.size(), e.wire.size());
        // A discarding MD keeps whatever it held: nothing to compare.
        if (e.left_out != LNETCAP_REC_F_PAYLOAD_DISCARDED &&
            (landed.size() > e.wire.size() ||
             std::memcmp(landed.data(), e.wire.data(), n) != 0)) {
          std::printf("DOUBLE received bytes differ from the bytes sent: %s\n", e.what.c_str());
          double_bad++;
        }
        e.payload.assign(e.wire.begin(), e.wire.begin() + n);
      } else {
        // Refused in lnet_parse (no MD: -ENOENT).
        unsigned type = std::stoul(f["type"]);
        Expected d = drop_of(line.substr(0, 110), e.hdr96, LNETCAP_DROP_RECV_NO_MATCH,
                             LNETCAP_HOOK_LNET_FINALIZE);
        d.status = std::stoi(f["rc"]);
        d.status_valid = true;
        if (type == LNETCAP_MSG_GET || type == LNETCAP_MSG_ACK) {
          d.outcome_of = it->second;
          exp.push_back(d);
        } else {
          d.what = e.what;
          e = d;  // the PUT/REPLY is the DROP, never a RECV
        }
      }
      rx_of_msg.erase(it);
    }
  }
  if (exp.empty()) {
    std::fprintf(stderr, "rig_check: no messages in %s\n", pos[1].c_str());
    return 1;
  }
  if (double_bad) {
    std::fprintf(stderr, "rig_check: the double received %zu messages wrong (%s)\n",
                 double_bad, pos[1].c_str());
    return 1;
  }

  // ---- records ---------------------------------------------------------------
  // A REPLY we received must find the GET it answers among the records (a
  // SEND, or its DROP): same two NIDs, REPLY dst_wmd = GET return_wmd.
  // Key: the GET's src NID, dest NID and return_wmd, as header bytes.
  std::vector<Bytes> gets, replies_in;
  auto get_key = [](const Bytes& hdr, bool reply) {
    Bytes k;
    if (hdr.size() != LNETCAP_HDR_NID16_LEN) return k;
    using H = struct lnetcap_hdr_nid16;
    const std::size_t nid = sizeof(struct lnetcap_nid);
    const std::size_t src = offsetof(H, src_nid), dst = offsetof(H, dest_nid);
    const std::size_t wmd = reply ? offsetof(H, msg.reply.dst_wmd) : offsetof(H, msg.get.return_wmd);
    const std::uint8_t* h = hdr.data();
    k.insert(k.end(), h + (reply ? dst : src), h + (reply ? dst : src) + nid);
    k.insert(k.end(), h + (reply ? src : dst), h + (reply ? src : dst) + nid);
    k.insert(k.end(), h + wmd, h + wmd + sizeof(struct lnetcap_handle_wire));
    return k;
  };
  std::size_t records = 0, unmatched = 0, bad = 0, held_checked = 0, self_pings = 0;
  std::uint64_t gap_drops = 0, isb_drops = 0, epb_drops = 0;
  try {
    lnetcap::pcapng::Reader rd(pos[0]);
    lnetcap::pcapng::Packet pkt;
    while (rd.next(pkt)) {
      const auto& ifc = rd.interfaces().at(pkt.interface_id);
      if (ifc.linktype != LNETCAP_LINKTYPE) continue;
      if (pkt.drop_count) epb_drops += *pkt.drop_count;
      std::string why;
      auto rec = lnetcap::parse_record(pkt.data, &why);
      if (!rec) {
        std::printf("BAD record at offset %llu: %s\n",
                    static_cast<unsigned long long>(pkt.offset), why.c_str());
        bad++;
        continue;
      }
      // Another lnetcap's start-up self-check: its ping of 0@lo is LNet
      // traffic every capture already attached records; the double sends
      // nothing on 0@lo itself, and never logs that ping.
      {
        const lnetcap::Nid lo = lnetcap::Nid::from_nid4(std::uint64_t{LNETCAP_LND_LOLND} << 48);
        using H = struct lnetcap_hdr_nid16;
        if (rec->hdr.local_nid == lo && rec->lnet_header.size() == LNETCAP_HDR_NID16_LEN &&
            lnetcap::Nid::from_lnet_nid(rec->lnet_header.data() + offsetof(H, dest_nid)) == lo &&
            lnetcap::Nid::from_lnet_nid(rec->lnet_header.data() + offsetof(H, src_nid)) == lo) {
          self_pings++;
          continue;
        }
      }
      records++;
      const auto& h = rec->hdr;
      if (rec->lnet_header.size() == LNETCAP_HDR_NID16_LEN) {
        std::uint32_t type = 0;
        std::memcpy(&type, rec->lnet_header.data() + offsetof(struct lnetcap_hdr_nid16, type),
                    sizeof(type));
        if (type == LNETCAP_MSG_GET &&
            (h.direction == LNETCAP_DIR_SEND || h.direction == LNETCAP_DIR_DROP))
          gets.push_back(get_key(Bytes(rec->lnet_header.data(), rec->lnet_header.data() + rec->lnet_header.size()), false));
        if (type == LNETCAP_MSG_REPLY && h.direction == LNETCAP_DIR_RECV)
          replies_in.push_back(get_key(Bytes(rec->lnet_header.data(), rec->lnet_header.data() + rec->lnet_header.size()), true));
      }
      if (h.flags & LNETCAP_REC_F_GAP_BEFORE) gap_drops++;
      // Find the expected message with this header and retry count.
      Expected* hit = nullptr;
      for (auto& e : exp) {
        if (e.dir != h.direction || e.retry != h.retry_count) continue;
        const Bytes want = rec->lnet_header.size() == 72 ? to_nid4(e.hdr96) : e.hdr96;
        if (rec->lnet_header.size() != want.size() ||
            std::memcmp(rec->lnet_header.data(), want.data(), want.size()) != 0)
          continue;
        if (!hit || (hit->matched && !e.matched)) hit = &e;
      }
      std::string hdrhex = hexs(rec->lnet_header.data(), rec->lnet_header.size());
      if (!hit) {
        std::printf("UNEXPECTED record seq=%llu dir=%s hook=%u retry=%u hdr=%s\n",
                    static_cast<unsigned long long>(h.seq), dir_name(h.direction), h.hook,
                    h.retry_count, hdrhex.c_str());
        unmatched++;
        continue;
      }
      hit->matched++;
      hit->rec_msg_id = h.msg_id;
      // Payload: length fields, then the bytes.
      std::uint32_t want_cap = std::min<std::uint32_t>(snaplen, hit->have);
      std::uint32_t cmp = std::min<std::uint32_t>(rec->payload.size(), hit->payload.size());
      bool ok = true;
      if (hit->left_out && hit->have) {
        want_cap = 0;
        const unsigned want_flags = LNETCAP_REC_F_PAYLOAD_UNREADABLE | hit->left_out;
        if ((h.flags & want_flags) != want_flags) {
          std::printf("MISMATCH payload must be left out with reason 0x%x (flags 0x%x): %s\n",
                      hit->left_out, h.flags, hit->what.c_str());
          ok = false;
        }
      }
      if (hit->status && (!(h.flags & LNETCAP_REC_F_STATUS_VALID) || h.status != *hit->status)) {
        std::printf("MISMATCH status %d (flags 0x%x), expected %d: %s\n", h.status, h.flags,
                    *hit->status, hit->what.c_str());
        ok = false;
      }
      if (h.direction == LNETCAP_DIR_DROP) {
        if (h.drop_reason != hit->reason) {
          std::printf("MISMATCH drop_reason %u, expected %u: %s\n", h.drop_reason, hit->reason,
                      hit->what.c_str());
          ok = false;
        }
        if (!!(h.flags & LNETCAP_REC_F_STATUS_VALID) != hit->status_valid) {
          std::printf("MISMATCH status valid (flags 0x%x): %s\n", h.flags, hit->what.c_str());
          ok = false;
        }
      }
      if (hit->hook && h.hook != hit->hook) {
        std::printf("MISMATCH hook %u, expected %u: %s\n", h.hook, hit->hook,
                    hit->what.c_str());
        ok = false;
      }
      if (hit->health && (!(h.flags & LNETCAP_REC_F_HEALTH_VALID) ||
                          h.health_status != *hit->health)) {
        std::printf("MISMATCH health %u (flags 0x%x), expected %u: %s\n", h.health_status,
                    h.flags, *hit->health, hit->what.c_str());
        ok = false;
      }
      if (!hit->local.empty() && h.local_nid.to_string() != hit->local) {
        std::printf("MISMATCH local %s, expected %s: %s\n", h.local_nid.to_string().c_str(),
                    hit->local.c_str(), hit->what.c_str());
        ok = false;
      }
      if (!hit->peer.empty() && h.peer_nid.to_string() != hit->peer) {
        std::printf("MISMATCH peer %s, expected %s: %s\n", h.peer_nid.to_string().c_str(),
                    hit->peer.c_str(), hit->what.c_str());
        ok = false;
      }
      // A DROP is an OUTCOME exactly when the message has an earlier record
      // (or, a response timeout, one no record names: msg_id 0).
      const bool want_outcome =
          h.direction == LNETCAP_DIR_DROP && (hit->outcome_of || hit->outcome_untracked);
      if (h.is_outcome() != want_outcome || (h.msg_id == 0) != hit->outcome_untracked) {
        std::printf("MISMATCH outcome flag %d msg_id %#llx: %s\n", h.is_outcome(),
                    static_cast<unsigned long long>(h.msg_id), hit->what.c_str());
        ok = false;
      }
      if (hit->need_queue &&
          (!(h.flags & LNETCAP_REC_F_QUEUE_VALID) || h.queue_ns < hit->hold_ns)) {
        std::printf("MISMATCH queue_ns %llu (flags 0x%x), held at least %llu: %s\n",
                    static_cast<unsigned long long>(h.queue_ns), h.flags,
                    static_cast<unsigned long long>(hit->hold_ns), hit->what.c_str());
        ok = false;
      }
      if (hit->hold_ns) held_checked++;
      if (hit->check_plen && h.payload_len != hit->plen) {
        std::printf("MISMATCH payload_len %u != %u: %s\n", h.payload_len, hit->plen,
                    hit->what.c_str());
        ok = false;
      }
      if (std::memcmp(rec->payload.data(), hit->payload.data(), cmp) != 0) {
        std::printf("MISMATCH payload bytes: %s\n", hit->what.c_str());
        ok = false;
      }
      if (rec->payload.size() != want_cap) {
        std::printf("MISMATCH payload caplen %zu, expected %u (flags 0x%x): %s\n",
                    rec->payload.size(), want_cap, h.flags, hit->what.c_str());
        ok = false;
      }
      if (!ok) bad++;
    }
    for (const auto& st : rd.statistics()) {
      if (st.second.if_drop) isb_drops += *st.second.if_drop;
      if (st.second.os_drop) isb_drops += *st.second.os_drop;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rig_check: %s\n", e.what());
    return 1;
  }

  // Links: an outcome (or resend) carries the msg_id of the message's
  // first record.
  std::size_t links = 0, bad_links = 0;
  for (const auto& e : exp) {
    if (!e.outcome_of || !e.matched || !exp[*e.outcome_of].matched) continue;
    links++;
    if (e.rec_msg_id != exp[*e.outcome_of].rec_msg_id) {
      bad_links++;
      std::printf("MISMATCH link: msg_id %#llx, its message's record has %#llx: %s\n",
                  static_cast<unsigned long long>(e.rec_msg_id),
                  static_cast<unsigned long long>(exp[*e.outcome_of].rec_msg_id), e.what.c_str());
    }
  }
  std::size_t missing = 0, dup = 0;
  for (const auto& e : exp) {
    if (e.matched == 0) {
      missing++;
      if (!expect_drops) std::printf("MISSING %s: %s\n", dir_name(e.dir), e.what.c_str());
    } else if (e.matched > 1) {
      dup++;
      std::printf("DUPLICATE x%d %s: %s\n", e.matched, dir_name(e.dir), e.what.c_str());
    }
  }
  std::size_t unpaired = 0;
  if (!expect_drops)
    for (const auto& r : replies_in)
      if (std::find(gets.begin(), gets.end(), r) == gets.end()) {
        unpaired++;
        const std::size_t nid = sizeof(struct lnetcap_nid);  // get_key: src, dst, wmd
        std::printf("UNPAIRED REPLY: no recorded GET from %s to %s with return_wmd %s\n",
                    hexs(r.data(), nid).c_str(), hexs(r.data() + nid, nid).c_str(),
                    hexs(r.data() + 2 * nid, r.size() - 2 * nid).c_str());
      }
  std::uint64_t drops = std::max(isb_drops, epb_drops);
  std::printf("rig_check: generated %zu, captured %zu, missing %zu, duplicate %zu, "
              "unexpected %zu, bad %zu, links %zu (bad %zu), unpaired replies %zu, held %zu, "
              "drops: isb %llu epb %llu gap-flags %llu; other lnetcaps' self-check pings %zu\n",
              exp.size(), records, missing, dup, unmatched, bad, links, bad_links, unpaired,
              held_checked,
              static_cast<unsigned long long>(isb_drops),
              static_cast<unsigned long long>(epb_drops),
              static_cast<unsigned long long>(gap_drops), self_pings);
  if (expect_drops) {
    if (drops == 0) {
      std::printf("FAIL: the ring was tiny but no drop was counted\n");
      return 1;
    }
    if (records + drops != exp.size()) {
      std::printf("FAIL: captured %zu + dropped %llu != generated %zu\n", records,
                  static_cast<unsigned long long>(drops), exp.size());
      return 1;
    }
    if (dup || unmatched || bad || bad_links) return 1;
    std::printf("PASS (drops accounted for)\n");
    return 0;
  }
  if (missing || dup || unmatched || bad || bad_links || unpaired) return 1;
  if (need_held && held_checked == 0) {
    std::printf("FAIL: no message the double held in lnet_send was checked\n");
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
