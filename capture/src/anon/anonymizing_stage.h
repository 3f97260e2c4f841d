// SPDX-License-Identifier: GPL-2.0-or-later
// anonymizing_stage.h - the pipeline step between the filter and the sinks
// that hands every sink (pcapng, text, reports) the pseudonymous record.
// The filter runs before it, on the real NIDs the user typed.
#pragma once

#include <vector>

#include "../message.h"
#include "../source.h"
#include "anonymizer.h"

namespace lnetcap::anon {

class AnonymizingStage {
 public:
  explicit AnonymizingStage(Anonymizer anonymizer) : anon_(std::move(anonymizer)) {}
  /// The anonymized copy of rec (valid until the next call) and its decoding.
  const CapturedRecord& apply(const CapturedRecord& rec, Message& decoded);
  /// The same for a record already decoded as msg: not parsed again.
  const CapturedRecord& apply(const CapturedRecord& rec, const Message& msg, Message& decoded);
  /// Anonymized interfaces, extended as the source's list grows.
  const std::vector<CaptureInterface>& interfaces(const std::vector<CaptureInterface>& in);
  Anonymizer& anonymizer() { return anon_; }

 private:
  const CapturedRecord& finish(const CapturedRecord& rec, Message& decoded);

  Anonymizer anon_;
  std::vector<std::uint8_t> buffer_;
  CapturedRecord out_;
  std::vector<CaptureInterface> interfaces_;
};

}  // namespace lnetcap::anon
