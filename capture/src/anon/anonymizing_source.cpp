// SPDX-License-Identifier: GPL-2.0-or-later
#include "anonymizing_source.h"

namespace lnetcap::anon {

AnonymizingSource::AnonymizingSource(std::unique_ptr<RecordSource> inner, Anonymizer anonymizer)
    : inner_(std::move(inner)), anon_(std::move(anonymizer)) {}

bool AnonymizingSource::next(CapturedRecord& out) {
  if (!inner_->next(out)) return false;
  const auto& in = inner_->interfaces();
  while (interfaces_.size() < in.size()) interfaces_.push_back(anon_.rewrite_interface(in[interfaces_.size()]));
  buffer_ = anon_.rewrite_record(out.bytes);
  out.bytes = buffer_;
  out.comments.clear();  // free text may name hosts or files
  return true;
}

}  // namespace lnetcap::anon
