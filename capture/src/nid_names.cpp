// SPDX-License-Identifier: GPL-2.0-or-later
#include "nid_names.h"

#include <fstream>
#include <sstream>

#include "error.h"
#include "nid_resolver.h"

namespace lnetcap {
namespace {

// The address part of a NID's text ("10.0.1.1" of "10.0.1.1@tcp").
std::string addr_text(const Nid& nid) {
  const std::string s = nid.to_string();
  const std::size_t at = s.rfind('@');
  return at == std::string::npos ? s : s.substr(0, at);
}

bool valid_name(const std::string& n) {
  if (n.empty() || n.size() > 64) return false;
  for (unsigned char c : n)
    if (c <= ' ' || c >= 0x7f || c == '@' || c == '#') return false;
  return true;
}

}  // namespace

void NidNames::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read NID names file " + path);
  std::string line;
  unsigned lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (lineno > 1000000) throw Error(path + ": more than 1000000 lines");
    if (const std::size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string key, name, extra;
    if (!(words >> key)) continue;
    const std::string where = path + ":" + std::to_string(lineno) + ": ";
    if (!(words >> name) || (words >> extra))
      throw Error(where + "expected 'NID NAME', 'ADDRESS@LND* NAME' or 'ADDRESS NAME'");
    if (!valid_name(name))
      throw Error(where + "name '" + name + "' must be 1-64 printable characters without '@' or '#'");
    const std::size_t at = key.rfind('@');
    if (at == std::string::npos) {
      if (!Nid::parse(key + "@tcp") && !Nid::parse(key + "@kfi"))
        throw Error(where + "'" + key + "' is not an address");
      by_addr_[key] = name;
    } else if (key.back() == '*') {
      const std::optional<Nid> nid = Nid::parse(key.substr(0, key.size() - 1));
      if (!nid || nid->num != 0)
        throw Error(where + "'" + key + "' is not ADDRESS@LND* (e.g. 16@kfi*)");
      by_lnd_[{nid->type, addr_text(*nid)}] = name;
    } else {
      const std::optional<Nid> nid = Nid::parse(key);
      if (!nid) throw Error(where + "'" + key + "' is not a NID");
      exact_[*nid] = name;
    }
  }
}

std::optional<std::string> NidNames::name(const Nid& nid) const {
  if (empty()) return std::nullopt;
  if (auto it = exact_.find(nid); it != exact_.end()) return it->second;
  const std::string addr = addr_text(nid);
  if (auto it = by_lnd_.find({nid.type, addr}); it != by_lnd_.end()) return it->second;
  if (auto it = by_addr_.find(addr); it != by_addr_.end()) return it->second;
  return std::nullopt;
}

NidNames& NidNames::global() {
  static NidNames names;
  return names;
}

namespace {
std::unique_ptr<NidResolver>& global_resolver() {
  static std::unique_ptr<NidResolver> resolver;
  return resolver;
}
}  // namespace

void set_global_nid_resolver(std::unique_ptr<NidResolver> resolver) {
  global_resolver() = std::move(resolver);
}

std::string display_nid(const Nid& nid) {
  if (nid.is_unset()) return "-";
  // The names file first: the site's own names win over DNS, and a NID it
  // names never costs a look-up.
  std::optional<std::string> n = NidNames::global().name(nid);
  if (!n && global_resolver()) n = global_resolver()->name(nid);
  if (!n) return nid.to_string();
  return *n + "@" + nid.net().to_string();
}

}  // namespace lnetcap
