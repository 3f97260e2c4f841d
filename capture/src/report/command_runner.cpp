// SPDX-License-Identifier: GPL-2.0-or-later
#include "command_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "error.h"

namespace lnetcap::report {

std::string CommandOutcome::describe() const {
  if (!started) return "did not start";
  if (exited) return "exited with status " + std::to_string(code);
  return "was killed by signal " + std::to_string(code) + " (" + strsignal(code) + ")";
}

CommandRunner::CommandRunner(std::vector<std::string> argv, std::chrono::milliseconds drain)
    : argv_(std::move(argv)), drain_(drain) {
  if (argv_.empty()) throw Error("--assert: no command after '--'");
}

CommandRunner::~CommandRunner() {
  if (!watcher_.joinable()) return;
  // Only reached without wait(), i.e. when lnetcap is failing: do not leave
  // the command behind or block on it; the watcher then reaps it.
  if (!reaped_.load()) kill(pid_, SIGTERM);
  watcher_.join();
}

void CommandRunner::start(void (*on_done)()) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
  std::vector<char*> args;
  for (auto& a : argv_) args.push_back(a.data());
  args.push_back(nullptr);
  std::fflush(nullptr);
  pid_ = fork();
  if (pid_ < 0) {
    close(fds[0]);
    close(fds[1]);
    throw Error("cannot start " + argv_[0] + ": fork: " + std::strerror(errno));
  }
  if (pid_ == 0) {
    // lnetcap ignores SIGPIPE and handles SIGINT/SIGTERM; the command must
    // get the defaults, as if started from the shell.
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    close(fds[0]);
    execvp(args[0], args.data());
    const int err = errno;
    (void)!write(fds[1], &err, sizeof err);
    _exit(127);
  }
  close(fds[1]);
  int err = 0;
  ssize_t n;
  do n = read(fds[0], &err, sizeof err);
  while (n < 0 && errno == EINTR);
  close(fds[0]);
  if (n == static_cast<ssize_t>(sizeof err)) {
    int status;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    throw Error("cannot run command '" + argv_[0] + "': " + std::strerror(err),
                "the command goes after '--': lnetcap --assert EXPR -- COMMAND [ARGS]");
  }
  outcome_.started = true;
  watcher_ = std::thread([this, on_done] {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    outcome_.exited = WIFEXITED(status);
    outcome_.code = WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status);
    std::this_thread::sleep_for(drain_);
    done_ = true;
    if (on_done) on_done();
  });
}

CommandOutcome CommandRunner::wait() {
  if (watcher_.joinable()) watcher_.join();
  return outcome_;
}

int assertion_exit_status(bool all_passed, const CommandOutcome* command) {
  if (command && !command->ok()) return 2;
  return all_passed ? 0 : 1;
}

}  // namespace lnetcap::report
