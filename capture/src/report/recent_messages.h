// SPDX-License-Identifier: GPL-2.0-or-later
// recent_messages.h - which messages (record.h msg_id) were counted lately,
// so an OUTCOME record counts for its message only when the message's own
// record was not counted.  An outcome follows its message within the same
// LNet call chain, so a bounded window of recent ids is enough; memory
// stays constant over any capture length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_set>

namespace lnetcap::report {

class RecentMessages {
 public:
  explicit RecentMessages(std::size_t window = 65536) : window_(window) {}

  /// The message's own record was counted (msg_id 0: not tracked, ignored).
  void note(std::uint64_t msg_id) {
    if (msg_id == 0 || !ids_.insert(msg_id).second) return;
    order_.push_back(msg_id);
    if (order_.size() > window_) {
      ids_.erase(order_.front());
      order_.pop_front();
    }
  }
  /// An outcome of msg_id: true (and noted) when its message was not counted.
  bool first(std::uint64_t msg_id) {
    if (msg_id != 0 && ids_.count(msg_id)) return false;
    note(msg_id);
    return true;
  }

 private:
  std::size_t window_;
  std::unordered_set<std::uint64_t> ids_;
  std::deque<std::uint64_t> order_;
};

}  // namespace lnetcap::report
