// SPDX-License-Identifier: GPL-2.0-or-later
// fuzz_support.h - what several fuzz targets share: a fuzz input as a file
// path (the pcapng reader opens paths) and a few decoded messages for the
// filter and -p format targets to evaluate against.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "message_fixtures.h"

namespace lnetcap::fuzz {

/// Puts data into one in-memory file and returns a path that opens it.
/// No disk I/O, so a fuzz run does not wear out or fill a real file system.
inline std::string as_file(const std::uint8_t* data, std::size_t size) {
  static const int fd = [] {
    const int f = memfd_create("lnetcap-fuzz", 0);
    if (f < 0) std::abort();
    return f;
  }();
  if (ftruncate(fd, 0) != 0) std::abort();
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<std::size_t>(n);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

/// Messages of every shape the filter and printers distinguish: an LDLM
/// request with a jobid, an error reply, an LNet GET with health failures
/// and a big-endian nid16 OST_WRITE with a cut payload.
inline const std::vector<test::OwnedMessage>& sample_messages() {
  static const std::vector<test::OwnedMessage> all = [] {
    std::vector<test::OwnedMessage> v;
    v.push_back(test::enqueue_request());
    v.push_back(test::enoent_reply());
    v.push_back(test::ping_get());
    v.push_back(test::ost_write_v6_be());
    return v;
  }();
  return all;
}

}  // namespace lnetcap::fuzz
