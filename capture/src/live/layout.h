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
  std::string origin;  // "BTF of module lnet", "built-in table for Lustre 2.16"
};

/// The built-in table for a Lustre version string such as "2.16.1" or
/// "2.15.4_ddn12"; nullopt when no table fits that release.
std::optional<Layout> builtin_layout(std::string_view lustre_version);
/// Versions with a built-in table, for messages ("2.15, 2.16, 2.17").
std::string builtin_versions();

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
