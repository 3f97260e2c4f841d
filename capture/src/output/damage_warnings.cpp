// SPDX-License-Identifier: GPL-2.0-or-later
#include "damage_warnings.h"

#include "../report/text_escape.h"
#include "../text/checked_write.h"

namespace lnetcap::output {
namespace {

std::string count_of(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

// The file name may come from anywhere (a crafted name in a script):
// escaped like every wire string before it reaches a terminal.
std::string damage_warning_line(const DamagedRecord& d) {
  return "lnetcap: warning: " +
         report::wire_text(d.file + ": offset " + std::to_string(d.offset) + ": record " +
                           std::to_string(d.number) + ": " + d.why) +
         "; skipped\n";
}

void DamageWarnings::report(const DamagedRecord& d) {
  ++reported_;
  if (reported_ <= max_lines_) {
    text::write_all(out_, damage_warning_line(d), "a damaged-record warning");
  } else if (reported_ == max_lines_ + 1) {
    text::write_all(out_,
                    "lnetcap: warning: " + report::wire_text(d.file) + ": more than " +
                        count_of(max_lines_, "damaged record", "damaged records") +
                        "; the others are counted at the end, not listed\n",
                    "a damaged-record warning");
  }
}

std::string damage_count_line(std::uint64_t read, std::uint64_t damaged, std::uint64_t listed_at_most) {
  if (!damaged) return {};
  std::string line = "lnetcap: " + count_of(read, "record", "records") + " read, " +
                     count_of(damaged, "damaged record", "damaged records") + " skipped (";
  line += damaged <= listed_at_most ? std::string(damaged == 1 ? "listed" : "each listed") + " above"
                                    : "the first " + std::to_string(listed_at_most) + " listed above";
  return line + "; --strict stops at the first)\n";
}

}  // namespace lnetcap::output
