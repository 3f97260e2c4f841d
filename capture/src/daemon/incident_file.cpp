// SPDX-License-Identifier: GPL-2.0-or-later
#include "incident_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../error.h"

namespace lnetcap::daemon {
namespace {

Error directory_error(const std::string& dir, const std::string& why) {
  return Error("trigger directory " + dir + ": " + why,
               "make it (mode 0700, owned by lnetcapd's user) or name another with --trigger-dir");
}

}  // namespace

void prepare_incident_directory(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) throw directory_error(dir, std::strerror(errno));
    if (::mkdir(dir.c_str(), 0700) != 0)
      throw directory_error(dir, std::string("does not exist and cannot be made: ") + std::strerror(errno));
    std::fprintf(stderr, "lnetcapd: made the trigger directory %s (mode 0700)\n", dir.c_str());
    return;
  }
  if (!S_ISDIR(st.st_mode)) throw directory_error(dir, "not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw directory_error(dir, std::string("lnetcapd cannot write it: ") + std::strerror(errno));
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
    throw directory_error(dir, "other users may write it (they could plant or remove incident files)");
}

IncidentFile::IncidentFile(std::string dir, std::string name)
    : dir_(std::move(dir)), name_(std::move(name)), temporary_(dir_ + "/." + name_ + ".XXXXXX") {
  // mkostemp: O_CREAT|O_EXCL, mode 0600, never through a planted symlink.
  fd_ = ::mkostemp(temporary_.data(), O_CLOEXEC);
  if (fd_ < 0) throw Error("cannot create a file in " + dir_ + ": " + std::strerror(errno));
  fd_path_ = "/proc/self/fd/" + std::to_string(fd_);
}

IncidentFile::~IncidentFile() {
  if (fd_ < 0) return;  // committed
  ::unlink(temporary_.c_str());
  ::close(fd_);
}

std::string IncidentFile::commit() {
  auto fail = [&](const std::string& why) -> Error {
    ::unlink(temporary_.c_str());
    ::close(fd_);
    fd_ = -1;
    return Error(why + " (nothing left in " + dir_ + ")");
  };
  if (::fsync(fd_) != 0) throw fail(std::string("fsync: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || st.st_size == 0) throw fail("the file came out empty");
  std::string final_path;
  for (int n = 1;; ++n) {
    final_path = dir_ + "/" + name_ + (n == 1 ? "" : "-" + std::to_string(n)) + ".pcapng";
    if (::link(temporary_.c_str(), final_path.c_str()) == 0) break;  // never replaces
    if (errno != EEXIST || n == 1000)
      throw fail("cannot name it " + final_path + ": " + std::strerror(errno));
  }
  ::unlink(temporary_.c_str());
  ::close(fd_);
  fd_ = -1;
  const int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);  // the name survives a crash too
    ::close(dfd);
  }
  return final_path;
}

std::string write_incident_file(const std::string& dir, const std::string& name,
                                const std::function<void(const std::string& path)>& fill) {
  IncidentFile file(dir, name);
  try {
    fill(file.path());
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + " (nothing left in " + dir + ")");  // ~IncidentFile removes it
  }
  return file.commit();
}

}  // namespace lnetcap::daemon
