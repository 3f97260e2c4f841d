// SPDX-License-Identifier: GPL-2.0-or-later
#include "top_terminal.h"

#include <curses.h>
#include <unistd.h>

#include "error.h"

namespace lnetcap::top {

TopTerminal::TopTerminal() {
  // newterm, not initscr: initscr exits the process when TERM is unknown.
  SCREEN* screen = newterm(nullptr, stdout, stdin);
  if (!screen)
    throw Error("--top cannot use this terminal (TERM unknown?)",
                "set TERM, or give --top-batch for plain text");
  cbreak();  // keys at once; Ctrl-C still stops (SIGINT, signals.h)
  noecho();
  screen_ = screen;
  keypad(stdscr, TRUE);
  curs_set(0);
  held_stderr_ = std::tmpfile();
  if (held_stderr_) {
    std::fflush(stderr);
    saved_stderr_ = dup(STDERR_FILENO);
    if (saved_stderr_ < 0 || dup2(fileno(held_stderr_), STDERR_FILENO) < 0) {
      std::fclose(held_stderr_);
      held_stderr_ = nullptr;
    }
  }
}

TopTerminal::~TopTerminal() {
  endwin();
  delscreen(static_cast<SCREEN*>(screen_));
  if (!held_stderr_) return;
  std::fflush(stderr);
  dup2(saved_stderr_, STDERR_FILENO);
  close(saved_stderr_);
  std::rewind(held_stderr_);
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, held_stderr_)) > 0;)
    if (std::fwrite(buf, 1, n, stderr) != n) break;
  std::fclose(held_stderr_);
}

int TopTerminal::rows() const { return LINES; }
int TopTerminal::cols() const { return COLS; }

void TopTerminal::draw(const std::vector<std::string>& lines, int heading) {
  erase();
  for (int i = 0; i < static_cast<int>(lines.size()) && i < LINES; ++i) {
    const bool strong = i == 0 || i == heading;
    if (strong) attron(A_REVERSE);
    mvaddnstr(i, 0, lines[static_cast<std::size_t>(i)].c_str(), COLS);
    if (strong) attroff(A_REVERSE);
  }
  refresh();
}

int TopTerminal::key(int timeout_ms) {
  timeout(timeout_ms);
  const int ch = getch();
  if (ch == KEY_RESIZE) return kResized;
  return ch == ERR ? -1 : ch;
}

}  // namespace lnetcap::top
