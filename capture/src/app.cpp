// SPDX-License-Identifier: GPL-2.0-or-later
#include "app.h"

#include <net/if.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <vector>

#include "anon/anonymizing_stage.h"
#include "body_fields.h"
#include "capture_metadata.h"
#include "error.h"
#include "file_source.h"
#include "filter/filter.h"
#include "live/live_source.h"
#include "message.h"
#include "nid.h"
#include "nid_names.h"
#include "nid_resolver.h"
#include "output/damage_warnings.h"
#include "output/overwrite_guard.h"
#include "output/rotation.h"
#include "pcapng_sink.h"
#include "record.h"
#include "report/command_runner.h"
#include "report/command_scope.h"
#include "report/progress_meter.h"
#include "report/report_sinks.h"
#include "report/session_jobid.h"
#include "report/status_line.h"
#include "report/text_escape.h"
#include "signals.h"
#include "source_factory.h"
#include "text/checked_write.h"
#include "subscribe/protocol.h"
#include "subscribe/subscription_source.h"
#include "text/text_sink.h"
#include "top/top_runner.h"
#include "version.h"

namespace lnetcap {
namespace {

std::unique_ptr<RecordSource> open_source(const Options& opts, const filter::Filter& filter) {
  // lnetcapd evaluates the filter and snap length (push-down): they travel
  // as text, and a filter it cannot parse comes back as its error.
  if (!opts.from.empty())
    return subscribe::open_subscriptions(opts.from, opts.filter,
                                         opts.snaplen.value_or(subscribe::kSnaplenAsCaptured),
                                         subscribe::CurveClient{opts.curve_key, opts.server_key},
                                         opts.dump ? subscribe::Request::kDump : subscribe::Request::kSubscribe,
                                         std::chrono::seconds(opts.reconnect_seconds), opts.consumer_group);
  return open_capture_source(opts, filter);
}

// -w FILE (with its rotation options), or nothing without -w.
std::unique_ptr<PcapngSink> make_pcapng_sink(const Options& opts, const std::vector<std::string>& metadata) {
  output::RotationOptions rotation{opts.write_file, opts.rotate_size, opts.rotate_seconds,
                                   opts.file_count};
  output::validate_rotation(rotation, !opts.post_rotate_command.empty());
  if (opts.write_file.empty()) return nullptr;
  PcapngSinkOptions p;
  p.path = opts.write_file;
  p.packet_buffered = opts.packet_buffered;
  p.rotation = rotation;
  p.post_rotate_command = opts.post_rotate_command;
  p.section_comments = metadata;
  p.anonymized = opts.anonymize;
  // Subscriptions name their node themselves (one interface per node and NI).
  if (opts.read_file.empty() && opts.from.empty() && !opts.anonymize)
    p.interface_note = "on " + host_name();
  return std::make_unique<PcapngSink>(p);
}

std::vector<std::unique_ptr<RecordSink>> make_sinks(const Options& opts,
                                                    const std::vector<std::string>& metadata) {
  std::vector<std::unique_ptr<RecordSink>> sinks;
  if (auto pcapng = make_pcapng_sink(opts, metadata)) sinks.push_back(std::move(pcapng));
  // Names for NIDs, like /etc/hosts for tcpdump: the default file when it
  // exists, the one given, or none with -n (which also keeps the resolver off).
  if (!opts.numeric) {
    if (!opts.nid_names.empty())
      NidNames::global().load(opts.nid_names);
    else if (access(kDefaultNidNamesFile, R_OK) == 0)
      NidNames::global().load(kDefaultNidNamesFile);
    // Then the system resolver for IP NIDs the file does not name, asked
    // for because a DNS look-up can be slow (bounded: nid_resolver.h).
    if (opts.resolve_nids) set_global_nid_resolver(std::make_unique<NidResolver>());
  }
  const bool reports = !opts.summary.empty() || !opts.chart.empty() || !opts.assertions.empty();
  const bool print = opts.write_file.empty() ? !reports : opts.print_with_write;
  if (print) {
    std::optional<text::Format> fmt;
    if (!opts.print_format.empty()) fmt = text::Format::compile(opts.print_format);
    text::LineStyle style{opts.quiet, opts.verbose, opts.nano};
    sinks.push_back(std::make_unique<text::TextSink>(stdout, style, std::move(fmt), opts.hex,
                                                     opts.packet_buffered));
  }
  // Reports (capture/src/report/): each is a sink that prints at finish().
  if (!opts.summary.empty()) sinks.push_back(std::make_unique<report::SummarySink>(opts.summary));
  if (!opts.chart.empty())
    sinks.push_back(std::make_unique<report::ChartSink>(opts.chart, opts.chart_output));
  if (!opts.assertions.empty())
    sinks.push_back(std::make_unique<report::AssertionSink>(opts.assertions));
  return sinks;
}

template <typename T>
T* find_sink(const std::vector<std::unique_ptr<RecordSink>>& sinks) {
  for (const auto& s : sinks)
    if (auto* p = dynamic_cast<T*>(s.get())) return p;
  return nullptr;
}

void print_counts(const SourceStats& s, std::uint64_t matched, bool live, int verbose) {
  std::string out;
  auto line = [&out](const std::string& text) { out += text + "\n"; };
  if (verbose > 0)
    for (const auto& [name, value] : s.details)
      line("lnetcap: " + name + ": " + std::to_string(value));
  if (live) {
    line(std::to_string(matched) + " messages captured");
    line(std::to_string(s.received) + " messages received by filter");
    line(std::to_string(s.dropped - s.queue_dropped) + " messages dropped by kernel");
    if (s.queue_dropped)
      line(std::to_string(s.queue_dropped) +
           " messages dropped by lnetcapd (this subscriber's queue was full)");
    if (s.filtered) line(std::to_string(s.filtered) + " messages rejected by the in-kernel filter");
  } else {
    if (s.dropped) line("lnetcap: the capture reports " + std::to_string(s.dropped) + " messages dropped");
    out += output::damage_count_line(s.received, s.damaged, output::DamageWarnings::kDefaultMaxLines);
  }
  for (const auto& note : s.notes) line("lnetcap: " + note);
  text::write_all(stderr, out, "the message counts");
}

// A damaged record is one packet, not the file: lnetcap steps over it as
// tshark shows a malformed packet and tcpdump a truncated one, and exits 0
// like them once it has said so (a warning per record, the count at the
// end).  Refusing the whole file would hide 894 good records behind one bad
// one, which is what issue 33 reported.  Whoever needs all or nothing
// gives --strict: the first damaged record is then an error (exit 1), the
// records before it processed.  A broken pcapng framing is never stepped
// over: there is no next block to find (pcapng/reader.h).
void read_past_damaged_records(const Options& opts, LnetcapFileSource* file_source,
                               output::DamageWarnings& warnings) {
  if (!file_source || opts.strict) return;
  file_source->skip_damaged([&warnings](const DamagedRecord& d) { warnings.report(d); });
}

// A file of which not one record could be read (every one damaged, or all
// of a newer record version) is not a success, whatever the warnings said:
// a script would otherwise take an empty result for an empty capture.
void refuse_a_file_without_one_good_record(const Options& opts, const SourceStats& s) {
  if (s.damaged == 0 || s.received != 0) return;
  throw Error("no lnetcap record of " + (opts.read_file == "-" ? std::string("standard input") : opts.read_file) +
                  " could be read: all " + std::to_string(s.damaged) + " were damaged",
              "the warnings above say what was wrong with the first ones");
}

// Standard output carries the pcapng stream with -w -: text written there
// would corrupt it, so whatever prints to standard output is refused (as
// tcpdump users expect "-w -" to be binary only).  Charts can go to a file.
void refuse_text_on_pcapng_stdout(const Options& opts) {
  if (opts.write_file != "-") return;
  const char* hint = "write the capture to a file (-w FILE), or pipe -w - without reports";
  if (opts.print_with_write) throw Error("--print cannot share standard output with -w -", hint);
  if (!opts.summary.empty()) throw Error("--summary cannot share standard output with -w -", hint);
  if (!opts.assertions.empty())
    throw Error("--assert cannot share standard output with -w -", hint);
  if (!opts.chart.empty() && (opts.chart_output.empty() || opts.chart_output == "-"))
    throw Error("--chart cannot share standard output with -w -",
                "give --chart-output FILE, or write the capture to a file");
}

// Every file lnetcap reads against every file it writes (-w with its
// rotated names, --chart-output, a new --anon-key), before any is opened.
void refuse_overwriting_inputs(const Options& opts) {
  const output::RotationOptions rotation{opts.write_file, opts.rotate_size, opts.rotate_seconds,
                                         opts.file_count};
  std::vector<output::NamedFile> writes;
  if (!rotation.enabled()) writes.push_back({"-w", opts.write_file});
  writes.push_back({"--chart-output", opts.chart_output});
  writes.push_back({"--anon-key", opts.anon_key});
  output::refuse_overwrites({{"-r", opts.read_file}, {"-F", opts.filter_file}}, writes, rotation);
}

}  // namespace

int run(const Options& opts) {
  if (opts.show_help) {
    std::fputs(usage_text(body_fields_usage()).c_str(), stdout);
    return 0;
  }
  if (opts.show_version) {
    std::printf("lnetcap %s\n", LNETCAP_VERSION);
    return 0;
  }
  refuse_text_on_pcapng_stdout(opts);
  refuse_overwriting_inputs(opts);
  // With --from the daemon filters; checking here too would only hide its answer.
  // Only its size is checked here: lnetcapd closes the connection of a
  // request far beyond the limit unread, which would leave no answer.
  if (!opts.from.empty() && opts.filter.size() > filter::Limits::kMaxBytes)
    throw Error("filter: " + std::to_string(opts.filter.size()) + " bytes, more than the limit of " +
                std::to_string(filter::Limits::kMaxBytes));
  const filter::Filter filter =
      opts.from.empty() ? filter::Filter::parse(opts.filter, opts.filter_file) : filter::Filter();
  if (!opts.print_format.empty()) text::Format::compile(opts.print_format);  // fail early
  if (opts.list_interfaces) return list_live_interfaces(opts);
  if (opts.daemon_status) {
    subscribe::print_daemon_status(opts.from, subscribe::CurveClient{opts.curve_key, opts.server_key}, stdout);
    return 0;
  }

  install_signal_handlers();
  if (opts.top) {
    top::refuse_other_outputs(opts);  // before a capture attaches or a file is created
    output::DamageWarnings damage_warnings(stderr);
    std::unique_ptr<RecordSource> source = open_source(opts, filter);
    auto* file_source = dynamic_cast<LnetcapFileSource*>(source.get());
    read_past_damaged_records(opts, file_source, damage_warnings);
    // --top -w FILE: what the view counts is what the file holds.
    std::unique_ptr<PcapngSink> writer;
    if (!opts.write_file.empty())
      writer = make_pcapng_sink(opts, capture_metadata(opts, opts.read_file.empty() && opts.from.empty(),
                                                       file_source ? &file_source->provenance() : nullptr));
    // Keep what was captured: the file gets its trailer however the view ends.
    auto finish_file = [&] {
      if (writer) writer->finish(source->interfaces(), source->stats());
    };
    int rc = 0;
    try {
      rc = top::run_top(opts, *source, filter, writer.get());
    } catch (...) {
      try {
        finish_file();
      } catch (...) {
      }
      throw;  // the view's error, not the file's
    }
    finish_file();
    return rc;
  }
  if (opts.stats_interval) set_status_interval(*opts.stats_interval);
  const bool live = opts.read_file.empty();
  // --assert ... -- CMD: with -r the command runs to completion first (it
  // may be what produces the file); live, it starts once capture is running
  // and the capture stops 200 ms after it ends.
  std::unique_ptr<report::CommandRunner> command;
  if (!opts.command.empty()) command = std::make_unique<report::CommandRunner>(opts.command);
  // --only-command: the command's session gets a jobid of its own, and
  // only the messages of its RPCs go on (to the text, the file, the reports).
  std::optional<report::CommandScope> scope;
  if (opts.only_command) {
    scope.emplace(report::command_jobid(getpid()));
    command->set_session_jobid(report::session_jobid_file(), scope->jobid());
  }
  if (command && !live) {
    command->start(nullptr);
    command->wait();
  }
  // Before the source, which calls it, so that it outlives the source.
  output::DamageWarnings damage_warnings(stderr);
  std::unique_ptr<RecordSource> source = open_source(opts, filter);
  auto* file_source = dynamic_cast<LnetcapFileSource*>(source.get());
  read_past_damaged_records(opts, file_source, damage_warnings);
  // A subscriber's host, kernel and Lustre are not those of the capture.
  std::vector<std::string> metadata = capture_metadata(
      opts, live && opts.from.empty(), file_source ? &file_source->provenance() : nullptr);
  std::unique_ptr<anon::AnonymizingStage> anonymizing;
  if (opts.anonymize) {
    auto key = opts.anon_key.empty() ? anon::Anonymizer::random_key()
                                     : anon::Anonymizer::load_or_create_key(opts.anon_key);
    anonymizing = std::make_unique<anon::AnonymizingStage>(anon::Anonymizer(key));
    for (auto& m : metadata) m = anonymizing->anonymizer().rewrite_text(m);
  }
  // What the sinks see: the source's interfaces, or their pseudonyms.
  auto sink_interfaces = [&]() -> const std::vector<CaptureInterface>& {
    return anonymizing ? anonymizing->interfaces(source->interfaces()) : source->interfaces();
  };
  std::vector<std::unique_ptr<RecordSink>> sinks = make_sinks(opts, metadata);
  if (command && live) command->start(request_stop_now);
  report::ProgressMeter progress(opts.read_file, file_source ? file_source->size() : 0);
  std::uint64_t seen = 0;

  std::uint64_t matched = 0;
  CapturedRecord rec;
  // Every sink is finished even when one fails (a summary on a full
  // disk must not leave the capture file without its trailer); the first
  // failure is reported.
  auto finish_all = [&] {
    std::exception_ptr first;
    for (auto& s : sinks) {
      try {
        s->finish(sink_interfaces(), source->stats());
      } catch (...) {
        if (!first) first = std::current_exception();
      }
    }
    if (first) std::rethrow_exception(first);
  };
  try {
    while (!(opts.count && matched >= *opts.count)) {
      if (stop_requested()) source->request_stop();
      if (!source->next(rec)) break;
      if (take_status_request()) {
        const SourceStats s = source->stats();
        report::StatusCounts counts{matched, s.dropped, seen - matched + s.filtered, {}, s.damaged};
        if (auto* w = find_sink<PcapngSink>(sinks)) counts.bytes_written = w->bytes_written();
        progress.finish();
        text::write_all(stderr, report::format_status_line(counts), "the status line");
        for (auto& sink : sinks) sink->status();
      }
      if (rec.bytes.empty()) continue;  // an idle live source's tick
      std::string why;
      auto view = parse_record(rec.bytes, &why);
      if (!view) throw Error("bad record from the capture source: " + why);
      const Message msg = decode_message(*view, rec.ts_ns, rec.interface_id);
      ++seen;
      if (file_source) progress.update(file_source->position());
      if (!anonymizing)
        for (auto& s : sinks) s->observe(msg);
      if (!filter.matches(msg)) continue;
      if (scope && !scope->includes(msg)) continue;
      if (anonymizing) {
        Message pseudonymous;
        const CapturedRecord& out = anonymizing->apply(rec, msg, pseudonymous);
        for (auto& s : sinks) s->consume(out, pseudonymous, sink_interfaces());
      } else {
        for (auto& s : sinks) s->consume(rec, msg, source->interfaces());
      }
      ++matched;
    }
  } catch (...) {
    progress.finish();
    // Keep what was captured: close every output properly, then report.
    try {
      finish_all();
    } catch (...) {
    }
    // A subscription that ends in an error (its key revoked, its daemon
    // lost) still says what it got: the closing counts it has, then the
    // error (issue 34).
    if (live && !opts.from.empty()) {
      try {
        print_counts(source->stats(), matched, live, opts.verbose);
      } catch (...) {
      }
    }
    throw;
  }
  progress.finish();
  finish_all();
  print_counts(source->stats(), matched, live, opts.verbose);
  if (file_source) refuse_a_file_without_one_good_record(opts, source->stats());
  if (scope)
    text::write_all(stderr,
                    "lnetcap: --only-command kept " + std::to_string(scope->included()) +
                        " records of the command's RPCs (jobid " + scope->jobid() + "), left out " +
                        std::to_string(scope->excluded()) + "\n",
                    "the --only-command count");
  if (anonymizing)
    text::write_all(stderr, "lnetcap: " + anonymizing->anonymizer().changes().summary() + "\n",
                    "the anonymization summary");
  if (auto* asserts = find_sink<report::AssertionSink>(sinks)) {
    std::optional<report::CommandOutcome> outcome;
    if (command) {
      outcome = command->wait();
      text::write_all(stdout,
                      "lnetcap: command '" + report::wire_text(opts.command[0]) + "' " +
                          outcome->describe() + "\n",
                      "the command's outcome");
    }
    return report::assertion_exit_status(asserts->passed(), outcome ? &*outcome : nullptr);
  }
  return 0;
}

}  // namespace lnetcap
