// SPDX-License-Identifier: GPL-2.0-or-later
#include "signals.h"

#include <signal.h>
#include <sys/time.h>

#include <atomic>

namespace lnetcap {
namespace {

volatile sig_atomic_t g_stop = 0;
volatile sig_atomic_t g_status = 0;
volatile sig_atomic_t g_reload = 0;

extern "C" void on_stop_signal(int) { g_stop = 1; }
extern "C" void on_status_signal(int) { g_status = 1; }
extern "C" void on_reload_signal(int) { g_reload = 1; }

void handle(int sig, void (*fn)(int)) {
  struct sigaction sa = {};
  sa.sa_handler = fn;
  sigemptyset(&sa.sa_mask);
  // No SA_RESTART: a blocking read or poll returns EINTR so loops notice.
  sigaction(sig, &sa, nullptr);
}

}  // namespace

void install_signal_handlers() {
  handle(SIGINT, on_stop_signal);
  handle(SIGTERM, on_stop_signal);
  handle(SIGHUP, on_stop_signal);
  handle(SIGUSR1, on_status_signal);
  handle(SIGALRM, on_status_signal);
  // A closed pipe on "-w - | wireshark" must surface as EPIPE on write,
  // reported as an error, not kill the process mid-block.
  signal(SIGPIPE, SIG_IGN);
}

void install_reload_signal() { handle(SIGHUP, on_reload_signal); }

bool take_reload_request() {
  if (!g_reload) return false;
  g_reload = 0;
  return true;
}

bool stop_requested() { return g_stop != 0; }
void request_stop_now() { g_stop = 1; }

bool take_status_request() {
  if (!g_status) return false;
  g_status = 0;
  return true;
}

bool status_pending() { return g_status != 0; }

void set_status_interval(unsigned seconds) {
  itimerval t = {};
  t.it_interval.tv_sec = seconds;
  t.it_value.tv_sec = seconds;
  setitimer(ITIMER_REAL, &t, nullptr);
}

}  // namespace lnetcap
