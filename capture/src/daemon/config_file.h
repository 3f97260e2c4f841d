// SPDX-License-Identifier: GPL-2.0-or-later
// config_file.h - a daemon config file in GLib's key-file syntax
// ([group], key = value, '#' comments, lists separated by ';'), read with
// GKeyFile.  It adds what GKeyFile lacks for a config an admin edits: every
// error names the file, the line and the key, unknown groups and keys are
// errors (a typo must not be silently ignored), and values are checked.
//
// The groups and keys, and how each value is checked, are rows of the
// settings table (daemon_settings.h); this file knows none of them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace lnetcap::daemon {

class ConfigFile;

/// One [group] of a ConfigFile.  Every getter returns nothing when the key
/// is absent and throws Error (file:line: [group] key: what, hint) for a
/// bad value.  Keys read are remembered, so the file can refuse the rest.
class ConfigGroup {
 public:
  std::optional<std::string> string(const char* key);
  std::optional<std::vector<std::string>> list(const char* key);
  std::optional<bool> boolean(const char* key);
  /// Throws Error naming this key's line, with `what` and `hint`.
  [[noreturn]] void fail(const char* key, const std::string& what, const std::string& hint) const;
  const std::string& name() const { return name_; }

 private:
  friend class ConfigFile;
  ConfigGroup(ConfigFile& file, std::string name) : file_(file), name_(std::move(name)) {}
  ConfigFile& file_;
  std::string name_;
};

class ConfigFile {
 public:
  /// Reads and checks the syntax of `path`.  Throws Error when it cannot
  /// be read or a line is neither a comment, a [group] nor key = value.
  explicit ConfigFile(const std::string& path);
  ~ConfigFile();
  ConfigFile(const ConfigFile&) = delete;
  ConfigFile& operator=(const ConfigFile&) = delete;

  const std::string& path() const { return path_; }
  bool has_group(const char* name) const;
  ConfigGroup group(const char* name) { return ConfigGroup(*this, name); }
  /// Throws Error for the first group not in `known` or key never read.
  void refuse_unknown(const std::vector<std::string>& known) const;
  /// "FILE:LINE" of a group's key (or of the group line when key is null).
  std::string where(const std::string& group, const char* key) const;

 private:
  friend class ConfigGroup;
  struct KeyFile;
  std::string path_;
  std::vector<std::string> lines_;
  std::unique_ptr<KeyFile> keys_;
  std::set<std::pair<std::string, std::string>> read_;
};

}  // namespace lnetcap::daemon
