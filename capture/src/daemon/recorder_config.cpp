// SPDX-License-Identifier: GPL-2.0-or-later
#include "recorder_config.h"

#include "../error.h"
#include "../filter/filter.h"

namespace lnetcap::daemon {
namespace {

// A value the command-line parser checks, with the file's line on error.
template <typename Parse>
auto checked(ConfigGroup& g, const char* key, const std::string& text, Parse parse) {
  try {
    return parse(text);
  } catch (const Error& e) {
    g.fail(key, e.what(), e.hint());
  }
}

}  // namespace

void parse_recorder_group(ConfigGroup& g, DaemonOptions& o) {
  if (auto v = g.string("size"))
    o.recorder.max_bytes = checked(g, "size", *v, [](const std::string& t) { return parse_recorder_size("size", t); });
  if (auto v = g.string("seconds"))
    o.recorder.max_ns = checked(g, "seconds", *v, [](const std::string& t) { return parse_seconds_ns("seconds", t); });
  if (auto v = g.string("trigger")) {
    // A bad filter stops the daemon here, naming the file's line.
    checked(g, "trigger", *v, [](const std::string& t) { return filter::Filter::parse(t); });
    o.trigger.filter = *v;
  }
  if (auto v = g.string("trigger-dir")) o.trigger.directory = *v;
  if (auto v = g.string("trigger-before"))
    o.trigger.before_ns =
        checked(g, "trigger-before", *v, [](const std::string& t) { return parse_seconds_ns("trigger-before", t); });
  if (auto v = g.string("trigger-after"))
    o.trigger.after_ns =
        checked(g, "trigger-after", *v, [](const std::string& t) { return parse_seconds_ns("trigger-after", t); });
  if (auto v = g.number("trigger-max-per-minute", 1, 100000)) o.trigger.max_per_minute = static_cast<unsigned>(*v);
}

void parse_metrics_group(ConfigGroup& g, DaemonOptions& o) {
  if (auto v = g.string("listen")) o.metrics.listen = *v;
  if (auto v = g.number("max-label-values", 1, 100000)) o.metrics.max_label_values = static_cast<unsigned>(*v);
}

void recorder_settings_needing_restart(const DaemonOptions& a, const DaemonOptions& b,
                                       std::vector<std::string>& changed) {
  auto check = [&](bool differs, const char* name) {
    if (differs) changed.push_back(name);
  };
  check(a.recorder.max_bytes != b.recorder.max_bytes, "[recorder] size");
  check(a.recorder.max_ns != b.recorder.max_ns, "[recorder] seconds");
  check(a.trigger.filter != b.trigger.filter, "[recorder] trigger");
  check(a.trigger.directory != b.trigger.directory, "[recorder] trigger-dir");
  check(a.trigger.before_ns != b.trigger.before_ns, "[recorder] trigger-before");
  check(a.trigger.after_ns != b.trigger.after_ns, "[recorder] trigger-after");
  check(a.trigger.max_per_minute != b.trigger.max_per_minute, "[recorder] trigger-max-per-minute");
  check(a.metrics.listen != b.metrics.listen, "[metrics] listen");
  check(a.metrics.max_label_values != b.metrics.max_label_values, "[metrics] max-label-values");
}

}  // namespace lnetcap::daemon
