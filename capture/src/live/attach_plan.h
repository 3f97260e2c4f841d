// SPDX-License-Identifier: GPL-2.0-or-later
// attach_plan.h - chooses how to hook LNet on this node (--attach, --btf,
// --lustre-version, and what the kernel offers) and where struct offsets
// come from.  Every refusal is an Error that says what to do instead.
#pragma once

#include <string>

#include "../options.h"
#include "layout.h"
#include "lustre_env.h"

namespace lnetcap::live {

enum class AttachMode { kFentry, kKprobe };

struct AttachPlan {
  AttachMode mode = AttachMode::kKprobe;
  bool kfunc = false;  // payload pages through the lnetcap_kfunc module
  Layout layout;
  /// "fentry, offsets from BTF of module lnet, lnetcap_kfunc loaded"
  std::string describe() const;
};

/// Throws Error when LNet is not loaded or no mode fits.
AttachPlan plan_attach(const Options& opts, const LustreEnv& env);

/// The --attach kprobe fallback when fentry was planned but failed to load:
/// same offsets, no kfunc.  Throws when kprobes are unavailable too.
AttachPlan kprobe_fallback(const AttachPlan& failed, const LustreEnv& env);

}  // namespace lnetcap::live
