// SPDX-License-Identifier: GPL-2.0-or-later
#include "status_anonymization.h"

namespace lnetcap::daemon {

void anonymize_status(subscribe::Status& status, anon::Anonymizer& anonymizer) {
  for (auto& [name, value] : status.items) {
    if (name == kTriggerStatusItem && value != "off") {
      const auto files = value.rfind(", files in ");
      value = "on (its filter is not shown to anonymized subscribers)" +
              (files == std::string::npos ? std::string() : value.substr(files));
    }
    value = anonymizer.rewrite_text(value);
  }
}

}  // namespace lnetcap::daemon
