// SPDX-License-Identifier: GPL-2.0-or-later
// app.h - the capture pipeline: one source, a filter, the sinks.
#pragma once

#include <memory>

#include "options.h"
#include "source.h"

namespace lnetcap {

namespace filter {
class Filter;
}

/// The source the options name: a file (-r), a network interface, or the
/// live eBPF capture (filter terms pushed into the kernel where possible).
/// lnetcapd serves its one source through this too.
std::unique_ptr<RecordSource> open_capture_source(const Options& opts, const filter::Filter& filter,
                                                  KernelClauses clauses = KernelClauses::kOff);

/// Runs what the options ask for; returns the exit status.  Throws Error.
int run(const Options& opts);

}  // namespace lnetcap
