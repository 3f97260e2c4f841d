// SPDX-License-Identifier: GPL-2.0-or-later
#include "lnet_debuginfo.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "../error.h"

extern char** environ;

namespace lnetcap::live {
namespace {

namespace fs = std::filesystem;

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::uint32_t le32(const std::uint8_t* p) {
  return p[0] | p[1] << 8 | p[2] << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

// The descriptor of the NT_GNU_BUILD_ID note in the module's notes file
// (an ELF note: namesz, descsz, type, "GNU\0", descriptor), as hex.
std::string build_id_hex(const std::vector<std::uint8_t>& note) {
  constexpr std::uint32_t kNtGnuBuildId = 3;
  std::size_t off = 0;
  while (off + 12 <= note.size()) {
    const std::uint32_t namesz = le32(&note[off]), descsz = le32(&note[off + 4]),
                        type = le32(&note[off + 8]);
    const std::size_t name_at = off + 12, desc_at = name_at + ((namesz + 3) & ~3u);
    const std::size_t next = desc_at + ((descsz + 3) & ~3u);
    if (namesz > note.size() || descsz > note.size() || next > note.size()) break;
    if (type == kNtGnuBuildId && namesz == 4 && std::memcmp(&note[name_at], "GNU", 4) == 0 &&
        descsz >= 2) {
      static const char kHex[] = "0123456789abcdef";
      std::string hex;
      for (std::size_t i = 0; i < descsz; ++i) {
        hex += kHex[note[desc_at + i] >> 4];
        hex += kHex[note[desc_at + i] & 15];
      }
      return hex;
    }
    off = next;
  }
  return {};
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

std::string find_lnet_debuginfo(const std::string& root_in) {
  const std::string root = root_in.empty() || root_in.back() == '/' ? root_in : root_in + "/";
  std::error_code ec;
  const std::string id = build_id_hex(read_bytes(root + "sys/module/lnet/notes/.note.gnu.build-id"));
  if (!id.empty()) {
    const std::string p = root + "usr/lib/debug/.build-id/" + id.substr(0, 2) + "/" +
                          id.substr(2) + ".debug";
    if (fs::is_regular_file(p, ec)) return p;
  }
  // By path, for packages without build-id links.  The layout is still
  // checked against live traffic at attach (layout_check.h).
  const std::string release = first_line(root + "proc/sys/kernel/osrelease");
  if (release.empty()) return {};
  const fs::path dir = root + "usr/lib/debug/lib/modules/" + release;
  if (!fs::is_directory(dir, ec)) return {};
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if ((name == "lnet.ko.debug" || name == "lnet.ko") && it->is_regular_file(ec))
      return it->path().string();
  }
  return {};
}

Layout layout_from_debuginfo(const std::string& debuginfo_path) {
  char tmpl[] = "/tmp/lnetcap-btf.XXXXXX";
  if (!::mkdtemp(tmpl))
    throw Error("cannot make a temporary directory for the BTF of " + debuginfo_path + ": " +
                std::strerror(errno));
  const std::string dir = tmpl, btf = dir + "/lnet.btf";
  const std::string out_arg = "--btf_encode_detached=" + btf;
  std::vector<char*> argv = {const_cast<char*>("pahole"), const_cast<char*>(out_arg.c_str()),
                             const_cast<char*>(debuginfo_path.c_str()), nullptr};
  // pahole's own chatter is not lnetcap's: silence it.
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int spawn_err = posix_spawnp(&pid, "pahole", &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  int status = 0;
  if (spawn_err == 0) ::waitpid(pid, &status, 0);
  auto cleanup = [&] {
    std::error_code ec;
    fs::remove_all(dir, ec);
  };
  if (spawn_err != 0) {
    cleanup();
    throw Error("found Lustre's debuginfo " + debuginfo_path + " but cannot run pahole: " +
                    std::strerror(spawn_err),
                "install pahole (Debian: apt-get install pahole; RHEL: dnf install dwarves) so "
                "lnetcap reads the offsets from it");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    cleanup();
    throw Error("pahole could not turn " + debuginfo_path + " into BTF",
                "check that the file is the lnet module's debuginfo; --btf FILE takes a BTF "
                "made by hand");
  }
#ifdef LNETCAP_HAVE_BPF
  try {
    Layout l = layout_from_btf_file(btf, "", "debuginfo " + debuginfo_path + " (via pahole)");
    cleanup();
    return l;
  } catch (...) {
    cleanup();
    throw;
  }
#else
  cleanup();
  throw Error("this lnetcap was built without eBPF support (no BTF reader)");
#endif
}

}  // namespace lnetcap::live
