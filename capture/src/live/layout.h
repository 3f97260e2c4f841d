// SPDX-License-Identifier: GPL-2.0-or-later
// layout.h - where the fields the BPF programs read live in Lustre's
// structs: from BTF (the lnet module's own, or a --btf file made by pahole)
// or from built-in tables for the Lustre releases we know.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "lnetcap_abi.h"

namespace lnetcap::live {

/// A layout and a sentence saying where it came from (for -v and -D).
struct Layout {
  lnetcap_layout lo{};
  std::string origin;  // "BTF of module lnet", "built-in table for Lustre 2.15.0-2.17.54 ..."
  /// A guess (a table for an unknown release, or for LNet 0.7.0 with no
  /// Lustre release): used only when the start-up self-check proves it.
  bool candidate = false;
  /// lnet_drop_rule_match takes local_nid as a 64-bit NID value (up to
  /// 2.15.50), not as a pointer (lnetcap_cfg.drop_rule_nid4).
  bool drop_rule_nid4 = false;
};

/// A Lustre release, major.minor.patch.
struct Version {
  int major = 0, minor = 0, patch = 0;
  bool operator<(const Version& o) const {
    if (major != o.major) return major < o.major;
    if (minor != o.minor) return minor < o.minor;
    return patch < o.patch;
  }
  std::string str() const;
};
/// "2.16.1_ddn3" -> 2.16.1; nullopt unless it starts with three numbers.
std::optional<Version> parse_version(std::string_view v);

/// The built-in table for a Lustre release string such as "2.16.1" or
/// "2.15.4_ddn12", chosen by exact release ranges (layout_tables.cpp);
/// nullopt when the release was never read (newer, or a maintenance
/// release not yet read).
std::optional<Layout> builtin_layout(std::string_view lustre_version);
/// For a release builtin_layout() does not know (2.15.0 or later): the
/// table of the nearest older release read, marked candidate.
std::optional<Layout> candidate_layout(std::string_view lustre_version);
/// For an LNet-only node whose lnet module says "0.7.0" (2.17.53 or older):
/// the one table those releases share, marked candidate.
std::optional<Layout> lnet_0_7_0_candidate();
/// Releases with a built-in table, for messages.
std::string builtin_versions();
/// What to do when no exact table fits (module BTF, --btf, debuginfo).
std::string exact_offsets_hint();

/// Every entry as "struct.member offset" lines ("lnet_msg.msg_routing
/// 170:4" for a bitfield's byte and bit), in a fixed order: how layouts of
/// real builds are recorded and compared.
std::string layout_text(const lnetcap_layout& lo);

/// Reads every offset from BTF: the split BTF of module `lnet` (base
/// vmlinux) or a standalone file.  Throws Error naming the first struct or
/// member that is missing.
Layout layout_from_btf_file(const std::string& path, const std::string& base_path,
                            const std::string& origin);

}  // namespace lnetcap::live
