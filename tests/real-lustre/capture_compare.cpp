// SPDX-License-Identifier: GPL-2.0-or-later
#include "capture_compare.h"

#include <algorithm>
#include <fstream>
#include <cstdio>
#include <sstream>
#include <tuple>

#include "error.h"
#include "lnetcap/record.h"
#include "pcapng/reader.h"

namespace lnetcap::real_lustre {

namespace {

constexpr std::size_t kMaxExamples = 5;
constexpr std::size_t kTailBytes = 56;  // pids .. end of the message union

std::string hex(const std::vector<std::uint8_t>& b, std::size_t n) {
  std::string s;
  char x[3];
  for (std::size_t i = 0; i < std::min(n, b.size()); i++) {
    std::snprintf(x, sizeof(x), "%02x", b[i]);
    s += x;
  }
  return s;
}

using Key = std::tuple<std::string, std::string, std::vector<std::uint8_t>>;
Key key_of(const Captured& c) { return {c.src, c.dst, c.tail}; }

// LNet dropped the message (on receive: its bytes never landed).
bool dropped(const Captured& c) {
  return c.direction == LNETCAP_DIR_DROP ||
         (c.direction == LNETCAP_DIR_RECV && c.status && *c.status < 0);
}

// A message between two NIDs of the node (itself, 0@lo, or one of its NIs
// to another: a multi-rail node's recovery pings of its own NIs) goes
// through the loopback LND, never on a link.
bool on_node(const Captured& c, const std::vector<std::string>& locals) {
  auto local = [&](const std::string& n) { return std::find(locals.begin(), locals.end(), n) != locals.end(); };
  return c.src == c.dst || c.src.ends_with("@lo") || c.dst.ends_with("@lo") || (local(c.src) && local(c.dst));
}

// Bytes both copies carry agree.
bool prefix_agrees(const Captured& a, const Captured& b) {
  const std::size_t n = std::min(a.payload.size(), b.payload.size());
  return std::equal(a.payload.begin(), a.payload.begin() + static_cast<long>(n), b.payload.begin());
}

std::string describe(const Captured& c) {
  std::ostringstream o;
  if (c.link) o << "link " << c.link << " ";
  o << "frame " << c.frame << " " << direction_name(c.direction) << " "
    << (msg_type_name(c.lnet.type) ? msg_type_name(c.lnet.type) : "?") << " " << c.src << " > "
    << c.dst;
  if (c.lnet.portal) o << " portal " << *c.lnet.portal;
  if (c.lnet.match_bits) o << " mb 0x" << std::hex << *c.lnet.match_bits << std::dec;
  o << " len " << c.lnet.payload_length;
  return o.str();
}

// Names of the LNet header fields that differ between two copies.
std::vector<std::string> differing_fields(const Captured& a, const Captured& b) {
  std::vector<std::string> d;
  const auto& x = a.lnet;
  const auto& y = b.lnet;
  if (a.src != b.src) d.push_back("src_nid");
  if (a.dst != b.dst) d.push_back("dest_nid");
  if (x.type != y.type) d.push_back("type");
  if (x.src_pid != y.src_pid) d.push_back("src_pid");
  if (x.dest_pid != y.dest_pid) d.push_back("dest_pid");
  if (x.payload_length != y.payload_length) d.push_back("payload_length");
  if (x.portal != y.portal) d.push_back("portal");
  if (x.match_bits != y.match_bits) d.push_back("match_bits");
  if (x.hdr_data != y.hdr_data) d.push_back("hdr_data");
  if (x.offset != y.offset) d.push_back("offset");
  if (x.sink_length != y.sink_length) d.push_back("sink_length");
  if (x.mlength != y.mlength) d.push_back("mlength");
  if (x.ack_requested != y.ack_requested) d.push_back("ack_requested");
  if (d.empty() && a.tail != b.tail) d.push_back("other_header_bytes");  // wmd cookies
  return d;
}

// PtlRPC fields that `lnetcap -r` prints and that differ.
std::vector<std::string> differing_rpc(const Captured& a, const Captured& w) {
  std::vector<std::string> d;
  if (a.rpc.opc != w.rpc.opc) d.push_back("opc");
  if (a.rpc.type != w.rpc.type) d.push_back("rpc_type");
  if (a.rpc.status != w.rpc.status) d.push_back("status");
  if (a.xid != w.xid) d.push_back("xid");
  if (a.rpc.jobid != w.rpc.jobid) d.push_back("jobid");
  return d;
}

void note(Verdict& v, const std::string& line) {
  if (v.examples.size() < kMaxExamples) v.examples.push_back(line);
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ",") + n;
  return s;
}

// What a paired record's payload is against one wire copy, worst last: a
// FORWARD is judged by the worse of its two copies.
enum class Payload { none, equal, short_, unreadable, different };

struct PayloadCheck {
  Payload result = Payload::none;
  std::size_t want = 0;  // bytes the record must carry
};

PayloadCheck check_payload(const Captured& c, const Captured& w, std::uint32_t snaplen) {
  PayloadCheck p;
  p.want = std::min<std::size_t>({snaplen, w.payload.size(), c.lnet.payload_length});
  if (p.want == 0) p.result = Payload::none;
  else if (c.payload.empty()) p.result = Payload::unreadable;
  else if (!prefix_agrees(c, w)) p.result = Payload::different;
  else if (c.payload.size() < p.want) p.result = Payload::short_;
  else p.result = Payload::equal;
  return p;
}

// The router buffer pool a forwarded message needs (lnet_msg2bufpool:
// by its payload in pages).
const char* router_pool(std::uint32_t payload_length) {
  if (payload_length == 0) return "tiny";
  return payload_length <= 4096 ? "small" : "large";
}

void time_forward(Verdict& v, const Captured& fwd, const Captured& a, const Captured& b) {
  if (!fwd.queue_ns) return;
  const std::uint64_t wire = a.ts_ns > b.ts_ns ? a.ts_ns - b.ts_ns : b.ts_ns - a.ts_ns;
  auto& t = v.forward_timing[router_pool(fwd.lnet.payload_length)];
  t.n++;
  t.queue_total_ns += *fwd.queue_ns;
  t.wire_total_ns += wire;
  t.queue_max_ns = std::max(t.queue_max_ns, *fwd.queue_ns);
  t.wire_max_ns = std::max(t.wire_max_ns, wire);
  if (*fwd.queue_ns > wire + Verdict::kClockSlackNs) {
    t.queue_over_wire++;
    note(v, "queue time " + std::to_string(*fwd.queue_ns / 1000) + " us longer than " +
                std::to_string(wire / 1000) + " us between the links: " + describe(fwd));
  }
}

}  // namespace

