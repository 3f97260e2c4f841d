// SPDX-License-Identifier: GPL-2.0-or-later
// fuzz_format - the -p FORMAT compiler (text/format.h) and its renderer.
// A bad format must end in lnetcap::Error; a good one must render every
// kind of message without a crash, a sanitizer report or runaway output.
#include <cstdint>
#include <string>

#include "error.h"
#include "fuzz_support.h"
#include "text/format.h"

using namespace lnetcap;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string spec(reinterpret_cast<const char*>(data), size);
  text::Format format;
  try {
    format = text::Format::compile(spec);
  } catch (const Error& e) {
    if (std::string(e.what()).empty()) std::abort();  // errors say what was wrong
    return 0;
  }
  std::uint64_t counter = 0;
  for (const auto& m : fuzz::sample_messages()) {
    std::string line;
    format.render(m.msg, ++counter, line);
    // Widths are bounded (below 10000), so each item adds at most 16 KiB.
    if (line.size() > 16384 * (format.items().size() + 1)) {
      std::fprintf(stderr, "format of %zu bytes rendered %zu bytes\n", size, line.size());
      std::abort();
    }
  }
  return 0;
}
