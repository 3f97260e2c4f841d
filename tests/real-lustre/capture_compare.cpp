// SPDX-License-Identifier: GPL-2.0-or-later
#include "capture_compare.h"

#include <algorithm>
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

bool on_node(const Captured& c) {
  return c.src == c.dst || c.src.ends_with("@lo") || c.dst.ends_with("@lo");
}

// Bytes both copies carry agree.
bool prefix_agrees(const Captured& a, const Captured& b) {
  const std::size_t n = std::min(a.payload.size(), b.payload.size());
  return std::equal(a.payload.begin(), a.payload.begin() + static_cast<long>(n), b.payload.begin());
}

std::string describe(const Captured& c) {
  std::ostringstream o;
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

}  // namespace

Captured capture_of(const Message& m, std::uint64_t frame) {
  Captured c;
  c.frame = frame;
  c.direction = m.rec.hdr.direction;
  c.flags = m.rec.hdr.flags;
  c.payload_len = m.rec.hdr.payload_len;
  if (m.rec.hdr.flags & LNETCAP_REC_F_STATUS_VALID) c.status = m.rec.hdr.status;
  c.outcome = m.rec.hdr.is_outcome();
  c.drop_reason = m.rec.hdr.drop_reason;
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

Verdict compare(const std::vector<Captured>& capture, const std::vector<Captured>& wire,
                const std::string& local, std::uint32_t snaplen) {
  Verdict v;
  v.records = capture.size();
  std::vector<const Captured*> net;
  for (const auto& c : capture) {
    v.by_direction[direction_name(c.direction)]++;
    if (c.direction == LNETCAP_DIR_DROP) v.drop_records++;
    if (c.direction == LNETCAP_DIR_RECV && dropped(c)) v.recv_error++;
    // An outcome completes a message recorded before: never paired again.
    if (c.outcome) v.outcomes++;
    else if (on_node(c)) v.on_node++;
    else net.push_back(&c);
  }
  std::vector<const Captured*> wl;
  for (const auto& w : wire) {
    if (w.lnet.type == LNETCAP_MSG_HELLO) v.hello++;
    else wl.push_back(&w);
  }
  v.wire = wl.size();

  // Pair by header; among equal headers prefer agreeing payload bytes.
  std::map<Key, std::vector<std::size_t>> free_wire;  // key -> wire indexes, in order
  for (std::size_t i = 0; i < wl.size(); i++) free_wire[key_of(*wl[i])].push_back(i);
  std::vector<long> pair_of(net.size(), -1);
  std::vector<bool> wire_used(wl.size(), false);
  for (std::size_t i = 0; i < net.size(); i++) {
    auto it = free_wire.find(key_of(*net[i]));
    if (it == free_wire.end() || it->second.empty()) continue;
    auto& cand = it->second;
    auto pick = std::find_if(cand.begin(), cand.end(), [&](std::size_t w) {
      return prefix_agrees(*net[i], *wl[w]);
    });
    if (pick == cand.end()) pick = cand.begin();
    pair_of[i] = static_cast<long>(*pick);
    wire_used[*pick] = true;
    cand.erase(pick);
    v.matched++;
  }

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

  // Unpaired on both sides: the same message with a wrong field when type,
  // source and destination agree (in order), otherwise extra or missing.
  std::vector<const Captured*> extra;
  for (std::size_t i = 0; i < net.size(); i++)
    if (pair_of[i] < 0) extra.push_back(net[i]);
  std::vector<bool> lost_used(lost.size(), false);
  for (const Captured* c : extra) {
    if (c->direction == LNETCAP_DIR_DROP) continue;  // a failed send need not reach the wire
    std::size_t j = 0;
    while (j < lost.size() && (lost_used[j] || lost[j]->lnet.type != c->lnet.type ||
                               lost[j]->src != c->src || lost[j]->dst != c->dst))
      j++;
    if (j == lost.size()) {
      v.only_capture++;
      note(v, "only in capture: " + describe(*c));
      continue;
    }
    lost_used[j] = true;
    v.wrong_field_pairs++;
    std::string names;
    for (const auto& f : differing_fields(*c, *lost[j])) {
      v.wrong_fields[f]++;
      names += (names.empty() ? "" : ",") + f;
    }
    note(v, "wrong " + names + ": " + describe(*c) + " vs wire " + describe(*lost[j]));
  }
  for (std::size_t j = 0; j < lost.size(); j++) {
    if (lost_used[j]) continue;
    v.missing++;
    note(v, "missing from capture: " + describe(*lost[j]));
  }

  // Paired messages: direction against the node's NID, payload, PtlRPC.
  for (std::size_t i = 0; i < net.size(); i++) {
    if (pair_of[i] < 0) continue;
    const Captured& c = *net[i];
    const Captured& w = *wl[static_cast<std::size_t>(pair_of[i])];
    if ((c.direction == LNETCAP_DIR_SEND && c.src != local) ||
        (c.direction == LNETCAP_DIR_RECV && c.dst != local)) {
      v.wrong_field_pairs++;
      v.wrong_fields["direction"]++;
      note(v, "wrong direction for node " + local + ": " + describe(c));
    }
    if (dropped(c)) {
      v.dropped_by_lnet++;
      continue;
    }
    const std::size_t want = std::min<std::size_t>({snaplen, w.payload.size(), c.lnet.payload_length});
    if (want > 0) {
      v.payload_expected++;
      if (c.payload.empty()) {
        v.payload_unreadable++;
        note(v, "payload missing (" + std::string(c.flags & LNETCAP_REC_F_PAYLOAD_UNREADABLE ? "unreadable" : "none") +
                    "): " + describe(c));
      } else if (!prefix_agrees(c, w)) {
        v.payload_different++;
        note(v, "payload differs: " + describe(c) + " capture " + hex(c.payload, 16) + " wire " + hex(w.payload, 16));
      } else if (c.payload.size() < want) {
        v.payload_short++;
        note(v, "payload short (" + std::to_string(c.payload.size()) + " of " + std::to_string(want) + "): " + describe(c));
      } else {
        v.payload_equal++;
      }
    }
    if (!w.rpc.present) continue;
    v.rpc_wire++;
    if (!c.rpc.present) {
      v.rpc_missing++;
      note(v, "PtlRPC not decoded from the capture: " + describe(c));
      continue;
    }
    const auto d = differing_rpc(c, w);
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
