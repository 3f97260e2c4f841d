// SPDX-License-Identifier: GPL-2.0-or-later
// The settings table (capture/src/daemon/daemon_settings.h) against what
// documents it: `lnetcapd -h`, lnetcapd(8) and the example lnetcapd.conf
// list exactly the table's options, groups and keys, and the table's rows
// parse as they say (range, reload).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "daemon/config_file.h"
#include "daemon/daemon.h"
#include "daemon/daemon_config.h"
#include "daemon/daemon_settings.h"
#include "error.h"
#include "option_table.h"
#include "options.h"

namespace lnetcap::daemon {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// roff writes "--max-subscribers" as "\-\-max\-subscribers".
std::string unroff(std::string s) {
  for (auto p = s.find("\\-"); p != std::string::npos; p = s.find("\\-", p)) s.erase(p, 1);
  return s;
}

constexpr char kDaemonPage[] = LNETCAP_SOURCE_DIR "/docs/lnetcapd.8";
constexpr char kAgentPage[] = LNETCAP_SOURCE_DIR "/docs/lnetcap.8";

// The lines of a man page section, ".SH NAME" to the next ".SH".
std::vector<std::string> man_section(const std::string& name, const char* page = kDaemonPage) {
  std::vector<std::string> out;
  bool in = false;
  for (const auto& line : lines_of(read_text(page))) {
    if (line.rfind(".SH ", 0) == 0) in = line == ".SH " + name;
    else if (in) out.push_back(line);
  }
  return out;
}

// "--name" and "-x" of every row, as the documents write them.
std::set<std::string> options_of(const DaemonSetting& s) {
  std::set<std::string> names;
  if (s.option) names.insert(std::string("--") + s.option);
  if (s.short_option) names.insert(std::string("-") + s.short_option);
  return names;
}

std::set<std::string> table_options() {
  std::set<std::string> all;
  for (const auto& s : daemon_settings())
    for (const auto& n : options_of(s)) all.insert(n);
  return all;
}

// The options named in the tags (the line after each .TP) of OPTIONS.
std::set<std::string> man_tagged_options(const char* page = kDaemonPage) {
  std::set<std::string> names;
  const auto lines = man_section("OPTIONS", page);
  const std::regex option(R"((^|[\s"])(--[a-z][a-z-]*|-[a-zA-Z])\b)");
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    if (lines[i] != ".TP") continue;
    const std::string tag = unroff(lines[i + 1]);
    for (std::sregex_iterator m(tag.begin(), tag.end(), option), end; m != end; ++m) names.insert((*m)[2]);
  }
  return names;
}

// usage_text()'s options: "  -r, --read FILE", "      --from URI", "  -n".
std::set<std::string> usage_options(const std::string& usage) {
  std::set<std::string> names;
  const std::regex option_line(R"(^ +(-([a-zA-Z])(, |  ))?(--([a-z][a-z-]+))?)");
  for (const auto& line : lines_of(usage)) {
    std::smatch m;
    if (line.rfind("  -", 0) != 0 && line.rfind("      --", 0) != 0) continue;
    if (!std::regex_search(line, m, option_line)) continue;
    if (m[2].matched) names.insert("-" + m[2].str());
    if (m[5].matched) names.insert("--" + m[5].str());
  }
  return names;
}

std::set<std::string> agent_table_options() {
  std::set<std::string> names;
  for (const auto& r : agent_options()) {
    if (r.section == OptionSection::kHidden) continue;
    if (r.option) names.insert(std::string("--") + r.option);
    if (r.short_option) names.insert(std::string("-") + r.short_option);
  }
  return names;
}

TEST(OptionsTable, ManPageDocumentsExactlyTheTableOptions) {
  const auto man = man_tagged_options();
  ASSERT_GT(man.size(), 20u) << "too few options found in docs/lnetcapd.8's OPTIONS";
  for (const auto& s : daemon_settings()) {
    if (!s.option) continue;
    bool documented = false;
    for (const auto& n : options_of(s)) documented |= man.count(n) > 0;
    EXPECT_TRUE(documented) << "docs/lnetcapd.8 has no .TP entry for --" << s.option;
  }
  const auto table = table_options();
  for (const auto& n : man) EXPECT_TRUE(table.count(n)) << "docs/lnetcapd.8 documents " << n << ", which lnetcapd lacks";
}

