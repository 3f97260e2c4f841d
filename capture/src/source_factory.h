// SPDX-License-Identifier: GPL-2.0-or-later
// source_factory.h - the record source the options name, for lnetcap's
// pipeline (app.cpp) and for lnetcapd, which serves its one source to
// subscribers; the daemon reaches sources through this, not through the
// capture pipeline.
#pragma once

#include <memory>

#include "options.h"
#include "source.h"

namespace lnetcap {

namespace filter {
class Filter;
}

/// A file (-r: lnetcap pcapng, or a socklnd TCP capture to convert; a pipe
/// is read once, never reopened), a network interface (socklnd decoding
/// live), or the live eBPF capture (filter terms pushed into the kernel
/// where possible; clauses: lnetcapd's per-subscriber table).
std::unique_ptr<RecordSource> open_capture_source(const Options& opts, const filter::Filter& filter,
                                                  KernelClauses clauses = KernelClauses::kOff);

}  // namespace lnetcap
