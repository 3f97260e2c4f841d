// SPDX-License-Identifier: GPL-2.0-or-later
// rig_same - checks that two live captures of the same LNet traffic hold the
// same records: in the kernel rig, what an lnetcapd subscriber wrote against
// what a direct `lnetcap -w` wrote at the same time (or the filtered subset
// of it, made with `lnetcap -r DIRECT -w WANT FILTER`).
//
//   rig_same [--tolerance-ms N] [--renumbered] WANT.pcapng GOT.pcapng
//
// --renumbered: GOT's capture filtered in the kernel (lnetcapd folding its
// subscribers' filters into the clause table), so its programs took a
// sequence number (and a msg_id) only for the messages they kept, while
// WANT's numbered every message: seq and msg_id are not compared; every
// other byte still is, in the same order.
//
// Both captures attach their own copy of the programs to the same hooks, so
// every hook call runs both, one after the other, on the same CPU and in the
// same task, reading the same header and payload pages.  Each capture has
// its own per-CPU sequence counters, starting at 0 when it attaches; the rig
// attaches both before the double sends anything, so the counters advance
// in step.  Therefore, per record, in the same order:
//   - every byte of the lnetcap record must be equal: header fields (seq,
//     msg_id, cpu, pid, comm, NIDs, flags, status, health, drop reason...),
//     the LNet header and the payload prefix -
//   - except queue_ns, which each program measures with its own clock
//     readings (lnet_send entry to the LND): its QUEUE_VALID flag must be
//     equal and the values within the tolerance;
//   - the EPB timestamp is each program's own bpf_ktime_get_ns() reading
//     (the other capture's program runs between the two) turned into UTC
//     by each process's own monotonic-to-UTC offset: within the tolerance.
//     The default, 1 s, is far above the few microseconds the programs
//     take but survives a TCG vCPU descheduled by a loaded host, whose
//     guest clock keeps running; the exact order and seq already pin each
//     record to its hook call;
//   - orig_len, EPB flags and comments equal; no record of either file may
//     carry a drop count (nothing was lost); the interface names equal and
//     GOT's description starts with WANT's (a subscriber appends " on NODE").
// Every lnetcap proves its offsets at start by pinging 0@lo (its own ping
// never reaches its capture), and another capture already attached records
// that ping like any LNet traffic: records on 0@lo from 0@lo to 0@lo (the
// double itself never sends there) are left out of both files.  Its own
// ping took sequence numbers too, which its file never shows: seq and
// msg_id are compared per CPU from the first record each file has there,
// as if the left-out records had never been numbered.  (A loss at the very
// start would still show as a drop count.)
// Prints every difference by field name; exit 0 when equal, 1 otherwise,
// 2 on bad usage or an unreadable file.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
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

struct Rec {
  std::uint64_t ts_ns = 0;
  std::uint32_t orig_len = 0, epb_flags = 0;
  std::uint64_t drop_count = 0;
  bool has_drop_count = false;
  std::vector<std::string> comments;
  std::string if_name, if_description;
  std::vector<std::uint8_t> bytes;
};

// Another lnetcap's self-check ping (see above).
bool loopback_ping(const lnetcap::RecordView& r) {
  const lnetcap::Nid lo = lnetcap::Nid::from_nid4(std::uint64_t{LNETCAP_LND_LOLND} << 48);
  if (!(r.hdr.local_nid == lo) || r.lnet_header.size() != LNETCAP_HDR_NID16_LEN) return false;
  using H = struct lnetcap_hdr_nid16;
  return lnetcap::Nid::from_lnet_nid(r.lnet_header.data() + offsetof(H, dest_nid)) == lo &&
         lnetcap::Nid::from_lnet_nid(r.lnet_header.data() + offsetof(H, src_nid)) == lo;
}

// Sequence numbers taken by left-out records, per CPU.
struct Skipped {
  std::map<std::uint32_t, std::vector<std::uint64_t>> seqs;
  std::map<std::uint32_t, std::uint64_t> base;  // first kept record's, per CPU
  std::uint64_t adjust(std::uint32_t cpu, std::uint64_t seq) const {
    std::uint64_t before = 0;
    if (auto it = seqs.find(cpu); it != seqs.end())
      for (auto x : it->second) before += x < seq;
    auto b = base.find(cpu);
    return seq - before - (b == base.end() ? 0 : b->second);
  }
  std::uint64_t adjust_id(std::uint64_t id) const {
    if (!id) return 0;
    auto cpu = static_cast<std::uint32_t>((id >> 48) - 1);
    return LNETCAP_MSG_ID(cpu, adjust(cpu, id & 0xffffffffffffULL));
  }
};

