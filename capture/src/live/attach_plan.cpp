// SPDX-License-Identifier: GPL-2.0-or-later
#include "attach_plan.h"

#include <cstdlib>

#include "../error.h"
#include "lnet_debuginfo.h"

namespace lnetcap::live {
namespace {

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
    // An LNet-only node (a router) of 2.17.53 or older publishes no
    // release; its lnet module says "0.7.0".  Every release up to 2.17.54
    // lnetcap reads has the same offsets, but "0.7.0" does not exclude an
    // older one: a candidate, used only once the self-check proves it.
    if (env.lnet_version == "0.7.0") return noted(*lnet_0_7_0_candidate());
    throw Error("no attach mode fits: the lnet module has no BTF (needed for fentry) and no "
                "Lustre release is published (/sys/module/lnet/version says '" +
                    env.lnet_version + "')",
                exact_offsets_hint() + "; or name the release with --lustre-version X.Y.Z");
  }
  if (auto l = builtin_layout(version)) return noted(*l);
  // An unknown release (newer than any read, or a maintenance release not
  // read yet) is never mapped silently: the nearest older table is only a
  // candidate for the self-check to prove or refuse.
  if (auto l = candidate_layout(version)) return noted(*l);
  throw Error("no attach mode fits: the lnet module has no BTF (needed for fentry) and "
              "Lustre " + version + " has no built-in layout (known: " + builtin_versions() + ")",
              exact_offsets_hint());
}

// LNETCAP_TEST_ONLY_TABLE=X.Y.Z: TEST ONLY (tests/rig, the self-check's
// refusal): forces the built-in table of release X.Y.Z whatever the module
// is, in either attach mode, so a test can run lnetcap with a table known
// to be wrong.  Never documented for users; the origin says it loudly.
std::optional<Layout> test_only_table() {
  const char* v = std::getenv("LNETCAP_TEST_ONLY_TABLE");
  if (!v || !*v) return std::nullopt;
  auto l = builtin_layout(v);
  if (!l)
    throw Error(std::string("LNETCAP_TEST_ONLY_TABLE=") + v + ": no built-in table",
                "this variable is for lnetcap's tests only; unset it");
  l->origin = std::string("TEST-ONLY table of Lustre ") + v + " (LNETCAP_TEST_ONLY_TABLE)";
  return l;
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
    if (auto t = test_only_table()) plan.layout = *t;
    return plan;
  }
  need_kprobes(env);
  plan.mode = AttachMode::kKprobe;
  plan.layout = kprobe_layout(opts, env);
  if (auto t = test_only_table()) plan.layout = *t;
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