TEST(OptionsTable, ManPageNamesTheCommandLineOnlyOptions) {
  // "Every option except ... can also be set in the config file": the
  // paragraph before the first .TP names each option without a key.
  std::string intro;
  for (const auto& line : man_section("OPTIONS")) {
    if (line == ".TP") break;
    intro += unroff(line) + "\n";
  }
  for (const auto& s : daemon_settings()) {
    if (!s.option || s.group) continue;
    bool named = false;
    for (const auto& n : options_of(s)) named |= std::regex_search(intro, std::regex("(^|\\s)" + n + "(\\s|,|$)"));
    EXPECT_TRUE(named) << "--" << s.option << " has no config key: docs/lnetcapd.8 must say so before its options";
  }
}

TEST(OptionsTable, ManPageDocumentsEveryConfigKeyInItsGroup) {
  // Each [group] tag of CONFIGURATION, and the keys bolded in its paragraph.
  std::map<std::string, std::string> paragraphs;
  const auto lines = man_section("CONFIGURATION");
  std::string current;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == ".TP" || lines[i] == ".PP") current.clear();
    if (lines[i] == ".TP" && i + 1 < lines.size() && lines[i + 1].rfind(".B [", 0) == 0) {
      ++i;
      current = lines[i].substr(4, lines[i].size() - 5);
      paragraphs[current];
      continue;
    }
    if (!current.empty()) paragraphs[current] += unroff(lines[i]) + "\n";
  }
  std::set<std::string> groups;
  for (const auto& s : daemon_settings()) {
    if (!s.group) continue;
    groups.insert(s.group);
    ASSERT_TRUE(paragraphs.count(s.group)) << "docs/lnetcapd.8 CONFIGURATION has no [" << s.group << "]";
    const std::regex bold_key("(^|\\n)\\.BR? " + std::string(s.key) + "( |\\n)");
    EXPECT_TRUE(std::regex_search(paragraphs[s.group], bold_key))
        << "docs/lnetcapd.8 CONFIGURATION does not name " << s.config_name();
  }
  for (const auto& [group, text] : paragraphs)
    EXPECT_TRUE(groups.count(group)) << "docs/lnetcapd.8 documents [" << group << "], which lnetcapd does not read";
}

TEST(OptionsTable, UsageListsExactlyTheTableOptions) {
  EXPECT_EQ(usage_options(daemon_usage_text()), table_options());
}

TEST(OptionsTable, ExampleConfigHoldsOnlyTableKeys) {
  // packaging/lnetcapd.conf: every key, set or commented out, is a row.
  std::string group;
  int keys = 0;
  const std::regex key_line(R"(^#?([a-z][a-z-]*) = )");
  for (const auto& line : lines_of(read_text(LNETCAP_SOURCE_DIR "/packaging/lnetcapd.conf"))) {
    if (line.size() > 2 && line.front() == '[') group = line.substr(1, line.size() - 2);
    std::smatch m;
    if (!std::regex_search(line, m, key_line)) continue;
    bool known = false;
    for (const auto& s : daemon_settings()) known |= s.group && group == s.group && m[1] == s.key;
    EXPECT_TRUE(known) << "packaging/lnetcapd.conf: [" << group << "] " << m[1] << " is no setting";
    ++keys;
  }
  EXPECT_GT(keys, 20);
}

TEST(OptionsTable, LnetcapUsageListsExactlyItsTableOptions) {
  EXPECT_EQ(usage_options(usage_text()), agent_table_options());
}