Captured capture_of(const Message& m, std::uint64_t frame) {
  Captured c;
  c.frame = frame;
  c.ts_ns = m.ts_ns;
  c.direction = m.rec.hdr.direction;
  c.flags = m.rec.hdr.flags;
  c.payload_len = m.rec.hdr.payload_len;
  if (m.rec.hdr.flags & LNETCAP_REC_F_STATUS_VALID) c.status = m.rec.hdr.status;
  c.outcome = m.rec.hdr.is_outcome();
  c.drop_reason = m.rec.hdr.drop_reason;
  c.msg_id = m.rec.hdr.msg_id;
  if (m.rec.hdr.flags & LNETCAP_REC_F_QUEUE_VALID) c.queue_ns = m.rec.hdr.queue_ns;
  c.src = m.lnet.src_nid.to_string();
  c.dst = m.lnet.dest_nid.to_string();
  const auto& h = m.rec.lnet_header;
  const std::size_t nids = h.size() == 96 ? 40 : 16;  // nid16 vs nid4 form
  if (h.size() >= nids + kTailBytes) c.tail.assign(h.begin() + nids, h.begin() + nids + kTailBytes);
  c.payload.assign(m.rec.payload.begin(), m.rec.payload.end());
  c.lnet = m.lnet;
  c.rpc = m.rpc;
  c.xid = m.xid();
  return c;
}

