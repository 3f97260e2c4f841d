// SPDX-License-Identifier: GPL-2.0-or-later
#include "privdrop.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../error.h"

namespace lnetcap::live {

void drop_privileges(const std::string& user) {
  std::vector<char> buf(16384);
  passwd pw{}, *res = nullptr;
  int rc = getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &res);
  if (!res) {
    char* end = nullptr;
    unsigned long uid = std::strtoul(user.c_str(), &end, 10);
    if (!user.empty() && end && *end == '\0')
      rc = getpwuid_r(static_cast<uid_t>(uid), &pw, buf.data(), buf.size(), &res);
  }
  if (!res)
    throw Error("-Z " + user + ": no such user" + (rc ? std::string(": ") + std::strerror(rc) : ""),
                "give an existing unprivileged user, e.g. -Z nobody");
  if (initgroups(pw.pw_name, pw.pw_gid) != 0 && setgroups(0, nullptr) != 0)
    throw Error(std::string("-Z ") + user + ": cannot set groups: " + std::strerror(errno));
  if (setgid(pw.pw_gid) != 0)
    throw Error(std::string("-Z ") + user + ": cannot set group id: " + std::strerror(errno));
  if (setuid(pw.pw_uid) != 0)
    throw Error(std::string("-Z ") + user + ": cannot set user id: " + std::strerror(errno));
  if (pw.pw_uid != 0 && setuid(0) == 0)
    throw Error("-Z " + user + ": privileges could not be dropped (setuid(0) still works)");
}

}  // namespace lnetcap::live
