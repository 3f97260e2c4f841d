// SPDX-License-Identifier: GPL-2.0-or-later
#include "text_sink.h"

#include <stdio_ext.h>

#include <cerrno>

#include "../signals.h"
#include "checked_write.h"

namespace lnetcap::text {

TextSink::TextSink(std::FILE* out, LineStyle style, std::optional<Format> format, bool hex,
                   bool packet_buffered)
    : out_(out), style_(style), format_(std::move(format)), hex_(hex),
      packet_buffered_(packet_buffered) {
  line_.reserve(512);
}

void TextSink::consume(const CapturedRecord&, const Message& msg,
                       const std::vector<CaptureInterface>&) {
  line_.clear();
  ++counter_;
  // The link observe() found when it saw this record (the app calls it for
  // every record, filtered or not); else, anonymized, from what passed.
  const std::optional<report::BulkLink> link = observed_ ? observed_link_ : bulk_.observe(msg);
  observed_ = false;
  if (format_)
    format_->render(msg, counter_, line_);
  else
    format_line(msg, style_, line_, link ? &*link : nullptr);
  if (hex_) format_hex(msg.rec.payload, line_);
  line_ += '\n';
  write_line();
}

void TextSink::observe(const Message& msg) {
  observed_link_ = bulk_.observe(msg);
  observed_ = true;
}

// `lnetcap -r big | head`: once the reader has closed the pipe, printing
// more is pointless but nothing is wrong.  Stop the source as Ctrl-C would
// (so a -w file beside the text is still closed properly) and exit 0,
// instead of failing with "Broken pipe".
void TextSink::write_line() {
  if (reader_gone_) return;
  errno = 0;
  const bool written = std::fwrite(line_.data(), 1, line_.size(), out_) == line_.size() &&
                       (!packet_buffered_ || std::fflush(out_) == 0);
  if (written) return;
  const int err = errno;
  if (err != EPIPE) write_failed(out_, "the text lines", err);
  reader_gone_ = true;
  __fpurge(out_);
  std::clearerr(out_);
  request_stop_now();
}

void TextSink::finish(const std::vector<CaptureInterface>&, const SourceStats&) {
  // A reader that stopped early (lnetcap ... | head) is not an error here.
  errno = 0;
  if (std::fflush(out_) == 0) return;
  const int err = errno;
  if (err != EPIPE) write_failed(out_, "the text lines", err);
  __fpurge(out_);  // nobody will read it: do not retry at exit
  std::clearerr(out_);
}

}  // namespace lnetcap::text
