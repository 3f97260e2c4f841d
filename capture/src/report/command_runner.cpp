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
    // What failed goes back as {stage, errno}: 0 exec, 1 setsid, 2 the jobid.
    auto fail = [&](int stage) {
      const int report[2] = {stage, errno};
      (void)!write(fds[1], report, sizeof report);
      _exit(127);
    };
    if (!session_jobid_.empty()) {
      if (setsid() < 0) fail(1);
      const int fd = open(session_file_.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) fail(2);
      if (write(fd, session_jobid_.data(), session_jobid_.size()) !=
          static_cast<ssize_t>(session_jobid_.size()))
        fail(2);
      close(fd);
    }
    execvp(args[0], args.data());
    fail(0);
  }
  close(fds[1]);
  int report[2] = {0, 0};
  ssize_t n;
  do n = read(fds[0], report, sizeof report);
  while (n < 0 && errno == EINTR);
  close(fds[0]);
  if (n == static_cast<ssize_t>(sizeof report)) {
    int status;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    const std::string why = std::strerror(report[1]);
    if (report[0] == 1) throw Error("--only-command: cannot give '" + argv_[0] + "' a session of its own: " + why);
    if (report[0] == 2)
      throw Error("--only-command: cannot set the command's jobid in " + session_file_ + ": " + why,
                  "Lustre 2.13 or later must be loaded, and lnetcap must run as root");
    throw Error("cannot run command '" + argv_[0] + "': " + why,
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
