// SPDX-License-Identifier: GPL-2.0-or-later
// post_rotate.h - -z CMD: after each rotation run "CMD FILE" on the file
// just closed (e.g. -z gzip, -z 'xz -T1'), at low priority and without
// waiting, as tcpdump does.  CMD is split on blanks (no shell), so a file
// name is never reinterpreted; wrap anything fancier in a script.
#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

namespace lnetcap::output {

class PostRotateCommand {
 public:
  /// Splits and checks CMD: its program must exist and be executable
  /// (looked up in PATH unless it contains a '/'), otherwise Error naming it.
  explicit PostRotateCommand(const std::string& cmd);
  ~PostRotateCommand();
  PostRotateCommand(const PostRotateCommand&) = delete;
  PostRotateCommand& operator=(const PostRotateCommand&) = delete;

  /// Starts CMD FILE in the background; reaps commands that have ended.
  void run(const std::string& file);
  /// Waits for every command started so far (at exit, so that a script
  /// that runs lnetcap sees every file processed).  Returns how many failed.
  int wait_all();

  const std::vector<std::string>& argv() const { return argv_; }

 private:
  void reap(bool block);

  std::vector<std::string> argv_;
  std::vector<pid_t> children_;
  int failures_ = 0;
};

/// Finds an executable the way execvp would; empty if there is none.
std::string find_executable(const std::string& name);

}  // namespace lnetcap::output
