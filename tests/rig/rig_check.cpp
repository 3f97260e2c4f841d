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
//
// The double's log (kmod/lnet, docs/kernel-contract.md) has one line per
// hook call with the exact 96-byte struct lnet_hdr and payload bytes.  From
// it we derive the messages lnetcap must record, by the contract's rules:
//   - every lnet_ni_send call: one SEND record (FORWARD when routing=1),
//     header and retry count as sent, payload as sent;
//   - every received, non-forwarded message: one RECV record, header as
//     received, payload as received (PUT/REPLY) or none (GET/ACK).
// The capture is read with the project's own pcapng reader and record
// decoder.  Every expected message must match exactly one record and
// every record exactly one message; mismatches are listed.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "error.h"
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
  bool check_plen = true;
  std::optional<int> status;  // checked when set (DROP records)
  int matched = 0;
};

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
  Bytes w(72, 0);
  auto nid4 = [&](std::size_t off, std::size_t dst) {
    std::uint64_t type = h[off + 1];
    std::uint64_t num = (h[off + 2] << 8) | h[off + 3];
    std::uint64_t addr = (std::uint64_t(h[off + 4]) << 24) | (h[off + 5] << 16) |
                         (h[off + 6] << 8) | h[off + 7];
    std::uint64_t v = (type << 48) | (num << 32) | addr;
    for (int i = 0; i < 8; i++) w[dst + i] = static_cast<std::uint8_t>(v >> (8 * i));
  };
  nid4(0, 0);
  nid4(20, 8);
  std::memcpy(&w[16], &h[40], 56);  // pids, type, payload_length, msg union
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
  bool expect_drops = false;
  std::vector<std::string> pos;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--snaplen" && i + 1 < argc) snaplen = std::stoul(argv[++i]);
    else if (a == "--expect-drops") expect_drops = true;
    else pos.push_back(a);
  }
  if (pos.size() != 2) {
    std::fprintf(stderr, "usage: rig_check [--snaplen N] "
                         "[--expect-drops] CAPTURE.pcapng DOUBLE_LOG\n");
    return 2;
  }

  // ---- expected messages from the double's log --------------------------
  std::ifstream logf(pos[1]);
  if (!logf) {
    std::fprintf(stderr, "rig_check: cannot read %s\n", pos[1].c_str());
    return 2;
  }
  std::vector<Expected> exp;
  std::map<std::string, std::size_t> rx_of_msg;  // msg id -> pending RX entry
  std::string line;
  while (std::getline(logf, line)) {
    auto f = fields(line);
    const std::string& hook = f["hook"];
    if (hook == "lnet_ni_send") {
      Expected e;
      e.what = line.substr(0, 110);
      e.dir = f["routing"] == "1" ? LNETCAP_DIR_FORWARD : LNETCAP_DIR_SEND;
      e.hdr96 = unhex(f["hdr"]);
      e.retry = std::stoul(f["retry"]);
      e.plen = std::stoul(f["plen"]);
      e.have = e.plen;
      e.payload = unhex(f["payload"]);
      // Sent payloads in kiov-only buffers: bulk REPLY (type 3) and
      // forwarded messages (router buffer pages).
      exp.push_back(e);
    } else if (hook == "lnet_parse") {
      if (f["dir"] == "forward") continue;  // recorded once, as FORWARD
      Expected e;
      e.what = line.substr(0, 110);
      e.dir = LNETCAP_DIR_RECV;
      e.hdr96 = unhex(f["hdr"]);
      e.plen = std::stoul(f["plen"]);
      unsigned type = std::stoul(f["type"]);
      e.have = 0;  // GET/ACK carry nothing; PUT/REPLY filled at finalize
      rx_of_msg[f["msg"]] = exp.size();
      (void)type;
      exp.push_back(e);
    } else if (hook == "lnet_finalize" && f["dir"] != "recv" && f["rc"] != "0") {
      // A failed send: a DROP record (header, status, health), no payload.
      Expected e;
      e.what = line.substr(0, 110);
      e.dir = LNETCAP_DIR_DROP;
      e.hdr96 = unhex(f["hdr"]);
      e.retry = std::stoul(f["retry"]);
      e.plen = std::stoul(f["plen"]);
      e.have = 0;
      e.status = std::stoi(f["rc"]);
      e.check_plen = false;
      exp.push_back(e);
    } else if (hook == "lnet_finalize" && f["dir"] == "recv") {
      auto it = rx_of_msg.find(f["msg"]);
      if (it == rx_of_msg.end()) continue;
      Expected& e = exp[it->second];
      if (f["rc"] == "0") {
        e.have = std::stoul(f["plen"]);
        e.payload = unhex(f["payload"]);
      }
      rx_of_msg.erase(it);
    }
  }
  if (exp.empty()) {
    std::fprintf(stderr, "rig_check: no messages in %s\n", pos[1].c_str());
    return 1;
  }

  // ---- records ---------------------------------------------------------------
  std::size_t records = 0, unmatched = 0, bad = 0;
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
      records++;
      const auto& h = rec->hdr;
      if (h.flags & LNETCAP_REC_F_GAP_BEFORE) gap_drops++;
      if (h.hook == LNETCAP_HOOK_LNET_DROP) {
        records--;  // lnet_drop_message notices carry no message
        continue;
      }
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
      // Payload: length fields, then the bytes.
      std::uint32_t want_cap = std::min<std::uint32_t>(snaplen, hit->have);
      std::uint32_t cmp = std::min<std::uint32_t>(rec->payload.size(), hit->payload.size());
      bool ok = true;
      if (hit->status && (!(h.flags & LNETCAP_REC_F_STATUS_VALID) || h.status != *hit->status)) {
        std::printf("MISMATCH status %d (flags 0x%x), expected %d: %s\n", h.status, h.flags,
                    *hit->status, hit->what.c_str());
        ok = false;
      }
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
  std::uint64_t drops = std::max(isb_drops, epb_drops);
  std::printf("rig_check: generated %zu, captured %zu, missing %zu, duplicate %zu, "
              "unexpected %zu, bad %zu, "
              "drops: isb %llu epb %llu gap-flags %llu\n",
              exp.size(), records, missing, dup, unmatched, bad,
              static_cast<unsigned long long>(isb_drops),
              static_cast<unsigned long long>(epb_drops),
              static_cast<unsigned long long>(gap_drops));
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
    if (dup || unmatched || bad) return 1;
    std::printf("PASS (drops accounted for)\n");
    return 0;
  }
  if (missing || dup || unmatched || bad) return 1;
  std::printf("PASS\n");
  return 0;
}