std::vector<Rec> read_all(const std::string& path, Skipped* skipped) {
  std::vector<Rec> out;
  lnetcap::pcapng::Reader rd(path);
  lnetcap::pcapng::Packet pkt;
  while (rd.next(pkt)) {
    const auto& ifc = rd.interfaces().at(pkt.interface_id);
    if (ifc.linktype != LNETCAP_LINKTYPE) continue;
    Rec r;
    r.ts_ns = pkt.ts_ns;
    r.orig_len = pkt.orig_len;
    r.epb_flags = pkt.flags;
    r.has_drop_count = pkt.drop_count.has_value();
    r.drop_count = pkt.drop_count.value_or(0);
    r.comments = pkt.comments;
    r.if_name = ifc.name;
    r.if_description = ifc.description;
    r.bytes.assign(pkt.data.begin(), pkt.data.end());
    std::string why;
    auto v = lnetcap::parse_record(r.bytes, &why);
    if (v && loopback_ping(*v)) {
      skipped->seqs[v->hdr.cpu].push_back(v->hdr.seq);
      continue;
    }
    if (v && !skipped->base.count(v->hdr.cpu)) {
      // Adjusted for pings before it, which adjust() subtracts again.
      std::uint64_t before = 0;
      for (auto x : skipped->seqs[v->hdr.cpu]) before += x < v->hdr.seq;
      skipped->base[v->hdr.cpu] = v->hdr.seq - before;
    }
    out.push_back(std::move(r));
  }
  return out;
}

// Byte ranges of struct lnetcap_rec_hdr (include/lnetcap/record.h), for
// naming what differs.
struct Field {
  std::size_t off, len;
  const char* name;
};
constexpr Field kFields[] = {
    {0, 4, "magic"},        {4, 2, "version"},       {6, 2, "rec_hdr_len"},
    {8, 1, "direction"},    {9, 1, "hook"},          {10, 1, "lnd_type"},
    {11, 1, "lnet_hdr_len"}, {12, 2, "rec_flags"},   {14, 1, "health_status"},
    {15, 1, "retry_count"}, {16, 4, "cpu"},          {20, 4, "pid"},
    {24, 16, "comm"},       {40, 8, "seq"},          {48, 4, "payload_len"},
    {52, 4, "payload_caplen"}, {56, 20, "local_nid"}, {76, 20, "peer_nid"},
    {96, 4, "status"},      {100, 4, "ni_id"},       {104, 8, "queue_ns"},
    {112, 8, "msg_id"},     {120, 1, "drop_reason"}, {121, 7, "reserved"},
};
constexpr std::size_t kQueueOff = 104, kSeqOff = 40, kMsgIdOff = 112;