std::vector<Captured> read_capture(const std::string& path) {
  std::vector<Captured> out;
  pcapng::Reader rd(path);
  pcapng::Packet pkt;
  std::uint64_t frame = 0;
  while (rd.next(pkt)) {
    frame++;
    if (rd.interfaces().at(pkt.interface_id).linktype != LNETCAP_LINKTYPE) continue;
    std::string why;
    auto rec = parse_record(pkt.data, &why);
    if (!rec) throw Error(path + ": frame " + std::to_string(frame) + ": " + why);
    out.push_back(capture_of(decode_message(*rec, pkt.ts_ns, pkt.interface_id), frame));
  }
  return out;
}

std::vector<Captured> merge_wires(std::vector<std::vector<Captured>> links) {
  if (links.size() == 1) return std::move(links.front());
  std::vector<Captured> all;
  for (std::size_t l = 0; l < links.size(); l++)
    for (auto& c : links[l]) {
      c.link = l + 1;
      all.push_back(std::move(c));
    }
  // The window (compare) is a stretch of wire order: across links that
  // must be time order, and both recordings share the router QEMU's clock.
  std::stable_sort(all.begin(), all.end(),
                   [](const Captured& a, const Captured& b) { return a.ts_ns < b.ts_ns; });
  return all;
}

Verdict compare(const std::vector<Captured>& capture, const std::vector<Captured>& wire,
                const std::string& local, std::uint32_t snaplen) {
  return compare(capture, wire, std::vector<std::string>{local}, snaplen);
}

TcpFate read_tcp_fate(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot read (tcp_fate.py's output)");
  TcpFate fate;
  std::string line;
  for (std::size_t n = 1; std::getline(in, line); n++) {
    std::istringstream f(line);
    std::string kind;
    f >> kind;
    bool ok = false;
    TcpFate::WireRecord rec;
    std::string conn;
    if (kind == "unacked" || kind == "unread") {
      ok = static_cast<bool>(f >> rec.first >> rec.second) && rec.first > 0;
      if (kind == "unread") ok = ok && static_cast<bool>(f >> conn);
      if (ok && kind == "unacked") fate.unacked.insert(rec);
      if (ok && kind == "unread") fate.unread[rec] = conn;
    } else if (kind == "reset") {
      TcpFate::Reset r;
      ok = static_cast<bool>(f >> r.from >> r.to >> r.ts_ns);
      if (ok) fate.resets.push_back(r);
    }
    if (!ok) throw Error(path + ":" + std::to_string(n) + ": not a tcp_fate.py line: " + line);
  }
  return fate;
}

namespace {

// A wire record as tcp_fate.py names it: one wire file is link 1
// (merge_wires leaves its records at link 0).
TcpFate::WireRecord fate_key(const Captured& w) { return {w.link ? w.link : 1, w.frame}; }

// The connection a reset ended that carried wire record w, or empty.
std::string reset_conn(const TcpFate& fate, const Captured& w) {
  auto u = fate.unread.find(fate_key(w));
  return u == fate.unread.end() ? std::string() : u->second;
}

std::string ip_of(const std::string& nid) { return nid.substr(0, nid.find('@')); }

// How far the recordings' clock is ahead of the capture's: the median over
// paired messages of wire time minus capture time (guest and QEMU clocks
// drift apart by up to a second under TCG).
std::int64_t wire_clock_offset(const std::vector<const Captured*>& net,
                               const std::vector<std::vector<std::size_t>>& copies,
                               const std::vector<const Captured*>& wl) {
  std::vector<std::int64_t> d;
  for (std::size_t i = 0; i < net.size(); i++)
    if (!copies[i].empty())
      d.push_back(static_cast<std::int64_t>(wl[copies[i][0]]->ts_ns) - static_cast<std::int64_t>(net[i]->ts_ns));
  if (d.empty()) return 0;
  std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2), d.end());
  return d[d.size() / 2];
}

