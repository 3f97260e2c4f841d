// SPDX-License-Identifier: GPL-2.0-or-later
#include "config_file.h"

#include <glib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../error.h"

namespace lnetcap::daemon {
namespace {

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

bool is_group_line(const std::string& t) { return t.size() >= 2 && t.front() == '[' && t.back() == ']'; }

// The key of a "key = value" line ("" when it is not one).
std::string key_of(const std::string& t) {
  const auto eq = t.find('=');
  return eq == std::string::npos ? std::string() : trimmed(t.substr(0, eq));
}

const char kSyntaxHint[] =
    "each line is a [group], key = value or a # comment (lnetcapd(8), CONFIGURATION)";

}  // namespace

struct ConfigFile::KeyFile {
  GKeyFile* kf = g_key_file_new();
  ~KeyFile() { g_key_file_free(kf); }
};

ConfigFile::ConfigFile(const std::string& path) : path_(path), keys_(std::make_unique<KeyFile>()) {
  // A directory opens as an empty stream: read as an empty file, every
  // setting (forced anonymization too) would silently be off.
  if (std::filesystem::is_directory(path))
    throw Error("config file " + path + " is a directory",
                "name the file itself, e.g. --config " + path + "/lnetcapd.conf, or --no-config");
  std::ifstream in(path);
  if (!in)
    throw Error("cannot read config file " + path,
                "does it exist and may lnetcapd read it? name another with --config FILE, or --no-config");
  std::stringstream text;
  text << in.rdbuf();
  const std::string data = text.str();
  // GKeyFile's own syntax errors carry no line number: check lines first.
  std::istringstream lines(data);
  bool in_group = false;
  for (std::string line; std::getline(lines, line);) {
    lines_.push_back(line);
    const std::string t = trimmed(line);
    const std::string at = path + ":" + std::to_string(lines_.size()) + ": ";
    if (t.empty() || t[0] == '#') continue;
    if (is_group_line(t)) {
      in_group = true;
      continue;
    }
    if (key_of(t).empty()) throw Error(at + "'" + t + "' is not a [group], key = value or comment", kSyntaxHint);
    if (!in_group) throw Error(at + "'" + key_of(t) + "' comes before any [group]", kSyntaxHint);
  }
  GError* err = nullptr;
  if (!g_key_file_load_from_data(keys_->kf, data.data(), data.size(), G_KEY_FILE_NONE, &err)) {
    const std::string why = err->message;
    g_error_free(err);
    throw Error(path + ": " + why, kSyntaxHint);
  }
}

ConfigFile::~ConfigFile() = default;

bool ConfigFile::has_group(const char* name) const { return g_key_file_has_group(keys_->kf, name); }

std::string ConfigFile::where(const std::string& group, const char* key) const {
  std::size_t found = 0;
  std::string current;
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    const std::string t = trimmed(lines_[i]);
    if (is_group_line(t)) {
      current = t.substr(1, t.size() - 2);
      if (!key && current == group) found = i + 1;
    } else if (key && current == group && !t.empty() && t[0] != '#' && key_of(t) == key) {
      found = i + 1;  // GKeyFile keeps the last of repeated keys
    }
  }
  return path_ + (found ? ":" + std::to_string(found) : std::string());
}

void ConfigFile::refuse_unknown(const std::vector<std::string>& known) const {
  gchar** groups = g_key_file_get_groups(keys_->kf, nullptr);
  std::string error, hint;
  for (gchar** g = groups; *g && error.empty(); ++g) {
    bool is_known = false;
    for (const auto& k : known) is_known |= k == *g;
    if (!is_known) {
      error = where(*g, nullptr) + ": unknown group [" + *g + "]";
      hint = "known groups:";
      for (const auto& k : known) hint += " [" + k + "]";
      break;
    }
    gchar** keys = g_key_file_get_keys(keys_->kf, *g, nullptr, nullptr);
    for (gchar** k = keys; *k; ++k)
      if (!read_.count({*g, *k})) {
        error = where(*g, *k) + ": [" + *g + "] " + *k + ": unknown key";
        hint = "see lnetcapd(8), CONFIGURATION, for the keys of [" + std::string(*g) + "]";
        break;
      }
    g_strfreev(keys);
  }
  g_strfreev(groups);
  if (!error.empty()) throw Error(error, hint);
}

void ConfigGroup::fail(const char* key, const std::string& what, const std::string& hint) const {
  throw Error(file_.where(name_, key) + ": [" + name_ + "] " + key + ": " + what, hint);
}

std::optional<std::string> ConfigGroup::string(const char* key) {
  if (!g_key_file_has_key(file_.keys_->kf, name_.c_str(), key, nullptr)) return std::nullopt;
  file_.read_.insert({name_, key});
  GError* err = nullptr;
  gchar* v = g_key_file_get_string(file_.keys_->kf, name_.c_str(), key, &err);
  if (!v) {
    const std::string why = err->message;
    g_error_free(err);
    fail(key, why, "check the value's escapes (\\s, \\n, \\\\)");
  }
  std::string s = v;
  g_free(v);
  return s;
}

std::optional<std::vector<std::string>> ConfigGroup::list(const char* key) {
  const auto raw = string(key);
  if (!raw) return std::nullopt;
  std::vector<std::string> items;
  gchar** v = g_key_file_get_string_list(file_.keys_->kf, name_.c_str(), key, nullptr, nullptr);
  for (gchar** i = v; i && *i; ++i)
    if (!trimmed(*i).empty()) items.push_back(trimmed(*i));
  g_strfreev(v);
  return items;
}

std::optional<bool> ConfigGroup::boolean(const char* key) {
  const auto raw = string(key);
  if (!raw) return std::nullopt;
  const std::string v = trimmed(*raw);
  if (v == "true" || v == "yes" || v == "1") return true;
  if (v == "false" || v == "no" || v == "0") return false;
  fail(key, "'" + v + "' is not a boolean", "write true or false");
}

}  // namespace lnetcap::daemon
