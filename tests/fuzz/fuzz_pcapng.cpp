// SPDX-License-Identifier: GPL-2.0-or-later
// fuzz_pcapng - the pcapng reader as `lnetcap -r FILE` drives it: blocks,
// sections, options, interfaces and statistics, then every record through
// parse_record, decode_message and the -v text line.  Damaged records are
// stepped over (skip_damaged, as lnetcap does without --strict), so the
// reader goes on past them; a broken framing must end in lnetcap::Error.
// Any other exception, crash or sanitizer report is a bug.
#include <cstdint>
#include <string>

#include "error.h"
#include "file_source.h"
#include "fuzz_support.h"
#include "message.h"
#include "record.h"
#include "text/line.h"

using namespace lnetcap;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::as_file(data, size);
  try {
    (void)LnetcapFileSource::is_lnetcap_capture(path);
    LnetcapFileSource source(path);
    std::uint64_t last_offset = 0, last_number = 0;
    source.skip_damaged([&](const DamagedRecord& d) {
      // Damaged records come in file order, each a block of its own.
      if (d.why.empty() || d.number <= last_number || d.offset < last_offset || d.offset >= size) std::abort();
      last_offset = d.offset;
      last_number = d.number;
    });
    CapturedRecord rec;
    std::string line;
    const text::LineStyle style{false, 2, true};
    while (source.next(rec)) {
      std::string why;
      const auto view = parse_record(rec.bytes, &why);
      if (!view) std::abort();  // next() promised a valid record
      const Message m = decode_message(*view, rec.ts_ns, rec.interface_id);
      if (rec.interface_id >= source.interfaces().size()) std::abort();
      line.clear();
      text::format_line(m, style, line);
      text::format_hex(rec.bytes, line);
    }
    if (source.stats().damaged == 0 && last_number != 0) std::abort();  // reported but not counted
  } catch (const Error&) {
    // A damaged file: the reader said where.  That is the expected outcome.
  }
  return 0;
}
