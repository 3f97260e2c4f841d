// SPDX-License-Identifier: GPL-2.0-or-later
// option_table.h - every lnetcap option in one table: its names, its
// argument, its range, how it sets Options and its line of `lnetcap -h`.
// getopt's tables and the usage text are made from it (options.cpp);
// packaging.docs-in-sync checks lnetcap(8) and the completion against -h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "options.h"

namespace lnetcap {

enum class OptionArgument { kNone, kRequired, kOptional };
/// `lnetcap -h`'s sections; kHidden rows are the extcap protocol's
/// (docs/EXTCAP.md), which Wireshark passes and people do not.
enum class OptionSection { kInput, kOutput, kHidden };

struct AgentOption {
  const char* option = nullptr;  // long name without "--"; nullptr: short only
  char short_option = 0;
  OptionArgument argument = OptionArgument::kNone;
  std::uint64_t min = 0, max = 0;  // a number option's range
  /// Sets `o` from the option's value ("" without one).  Throws Error.
  void (*apply)(const struct AgentOption& row, const std::string& value, Options& o) = nullptr;
  OptionSection section = OptionSection::kOutput;
  const char* usage = nullptr;  // after the names in -h: " FILE", "[=FMT]"
  const char* help = nullptr;   // -h's lines, '\n' between them
  /// "-c" or "--port": how messages name it (the short name when it has one).
  std::string name() const;
  /// A number option's value, checked against min and max.
  std::uint64_t number(const std::string& value) const;
};

/// Every option, in the order of `lnetcap -h`.
const std::vector<AgentOption>& agent_options();

}  // namespace lnetcap
