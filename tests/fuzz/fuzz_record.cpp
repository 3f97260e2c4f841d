// SPDX-License-Identifier: GPL-2.0-or-later
// fuzz_record - one lnetcap record (an EPB's data) through parse_record and
// decode_message, then everything that reads the decoded message: the
// default, quiet and -v lines, lnetdump's -p format and the XID.  A record
// parse_record accepts must decode and print without reading outside it.
#include <cstdint>
#include <string>

#include "message.h"
#include "record.h"
#include "text/format.h"
#include "text/line.h"

using namespace lnetcap;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A copy of exactly `size` bytes, so ASan sees any read past the record.
  const std::vector<std::uint8_t> bytes(data, data + size);
  std::string why;
  const auto view = parse_record(bytes, &why);
  if (!view) {
    if (why.empty()) std::abort();  // a rejected record always says why
    return 0;
  }
  for (const ByteSpan part : {view->lnet_header, view->payload})  // views stay inside the record
    if (!part.empty() && (part.data() < bytes.data() || part.data() + part.size() > bytes.data() + size))
      std::abort();
  (void)record_orig_len(*view);
  const Message m = decode_message(*view, 1700000000123456789ULL, 0);
  (void)m.xid();
  std::string out;
  for (const text::LineStyle& style : {text::LineStyle{}, text::LineStyle{true, 0, false},
                                       text::LineStyle{false, 3, true}})
    text::format_line(m, style, out);
  static const text::Format lnetdump = text::Format::compile(text::kLnetdumpDefaultFormat);
  static const text::Format everything = text::Format::compile(
      "%c %T %Ts %Ls %Lt %Ll %LP %Lm %Po %Pj %Pu %Pg %Pp %PL %PS %Dt %Dc %Dn %Ns %Nd %Ni %Np "
      "%Px %Pt %Ps %Hs %Hr");
  lnetdump.render(m, 1, out);
  everything.render(m, 2, out);
  return 0;
}
