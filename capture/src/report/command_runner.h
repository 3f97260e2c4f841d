// SPDX-License-Identifier: GPL-2.0-or-later
// command_runner.h - runs the command of "lnetcap --assert ... -- CMD ARGS"
// while the capture is running: fork/exec once capture has started, wait
// for it on a thread, let the capture drain briefly, then ask the pipeline
// to stop (request_stop_now(), as a signal would).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace lnetcap::report {

struct CommandOutcome {
  bool started = false;
  bool exited = false;  // normal exit (else killed by a signal)
  int code = 0;         // exit status or signal number
  bool ok() const { return started && exited && code == 0; }
  /// "exited with status 0", "was killed by signal 9 (Killed)".
  std::string describe() const;
};

class CommandRunner {
 public:
  /// drain: how long the capture keeps running after the command ended, so
  /// that replies and callbacks it caused are still captured.
  explicit CommandRunner(std::vector<std::string> argv,
                         std::chrono::milliseconds drain = std::chrono::milliseconds(200));
  ~CommandRunner();
  CommandRunner(const CommandRunner&) = delete;
  CommandRunner& operator=(const CommandRunner&) = delete;

  /// --only-command: the command runs in a session of its own whose Lustre
  /// jobid is `jobid`, written to `session_file` (jobid_this_session) by
  /// the child after setsid() and before exec.
  void set_session_jobid(std::string session_file, std::string jobid) {
    session_file_ = std::move(session_file);
    session_jobid_ = std::move(jobid);
  }

  /// Starts the command.  Throws Error naming it when it cannot be executed
  /// (the exec error is passed back through a close-on-exec pipe).
  /// on_done runs on the watcher thread after the command ended + drain.
  void start(void (*on_done)());
  /// Waits for the command (and the watcher).  Idempotent.
  CommandOutcome wait();
  bool finished() const { return done_.load(); }

 private:
  std::vector<std::string> argv_;
  std::chrono::milliseconds drain_;
  std::string session_file_, session_jobid_;
  pid_t pid_ = -1;
  std::thread watcher_;
  std::atomic<bool> reaped_{false};  // the pid is gone: never signal it again
  std::atomic<bool> done_{false};
  CommandOutcome outcome_;
};

/// The exit status of an --assert run (docs/REPORTS.md): 2 when the command
/// failed to run or exited non-zero / was killed, else 1 when an assertion
/// failed, else 0.
int assertion_exit_status(bool all_passed, const CommandOutcome* command);

}  // namespace lnetcap::report
