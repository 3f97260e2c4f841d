// SPDX-License-Identifier: GPL-2.0-or-later
#include "top_terminal.h"

#include <curses.h>

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
}

TopTerminal::~TopTerminal() {
  endwin();
  delscreen(static_cast<SCREEN*>(screen_));
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
  if (ch == KEY_RESIZE) return -1;  // the next draw uses the new size
  return ch == ERR ? -1 : ch;
}

}  // namespace lnetcap::top
