// SPDX-License-Identifier: GPL-2.0-or-later
// sink.h - consumers of the record stream: pcapng files, text printers,
// reports (summaries, charts, assertions).
#pragma once

#include <vector>

#include "message.h"
#include "source.h"

namespace lnetcap {

class RecordSink {
 public:
  virtual ~RecordSink() = default;
  /// Called for every record that passed the filter, with its decoding.
  /// interfaces is the source's current list (it may have grown).
  virtual void consume(const CapturedRecord& rec, const Message& msg,
                       const std::vector<CaptureInterface>& interfaces) = 0;
  /// Called for every decoded record before the filter, passed or not,
  /// unless the output is anonymized (then only consume() sees them, in
  /// pseudonyms).  A sink that annotates a message from earlier ones (the
  /// text: which RPC a bulk REPLY belongs to) learns here from what the
  /// filter hides; consume() of a record that passed follows its observe().
  virtual void observe(const Message& msg) { (void)msg; }
  /// End of capture (normal end, -c reached, signal or error): flush and
  /// write trailers.  stats are the source's final counters.
  virtual void finish(const std::vector<CaptureInterface>& interfaces,
                      const SourceStats& stats) = 0;
  /// SIGUSR1 / --stats-interval: a status line or periodic output.
  virtual void status() {}
};

}  // namespace lnetcap
