// SPDX-License-Identifier: GPL-2.0-or-later
#include "trigger.h"

#include <cinttypes>
#include <cstdio>
#include <ctime>

#include "../error.h"
#include "../pcapng_sink.h"
#include "incident_file.h"

namespace lnetcap::daemon {
namespace {

constexpr std::uint64_t kMinuteNs = 60'000'000'000ULL;

// 20261124T142233.123456789Z: sorts in time order, safe in a file name.
std::string utc_stamp(std::uint64_t ts_ns) {
  const std::time_t sec = static_cast<std::time_t>(ts_ns / 1000000000ULL);
  std::tm tm{};
  gmtime_r(&sec, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d%02d%02dT%02d%02d%02d.%09" PRIu64 "Z", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<std::uint64_t>(ts_ns % 1000000000ULL));
  return buf;
}

std::string seconds_text(std::uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(ns) / 1e9);
  return buf;
}

}  // namespace

TriggerWriter::TriggerWriter(TriggerConfig config, std::string node)
    : config_(std::move(config)), node_(std::move(node)), filter_(filter::Filter::parse(config_.filter)) {
  if (config_.max_per_minute == 0)
    throw Error("the trigger's files per minute must be at least 1", "give --trigger-max-per-minute N");
  prepare_incident_directory(config_.directory);
}

bool TriggerWriter::allowed_now(std::uint64_t ts_ns) {
  while (!recent_files_.empty() && recent_files_.front() + kMinuteNs <= ts_ns) recent_files_.pop_front();
  if (recent_files_.size() >= config_.max_per_minute) return false;
  recent_files_.push_back(ts_ns);
  return true;
}

struct TriggerWriter::Window {
  std::uint64_t match_ts_ns = 0;     // the record's timestamp (file name)
  std::uint64_t match_bound_ns = 0;  // and on the recorder's timeline
  std::uint64_t number = 0;          // 1, 2, ... for the file name
  std::uint64_t records = 0;         // written so far
  std::unique_ptr<IncidentFile> file;  // removed unless committed
  std::unique_ptr<PcapngSink> sink;    // writes into *file (destroyed first)
};

TriggerWriter::~TriggerWriter() = default;

void TriggerWriter::observe(const StoredRecordPtr& rec, const Message& msg,
                            const FlightRecorder& recorder,
                            const std::vector<CaptureInterface>& interfaces) {
  // Windows whose `after` time has passed are complete; the others take
  // the record.  Times on the recorder's timeline (record_clock.h): a
  // clock stepped back neither holds windows open nor the per-minute
  // limit shut.
  for (auto it = open_.begin(); it != open_.end();) {
    Window& w = **it;
    if (rec->bound_ns > w.match_bound_ns + config_.after_ns) {
      close(w, interfaces);
      it = open_.erase(it);
    } else if (!append(w, *rec, interfaces)) {
      it = open_.erase(it);
    } else {
      ++it;
    }
  }
  if (!filter_.matches(msg)) return;
  ++counts_.fired;
  const bool too_many_open = open_.size() >= kMaxOpenWindows;
  if (too_many_open || !allowed_now(rec->bound_ns)) {
    if (counts_.skipped++ == 0 || counts_.skipped % 1000 == 0) {
      if (too_many_open)
        std::fprintf(stderr,
                     "lnetcapd: trigger matched again: no file (%zu windows are collecting records "
                     "already, the most at once); %" PRIu64 " skipped so far\n",
                     kMaxOpenWindows, counts_.skipped);
      else
        std::fprintf(stderr,
                     "lnetcapd: trigger matched again: no file (at most %u a minute); %" PRIu64
                     " skipped so far\n",
                     config_.max_per_minute, counts_.skipped);
    }
    return;
  }
  auto w = std::make_unique<Window>();
  w->match_ts_ns = rec->ts_ns;
  w->match_bound_ns = rec->bound_ns;
  w->number = counts_.fired;
  if (open(*w, recorder, interfaces)) open_.push_back(std::move(w));
}

void TriggerWriter::finish(const std::vector<CaptureInterface>& interfaces) {
  for (auto& w : open_) close(*w, interfaces);
  open_.clear();
}

std::string TriggerWriter::name_of(const Window& w) const {
  return node_ + "-" + utc_stamp(w.match_ts_ns) + "-" + std::to_string(w.number);
}

bool TriggerWriter::open(Window& w, const FlightRecorder& recorder,
                         const std::vector<CaptureInterface>& interfaces) {
  try {
    // Safely (incident_file.h): mode 0600, a unique name, nothing left on failure.
    w.file = std::make_unique<IncidentFile>(config_.directory, name_of(w));
    PcapngSinkOptions o;
    o.path = w.file->path();
    o.section_comments = {"lnetcapd flight recorder on " + node_ + ": trigger '" + config_.filter +
                          "' matched the record at " + utc_stamp(w.match_ts_ns) + "; window " +
                          seconds_text(config_.before_ns) + " s before to " +
                          seconds_text(config_.after_ns) + " s after"};
    o.interface_note = "on " + node_;
    w.sink = std::make_unique<PcapngSink>(o);
  } catch (const Error& e) {
    failed(w, e.what());
    return false;
  }
  // The earlier part of the window is what the recorder still holds
  // (the match included: the recorder kept it before the trigger saw it).
  const std::uint64_t from = w.match_bound_ns > config_.before_ns ? w.match_bound_ns - config_.before_ns : 0;
  const auto& held = recorder.held();
  auto first = held.end();
  while (first != held.begin() && (*(first - 1))->bound_ns >= from) --first;
  for (auto it = first; it != held.end(); ++it)
    if (!append(w, **it, interfaces)) return false;
  return true;
}

bool TriggerWriter::append(Window& w, const StoredRecord& rec, const std::vector<CaptureInterface>& interfaces) {
  try {
    const Message no_decoding;  // the pcapng sink writes records as they are
    w.sink->consume(rec.view(), no_decoding, interfaces);
  } catch (const Error& e) {
    failed(w, e.what());  // the caller drops the window: its file is removed
    return false;
  }
  ++w.records;
  return true;
}

void TriggerWriter::close(Window& w, const std::vector<CaptureInterface>& interfaces) {
  std::string path;
  try {
    SourceStats stats;
    stats.received = w.records;
    w.sink->finish(interfaces, stats);
    w.sink.reset();
    path = w.file->commit();
  } catch (const Error& e) {
    failed(w, e.what());
    return;
  }
  ++counts_.written;
  files_.push_back(path);
  std::fprintf(stderr, "lnetcapd: trigger '%s' matched at %s: wrote %s (%" PRIu64 " records)\n",
               config_.filter.c_str(), utc_stamp(w.match_ts_ns).c_str(), path.c_str(), w.records);
}

void TriggerWriter::failed(const Window& w, const std::string& why) {
  ++counts_.failed;
  std::fprintf(stderr, "lnetcapd: trigger: cannot write %s/%s.pcapng: %s\n", config_.directory.c_str(),
               name_of(w).c_str(), why.c_str());
}

}  // namespace lnetcap::daemon