// A SEND whose bytes a reset connection may have discarded: a connection
// from its source to its destination address was reset before the
// sender's FIN, at most kResetWindowNs after the send.
bool sent_into_reset(const Captured& c, const TcpFate& fate, std::int64_t offset) {
  const std::int64_t sent = static_cast<std::int64_t>(c.ts_ns) + offset;
  for (const auto& r : fate.resets) {
    const std::int64_t at = static_cast<std::int64_t>(r.ts_ns);
    if (r.from == ip_of(c.src) && r.to == ip_of(c.dst) &&
        at >= sent - static_cast<std::int64_t>(Verdict::kClockToleranceNs) &&
        at <= sent + static_cast<std::int64_t>(Verdict::kResetWindowNs))
      return true;
  }
  return false;
}

}  // namespace

Verdict compare(const std::vector<Captured>& capture, const std::vector<Captured>& wire,
                const std::vector<std::string>& locals, std::uint32_t snaplen, const TcpFate& fate) {
  Verdict v;
  v.records = capture.size();
  std::vector<const Captured*> net;
  for (const auto& c : capture) {
    v.by_direction[direction_name(c.direction)]++;
    if (c.direction == LNETCAP_DIR_DROP) v.drop_records++;
    if (c.direction == LNETCAP_DIR_RECV && dropped(c)) v.recv_error++;
    // An outcome completes a message recorded before: never paired again.
    if (c.outcome) v.outcomes++;
    else if (on_node(c, locals)) v.on_node++;
    else net.push_back(&c);
  }
  std::vector<const Captured*> wl;
  for (const auto& w : wire) {
    if (w.lnet.type == LNETCAP_MSG_HELLO) v.hello++;
    else wl.push_back(&w);
  }
  v.wire = wl.size();

  // Pair by header; among equal headers prefer agreeing payload bytes.  A
  // FORWARD takes a second copy from another link than its first.
  std::map<Key, std::vector<std::size_t>> free_wire;  // key -> wire indexes, in order
  for (std::size_t i = 0; i < wl.size(); i++) free_wire[key_of(*wl[i])].push_back(i);
  // Headers on the wire more than a forwarded message's two copies: which
  // copy is whose is a guess (NOACK PUTs carry no MD handle), so their
  // timing is not judged.
  std::map<Key, std::size_t> copies_of_header;
  for (const auto& [key, idx] : free_wire) copies_of_header[key] = idx.size();
  std::vector<std::vector<std::size_t>> copies(net.size());  // wire indexes paired
  std::vector<bool> wire_used(wl.size(), false);
  // Takes record i a free copy of its header (one on another link than its
  // first, for a FORWARD's second): with agreeing payload bytes only, or any.
  auto take_one = [&](std::size_t i, bool agreeing) {
    auto it = free_wire.find(key_of(*net[i]));
    if (it == free_wire.end()) return false;
    auto& cand = it->second;
    auto pick = std::find_if(cand.begin(), cand.end(), [&](std::size_t w) {
      return (copies[i].empty() || wl[w]->link != wl[copies[i][0]]->link) &&
             (!agreeing || prefix_agrees(*net[i], *wl[w]));
    });
    if (pick == cand.end()) return false;
    copies[i].push_back(*pick);
    wire_used[*pick] = true;
    cand.erase(pick);
    return true;
  };
  // Copies with agreeing bytes first, for every record; only then the rest.
  // Taking any copy at once would let a record whose own copy never reached
  // the wire (a failed attempt, a connection torn down under a fault) take
  // the next message's, and that one the next's: NOACK PUTs (lnet_selftest's
  // requests) share one header.
  for (const bool agreeing : {true, false})
    for (std::size_t i = 0; i < net.size(); i++) {
      const std::size_t want = net[i]->direction == LNETCAP_DIR_FORWARD ? 2 : 1;
      while (copies[i].size() < want && take_one(i, agreeing)) {
      }
    }
  for (const auto& c : copies) v.matched += !c.empty();

  auto is_local = [&](const std::string& n) {
    return std::find(locals.begin(), locals.end(), n) != locals.end();
  };
  const std::int64_t clock_offset = wire_clock_offset(net, copies, wl);

  // The capture window on the wire.
  std::size_t first = wl.size(), last = 0;
  for (std::size_t w = 0; w < wl.size(); w++)
    if (wire_used[w]) first = std::min(first, w), last = std::max(last, w);
  std::vector<const Captured*> lost;  // in the window, not captured
  for (std::size_t w = 0; w < wl.size(); w++) {
    const bool inside = first <= w && w <= last;
    v.in_window += inside;
    v.outside_window += !inside;
    if (inside && !wire_used[w]) lost.push_back(wl[w]);
  }

  // A forwarded message crossed two links: a copy short is a copy missing.
  for (std::size_t i = 0; i < net.size(); i++) {
    if (net[i]->direction != LNETCAP_DIR_FORWARD) continue;
    v.forwarded++;
    if (copies[i].size() == 2) {
      v.forwarded_both_links++;
      if (copies_of_header[key_of(*net[i])] == 2)
        time_forward(v, *net[i], *wl[copies[i][0]], *wl[copies[i][1]]);
      else
        v.forward_not_timed++;
    } else if (copies[i].size() == 1) {
      v.missing++;
      note(v, "forwarded but on one link only: " + describe(*net[i]) + " (wire " +
                  describe(*wl[copies[i][0]]) + ")");
    }
  }

  // Unpaired on both sides: the same message with a wrong field when type,
  // source and destination agree (in order), otherwise extra or missing.
  std::vector<const Captured*> extra;
  for (std::size_t i = 0; i < net.size(); i++)
    if (copies[i].empty()) extra.push_back(net[i]);
  // An attempt the LND failed (a send-failed outcome names its message)
  // need not have reached the wire: LNet resends a message as the same
  // lnet_msg, so a message with N failed outcomes excuses N of its SENDs
  // (health simulation: net_drop_add -e fails the attempt in the LND).
  std::map<std::uint64_t, std::size_t> failed_outcomes;
  for (const auto& c : capture)
    if (c.outcome && c.drop_reason == LNETCAP_DROP_SEND_FAILED && c.msg_id) failed_outcomes[c.msg_id]++;
  std::vector<bool> lost_used(lost.size(), false);
  auto same_message = [&](const Captured* c, std::size_t j) {
    return !lost_used[j] && lost[j]->lnet.type == c->lnet.type && lost[j]->src == c->src &&
           lost[j]->dst == c->dst;
  };
  for (const Captured* c : extra) {
    if (c->direction == LNETCAP_DIR_DROP) continue;  // a failed send need not reach the wire
    if (c->direction == LNETCAP_DIR_SEND && c->msg_id) {
      auto f = failed_outcomes.find(c->msg_id);
      if (f != failed_outcomes.end() && f->second > 0) {
        f->second--;
        v.failed_attempts++;
        continue;
      }
    }
    std::size_t j = 0;
    while (j < lost.size() && !same_message(c, j)) j++;
    if (j == lost.size()) {
      if (c->direction == LNETCAP_DIR_FORWARD) {
        v.missing++;
        note(v, "forwarded but on no link: " + describe(*c));
        continue;
      }
      if (c->direction == LNETCAP_DIR_SEND && sent_into_reset(*c, fate, clock_offset)) {
        v.sent_into_reset++;
        note(v, "sent into a connection reset before the sender's FIN: " + describe(*c));
        continue;
      }
      v.only_capture++;
      note(v, "only in capture: " + describe(*c));
      continue;
    }
    lost_used[j] = true;
    if (c->direction == LNETCAP_DIR_FORWARD) {  // its other link's copy is the same pair
      for (std::size_t k = j + 1; k < lost.size(); k++)
        if (same_message(c, k) && lost[k]->link != lost[j]->link) {
          lost_used[k] = true;
          break;
        }
    }
    v.wrong_field_pairs++;
    std::string names;
    for (const auto& f : differing_fields(*c, *lost[j])) {
      v.wrong_fields[f]++;
      names += (names.empty() ? "" : ",") + f;
    }
    note(v, "wrong " + names + ": " + describe(*c) + " vs wire " + describe(*lost[j]));
  }
  // The latest message the node received of each connection a reset ended:
  // socklnd reads a connection in order, so only what came after it can
  // have been left unread.
  std::map<std::string, std::uint64_t> last_read_ns;
  for (std::size_t w = 0; w < wl.size(); w++) {
    const std::string conn = wire_used[w] ? reset_conn(fate, *wl[w]) : std::string();
    if (!conn.empty()) last_read_ns[conn] = std::max(last_read_ns[conn], wl[w]->ts_ns);
  }
  auto in_unread_tail = [&](const Captured& w) {
    const std::string conn = reset_conn(fate, w);
    if (conn.empty()) return false;
    auto t = last_read_ns.find(conn);
    return t == last_read_ns.end() || w.ts_ns > t->second;
  };
  for (std::size_t j = 0; j < lost.size(); j++) {
    if (lost_used[j]) continue;
    if (fate.unacked.count(fate_key(*lost[j])) && is_local(lost[j]->dst)) {
      v.unacked_by_receiver++;
      note(v, "never acknowledged by this node's TCP: " + describe(*lost[j]));
      continue;
    }
    if (in_unread_tail(*lost[j]) && is_local(lost[j]->dst)) {
      v.unread_at_reset++;
      note(v, "left unread when a reset ended its connection: " + describe(*lost[j]));
      continue;
    }
    v.missing++;
    note(v, "missing from capture: " + describe(*lost[j]));
  }

  // Paired messages: direction against the node's NIDs, payload, PtlRPC
  // (a FORWARD's against each of its copies).
  for (std::size_t i = 0; i < net.size(); i++) {
    if (copies[i].empty()) continue;
    const Captured& c = *net[i];
    if ((c.direction == LNETCAP_DIR_SEND && !is_local(c.src)) ||
        (c.direction == LNETCAP_DIR_RECV && !is_local(c.dst)) ||
        (c.direction == LNETCAP_DIR_FORWARD && (is_local(c.src) || is_local(c.dst)))) {
      v.wrong_field_pairs++;
      v.wrong_fields["direction"]++;
      note(v, "wrong direction for node " + joined(locals) + ": " + describe(c));
    }
    if (dropped(c)) {
      v.dropped_by_lnet++;
      continue;
    }
    PayloadCheck worst;
    const Captured* worst_wire = wl[copies[i][0]];
    for (std::size_t w : copies[i]) {
      const PayloadCheck p = check_payload(c, *wl[w], snaplen);
      if (p.result > worst.result) worst = p, worst_wire = wl[w];
    }
    const Captured& w = *worst_wire;
    switch (worst.result) {
      case Payload::none:
        break;
      case Payload::equal:
        v.payload_expected++;
        v.payload_equal++;
        break;
      case Payload::unreadable:
        v.payload_expected++;
        v.payload_unreadable++;
        note(v, "payload missing (" + std::string(c.flags & LNETCAP_REC_F_PAYLOAD_UNREADABLE ? "unreadable" : "none") +
                    "): " + describe(c));
        break;
      case Payload::different:
        v.payload_expected++;
        v.payload_different++;
        note(v, "payload differs: " + describe(c) + " capture " + hex(c.payload, 16) + " wire " +
                    (w.link ? "(link " + std::to_string(w.link) + ") " : "") + hex(w.payload, 16));
        break;
      case Payload::short_:
        v.payload_expected++;
        v.payload_short++;
        note(v, "payload short (" + std::to_string(c.payload.size()) + " of " + std::to_string(worst.want) +
                    "): " + describe(c));
        break;
    }
    // PtlRPC: the first copy that decodes as PtlRPC and differs, else equal.
    bool rpc_seen = false;
    std::vector<std::string> d;
    for (std::size_t wi : copies[i]) {
      if (!wl[wi]->rpc.present) continue;
      rpc_seen = true;
      if (c.rpc.present && d.empty()) d = differing_rpc(c, *wl[wi]);
    }
    if (!rpc_seen) continue;
    v.rpc_wire++;
    if (!c.rpc.present) {
      v.rpc_missing++;
      note(v, "PtlRPC not decoded from the capture: " + describe(c));
      continue;
    }
    if (d.empty()) {
      v.rpc_equal++;
      continue;
    }
    v.rpc_different++;
    std::string names;
    for (const auto& f : d) {
      v.rpc_fields[f]++;
      names += (names.empty() ? "" : ",") + f;
    }
    note(v, "PtlRPC " + names + " differ: " + describe(c));
  }
  return v;
}

