// SPDX-License-Identifier: GPL-2.0-or-later
// layout_check.h - checks the first records of a live capture against what
// any LNet message must look like, so a struct layout that does not match
// the running lnet module (a guessed release, an unknown build) stops the
// capture with one clear message instead of printing wrong fields.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "../record.h"

namespace lnetcap::live {

class LayoutCheck {
 public:
  /// Records checked after attach; a right layout passes all of them.
  static constexpr int kRecords = 16;

  /// local_nids: this node's NIs ("10.0.0.1@tcp"); empty = not checked.
  explicit LayoutCheck(const std::vector<std::string>& local_nids);

  /// While checking: what is wrong with rec ("its local NI 7.0.0.3@tcp is
  /// not one of this node's NIs"), or nullopt when it looks right.
  std::optional<std::string> problem(const RecordView& rec);
  bool done() const { return checked_ >= kRecords; }

 private:
  std::vector<Nid> nis_;
  int checked_ = 0;
};

}  // namespace lnetcap::live
