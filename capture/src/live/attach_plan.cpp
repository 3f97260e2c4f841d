// SPDX-License-Identifier: GPL-2.0-or-later
#include "attach_plan.h"

#include "../error.h"
#include "lnet_debuginfo.h"

namespace lnetcap::live {
namespace {

const char* kBtfHint =
    "make one with `pahole --btf_encode_detached=lnet.btf lnet.ko` from Lustre's debuginfo "
    "(lustre-debuginfo / the unstripped lnet.ko) and pass --btf lnet.btf, or run a Lustre "
    "built with module BTF (fentry mode)";

Layout btf_layout(const std::string& path, const std::string& base, const std::string& origin) {
#ifdef LNETCAP_HAVE_BPF
  return layout_from_btf_file(path, base, origin);
#else
  (void)path, (void)base, (void)origin;
  throw Error("this lnetcap was built without eBPF support",
              "rebuild with clang, bpftool and libbpf-dev installed (LNETCAP_BUILD_BPF=ON)");
#endif
}

Layout kprobe_layout(const Options& opts, const LustreEnv& env) {
  if (!opts.btf_file.empty())
    return btf_layout(opts.btf_file, "/sys/kernel/btf/vmlinux", "BTF file " + opts.btf_file);
  if (env.lnet_btf)
    return btf_layout("/sys/kernel/btf/lnet", "/sys/kernel/btf/vmlinux", "BTF of module lnet");
  // Installed debuginfo describes exactly this build: better than a table
  // (--lustre-version still forces the table).  When it cannot be used,
  // the table's origin says why, so -D and -v show it.
  std::string debuginfo_note;
  if (!env.lnet_debuginfo.empty() && opts.lustre_version.empty()) {
    try {
      return layout_from_debuginfo(env.lnet_debuginfo);
    } catch (const Error& e) {
      debuginfo_note = std::string(" (debuginfo not used: ") + e.what() + ")";
    }
  }
  auto noted = [&](Layout l) {
    l.origin += debuginfo_note;
    return l;
  };
  std::string version = !opts.lustre_version.empty() ? opts.lustre_version : env.version;
  if (version.empty()) {
    // An LNet-only node (a router) publishes no Lustre release.  Every
    // release with a built-in table declares the fields read identically
    // (layout_tables.cpp), so that one layout is the only candidate.
    if (auto l = builtin_layout("2.16")) {
      l->origin = "built-in table shared by Lustre " + builtin_versions() +
                  " (no Lustre release published: LNet-only node)";
      return noted(*l);
    }
  }
  if (auto l = builtin_layout(version)) return noted(*l);
  throw Error("no attach mode fits: the lnet module has no BTF (needed for fentry) and "
              "Lustre " + version + " has no built-in layout (known: " + builtin_versions() + ")",
              kBtfHint);
}

void need_kprobes(const LustreEnv& env) {
  if (!env.kprobes)
    throw Error("this kernel has no kprobes (CONFIG_KPROBES) and the lnet module has no BTF "
                "for fentry",
                "run a kernel with CONFIG_KPROBES=y, or a Lustre built with module BTF");
}

}  // namespace

std::string AttachPlan::describe() const {
  std::string s = mode == AttachMode::kFentry ? "fentry" : "kprobe";
  s += ", offsets from " + layout.origin;
  if (mode == AttachMode::kFentry && kfunc) s += ", lnetcap_kfunc loaded";
  return s;
}

AttachPlan plan_attach(const Options& opts, const LustreEnv& env) {
  if (!env.lnet_loaded)
    throw Error("the lnet kernel module is not loaded",
                "load LNet first (modprobe lnet; lnetctl lnet configure --all) or run lnetcap on "
                "a Lustre client, server or router; -r reads a saved capture instead");
  const std::string& want = opts.attach_mode;
  if (want != "auto" && want != "fentry" && want != "kprobe")
    throw Error("--attach " + want + ": unknown attach mode", "use auto, fentry or kprobe");

  AttachPlan plan;
  if (want == "fentry" || (want == "auto" && env.lnet_btf)) {
    if (!env.lnet_btf)
      throw Error("--attach fentry needs BTF for the lnet module (/sys/kernel/btf/lnet is missing)",
                  "use --attach kprobe (or auto), or load a Lustre built with module BTF "
                  "(CONFIG_DEBUG_INFO_BTF_MODULES and pahole at build time)");
    plan.mode = AttachMode::kFentry;
    plan.kfunc = env.kfunc_module;
    plan.layout = btf_layout("/sys/kernel/btf/lnet", "/sys/kernel/btf/vmlinux",
                             "BTF of module lnet");
    return plan;
  }
  need_kprobes(env);
  plan.mode = AttachMode::kKprobe;
  plan.layout = kprobe_layout(opts, env);
  return plan;
}

AttachPlan kprobe_fallback(const AttachPlan& failed, const LustreEnv& env) {
  need_kprobes(env);
  AttachPlan plan = failed;
  plan.mode = AttachMode::kKprobe;
  plan.kfunc = false;
  return plan;
}

}  // namespace lnetcap::live
