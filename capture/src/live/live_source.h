// SPDX-License-Identifier: GPL-2.0-or-later
// live_source.h - live capture from the kernel through eBPF.
#pragma once

#include <memory>

#include "../filter/filter.h"
#include "../options.h"
#include "../source.h"

namespace lnetcap {

/// Loads and attaches the eBPF programs (pushing filter terms into the
/// kernel when the filter allows it).  Throws Error with a hint when there
/// is no Lustre, no privilege or no usable attach mode.
std::unique_ptr<RecordSource> open_live_capture(const Options& opts, const filter::Filter& filter,
                                                KernelClauses clauses = KernelClauses::kOff);
/// -D: prints the local NIs and the attach mode that would be used.
int list_live_interfaces(const Options& opts);

}  // namespace lnetcap
