// SPDX-License-Identifier: GPL-2.0-or-later
// nid_names.h - names for NIDs, read from a hosts-style file (docs/REPORTS.md
// "Names for NIDs", lnetcap.8 FILES): the text output, the summaries and the
// charts show NAME@NET where the file names a NID's address.
//
// A line is "KEY NAME" ('#' starts a comment).  KEY is one of
//   10.0.1.1@tcp     that NID only;
//   16@kfi*          that address on every net of that LND (a kfi DFA on
//                    kfi, kfi1, ...; an IP on o2ib, o2ib1, ...);
//   192.168.2.1      that address on every net.
// The most specific key wins.  Like /etc/hosts for tcpdump: used unless
// -n is given.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "nid.h"

namespace lnetcap {

class NidNames {
 public:
  /// Reads a names file.  Throws Error naming the file and line of a
  /// malformed entry, or the file when it cannot be read.
  void load(const std::string& path);
  /// The name of nid's address, if the file gives one.
  std::optional<std::string> name(const Nid& nid) const;
  bool empty() const { return exact_.empty() && by_lnd_.empty() && by_addr_.empty(); }

  /// The table the text output, summaries and charts use (empty = numeric).
  static NidNames& global();

 private:
  std::map<Nid, std::string> exact_;
  std::map<std::pair<std::uint8_t, std::string>, std::string> by_lnd_;  // (LND, address)
  std::map<std::string, std::string> by_addr_;                         // address text
};

class NidResolver;
/// Also ask the system resolver for IP NIDs the table does not name
/// (--resolve-nids); nullptr turns that off.
void set_global_nid_resolver(std::unique_ptr<NidResolver> resolver);

/// "NAME@NET" when the global table names nid, else when the global
/// resolver (if any) names its IP address, else nid.to_string().  The one
/// name look-up of the text output, the summaries and the charts.
std::string display_nid(const Nid& nid);

/// The default names file, read when it exists and no -n/--nid-names is given.
inline constexpr const char* kDefaultNidNamesFile = "/etc/lnetcap/nids";

}  // namespace lnetcap
