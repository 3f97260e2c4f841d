// SPDX-License-Identifier: GPL-2.0-or-later
#include "post_rotate.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "error.h"

namespace lnetcap::output {

std::string find_executable(const std::string& name) {
  auto ok = [](const std::string& p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) return ok(name) ? name : "";
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string p = (dir.empty() ? "." : dir) + "/" + name;
    if (ok(p)) return p;
  }
  return "";
}

PostRotateCommand::PostRotateCommand(const std::string& cmd) {
  std::istringstream words(cmd);
  for (std::string w; words >> w;) argv_.push_back(w);
  if (argv_.empty()) throw Error("-z: the post-rotate command is empty");
  if (find_executable(argv_[0]).empty())
    throw Error("-z: cannot run '" + argv_[0] + "': no such executable" +
                    (argv_[0].find('/') == std::string::npos ? " in PATH" : ""),
                "give a program such as gzip, or the path of a script");
}

PostRotateCommand::~PostRotateCommand() { reap(false); }

void PostRotateCommand::run(const std::string& file) {
  reap(false);
  std::vector<char*> args;
  for (auto& a : argv_) args.push_back(a.data());
  std::string f = file;
  args.push_back(f.data());
  args.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    std::fprintf(stderr, "lnetcap: -z %s %s: fork: %s\n", argv_[0].c_str(), file.c_str(),
                 std::strerror(errno));
    ++failures_;
    return;
  }
  if (pid == 0) {
    // Compression must not compete with the capture for CPU.
    setpriority(PRIO_PROCESS, 0, 10);
    execvp(args[0], args.data());
    std::fprintf(stderr, "lnetcap: -z %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  children_.push_back(pid);
}

void PostRotateCommand::reap(bool block) {
  for (auto it = children_.begin(); it != children_.end();) {
    int status = 0;
    pid_t r;
    do r = waitpid(*it, &status, block ? 0 : WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == 0) {
      ++it;
      continue;
    }
    if (r > 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
      ++failures_;
      std::fprintf(stderr, "lnetcap: -z %s failed (%s %d)\n", argv_[0].c_str(),
                   WIFSIGNALED(status) ? "signal" : "status",
                   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
    it = children_.erase(it);
  }
}

int PostRotateCommand::wait_all() {
  reap(true);
  return failures_;
}

}  // namespace lnetcap::output
