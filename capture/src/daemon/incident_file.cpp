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

std::string write_incident_file(const std::string& dir, const std::string& name,
                                const std::function<void(const std::string& path)>& fill) {
  std::string temporary = dir + "/." + name + ".XXXXXX";
  // mkostemp: O_CREAT|O_EXCL, mode 0600, never through a planted symlink.
  const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);
  if (fd < 0) throw Error("cannot create a file in " + dir + ": " + std::strerror(errno));
  auto fail = [&](const std::string& why) -> Error {
    ::unlink(temporary.c_str());
    ::close(fd);
    return Error(why + " (nothing left in " + dir + ")");
  };
  try {
    // The writer reopens the very file we made, not whatever the name
    // might point to by then.
    fill("/proc/self/fd/" + std::to_string(fd));
  } catch (const Error& e) {
    throw fail(e.what());
  }
  if (::fsync(fd) != 0) throw fail(std::string("fsync: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size == 0) throw fail("the file came out empty");
  std::string final_path;
  for (int n = 1;; ++n) {
    final_path = dir + "/" + name + (n == 1 ? "" : "-" + std::to_string(n)) + ".pcapng";
    if (::link(temporary.c_str(), final_path.c_str()) == 0) break;  // never replaces
    if (errno != EEXIST || n == 1000)
      throw fail("cannot name it " + final_path + ": " + std::strerror(errno));
  }
  ::unlink(temporary.c_str());
  ::close(fd);
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);  // the name survives a crash too
    ::close(dfd);
  }
  return final_path;
}

}  // namespace lnetcap::daemon
