// SPDX-License-Identifier: GPL-2.0-or-later
// status_anonymization.h - what `lnetcap --from URI --status` shows a
// subscriber the anonymize policy forces: NIDs as the pseudonyms its
// records carry, and not the trigger's filter at all - a filter may name
// jobids, uids and NIDs (`jobid dd.1234 or uid 1000`), and rewriting only
// the NIDs in it would leave the rest in clear.
#pragma once

#include "../anon/anonymizer.h"
#include "../subscribe/protocol.h"

namespace lnetcap::daemon {

/// The STATUS item naming the trigger: "'FILTER', files in DIR".
inline constexpr char kTriggerStatusItem[] = "trigger";

void anonymize_status(subscribe::Status& status, anon::Anonymizer& anonymizer);

}  // namespace lnetcap::daemon
