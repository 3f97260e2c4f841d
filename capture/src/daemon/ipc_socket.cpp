// SPDX-License-Identifier: GPL-2.0-or-later
#include "ipc_socket.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <utility>

#include "../error.h"

namespace lnetcap::daemon {
namespace {

// (device, inode) of the sockets this process put in place, by path.
std::map<std::string, std::pair<dev_t, ino_t>>& bound_sockets() {
  static std::map<std::string, std::pair<dev_t, ino_t>> sockets;
  return sockets;
}

const char* kind_of(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  return "not a socket";
}

// Whether a process accepts connections on the Unix socket at path.
bool someone_listens(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) return false;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const bool answered = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return answered;
}

// True when something (a stale socket) is at path and may be replaced;
// false when nothing is there.  Throws when it must not be touched.
bool check_what_is_there(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return false;
    throw Error("cannot look at " + path + ": " + std::strerror(errno), "choose another path with --listen");
  }
  if (!S_ISSOCK(st.st_mode))
    throw Error("refusing to listen on " + path + ": it exists and is " + kind_of(st.st_mode) +
                    ", not a socket",
                "lnetcapd replaces only a stale socket of its own; remove " + path +
                    " yourself if it is not needed, or choose another path with --listen");
  if (someone_listens(path))
    throw Error("refusing to listen on " + path + ": another lnetcapd (or another program) is serving on it",
                "stop that one first, or give this one another socket with --listen");
  return true;  // nobody answers: a daemon that was killed left it
}

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// As sshd's StrictModes judges a user's files: the socket's directory must
// be owned by root or by lnetcapd's own user, and writable by nobody else
// (unless sticky, as /tmp is: then others cannot rename or remove what
// lnetcapd puts there).  Whoever else may write it can take the socket's
// name away from the daemon and put their own listener in its place.
void check_directory(const std::string& path) {
  const std::string dir = directory_of(path);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0)
    throw Error("cannot listen on " + path + ": cannot look at its directory " + dir + ": " + std::strerror(errno),
                "does the directory exist? choose another path with --listen");
  const uid_t me = ::geteuid();
  if (st.st_uid != 0 && st.st_uid != me)
    throw Error("refusing to listen on " + path + ": its directory " + dir + " belongs to uid " +
                    std::to_string(st.st_uid) + ", neither root nor lnetcapd's own user (uid " +
                    std::to_string(me) + "), who could replace the socket with their own",
                "use a directory only root or lnetcapd's user owns, such as /run/lnetcap, or chown " + dir);
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
    throw Error("refusing to listen on " + path + ": its directory " + dir + " may be written by " +
                    ((st.st_mode & S_IWOTH) ? "everyone" : "its group") + " (mode " +
                    [&] {
                      char m[8];
                      std::snprintf(m, sizeof m, "%04o", static_cast<unsigned>(st.st_mode & 07777));
                      return std::string(m);
                    }() + "), who could replace the socket with their own",
                "chmod go-w " + dir + " (or +t), or choose another path with --listen");
}

}  // namespace

namespace {
// Binds through bind(temporary) in a private directory, then moves the
// socket to path (see ipc_socket.h).
template <typename Bind>
void place_socket(const std::string& path, gid_t gid, Bind bind) {
  check_directory(path);
  const bool stale = check_what_is_there(path);
  std::string private_dir = directory_of(path) + "/.lnetcapd.XXXXXX";
  if (!::mkdtemp(private_dir.data()))
    throw Error("cannot listen on " + path + ": cannot make a directory next to it: " + std::strerror(errno),
                "does its directory exist and may lnetcapd write it (systemd's RuntimeDirectory=lnetcap "
                "creates /run/lnetcap)? choose another with --listen");
  const std::string temporary = private_dir + "/sock";
  auto clean_up = [&] {
    ::unlink(temporary.c_str());
    ::rmdir(private_dir.c_str());
  };
  // The umask makes the socket born 0660: it is never wider, not even in
  // the private directory.
  const mode_t old_mask = ::umask(0117);
  try {
    bind(temporary);
  } catch (...) {
    ::umask(old_mask);
    clean_up();
    throw;
  }
  ::umask(old_mask);
  // Only this process can write private_dir: the name cannot be swapped
  // for a symlink between bind and here.  lchown would not follow one anyway.
  if (gid != static_cast<gid_t>(-1) && ::lchown(temporary.c_str(), static_cast<uid_t>(-1), gid) != 0) {
    const int err = errno;
    clean_up();
    throw Error("cannot give " + path + " to its group: " + std::strerror(err));
  }
  struct stat st {};
  ::lstat(temporary.c_str(), &st);
  // Nothing was at path: do not replace what appeared since.  A stale
  // socket is replaced atomically.
  const int rc = stale ? ::rename(temporary.c_str(), path.c_str())
                       : ::renameat2(AT_FDCWD, temporary.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE);
  if (rc != 0) {
    const int err = errno;
    clean_up();
    throw Error("cannot put the socket at " + path + ": " + std::strerror(err),
                err == EEXIST ? "something appeared at that path while lnetcapd started; look at it"
                              : "choose another path with --listen");
  }
  ::rmdir(private_dir.c_str());
  bound_sockets()[path] = {st.st_dev, st.st_ino};
}
}  // namespace

void bind_ipc_socket(zmq::socket_t& router, const std::string& path, gid_t gid) {
  place_socket(path, gid, [&](const std::string& temporary) {
    try {
      router.bind("ipc://" + temporary);
    } catch (const zmq::error_t& e) {
      throw Error("cannot listen on " + path + ": " + e.what(), "choose another path with --listen");
    }
  });
}

void bind_unix_listener(int fd, const std::string& path, gid_t gid) {
  place_socket(path, gid, [&](const std::string& temporary) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (temporary.size() >= sizeof addr.sun_path || path.size() >= sizeof addr.sun_path)
      throw Error("cannot listen on " + path + ": the path is too long for a Unix socket");
    std::memcpy(addr.sun_path, temporary.c_str(), temporary.size() + 1);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 64) != 0)
      throw Error("cannot listen on " + path + ": " + std::strerror(errno));
  });
}

void remove_ipc_socket(const std::string& path) {
  auto it = bound_sockets().find(path);
  if (it == bound_sockets().end()) return;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == it->second.first &&
      st.st_ino == it->second.second)
    ::unlink(path.c_str());
  bound_sockets().erase(it);
}

}  // namespace lnetcap::daemon
