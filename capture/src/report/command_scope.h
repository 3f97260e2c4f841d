// SPDX-License-Identifier: GPL-2.0-or-later
// command_scope.h - which messages an --assert command caused, by Lustre's
// jobid (--only-command, docs/REPORTS.md).  lnetcap runs the command in a
// session of its own whose jobid it sets (jobid_this_session, read by
// Lustre when jobid_var=session): every request a process of that session
// makes carries the jobid.  A message is the command's when it is such a
// request, or when it carries the match bits of one between the same two
// nodes: its replies (early ones too), its bulk PUTs and GETs, their ACKs;
// or when the bulk linker (bulk_linker.h) names one of its requests: the
// REPLY of a bulk GET (no match bits: it names the GET's MD) and every
// chunk of a multi-MiB bulk.  Not attributable: RPCs that Lustre's own
// threads send on the command's behalf (write-back by ptlrpcd, lock
// cancels and callbacks by LDLM threads): they carry another jobid.
#pragma once

#include <cstdint>
#include <deque>
#include <set>
#include <string>
#include <tuple>

#include "bulk_linker.h"
#include "message.h"

namespace lnetcap::report {

class CommandScope {
 public:
  /// max_rpcs bounds memory over a long command: the oldest RPCs are
  /// forgotten first (their late bulk would then go uncounted).
  explicit CommandScope(std::string jobid, std::size_t max_rpcs = 1 << 20)
      : jobid_(std::move(jobid)), max_rpcs_(max_rpcs) {}

  /// Whether m belongs to the command (and, for its requests, remembers them).
  bool includes(const Message& m);
  const std::string& jobid() const { return jobid_; }
  std::uint64_t included() const { return included_; }
  std::uint64_t excluded() const { return excluded_; }

 private:
  using Key = std::tuple<Nid, Nid, std::uint64_t>;  // lower NID, higher NID, match bits
  static Key key(const Nid& a, const Nid& b, std::uint64_t bits);
  void remember(const Key& k);

  std::string jobid_;
  std::size_t max_rpcs_;
  std::set<Key> rpcs_;
  std::deque<Key> order_;
  BulkLinker bulk_;
  std::uint64_t included_ = 0, excluded_ = 0;
};

}  // namespace lnetcap::report
