// SPDX-License-Identifier: GPL-2.0-or-later
// layout_tables.cpp - built-in struct offsets of the Lustre releases that
// shipped them, on x86_64, for kprobe mode when the lnet module has no BTF.
//
// A table is chosen by exact release ranges, never by major.minor alone:
// LNet's structs change inside a release line (2.17.55 moved most of
// struct lnet_msg by 16 bytes).  What each range rests on:
//
//   struct lnet_msg, lnet_libmd, lnet_ni and lnet_peer_ni up to the last
//   member read, and the types they embed (lnet_event, lnet_nid,
//   lnet_processid, lnet_handle_md, lnet_element_stats,
//   lnet_health_remote_stats, lnet_latency_stats), were compared at every
//   tag v2_15_0 .. v2_17_57 of lustre-release (lnet/include/lnet/lib-types.h,
//   include/linux/lnet/lib-types.h from 2.17.54, and the uapi headers).
//   They change exactly twice:
//   - v2_15_51: `bool msg_rdma_force` after msg_recovery removed.  It sat in
//     padding, so no offset moves: 2.15.0 .. 2.17.54 share one table.
//   - v2_17_55, commit 3ff6e87c90 (LU-20426 "lnet: add per-operation
//     latency stats"): `ktime_t msg_t_start, msg_t_end` after msg_deadline
//     (every lnet_msg member from msg_health_status on moves 16 bytes) and
//     `struct lnet_latency_stats lpni_latency[3]` before lpni_lock in
//     lnet_peer_ni (lpni_nid moves 104 bytes with the padding).  The same
//     commit adds ni_latency to lnet_ni and 088df3173f (LU-20409, also
//     v2_17_55) ni_cpts_default, both after ni_nid: ni_nid stays.
//   lnet_libmd does not change from 2.15.0 to 2.17.57.
//
// Each table is mirrored member by member with the same types in
// tests/unit/live_layout_test.cpp, which checks every entry against
// offsetof() and bit probes of the mirror, and each is checked against the
// debuginfo of a real lnet.ko (tests/real-lustre/layouts.txt, made by
// scripts/real-lustre/check-layouts.sh, checked by real_lustre.RealLayouts.*).
// Kernel types assume a production x86_64 config: spinlock_t 4 bytes (no
// CONFIG_DEBUG_SPINLOCK / lockdep), atomic_t 4, atomic64_t/ktime_t 8.
//
// A release newer than the newest one read here, or between known ranges
// (a maintenance release such as 2.16.2 not yet read), has no exact table:
// it gets only a *candidate* (the table of the nearest older release),
// which lnetcap uses only when its start-up self-check proves it
// (self_check.cpp).
#include <array>
#include <charconv>

#include "layout.h"

