// SPDX-License-Identifier: GPL-2.0-or-later
// error.h - the one exception type for errors a user must act on.
#pragma once

#include <stdexcept>
#include <string>

namespace lnetcap {

/// A fatal, user-facing error: main() prints "lnetcap: <what>" and, when
/// present, "lnetcap: hint: <hint>", then exits 1.  The message names the
/// file and offset, option or filter token that was wrong.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what, std::string hint = {})
      : std::runtime_error(what), hint_(std::move(hint)) {}
  const std::string& hint() const { return hint_; }

 private:
  std::string hint_;
};

}  // namespace lnetcap
