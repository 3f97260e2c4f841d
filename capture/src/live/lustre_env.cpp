// SPDX-License-Identifier: GPL-2.0-or-later
#include "lustre_env.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "lnet_debuginfo.h"

namespace lnetcap::live {
namespace {

bool exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

std::string read_first_line(const std::string& p) {
  std::ifstream in(p);
  std::string line;
  if (in) std::getline(in, line);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ' || line.back() == '\r'))
    line.pop_back();
  return line;
}

std::string slurp(const std::string& p) {
  std::ifstream in(p);
  std::stringstream ss;
  if (in) ss << in.rdbuf();
  return ss.str();
}

// "lustre: 2.16.1" or "2.16.1" -> "2.16.1"
std::string version_token(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] >= '0' && text[i] <= '9' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == ':')) {
      std::size_t j = i;
      while (j < text.size() && text[j] != ' ' && text[j] != '\n') ++j;
      std::string v = text.substr(i, j - i);
      if (v.find('.') != std::string::npos) return v;
    }
  }
  return {};
}

std::string run_capture(const char* cmd) {
  std::string out;
  if (FILE* f = popen(cmd, "r")) {
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
    pclose(f);
  }
  return out;
}

}  // namespace

LustreEnv detect_lustre(const std::string& root_in) {
  std::string root = root_in.empty() || root_in.back() == '/' ? root_in : root_in + "/";
  LustreEnv env;
  env.lnet_loaded = exists(root + "sys/module/lnet");
  env.lnet_btf = exists(root + "sys/kernel/btf/lnet");
  env.kfunc_module = exists(root + "sys/kernel/btf/lnetcap_kfunc");
  env.kprobes = exists(root + "sys/bus/event_source/devices/kprobe") ||
                exists(root + "sys/kernel/tracing/kprobe_events") ||
                exists(root + "sys/kernel/debug/tracing/kprobe_events");
  env.lnet_version = read_first_line(root + "sys/module/lnet/version");
  if (env.lnet_loaded && !env.lnet_btf) env.lnet_debuginfo = find_lnet_debuginfo(root);
  const std::pair<const char*, const char*> sources[] = {
      {"sys/fs/lustre/version", "/sys/fs/lustre/version"},
      {"proc/fs/lustre/version", "/proc/fs/lustre/version"},
  };
  // /sys/module/lnet/ also has srcversion (a checksum of the module's
  // sources, present with MODULE_VERSION): it tells builds apart but names
  // no release, so it selects nothing.
  // Since 2.17.54 (LU-18839) lnet.ko's MODULE_VERSION is the Lustre release
  // (LNET_VERSION = LUSTRE_VERSION_STRING), before it LNet's constant
  // "0.7.0".  The module's own version describes exactly the module whose
  // structs are read, and an LNet-only node (a router) has nothing else:
  // take it first whenever it is a release.
  if (env.lnet_version != "0.7.0" && !version_token(env.lnet_version).empty() &&
      env.lnet_version.rfind("2.", 0) == 0) {
    env.version = version_token(env.lnet_version);
    env.version_source = "/sys/module/lnet/version";
  }
  for (const auto& [rel, shown] : sources) {
    if (!env.version.empty()) break;
    std::string v = version_token(read_first_line(root + rel));
    if (!v.empty()) {
      env.version = v;
      env.version_source = shown;
      break;
    }
  }
  if (env.version.empty() && env.lnet_loaded && root == "/") {
    std::string v = version_token(run_capture("lctl get_param -n version 2>/dev/null"));
    if (!v.empty()) {
      env.version = v;
      env.version_source = "lctl get_param version";
    }
  }
  return env;
}

std::string describe_lustre(const LustreEnv& env) {
  if (!env.version.empty()) return env.version;
  if (!env.lnet_loaded) return "not loaded";
  return "none (LNet only" +
         (env.lnet_version.empty() ? std::string() : ", lnet " + env.lnet_version) + ")";
}

std::vector<LocalNi> parse_nis_table(std::string_view text) {
  std::vector<LocalNi> out;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string nid, status;
    if (!(row >> nid)) continue;
    if (nid == "nid" || nid.find('@') == std::string::npos) continue;
    row >> status;
    bool seen = false;
    for (const auto& ni : out) seen = seen || ni.nid == nid;
    if (!seen) out.push_back({nid, status});
  }
  return out;
}

std::vector<LocalNi> list_local_nis(const std::string& root_in) {
  std::string root = root_in.empty() || root_in.back() == '/' ? root_in : root_in + "/";
  auto nis = parse_nis_table(slurp(root + "sys/kernel/debug/lnet/nis"));
  if (!nis.empty() || root != "/") return nis;
  // lnetctl prints YAML: "      - nid: 10.0.0.1@tcp" then "        status: up".
  std::istringstream in(run_capture("lnetctl net show 2>/dev/null"));
  std::string line;
  while (std::getline(in, line)) {
    auto p = line.find("nid: ");
    if (p != std::string::npos) {
      nis.push_back({line.substr(p + 5), ""});
    } else if ((p = line.find("status: ")) != std::string::npos && !nis.empty() &&
               nis.back().status.empty()) {
      nis.back().status = line.substr(p + 8);
    }
  }
  return nis;
}

}  // namespace lnetcap::live