std::uint64_t absdiff(std::uint64_t a, std::uint64_t b) { return a > b ? a - b : b - a; }

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t tolerance_ns = 1000000000ULL;
  bool renumbered = false;
  int i = 1;
  for (;;) {
    if (i + 1 < argc && std::strcmp(argv[i], "--tolerance-ms") == 0) {
      tolerance_ns = std::strtoull(argv[i + 1], nullptr, 10) * 1000000ULL;
      i += 2;
    } else if (i < argc && std::strcmp(argv[i], "--renumbered") == 0) {
      renumbered = true;
      ++i;
    } else {
      break;
    }
  }
  if (argc - i != 2) {
    std::fprintf(stderr, "usage: rig_same [--tolerance-ms N] [--renumbered] WANT.pcapng GOT.pcapng\n");
    return 2;
  }
  const std::string want_path = argv[i], got_path = argv[i + 1];
  std::vector<Rec> want, got;
  Skipped want_skipped, got_skipped;
  try {
    want = read_all(want_path, &want_skipped);
    got = read_all(got_path, &got_skipped);
  } catch (const lnetcap::Error& e) {
    std::fprintf(stderr, "rig_same: %s\n", e.what());
    return 2;
  }

  std::size_t problems = 0;
  auto problem = [&problems](std::size_t n, const std::string& what) {
    if (++problems <= 40) std::printf("record %zu: %s\n", n, what.c_str());
  };
  for (const auto* file : {&want, &got})
    for (std::size_t n = 0; n < file->size(); ++n)
      if ((*file)[n].has_drop_count && (*file)[n].drop_count)
        problem(n, (file == &want ? want_path : got_path) + " reports " +
                       std::to_string((*file)[n].drop_count) + " records dropped before it");
  if (want.size() != got.size()) {
    std::printf("%zu records in %s, %zu in %s\n", got.size(), got_path.c_str(), want.size(),
                want_path.c_str());
    ++problems;
  }

  std::uint64_t max_ts = 0, max_queue = 0;
  const std::size_t n_common = std::min(want.size(), got.size());
  for (std::size_t n = 0; n < n_common; ++n) {
    const Rec &w = want[n], &g = got[n];
    std::string why;
    auto wr = lnetcap::parse_record(w.bytes, &why);
    auto gr = lnetcap::parse_record(g.bytes, &why);
    if (!wr || !gr) {
      problem(n, "bad record: " + why);
      continue;
    }
    const std::uint64_t dts = absdiff(w.ts_ns, g.ts_ns);
    max_ts = std::max(max_ts, dts);
    if (dts > tolerance_ns) problem(n, "timestamps " + std::to_string(dts) + " ns apart");
    if (w.orig_len != g.orig_len)
      problem(n, "orig_len " + std::to_string(g.orig_len) + ", want " + std::to_string(w.orig_len));
    if (w.epb_flags != g.epb_flags) problem(n, "EPB flags differ");
    if (w.comments != g.comments) problem(n, "EPB comments differ");
    if (w.if_name != g.if_name) problem(n, "interface '" + g.if_name + "', want '" + w.if_name + "'");
    if (g.if_description.compare(0, w.if_description.size(), w.if_description) != 0)
      problem(n, "interface description '" + g.if_description + "' does not start with '" +
                     w.if_description + "'");

    // queue_ns: the same validity, values within the tolerance.
    const bool wq = wr->hdr.flags & LNETCAP_REC_F_QUEUE_VALID, gq = gr->hdr.flags & LNETCAP_REC_F_QUEUE_VALID;
    if (wq && gq) {
      const std::uint64_t dq = absdiff(wr->hdr.queue_ns, gr->hdr.queue_ns);
      max_queue = std::max(max_queue, dq);
      if (dq > tolerance_ns) problem(n, "queue_ns " + std::to_string(dq) + " ns apart");
    } else if (wr->hdr.queue_ns != gr->hdr.queue_ns) {
      problem(n, "queue_ns differs without QUEUE_VALID");
    }
    // Every other byte equal.
    if (w.bytes.size() != g.bytes.size()) {
      problem(n, "record length " + std::to_string(g.bytes.size()) + ", want " +
                     std::to_string(w.bytes.size()));
      continue;
    }
    const std::size_t hdr_len = wr->hdr.rec_hdr_len;
    if (!renumbered) {  // seq and msg_id, as if left-out records took none
      if (want_skipped.adjust(wr->hdr.cpu, wr->hdr.seq) != got_skipped.adjust(gr->hdr.cpu, gr->hdr.seq))
        problem(n, "record header field seq differs (" + std::to_string(gr->hdr.seq) + ", want " +
                       std::to_string(wr->hdr.seq) + ")");
      if (want_skipped.adjust_id(wr->hdr.msg_id) != got_skipped.adjust_id(gr->hdr.msg_id))
        problem(n, "record header field msg_id differs");
    }
    for (std::size_t b = 0; b < w.bytes.size(); ++b) {
      if (b >= kQueueOff && b < kQueueOff + 8 && hdr_len >= kQueueOff + 8) continue;
      if ((b >= kSeqOff && b < kSeqOff + 8) ||
          (b >= kMsgIdOff && b < kMsgIdOff + 8 && hdr_len >= kMsgIdOff + 8))
        continue;  // compared above (or not at all: --renumbered)
      if (w.bytes[b] == g.bytes[b]) continue;
      std::string where = "payload";
      std::size_t skip_to = w.bytes.size();
      if (b < hdr_len) {
        for (const auto& f : kFields)
          if (b >= f.off && b < f.off + f.len) {
            where = std::string("record header field ") + f.name;
            skip_to = f.off + f.len;
          }
      } else if (b < hdr_len + wr->lnet_header.size()) {
        where = "LNet header";
        skip_to = hdr_len + wr->lnet_header.size();
      }
      char msg[160];
      std::snprintf(msg, sizeof(msg), "%s differs (byte %zu: %02x, want %02x)", where.c_str(), b,
                    g.bytes[b], w.bytes[b]);
      problem(n, msg);
      b = skip_to - 1;
    }
  }
  std::printf("rig_same: %zu records in %s, %zu in %s; timestamps at most %" PRIu64
              " ns apart, queue_ns at most %" PRIu64 " ns; %zu differences\n",
              want.size(), want_path.c_str(), got.size(), got_path.c_str(), max_ts, max_queue,
              problems);
  return problems ? 1 : 0;
}