std::string format_verdict(const Verdict& v) {
  std::ostringstream o;
  o << "records=" << v.records;
  for (const auto& [dir, n] : v.by_direction) o << " " << dir << "=" << n;
  o << " on_node=" << v.on_node << " recv_error=" << v.recv_error << " outcomes=" << v.outcomes << "\n";
  o << "wire=" << v.wire << " in_window=" << v.in_window << " outside_window=" << v.outside_window
    << " matched=" << v.matched << " only_capture=" << v.only_capture << " missing=" << v.missing
    << " dropped_by_lnet=" << v.dropped_by_lnet << "\n";
  if (v.failed_attempts)  // only under faults: other reports keep their lines
    o << "failed_attempts_off_the_wire=" << v.failed_attempts << "\n";
  if (v.unacked_by_receiver || v.unread_at_reset || v.sent_into_reset)
    o << "unacked_by_receiver=" << v.unacked_by_receiver << " unread_at_reset=" << v.unread_at_reset
      << " sent_into_reset=" << v.sent_into_reset << "\n";
  if (v.forwarded)  // a router's: two-node reports keep their lines
    o << "forwarded=" << v.forwarded << " forwarded_both_links=" << v.forwarded_both_links << "\n"
      << "forward_time_not_judged=" << v.forward_not_timed
      << " (their header is on the wire more than twice: which copy is whose is a guess)\n";
  for (const auto& [pool, t] : v.forward_timing) {
    const double share = t.wire_total_ns ? static_cast<double>(t.queue_total_ns) / t.wire_total_ns : 0;
    char line[256];
    std::snprintf(line, sizeof line,
                  "forward_time pool=%s n=%zu queue_total_ms=%.1f wire_total_ms=%.1f queue_share=%.2f "
                  "queue_max_ms=%.1f wire_max_ms=%.1f queue_over_wire=%zu\n",
                  pool.c_str(), t.n, t.queue_total_ns / 1e6, t.wire_total_ns / 1e6, share, t.queue_max_ns / 1e6,
                  t.wire_max_ns / 1e6, t.queue_over_wire);
    o << line;
  }
  o << "wrong_fields=" << v.wrong_field_pairs;
  for (const auto& [f, n] : v.wrong_fields) o << " " << f << ":" << n;
  o << "\n";
  o << "payload expected=" << v.payload_expected << " equal=" << v.payload_equal
    << " different=" << v.payload_different << " unreadable=" << v.payload_unreadable
    << " short=" << v.payload_short << "\n";
  o << "ptlrpc wire=" << v.rpc_wire << " equal=" << v.rpc_equal << " missing=" << v.rpc_missing
    << " different=" << v.rpc_different;
  for (const auto& [f, n] : v.rpc_fields) o << " " << f << ":" << n;
  o << "\n";
  for (const auto& e : v.examples) o << "  " << e << "\n";
  o << "verdict=" << (v.passed() ? "PASS" : "FAIL") << "\n";
  return o.str();
}

}  // namespace lnetcap::real_lustre
