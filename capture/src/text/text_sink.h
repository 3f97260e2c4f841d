// SPDX-License-Identifier: GPL-2.0-or-later
// text_sink.h - prints one line per message on standard output, either the
// default line or a -p FORMAT, buffered (flushed per message with -U).
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "../report/bulk_linker.h"
#include "../sink.h"
#include "format.h"
#include "line.h"

namespace lnetcap::text {

class TextSink : public RecordSink {
 public:
  TextSink(std::FILE* out, LineStyle style, std::optional<Format> format, bool hex,
           bool packet_buffered);
  void consume(const CapturedRecord& rec, const Message& msg,
               const std::vector<CaptureInterface>& interfaces) override;
  void finish(const std::vector<CaptureInterface>& interfaces, const SourceStats& stats) override;
  /// Every record, filtered or not: a bulk REPLY names its RPC even when
  /// the filter hides the request (lnetcap -r f 'type reply').
  void observe(const Message& msg) override;

 private:
  void write_line();

  bool reader_gone_ = false;  // standard output's reader closed it (EPIPE)
  std::FILE* out_;
  LineStyle style_;
  std::optional<Format> format_;
  bool hex_;
  bool packet_buffered_;
  std::uint64_t counter_ = 0;
  std::string line_;
  report::BulkLinker bulk_;  // names the RPC of bulk transfers
  // observe()'s answer for the record consume() is about to print.
  std::optional<report::BulkLink> observed_link_;
  bool observed_ = false;
};

}  // namespace lnetcap::text
