// SPDX-License-Identifier: GPL-2.0-or-later
// layouts_test.cpp - the built-in offset tables against the layouts of real
// Lustre builds recorded in layouts.txt (each section says which tag, how
// it was built and read; scripts/real-lustre/check-layouts.sh makes them).
// A table that drifts from what a real lnet.ko says fails here, in the
// default run, without building Lustre.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "live/layout.h"

namespace {

// "[v2_16_1]" section -> its "struct.member offset" lines.
std::map<std::string, std::string> recorded_layouts() {
  std::ifstream in(LNETCAP_REAL_LAYOUTS);
  std::map<std::string, std::string> sections;
  std::string line, tag;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line.front() == '[' && line.back() == ']') {
      tag = line.substr(1, line.size() - 2);
      sections[tag];
      continue;
    }
    if (!tag.empty()) sections[tag] += line + "\n";
  }
  return sections;
}

// "v2_17_0" -> "2.17.0"
std::string version_of(std::string tag) {
  if (tag.rfind("v", 0) == 0) tag.erase(0, 1);
  for (char& c : tag)
    if (c == '_') c = '.';
  return tag;
}

TEST(RealLayouts, BuiltinTablesEqualRealBuilds) {
  const auto sections = recorded_layouts();
  ASSERT_FALSE(sections.empty()) << "no layouts in " << LNETCAP_REAL_LAYOUTS;
  for (const auto& [tag, recorded] : sections) {
    const auto builtin = lnetcap::live::builtin_layout(version_of(tag));
    ASSERT_TRUE(builtin) << "no built-in table for " << tag;
    EXPECT_EQ(lnetcap::live::layout_text(builtin->lo), recorded)
        << "the built-in table for " << version_of(tag) << " differs from the real build of "
        << tag << " (left: built-in, right: " << LNETCAP_REAL_LAYOUTS << ")";
  }
}

// Every built-in table has a real build on record: 2.15, 2.16 and 2.17.0
// read with the 2.15.0-2.17.54 table, master from 2.17.55 with its own.
TEST(RealLayouts, EveryTableIsCovered) {
  const auto sections = recorded_layouts();
  bool master = false;
  for (const auto& [tag, _] : sections)
    if (auto v = lnetcap::live::parse_version(version_of(tag)))
      master |= !(*v < lnetcap::live::Version{2, 17, 55});
  EXPECT_TRUE(master) << "no real build of 2.17.55 or later in " << LNETCAP_REAL_LAYOUTS;
  for (const char* line : {"v2_15_", "v2_16_", "v2_17_0"}) {
    bool found = false;
    for (const auto& [tag, _] : sections) found |= tag.rfind(line, 0) == 0;
    EXPECT_TRUE(found) << "no real build of " << line << "* in " << LNETCAP_REAL_LAYOUTS;
  }
}

}  // namespace
