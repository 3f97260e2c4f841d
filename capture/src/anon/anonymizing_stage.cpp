// SPDX-License-Identifier: GPL-2.0-or-later
#include "anonymizing_stage.h"

#include "../record.h"

namespace lnetcap::anon {

const CapturedRecord& AnonymizingStage::apply(const CapturedRecord& rec, Message& decoded) {
  buffer_ = anon_.rewrite_record(rec.bytes);
  return finish(rec, decoded);
}

const CapturedRecord& AnonymizingStage::apply(const CapturedRecord& rec, const Message& msg,
                                              Message& decoded) {
  buffer_ = anon_.rewrite_record(msg);
  return finish(rec, decoded);
}

// The anonymized copy is new bytes: its own (single) decoding.
const CapturedRecord& AnonymizingStage::finish(const CapturedRecord& rec, Message& decoded) {
  out_ = rec;
  out_.bytes = buffer_;
  out_.comments.clear();  // free text may name hosts or files
  std::string why;
  // rewrite_record only emits records parse_record accepts.
  decoded = decode_message(*parse_record(buffer_, &why), rec.ts_ns, rec.interface_id);
  return out_;
}

const std::vector<CaptureInterface>& AnonymizingStage::interfaces(const std::vector<CaptureInterface>& in) {
  while (interfaces_.size() < in.size()) interfaces_.push_back(anon_.rewrite_interface(in[interfaces_.size()]));
  return interfaces_;
}

}  // namespace lnetcap::anon
