// SPDX-License-Identifier: GPL-2.0-or-later
// top_terminal.h - the one place lnetcap --top talks to ncurses: set the
// terminal up and back, draw lines, wait for a key.  ncurses because it
// is on every HPC node already (top, htop and iftop use it; Debian's
// procps depends on it) and knows every terminal from its terminfo, where
// a hand-written escape-code writer would not (docs/REPORTS.md "Top").
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace lnetcap::top {

class TopTerminal {
 public:
  /// Takes the terminal (standard input and output): raw keys, no echo,
  /// alternate screen.  Throws Error when the terminal cannot be set up.
  /// Standard error goes to a temporary file meanwhile: a warning written
  /// across the screen (a daemon gone, a damaged record) would stay there
  /// as garbage between draws.
  TopTerminal();
  /// Gives the terminal back as it was, also when an error unwinds, then
  /// writes what went to standard error meanwhile.
  ~TopTerminal();
  TopTerminal(const TopTerminal&) = delete;
  TopTerminal& operator=(const TopTerminal&) = delete;

  int rows() const;
  int cols() const;
  /// Replaces the screen with `lines` (the first one in reverse video, like
  /// top's header; `heading` too, the table's heading line).
  void draw(const std::vector<std::string>& lines, int heading);
  /// A key, kResized when the terminal changed size (draw again), or -1
  /// when none came within timeout_ms (0: do not wait).
  int key(int timeout_ms);
  static constexpr int kResized = -2;

 private:
  void* screen_ = nullptr;  // ncurses' SCREEN, kept out of this header
  int saved_stderr_ = -1;
  std::FILE* held_stderr_ = nullptr;
};

}  // namespace lnetcap::top
