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

void TriggerWriter::observe(const StoredRecordPtr& rec, const Message& msg,
                            const FlightRecorder& recorder,
                            const std::vector<CaptureInterface>& interfaces) {
  // Windows whose `after` time has passed are complete.
  // Times on the recorder's timeline (record_clock.h): a clock stepped
  // back neither holds windows open nor the per-minute limit shut.
  for (auto it = open_.begin(); it != open_.end();) {
    if (rec->bound_ns > it->match_bound_ns + config_.after_ns) {
      write(*it, interfaces);
      it = open_.erase(it);
    } else {
      it->records.push_back(rec);
      ++it;
    }
  }
  if (!filter_.matches(msg)) return;
  ++counts_.fired;
  if (!allowed_now(rec->bound_ns)) {
    if (counts_.skipped++ == 0 || counts_.skipped % 1000 == 0)
      std::fprintf(stderr,
                   "lnetcapd: trigger matched again: no file (at most %u a minute); %" PRIu64
                   " skipped so far\n",
                   config_.max_per_minute, counts_.skipped);
    return;
  }
  Window w;
  w.match_ts_ns = rec->ts_ns;
  w.match_bound_ns = rec->bound_ns;
  w.number = counts_.fired;
  // The earlier part of the window is what the recorder still holds
  // (itself included: the recorder kept it before the trigger saw it).
  const std::uint64_t from = rec->bound_ns > config_.before_ns ? rec->bound_ns - config_.before_ns : 0;
  const auto& held = recorder.held();
  auto first = held.end();
  while (first != held.begin() && (*(first - 1))->bound_ns >= from) --first;
  w.records.assign(first, held.end());
  open_.push_back(std::move(w));
}

void TriggerWriter::finish(const std::vector<CaptureInterface>& interfaces) {
  for (const Window& w : open_) write(w, interfaces);
  open_.clear();
}

void TriggerWriter::write(const Window& w, const std::vector<CaptureInterface>& interfaces) {
  const std::string name = node_ + "-" + utc_stamp(w.match_ts_ns) + "-" + std::to_string(w.number);
  std::string path;
  try {
    // Safely (incident_file.h): mode 0600, a unique name, nothing left on failure.
    path = write_incident_file(config_.directory, name, [&](const std::string& file) {
      PcapngSinkOptions o;
      o.path = file;
      o.section_comments = {"lnetcapd flight recorder on " + node_ + ": trigger '" + config_.filter +
                            "' matched the record at " + utc_stamp(w.match_ts_ns) + "; window " +
                            seconds_text(config_.before_ns) + " s before to " +
                            seconds_text(config_.after_ns) + " s after"};
      o.interface_note = "on " + node_;
      PcapngSink sink(o);
      const Message no_decoding;  // the pcapng sink writes records as they are
      for (const auto& r : w.records) sink.consume(r->view(), no_decoding, interfaces);
      SourceStats stats;
      stats.received = w.records.size();
      sink.finish(interfaces, stats);
    });
  } catch (const Error& e) {
    ++counts_.failed;
    std::fprintf(stderr, "lnetcapd: trigger: cannot write %s/%s.pcapng: %s\n", config_.directory.c_str(),
                 name.c_str(), e.what());
    return;
  }
  ++counts_.written;
  files_.push_back(path);
  std::fprintf(stderr, "lnetcapd: trigger '%s' matched at %s: wrote %s (%zu records)\n",
               config_.filter.c_str(), utc_stamp(w.match_ts_ns).c_str(), path.c_str(),
               w.records.size());
}

}  // namespace lnetcap::daemon
