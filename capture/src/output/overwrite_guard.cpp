// SPDX-License-Identifier: GPL-2.0-or-later
#include "overwrite_guard.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <regex>

#include "../error.h"

namespace lnetcap::output {
namespace {

struct FileId {
  dev_t dev;
  ino_t ino;
  bool operator==(const FileId& o) const { return dev == o.dev && ino == o.ino; }
};

// The file a path reaches now (through every symbolic link), if it exists.
std::optional<FileId> file_id(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Where writing to a path that does not exist yet would create the file:
// the directory (as a file) and the name in it, after following a dangling
// symbolic link (open(O_CREAT) creates its target).
struct Location {
  std::optional<FileId> dir;
  std::string name;
  bool operator==(const Location& o) const {
    return dir && o.dir && *dir == *o.dir && name == o.name;
  }
};

Location location(std::string path) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) break;
    char target[PATH_MAX];
    const ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
    if (n <= 0) break;
    const std::string t(target, static_cast<std::size_t>(n));
    path = t[0] == '/' ? t : dir_of(path) + "/" + t;
  }
  return {file_id(dir_of(path)), name_of(path)};
}

bool same_file(const std::string& a, const std::string& b) {
  const auto ia = file_id(a), ib = file_id(b);
  if (ia || ib) return ia && ib && *ia == *ib;
  return location(a) == location(b);
}

bool is_stream(const std::string& path) { return path.empty() || path == "-"; }

[[noreturn]] void refuse(const NamedFile& write, const std::string& what) {
  throw Error(write.option + " " + write.path + " " + what + ": refusing to overwrite it",
              "write to another file name; nothing was written");
}

std::string regex_escape(char c) {
  static const std::string special = R"(\^$.|?*+()[]{}-)";
  return special.find(c) != std::string::npos ? std::string("\\") + c : std::string(1, c);
}

}  // namespace

bool is_rotation_name(const RotationOptions& o, const std::string& name) {
  const std::string base = name_of(o.base);
  std::string re;
  for (std::size_t i = 0; i < base.size(); ++i) {
    if (o.seconds && base[i] == '%' && i + 1 < base.size()) {
      ++i;
      if (base[i] == '%') {
        re += '%';
        continue;
      }
      if ((base[i] == 'E' || base[i] == 'O') && i + 1 < base.size()) ++i;  // %Ec, %Oy
      // Numeric conversions expand to digits (%e to a space and digits),
      // so "trace-old" is not taken for "trace-%H"; names can be anything.
      re += std::string("CdegGHIjklmMsSuUVwWyY").find(base[i]) != std::string::npos ? "[ 0-9]+"
                                                                                    : ".+";
      continue;
    }
    re += regex_escape(base[i]);
  }
  if (o.max_bytes) {
    const int width = o.file_count ? file_number_width(*o.file_count) : 0;
    re += width ? "([0-9]{" + std::to_string(width) + "})" : "([0-9]+)?";
  }
  std::smatch m;
  if (!std::regex_match(name, m, std::regex(re))) return false;
  // -W N: a ring of FILE0..FILE<N-1>; higher numbers are never written.
  if (o.max_bytes && o.file_count && m[m.size() - 1].matched)
    return std::stoull(m[m.size() - 1].str()) < *o.file_count;
  return true;
}

void refuse_overwrites(const std::vector<NamedFile>& reads, const std::vector<NamedFile>& writes,
                       const RotationOptions& rotation) {
  for (const NamedFile& w : writes) {
    if (is_stream(w.path)) continue;
    for (const NamedFile& r : reads)
      if (!is_stream(r.path) && same_file(w.path, r.path))
        refuse(w, "is the file " + r.option + " " + r.path + " reads");
    for (const NamedFile& other : writes) {
      if (&other == &w) break;
      if (!is_stream(other.path) && same_file(w.path, other.path))
        refuse(w, "is the file " + other.option + " " + other.path + " writes");
    }
  }
  if (!rotation.enabled() || is_stream(rotation.base)) return;
  // Every existing file of the rotation's directory that the rotation could
  // name (a symbolic or hard link to an input counts: it is the input).
  const NamedFile w{rotation.seconds ? "-w (with -G)" : "-w (with -C)", rotation.base};
  const std::string dir = dir_of(make_file_name(rotation, std::time(nullptr), 0));
  if (DIR* d = ::opendir(dir.c_str())) {
    std::optional<std::string> hit;
    std::string hit_read;
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == ".." || !is_rotation_name(rotation, name)) continue;
      const auto id = file_id(dir + "/" + name);
      for (const NamedFile& r : reads) {
        const auto rid = is_stream(r.path) ? std::nullopt : file_id(r.path);
        if (id && rid && *id == *rid && !hit) {
          hit = dir + "/" + name;
          hit_read = r.option + " " + r.path;
        }
      }
    }
    ::closedir(d);
    if (hit) refuse(w, "would rotate into " + *hit + ", the file " + hit_read + " reads");
  }
  // Outputs that do not exist yet but carry a rotated name.
  for (const NamedFile& other : writes) {
    if (is_stream(other.path)) continue;
    const Location l = location(other.path);
    if (l.dir && l.dir == file_id(dir) && is_rotation_name(rotation, l.name))
      refuse(other, "is a file -w " + rotation.base + " rotates into");
  }
}

}  // namespace lnetcap::output
