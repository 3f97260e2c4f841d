// SPDX-License-Identifier: GPL-2.0-or-later
#include "log_text.h"

#include "../report/text_escape.h"

namespace lnetcap::daemon {

std::string log_text(std::string_view text, std::size_t max) {
  if (text.size() <= max) return report::wire_text(text);
  return report::wire_text(text.substr(0, max)) + "... (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace lnetcap::daemon
