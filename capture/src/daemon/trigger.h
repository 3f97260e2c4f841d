// SPDX-License-Identifier: GPL-2.0-or-later
// trigger.h - lnetcapd's recorder triggers: a filter (lnetcap's grammar,
// e.g. `status == -110 or health != OK`); each record it matches saves the
// window around it - the records from `before` ns earlier (taken from the
// flight recorder) to `after` ns later (collected as they arrive) - to a
// pcapng file of its own in the trigger directory.
//
// A storm of matches writes at most max_per_minute files in any minute of
// capture time (the records' clock, so a replay behaves like the live
// capture it replays); the other matches are counted as skipped, logged,
// and shown by `lnetcap --status` and the metrics.
//
// A window holds no records: its file is made at the match (under a
// temporary name, incident_file.h), the earlier part is written at once,
// and every later record is appended as it arrives; the file gets its name
// when the window closes.  So however long the window and however fast the
// traffic, an open window costs one pcapng writer's buffer (about 320 KiB)
// and a descriptor, never the records it covers: the daemon's memory stays
// the recorder's bound (issue 25: a 16 MB recorder reached 352 MB when the
// windows kept every record of their later part).  At most
// kMaxOpenWindows are open at once; a match beyond is skipped and counted.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "../filter/filter.h"
#include "flight_recorder.h"

namespace lnetcap::daemon {

/// [recorder] trigger settings; --trigger* on the command line.
struct TriggerConfig {
  std::string filter;                      // empty = no trigger
  std::string directory = "/var/lib/lnetcap/incidents";
  std::uint64_t before_ns = 10'000'000'000;  // window before the match
  std::uint64_t after_ns = 5'000'000'000;    // and after it
  unsigned max_per_minute = 6;
  bool enabled() const { return !filter.empty(); }
};

struct TriggerCounts {
  std::uint64_t fired = 0;    // records that matched the trigger filter
  std::uint64_t written = 0;  // files written
  std::uint64_t skipped = 0;  // matches over the per-minute limit (no file)
  std::uint64_t failed = 0;   // files that could not be written (logged)
};

class TriggerWriter {
 public:
  /// Compiles the filter (throws Error naming the bad token, as lnetcap).
  TriggerWriter(TriggerConfig config, std::string node);
  ~TriggerWriter();

  /// Feed every record after the recorder kept it.  recorder: the records
  /// before it (the match's earlier window comes from there).
  void observe(const StoredRecordPtr& rec, const Message& msg, const FlightRecorder& recorder,
               const std::vector<CaptureInterface>& interfaces);
  /// The source ended: windows still open are written with what they have.
  void finish(const std::vector<CaptureInterface>& interfaces);

  const TriggerCounts& counts() const { return counts_; }
  const TriggerConfig& config() const { return config_; }
  /// Names of the files written, oldest first (logs, tests).
  const std::vector<std::string>& files() const { return files_; }
  /// Windows collecting their later part now.
  std::size_t open_windows() const { return open_.size(); }

  /// Windows open at once (each holds a descriptor and a writer's buffer).
  static constexpr std::size_t kMaxOpenWindows = 16;

 private:
  struct Window;
  bool allowed_now(std::uint64_t ts_ns);
  /// Makes the window's file and writes the earlier part; false (counted
  /// and logged as failed) when it cannot.
  bool open(Window& w, const FlightRecorder& recorder, const std::vector<CaptureInterface>& interfaces);
  /// Appends one record; false (counted, logged, file removed) on failure.
  bool append(Window& w, const StoredRecord& rec, const std::vector<CaptureInterface>& interfaces);
  /// Finishes the window's file and names it.
  void close(Window& w, const std::vector<CaptureInterface>& interfaces);
  void failed(const Window& w, const std::string& why);
  std::string name_of(const Window& w) const;

  TriggerConfig config_;
  std::string node_;
  filter::Filter filter_;
  std::deque<std::unique_ptr<Window>> open_;  // waiting for their `after` records
  std::deque<std::uint64_t> recent_files_;  // match times of files in the last minute
  TriggerCounts counts_;
  std::vector<std::string> files_;
};

}  // namespace lnetcap::daemon
