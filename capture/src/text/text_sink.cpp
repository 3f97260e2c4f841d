// SPDX-License-Identifier: GPL-2.0-or-later
#include "text_sink.h"

#include <cerrno>
#include <cstring>

#include "../error.h"

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
  if (format_)
    format_->render(msg, counter_, line_);
  else
    format_line(msg, style_, line_);
  if (hex_) format_hex(msg.rec.payload, line_);
  line_ += '\n';
  write_line();
}

void TextSink::write_line() {
  if (std::fwrite(line_.data(), 1, line_.size(), out_) != line_.size() ||
      (packet_buffered_ && std::fflush(out_) != 0))
    throw Error(std::string("writing text output failed: ") + std::strerror(errno));
}

void TextSink::finish(const std::vector<CaptureInterface>&, const SourceStats&) {
  if (std::fflush(out_) != 0 && errno != EPIPE)
    throw Error(std::string("writing text output failed: ") + std::strerror(errno));
}

}  // namespace lnetcap::text