TEST(OptionsTable, LnetcapManPageDocumentsExactlyItsTableOptions) {
  const auto man = man_tagged_options(kAgentPage);
  ASSERT_GT(man.size(), 30u) << "too few options found in docs/lnetcap.8's OPTIONS";
  for (const auto& r : agent_options()) {
    if (r.section == OptionSection::kHidden) continue;
    bool documented = false;
    if (r.option) documented |= man.count(std::string("--") + r.option) > 0;
    if (r.short_option) documented |= man.count(std::string("-") + r.short_option) > 0;
    EXPECT_TRUE(documented) << "docs/lnetcap.8 has no .TP entry for " << r.name();
  }
  const auto table = agent_table_options();
  for (const auto& n : man) EXPECT_TRUE(table.count(n)) << "docs/lnetcap.8 documents " << n << ", which lnetcap lacks";
}

// The defaults -h states ("(default 1000)") are the ones the code starts from.
TEST(OptionsTable, UsageDefaultsAreTheCodeDefaults) {
  int checked = 0;
  for (const auto& s : daemon_settings()) {
    std::smatch m;
    const std::string help = s.help ? s.help : "";
    if (!s.field || !std::regex_search(help, m, std::regex(R"(default (\d+)\b)"))) continue;
    DaemonOptions defaults;
    const double scale = s.kind == ValueKind::kSeconds ? 1e9 : 1;
    const double value = std::visit(
        [](auto* p) -> double {
          using T = std::remove_pointer_t<decltype(p)>;
          if constexpr (std::is_arithmetic_v<T>) return static_cast<double>(*p);
          else return -1;
        },
        s.field(defaults));
    EXPECT_EQ(value / scale, std::stod(m[1])) << "lnetcapd -h says --" << s.option << " defaults to " << m[1];
    ++checked;
  }
  EXPECT_GE(checked, 8);
}

// A config file with `text`, read into options.
// Each its own file: ctest runs these tests side by side.
DaemonOptions from_file(const std::string& text) {
  std::string path = ::testing::TempDir() + "options_table_test.XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0) throw std::runtime_error("mkstemp " + path);
  ::close(fd);
  std::ofstream(path) << text;
  struct Remove {
    const std::string& path;
    ~Remove() { std::remove(path.c_str()); }
  } remove{path};
  ConfigFile file(path);
  DaemonOptions o;
  apply_config_file(file, o);
  return o;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(OptionsTable, EveryNumberKeyTakesItsRangeAndRefusesPastIt) {
  for (const auto& s : daemon_settings()) {
    if (!s.group || s.kind != ValueKind::kNumber) continue;
    const std::string head = "[" + std::string(s.group) + "]\n" + s.key + " = ";
    EXPECT_EQ(error_of([&] { from_file(head + std::to_string(s.max) + "\n"); }), "") << s.config_name();
    EXPECT_NE(error_of([&] { from_file(head + std::to_string(s.max + 1) + "\n"); }).find("is not a number from"),
              std::string::npos)
        << s.config_name();
  }
}

TEST(OptionsTable, CommandLineAndFileRefuseABadValueAlike) {
  std::vector<std::string> args = {"lnetcapd", "--no-config", "--queue", "five"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  EXPECT_EQ(error_of([&] { parse_daemon_options(static_cast<int>(argv.size()), argv.data()); }),
            "invalid value 'five' for --queue (expected a number from 1 to 10000000)");
  EXPECT_NE(error_of([&] { from_file("[subscribers]\nqueue = five\n"); })
                .find("[subscribers] queue: 'five' is not a number from 1 to 10000000"),
            std::string::npos);
}

TEST(OptionsTable, ReloadNamesWhatNeedsARestartAndNotWhatItApplies) {
  DaemonOptions a = from_file("[listen]\nnode = one\n[security]\nauthorized-keys = /k1\n");
  DaemonOptions b = from_file(
      "[listen]\nnode = two\n[security]\nauthorized-keys = /k2\n[subscribers]\nanonymize-all = true\n"
      "max-subscribers = 5\n[recorder]\nsize = 1M\n");
  EXPECT_EQ(settings_needing_restart(a, b),
            (std::vector<std::string>{"[listen] node", "[subscribers] max-subscribers", "[recorder] size"}));
  DaemonOptions c = from_file("[listen]\nnode = one\n");
  EXPECT_EQ(settings_needing_restart(a, c), (std::vector<std::string>{"[security] authorized-keys (on/off)"}));
}

}  // namespace
}  // namespace lnetcap::daemon
