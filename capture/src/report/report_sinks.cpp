// SPDX-License-Identifier: GPL-2.0-or-later
#include "report_sinks.h"

#include <cerrno>
#include <cstring>

#include "error.h"
#include "summary_format.h"
#include "text/checked_write.h"

namespace lnetcap::report {

SummarySink::SummarySink(std::string format, std::FILE* out) : format_(std::move(format)), out_(out) {}

void SummarySink::consume(const CapturedRecord&, const Message& msg,
                          const std::vector<CaptureInterface>&) {
  summary_.add(msg);
}

std::string SummarySink::render() const {
  const SummaryReport r = summary_.report();
  if (format_ == "json") return render_json(r);
  if (format_ == "prometheus") return render_prometheus(r);
  return render_table(r);
}

void SummarySink::finish(const std::vector<CaptureInterface>&, const SourceStats&) {
  text::write_all(out_, render(), "the summary");
}

void SummarySink::status() {
  if (format_ != "prometheus") return;
  // A blank line separates snapshots; exposition parsers ignore it.
  text::write_all(out_, render() + "\n", "the summary");
}

ChartSink::ChartSink(std::string format, const std::string& path, std::size_t max_arrows)
    : format_(std::move(format)), path_(path), builder_(max_arrows) {
  if (path.empty() || path == "-") {
    out_ = stdout;
  } else {
    out_ = std::fopen(path.c_str(), "w");
    if (!out_)
      throw Error("cannot create chart file " + path + ": " + std::strerror(errno),
                  "check --chart-output");
    owns_ = true;
  }
}

ChartSink::~ChartSink() {
  if (owns_ && out_) std::fclose(out_);
}

void ChartSink::consume(const CapturedRecord&, const Message& msg,
                        const std::vector<CaptureInterface>&) {
  builder_.add(msg);
}

void ChartSink::finish(const std::vector<CaptureInterface>&, const SourceStats&) {
  const std::string text =
      format_ == "html" ? render_html(builder_.model()) : render_mermaid(builder_.model());
  if (!owns_) {
    text::write_all(out_, text, "the chart");
    return;
  }
  errno = 0;
  const bool ok = std::fwrite(text.data(), 1, text.size(), out_) == text.size() &&
                  std::fflush(out_) == 0;
  const int write_errno = errno;
  const bool closed = std::fclose(out_) == 0;
  out_ = nullptr;
  if (!ok || !closed)
    throw Error("cannot write chart file " + path_ + ": " +
                std::strerror(!ok && write_errno ? write_errno : errno));
}

AssertionSink::AssertionSink(const std::vector<std::string>& texts, std::FILE* out)
    : engine_(texts), out_(out) {}

void AssertionSink::consume(const CapturedRecord&, const Message& msg,
                            const std::vector<CaptureInterface>&) {
  engine_.observe(msg);
}

void AssertionSink::finish(const std::vector<CaptureInterface>&, const SourceStats&) {
  results_ = engine_.evaluate();
  passed_ = true;
  for (const auto& r : results_) passed_ = passed_ && r.passed;
  text::write_all(out_, format_results(results_), "the assertion results");
}

}  // namespace lnetcap::report
