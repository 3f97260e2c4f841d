// SPDX-License-Identifier: GPL-2.0-or-later
// live_source.cpp - live capture from the kernel: detect LNet, pick an
// attach mode, load and attach the BPF programs, hand the ring to the
// pipeline; and -D.
#include "live_source.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "../error.h"
#include "attach_plan.h"
#include "capture_config.h"
#include "kernel_memmap.h"
#include "lustre_env.h"
#include "privdrop.h"

#ifdef LNETCAP_HAVE_BPF
#include "lnetcap_fentry.skel.h"
#include "lnetcap_fentry_kfunc.skel.h"
#include "lnetcap_kprobe.skel.h"
#include "ring_source.h"
#endif

namespace lnetcap {
namespace {

#ifdef LNETCAP_HAVE_BPF

// CAP_SYS_ADMIN alone, or CAP_BPF with CAP_PERFMON (5.8+), can load tracing
// programs that read kernel memory.
void check_privileges() {
  std::ifstream in("/proc/self/status");
  std::string line;
  unsigned long long eff = 0;
  bool found = false;
  while (std::getline(in, line)) {
    if (line.rfind("CapEff:", 0) == 0) {
      eff = std::stoull(line.substr(7), nullptr, 16);
      found = true;
    }
  }
  auto has = [eff](int cap) { return (eff >> cap) & 1ull; };
  constexpr int kSysAdmin = 21, kPerfmon = 38, kBpf = 39;
  if (found && !has(kSysAdmin) && !(has(kBpf) && has(kPerfmon)))
    throw Error("not permitted to capture: lnetcap needs CAP_BPF and CAP_PERFMON (or root)",
                "run it with sudo, or give the binary the capabilities listed in "
                "docs/EXTCAP.md (cap_bpf,cap_perfmon,cap_sys_admin,...; kernel >= 5.8)");
}

std::unique_ptr<live::LoadedBpf> load(const live::AttachPlan& plan, const lnetcap_cfg& cfg,
                                      std::uint32_t ring) {
  if (plan.mode == live::AttachMode::kKprobe)
    return live::load_skeleton<lnetcap_kprobe>(cfg, ring, true, "kprobe");
  if (plan.kfunc)
    return live::load_skeleton<lnetcap_fentry_kfunc>(cfg, ring, true, "fentry");
  return live::load_skeleton<lnetcap_fentry>(cfg, ring, true, "fentry");
}

// What a self-check result means for the capture.  A mismatch always
// stops it.  Where no self-ping is possible (LNet not configured: no NI,
// nothing to capture yet; /dev/lnet missing), an exact source of offsets
// (BTF, debuginfo, a table read for this very release) is used with a
// warning and the plausibility check on the first records; a candidate
// table (an unknown release) is refused, since nothing would prove it.
void enforce_self_check(const live::SelfCheckResult& r, const live::Layout& layout,
                        int verbose) {
  using R = live::SelfCheckResult;
  if (r.status == R::kMismatch)
    throw Error("self-check failed: the struct offsets in use (" + layout.origin +
                    ") do not match the running lnet module: " + r.detail +
                    "; nothing was captured",
                live::exact_offsets_hint() + "; `lnetcap -D` runs the same check");
  if (r.status == R::kImpossible) {
    if (layout.candidate)
      throw Error("the offsets in use are only a candidate (" + layout.origin +
                      ") and the self-check that would prove them could not run: " + r.detail,
                  "configure LNet (lnetctl lnet configure) so lnetcap can ping 0@lo, or " +
                      live::exact_offsets_hint());
    std::fprintf(stderr,
                 "lnetcap: warning: self-check not possible (%s); offsets from %s are used "
                 "unproven, the first records are checked for plausibility\n",
                 r.detail.c_str(), layout.origin.c_str());
    return;
  }
  if (verbose) std::fprintf(stderr, "lnetcap: self-check %s\n", live::describe(r).c_str());
  // Said even without -v: a release nobody read, captured on offsets
  // proven on this node only by the self-check.
  if (layout.candidate && !verbose)
    std::fprintf(stderr, "lnetcap: note: %s, proven by the self-check\n", layout.origin.c_str());
}

#endif

}  // namespace

std::unique_ptr<RecordSource> open_live_capture(const Options& opts, const filter::Filter& filter,
                                                KernelClauses clauses) {
#ifndef LNETCAP_HAVE_BPF
  (void)opts, (void)filter, (void)clauses;
  throw Error("live capture is not available: this lnetcap was built without eBPF support",
              "install clang, bpftool and libbpf-dev and rebuild with LNETCAP_BUILD_BPF=ON; "
              "-r reads saved captures");
#else
  live::set_libbpf_verbosity(opts.verbose);
  live::LustreEnv env = live::detect_lustre();
  live::AttachPlan plan = live::plan_attach(opts, env);
  check_privileges();

  std::uint32_t snaplen = live::effective_snaplen(opts);
  auto page = static_cast<std::uint32_t>(sysconf(_SC_PAGESIZE));
  std::uint32_t ring = live::ring_bytes(opts, snaplen, page);
  lnetcap_cfg cfg = live::make_cfg(opts, filter, plan.layout.lo, snaplen);
  cfg.filter_sub = clauses == KernelClauses::kOn ? 1 : 0;
  cfg.drop_rule_nid4 = plan.layout.drop_rule_nid4 ? 1 : 0;
  // This thread makes the self-check's ping below and never LNet traffic
  // again: its messages are recorded unfiltered and kept for the check.
  const auto self_tid = static_cast<std::uint32_t>(gettid());
  cfg.self_tid = self_tid;
  live::KernelMemmap memmap = live::detect_kernel_memmap();
  cfg.km = memmap.km;

  std::unique_ptr<live::LoadedBpf> bpf;
  auto note = [&](const char* what, const Error& e) {
    if (opts.verbose) std::fprintf(stderr, "lnetcap: %s failed (%s)\n", what, e.what());
  };
  try {
    bpf = load(plan, cfg, ring);
  } catch (const Error& e) {
    // Degrade step by step: fentry with the payload kfunc, fentry alone
    // (a verifier that refuses the kfunc call), then, under --attach auto,
    // kprobes with the same offsets (a kernel that refuses trampolines).
    if (plan.mode != live::AttachMode::kFentry) throw;
    if (plan.kfunc) {
      note("fentry with lnetcap_kfunc", e);
      plan.kfunc = false;
      try {
        bpf = load(plan, cfg, ring);
      } catch (const Error& e2) {
        if (opts.attach_mode != "auto") throw;
        note("fentry", e2);
      }
    } else if (opts.attach_mode != "auto") {
      throw;
    } else {
      note("fentry", e);
    }
    if (!bpf) {
      plan = live::kprobe_fallback(plan, env);
      bpf = load(plan, cfg, ring);
    }
  }
  if (opts.verbose) {
    std::fprintf(stderr, "lnetcap: attach mode: %s\n", plan.describe().c_str());
    std::fprintf(stderr, "lnetcap: payload %s\n", memmap.describe.c_str());
    std::fprintf(stderr, "lnetcap: Lustre %s%s%s\n", live::describe_lustre(env).c_str(),
                 env.version_source.empty() ? "" : " from ", env.version_source.c_str());
    std::fprintf(stderr, "lnetcap: ring %u KiB, snaplen %u, in-kernel filter: %s\n", ring / 1024,
                 snaplen,
                 !cfg.filter_clauses ? "none"
                 : cfg.clause_count ? (std::to_string(cfg.clause_count) + " clause(s)").c_str()
                                    : "rejects every message");
    if (cfg.filter_sub)
      std::fprintf(stderr, "lnetcap: in-kernel clause table for lnetcapd's subscribers: on\n");
    if (plan.kfunc && !memmap.km.pages && snaplen > LNETCAP_KFUNC_SCRATCH)
      std::fprintf(stderr, "lnetcap: payload pages are copied up to %u bytes per record\n",
                   LNETCAP_KFUNC_SCRATCH);
  }

  std::vector<std::string> names;
  for (const auto& ni : live::list_local_nis()) names.push_back(ni.nid);
  std::string desc = "lnetcap " + std::string(plan.mode == live::AttachMode::kFentry ? "fentry" : "kprobe");
  if (!env.version.empty()) desc += ", Lustre " + env.version;
  auto src = std::make_unique<live::RingSource>(std::move(bpf), names, snaplen, desc,
                                                plan.layout.origin);
  // Before the first record is trusted (and before the caller opens any
  // output): prove the offsets on a message whose every field is known.
  live::SelfCheckResult check = src->self_check(self_tid);
  enforce_self_check(check, plan.layout, opts.verbose);
  // -Z: the programs are attached and the ring and counters are mapped;
  // nothing below needs privileges.  The caller opens outputs after this.
  if (!opts.drop_user.empty()) live::drop_privileges(opts.drop_user);
  return src;
#endif
}

int list_live_interfaces(const Options& opts) {
  live::LustreEnv env = live::detect_lustre();
  if (!env.lnet_loaded)
    throw Error("the lnet kernel module is not loaded",
                "load LNet first (modprobe lnet; lnetctl lnet configure --all)");
  auto nis = live::list_local_nis();
  // "NI 1: 10.0.0.1@tcp [up]": never "1.10.0.0.1@tcp", which reads as a NID.
  int i = 1;
  for (const auto& ni : nis)
    std::printf("NI %d: %s%s%s%s\n", i++, ni.nid.c_str(), ni.status.empty() ? "" : " [",
                ni.status.c_str(), ni.status.empty() ? "" : "]");
  if (nis.empty())
    std::fprintf(stderr, "lnetcap: no local NIs found (/sys/kernel/debug/lnet/nis and lnetctl "
                         "net show are empty or unreadable)\n");
  std::printf("lustre: %s%s%s\n", live::describe_lustre(env).c_str(),
              env.version_source.empty() ? "" : " from ", env.version_source.c_str());
#ifndef LNETCAP_HAVE_BPF
  (void)opts;
  std::printf("attach mode: none (built without eBPF support)\n");
  return 1;
#else
  try {
    live::AttachPlan plan = live::plan_attach(opts, env);
    std::printf("attach mode: %s\n", plan.describe().c_str());
    std::printf("payload: %s\n", live::detect_kernel_memmap().describe.c_str());
    // The capture's own self-check, on programs loaded as a capture would
    // load them (no filter): -D says whether a capture would start.
    live::SelfCheckResult r;
    try {
      check_privileges();
      const auto tid = static_cast<std::uint32_t>(gettid());
      std::uint32_t snaplen = live::effective_snaplen(opts);
      auto page = static_cast<std::uint32_t>(sysconf(_SC_PAGESIZE));
      lnetcap_cfg cfg = live::make_cfg(opts, filter::Filter(), plan.layout.lo, snaplen);
      cfg.drop_rule_nid4 = plan.layout.drop_rule_nid4 ? 1 : 0;
      cfg.self_tid = tid;
      cfg.km = live::detect_kernel_memmap().km;
      live::RingSource src(load(plan, cfg, live::ring_bytes(opts, snaplen, page)), {}, snaplen,
                           "", "");
      r = src.self_check(tid);
    } catch (const Error& e) {
      std::printf("self-check: not run: %s\n", e.what());
      return 1;
    }
    std::printf("self-check: %s\n", live::describe(r).c_str());
    if (r.status == live::SelfCheckResult::kMismatch) {
      std::fprintf(stderr, "lnetcap: hint: %s\n", live::exact_offsets_hint().c_str());
      return 1;
    }
    if (r.status == live::SelfCheckResult::kImpossible && plan.layout.candidate) {
      std::printf("attach mode: none: the candidate offsets cannot be proven\n");
      return 1;
    }
  } catch (const Error& e) {
    std::printf("attach mode: none: %s\n", e.what());
    if (!e.hint().empty()) std::fprintf(stderr, "lnetcap: hint: %s\n", e.hint().c_str());
    return 1;
  }
  return 0;
#endif
}

}  // namespace lnetcap
