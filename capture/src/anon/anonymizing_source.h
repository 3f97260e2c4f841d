// SPDX-License-Identifier: GPL-2.0-or-later
// anonymizing_source.h - wraps any RecordSource and hands on anonymized
// records and interfaces, so every sink (pcapng, text, reports) sees only
// the pseudonymous trace.
#pragma once

#include <memory>

#include "../source.h"
#include "anonymizer.h"

namespace lnetcap::anon {

class AnonymizingSource : public RecordSource {
 public:
  AnonymizingSource(std::unique_ptr<RecordSource> inner, Anonymizer anonymizer);
  bool next(CapturedRecord& out) override;
  const std::vector<CaptureInterface>& interfaces() const override { return interfaces_; }
  SourceStats stats() const override { return inner_->stats(); }
  void request_stop() override { inner_->request_stop(); }
  Anonymizer& anonymizer() { return anon_; }

 private:
  std::unique_ptr<RecordSource> inner_;
  Anonymizer anon_;
  std::vector<std::uint8_t> buffer_;
  std::vector<CaptureInterface> interfaces_;
};

}  // namespace lnetcap::anon
