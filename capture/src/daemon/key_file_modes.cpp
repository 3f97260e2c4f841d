// SPDX-License-Identifier: GPL-2.0-or-later
#include "key_file_modes.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "../error.h"

namespace lnetcap::daemon {
namespace {

std::string octal(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

}  // namespace

std::set<std::string> read_checked_authorized_keys(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && (st.st_mode & (S_IWGRP | S_IWOTH)))
    throw Error("refusing the authorized-keys file " + path + ": mode " + octal(st.st_mode) +
                    " lets users other than its owner add keys",
                "chmod go-w " + path + " (sshd refuses such files too)");
  return subscribe::read_authorized_keys(path);  // names a missing file
}

void check_secret_key_mode(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;  // read_key_file names the problem
  if (st.st_mode & (S_IRWXG | S_IRWXO))
    throw Error("refusing the server's secret key " + path + ": mode " + octal(st.st_mode) +
                    " lets users other than its owner read or change it",
                "chmod 600 " + path + " (sshd refuses such keys too); if others may have read "
                "it, make a new one (remove it: lnetcapd makes one) and give subscribers its public key");
}

}  // namespace lnetcap::daemon
