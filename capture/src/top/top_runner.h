// SPDX-License-Identifier: GPL-2.0-or-later
// top_runner.h - lnetcap --top (docs/REPORTS.md "Top"): reads a source into
// one-second windows and shows them, on the terminal or as text blocks.
//
// The window clock:
//  - live capture and --from: wall-clock seconds; a window holds what
//    arrived during it (a daemon replaying an old file still fills the
//    current second);
//  - -r FILE: seconds of the records' own time, so a window is what the
//    capture saw in that second.  On a terminal the file is replayed at
//    its recorded pace (a window lasts a second on the screen, as it did
//    live; p pauses the replay); in plain text it is read as fast as it
//    can be, one block per second of record time that holds a record.
// When the input ends, the plain text ends with a block of the whole run
// ("total"), and the screen switches to the whole run and stays until q.
#pragma once

#include "filter/filter.h"
#include "options.h"
#include "sink.h"
#include "source.h"

namespace lnetcap::top {

/// Throws Error for options --top cannot honour (every output but -w); the
/// caller asks before it opens the source or the file.
void refuse_other_outputs(const Options& opts);

/// Runs the view until q, the end of a plain-text run, or a signal; the
/// exit status (0).  Every record the view counts also goes to writer
/// (-w FILE) when there is one; the caller finishes it.
int run_top(const Options& opts, RecordSource& source, const filter::Filter& filter,
            RecordSink* writer = nullptr);

}  // namespace lnetcap::top
