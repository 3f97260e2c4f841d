// SPDX-License-Identifier: GPL-2.0-or-later
// format.h - -p FORMAT: lnetdump's format codes (docs/protocol.md 7.1) plus
// lnetcap's own.  An item is %[-][width]CODE; a code is tried as two
// characters first, then one, exactly as lnetdump does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../message.h"

namespace lnetcap::text {

enum class Code {
  kLiteral,
  kCounter,        // %c
  kLnetSendRecv,   // %Ls
  kLnetType,       // %Lt
  kLnetLength,     // %Ll
  kLnetPortal,     // %LP
  kLnetMatchBits,  // %Lm
  kRpcOpcode,      // %Po
  kRpcJobid,       // %Pj
  kRpcProjid,      // %Pp
  kDlmResType,     // %Dt
  kDlmLockCount,   // %Dc
  kDlmResName,     // %Dn
  kTime,           // %T   local time HH:MM:SS.ffffff
  kEpoch,          // %Ts  seconds.nanoseconds since the epoch
  kSrcNid,         // %Ns
  kDstNid,         // %Nd
  kLocalNid,       // %Ni
  kPeerNid,        // %Np
  kXid,            // %Px
  kRpcType,        // %Pt
  kRpcStatus,      // %Ps
  kHealth,         // %Hs
  kRetries,        // %Hr
  kBodyField,      // a row of include/lnetcap/fields.h with a -p code (Item::body_field)
};

struct Item {
  Code code = Code::kLiteral;
  std::string literal;
  int width = 0;
  bool left = false;
  std::size_t body_field = 0;  // kBodyField: the row (LNETCAP_BF_*)
};

/// The widest column a -p item may ask for.
inline constexpr int kMaxWidth = 1000;

/// A compiled -p format.  Throws Error naming the bad code and its column.
class Format {
 public:
  static Format compile(std::string_view spec);
  /// Appends one line (without newline) for message number `counter`.
  void render(const Message& m, std::uint64_t counter, std::string& out) const;
  const std::vector<Item>& items() const { return items_; }

 private:
  std::vector<Item> items_;
};

/// lnetdump's default format.
constexpr std::string_view kLnetdumpDefaultFormat =
    "%-5c %Lm %-5Ls %-5Lt %-20LP [%-16Pj] %-30Po %Dt %Dc %Dn";

/// "[0x200000007:0x1:0x0]" for an LDLM resource name that holds a FID.
std::string resource_fid(const std::uint64_t name[4]);
/// Local time "HH:MM:SS.ffffff" (or nanoseconds).
std::string clock_time(std::uint64_t ts_ns, bool nano);

}  // namespace lnetcap::text
