// SPDX-License-Identifier: GPL-2.0-or-later
// app.h - the capture pipeline: one source, a filter, the sinks.
#pragma once

#include "options.h"

namespace lnetcap {

/// Runs what the options ask for; returns the exit status.  Throws Error.
int run(const Options& opts);

}  // namespace lnetcap
