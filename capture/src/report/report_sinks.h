// SPDX-License-Identifier: GPL-2.0-or-later
// report_sinks.h - the reports as RecordSinks, so the pipeline in app.cpp
// only constructs and registers them:
//   SummarySink    --summary[=table|json|prometheus]
//   ChartSink      --chart=mermaid|html [--chart-output FILE]
//   AssertionSink  --assert EXPR (repeatable)
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "assertion_engine.h"
#include "chart.h"
#include "sink.h"
#include "summary.h"

namespace lnetcap::report {

class SummarySink : public RecordSink {
 public:
  /// format: "table", "json" or "prometheus".  Writes to out at the end;
  /// with prometheus, also on every status request (SIGUSR1,
  /// --stats-interval), so a live capture can feed a scraper.
  SummarySink(std::string format, std::FILE* out = stdout);
  void consume(const CapturedRecord&, const Message& msg,
               const std::vector<CaptureInterface>&) override;
  void finish(const std::vector<CaptureInterface>&, const SourceStats&) override;
  void status() override;
  const Summary& summary() const { return summary_; }

 private:
  std::string render() const;
  std::string format_;
  std::FILE* out_;
  Summary summary_;
};

class ChartSink : public RecordSink {
 public:
  /// path empty or "-": standard output.  The file is created at once so an
  /// unwritable path is reported before capture starts (Error naming it).
  ChartSink(std::string format, const std::string& path,
            std::size_t max_arrows = ChartBuilder::kDefaultMaxArrows);
  ~ChartSink() override;
  void consume(const CapturedRecord&, const Message& msg,
               const std::vector<CaptureInterface>&) override;
  void finish(const std::vector<CaptureInterface>&, const SourceStats&) override;

 private:
  std::string format_;
  std::string path_;
  std::FILE* out_ = nullptr;
  bool owns_ = false;
  ChartBuilder builder_;
};

class AssertionSink : public RecordSink {
 public:
  /// Parses every assertion now (Error on bad syntax).
  explicit AssertionSink(const std::vector<std::string>& texts, std::FILE* out = stdout);
  void consume(const CapturedRecord&, const Message& msg,
               const std::vector<CaptureInterface>&) override;
  /// Evaluates and prints observed against expected for every assertion.
  void finish(const std::vector<CaptureInterface>&, const SourceStats&) override;
  bool passed() const { return passed_; }
  const std::vector<AssertionResult>& results() const { return results_; }

 private:
  AssertionEngine engine_;
  std::FILE* out_;
  std::vector<AssertionResult> results_;
  bool passed_ = false;
};

}  // namespace lnetcap::report