namespace lnetcap::live {
namespace {

// 2.15.0 .. 2.17.54.  sizeof(struct lnet_msg) 528 (a real 2.16.1 module
// BTF: STRUCT 'lnet_msg' size=528 vlen=45).
lnetcap_layout lustre_215_21754() {
  lnetcap_layout lo{};
  lo.msg_type = 96;
  lo.msg_from = 76;
  lo.msg_health_status = 152;
  lo.msg_retry_count = 160;
  lo.msg_txpeer = 176;
  lo.msg_md = 200;
  lo.msg_txni = 208;
  lo.msg_rxni = 216;
  lo.msg_len = 224;
  lo.msg_wanted = 228;
  lo.msg_offset = 232;
  lo.msg_niov = 236;
  lo.msg_kiov = 240;
  lo.msg_hdr = 432;
  // Bitfields start right after bool msg_no_resend (byte 164), sharing its
  // 32-bit unit; msg_rx_cpt:15 would straddle it, so the next flags start
  // at byte 168.
  lo.msg_tx_committed_byte = 165;
  lo.msg_tx_committed_bit = 0;
  lo.msg_rx_committed_byte = 167;
  lo.msg_rx_committed_bit = 0;
  lo.msg_routing_byte = 170;
  lo.msg_routing_bit = 4;
  lo.md_start = 48;
  lo.md_options = 76;
  lo.md_flags = 80;
  lo.md_handler = 104;
  lo.ni_nid = 56;
  lo.lpni_nid = 200;
  lo.md_niov = 84;
  lo.md_kiov = 120;
  return lo;
}

// 2.17.55 .. 2.17.57 (LU-20426): lnet_msg members from msg_health_status
// on +16, lpni_nid 200 -> 304 (lpni_hstats ends at 164, lpni_latency is
// 8-aligned at 168, 3 x 32 bytes, so lpni_lock is at 264 and lpni_nid at
// 304).  sizeof(struct lnet_msg) 544.
lnetcap_layout lustre_21755() {
  lnetcap_layout lo = lustre_215_21754();
  // Members, not addresses: the struct is packed, so a pointer to one of
  // its fields may be unaligned.
  using L = lnetcap_layout;
  for (auto f : {&L::msg_health_status, &L::msg_retry_count, &L::msg_txpeer, &L::msg_md,
                 &L::msg_txni, &L::msg_rxni, &L::msg_len, &L::msg_wanted, &L::msg_offset,
                 &L::msg_niov, &L::msg_kiov, &L::msg_hdr, &L::msg_tx_committed_byte,
                 &L::msg_rx_committed_byte, &L::msg_routing_byte})
    lo.*f = static_cast<__u16>(lo.*f + 16);
  lo.lpni_nid = 304;
  return lo;
}

struct Range {
  Version first, last;
  lnetcap_layout (*table)();
  const char* name;  // for origins and messages
};

// Every release range read (tags in lustre-release).  Development tags
// (2.x.5x, 2.x.9x) belong to master between two releases.
const std::array<Range, 6> kRanges = {{
    {{2, 15, 0}, {2, 15, 8}, lustre_215_21754, "2.15.0-2.17.54"},
    {{2, 15, 50}, {2, 15, 99}, lustre_215_21754, "2.15.0-2.17.54"},
    {{2, 16, 0}, {2, 16, 1}, lustre_215_21754, "2.15.0-2.17.54"},
    {{2, 16, 50}, {2, 16, 99}, lustre_215_21754, "2.15.0-2.17.54"},
    {{2, 17, 0}, {2, 17, 0}, lustre_215_21754, "2.15.0-2.17.54"},
    {{2, 17, 50}, {2, 17, 57}, nullptr, nullptr},  // split below at 2.17.55
}};

const Version kNewestRead{2, 17, 57};
const Version kMaster55{2, 17, 55};

// lnet_drop_rule_match's local_nid became a struct lnet_nid * in 2.15.51
// (57b7b3d36f, LU-10391); 2.15.0 .. 2.15.50 pass a 64-bit lnet_nid_t.
std::optional<Layout> with_drop_rule_form(std::optional<Layout> l, const Version& v) {
  if (l) l->drop_rule_nid4 = v < Version{2, 15, 51};
  return l;
}

std::optional<Layout> exact_range(const Version& v);
std::optional<Layout> exact(const Version& v) { return with_drop_rule_form(exact_range(v), v); }

std::optional<Layout> exact_range(const Version& v) {
  for (const auto& r : kRanges) {
    if (v < r.first || r.last < v) continue;
    if (!r.table) {  // 2.17.50 .. 2.17.57
      if (v < kMaster55)
        return Layout{lustre_215_21754(),
                      "built-in table for Lustre 2.15.0-2.17.54 (x86_64; release " + v.str() + ")"};
      return Layout{lustre_21755(),
                    "built-in table for Lustre 2.17.55-2.17.57 (x86_64; release " + v.str() + ")"};
    }
    return Layout{r.table(), std::string("built-in table for Lustre ") + r.name +
                                 " (x86_64; release " + v.str() + ")"};
  }
  return std::nullopt;
}

}  // namespace

std::string Version::str() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

// "2.16.1_ddn3" -> 2.16.1, "2.17.57_12_g1a2b3c4" -> 2.17.57, "2.17.0-RC2"
// -> 2.17.0.  A vendor suffix is not read: such a build is taken as its
// base release, and the self-check catches a vendor that changed a struct.
std::optional<Version> parse_version(std::string_view v) {
  Version out;
  int* parts[] = {&out.major, &out.minor, &out.patch};
  const char* p = v.data();
  const char* end = v.data() + v.size();
  for (int i = 0; i < 3; ++i) {
    if (i > 0) {
      if (p == end || *p != '.') return std::nullopt;
      ++p;
    }
    auto r = std::from_chars(p, end, *parts[i]);
    if (r.ec != std::errc{}) return std::nullopt;
    p = r.ptr;
  }
  return out;
}

std::optional<Layout> builtin_layout(std::string_view lustre_version) {
  // The rig's LNet test double (kmod/lnet) once published
  // "2.16.1_lnetcap_double": never give a test build a real table by name.
  if (lustre_version.find("lnetcap") != std::string_view::npos) return std::nullopt;
  auto v = parse_version(lustre_version);
  if (!v) return std::nullopt;
  return exact(*v);
}

std::optional<Layout> candidate_layout(std::string_view lustre_version) {
  if (lustre_version.find("lnetcap") != std::string_view::npos) return std::nullopt;
  auto v = parse_version(lustre_version);
  if (!v || *v < Version{2, 15, 0} || exact(*v)) return std::nullopt;
  // The nearest older release read: its table is the best guess, and only a
  // guess until the self-check proves it on this node.
  lnetcap_layout lo = kNewestRead < *v || !(*v < kMaster55) ? lustre_21755() : lustre_215_21754();
  std::string from = kNewestRead < *v || !(*v < kMaster55) ? "2.17.55-2.17.57" : "2.15.0-2.17.54";
  return Layout{lo, "candidate table of Lustre " + from + " for unknown release " + v->str() +
                        " (x86_64)",
                true};
}

std::optional<Layout> lnet_0_7_0_candidate() {
  // LNET_VERSION was the constant "0.7.0" up to 2.17.53 (LU-18839 made it
  // LUSTRE_VERSION_STRING in 2.17.54).  Every release lnetcap supports that
  // says 0.7.0 (2.15.0 .. 2.17.53) has the same offsets, but so do older
  // releases lnetcap cannot read (2.14 has no struct lnet_nid): a candidate.
  return Layout{lustre_215_21754(),
                "built-in table of Lustre 2.15.0-2.17.54 (x86_64; lnet module version 0.7.0, "
                "no Lustre release published: LNet-only node)",
                true};
}

std::string builtin_versions() {
  return "2.15.0-2.15.8, 2.16.0-2.16.1, 2.17.0 and master 2.17.50-2.17.57 "
         "(one table up to 2.17.54, another from 2.17.55)";
}

std::string exact_offsets_hint() {
  return "get exact offsets from the build itself: run a Lustre built with module BTF "
         "(fentry mode, /sys/kernel/btf/lnet), or make BTF from its debuginfo with "
         "`pahole --btf_encode_detached=lnet.btf lnet.ko` and pass --btf lnet.btf (an installed "
         "lustre debuginfo package is found and used by itself)";
}

}  // namespace lnetcap::live
