// SPDX-License-Identifier: GPL-2.0-or-later
// --only-command (docs/REPORTS.md): what the command's session caused, by
// its Lustre jobid, and what lnetcap needs of Lustre to set that jobid.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "error.h"
#include "report/assertion_engine.h"
#include "report/command_runner.h"
#include "report/command_scope.h"
#include "report/session_jobid.h"
#include "report_messages.h"

using namespace lnetcap;
using namespace lnetcap::report;

namespace {

// The shared scenario with its OST_WRITE made by the command too.
std::vector<Message> scenario() {
  auto v = test::rpc_scenario();
  for (auto& m : v)
    if (m.rpc.opc == LNETCAP_OPC_OST_WRITE && is_rpc_request(m)) m.rpc.jobid = "dd.0";
  return v;
}

// An assertion over the scenario as lnetcap runs it with --only-command:
// the scope comes before every sink.
double count_of(const std::string& expr, const std::string& only) {
  AssertionEngine e({expr});
  std::optional<CommandScope> scope;
  if (!only.empty()) scope.emplace(only);
  for (const Message& m : scenario())
    if (!scope || scope->includes(m)) e.observe(m);
  return *e.value(0, 0);
}

std::string error_of(void (*f)()) {
  try {
    f();
  } catch (const Error& e) {
    return e.what() + std::string(" | ") + e.hint();
  }
  return "(no error)";
}

struct FakeSysfs {
  std::filesystem::path dir;
  FakeSysfs() {
    char tmpl[] = "/tmp/lnetcap-sysfs-XXXXXX";
    dir = mkdtemp(tmpl);
    setenv("LNETCAP_LUSTRE_SYSFS", dir.c_str(), 1);
  }
  ~FakeSysfs() {
    unsetenv("LNETCAP_LUSTRE_SYSFS");
    std::filesystem::remove_all(dir);
  }
  void put(const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text << "\n";
  }
};

}  // namespace

TEST(CommandScope, CountsTheCommandsRpcsTheirRepliesAndBulk) {
  EXPECT_EQ(count_of("count() == 0", ""), 11);
  // dd.0's two LDLM_ENQUEUEs (request, early reply, reply; request,
  // reply) and its OST_WRITE (request, bulk GET on pb_mbits, reply).
  EXPECT_EQ(count_of("count() == 0", "dd.0"), 8);
  EXPECT_EQ(count_of("count(opcode LDLM_ENQUEUE and rpc request) == 0", "dd.0"), 2);
  EXPECT_EQ(count_of("count(opcode OBD_PING) == 0", "dd.0"), 0);
  EXPECT_EQ(count_of("count() == 0", "other.0"), 0);
}

TEST(CommandScope, ForgetsTheOldestRpcsPastItsBound) {
  CommandScope s("dd.0", 1);
  const auto v = scenario();
  // Two LDLM_ENQUEUE requests, then the first one's reply: with room for
  // one RPC the first was forgotten, so its reply is not counted.
  EXPECT_TRUE(s.includes(v[0]));
  EXPECT_TRUE(s.includes(v[3]));
  EXPECT_FALSE(s.includes(v[2]));
  EXPECT_TRUE(s.includes(v[4]));
  EXPECT_EQ(s.included(), 3u);
  EXPECT_EQ(s.excluded(), 1u);
}

TEST(SessionJobid, SaysWhatLustreMustProvide) {
  FakeSysfs fs;
  EXPECT_NE(error_of([] { session_jobid_file(); }).find("no Lustre client here"), std::string::npos);
  fs.put("jobid_var", "procname_uid");
  EXPECT_NE(error_of([] { session_jobid_file(); }).find("jobid_var is 'procname_uid' | lctl set_param jobid_var=session"),
            std::string::npos);
  fs.put("jobid_var", "session");
  fs.put("jobid_name", "%j.%e");
  EXPECT_NE(error_of([] { session_jobid_file(); }).find("holds %j"), std::string::npos);
  fs.put("jobid_name", "%e.%u");
  EXPECT_NE(error_of([] { session_jobid_file(); }).find("2.13 or later"), std::string::npos);
  fs.put("jobid_this_session", "");
  EXPECT_EQ(session_jobid_file(), (fs.dir / "jobid_this_session").string());
}

TEST(SessionJobid, TheCommandRunsInItsOwnSessionWithTheJobid) {
  FakeSysfs fs;
  fs.put("jobid_this_session", "");
  const std::string file = (fs.dir / "jobid_this_session").string();
  // The command sees the jobid written before it started and leads its
  // own session (field 6 of /proc/PID/stat is the session id).
  CommandRunner r({"sh", "-c",
                   "test \"$(cat " + file + ")\" = lnetcap.42 && "
                   "test \"$(cut -d' ' -f6 /proc/$$/stat)\" = $$"},
                  std::chrono::milliseconds(0));
  r.set_session_jobid(file, command_jobid(42));
  r.start(nullptr);
  EXPECT_TRUE(r.wait().ok());

  CommandRunner plain({"sh", "-c", "test \"$(cut -d' ' -f6 /proc/$$/stat)\" = $$"},
                      std::chrono::milliseconds(0));
  plain.start(nullptr);
  EXPECT_FALSE(plain.wait().ok()) << "without --only-command the command shares lnetcap's session";

  CommandRunner bad({"true"});
  bad.set_session_jobid((fs.dir / "missing" / "jobid_this_session").string(), "lnetcap.1");
  try {
    bad.start(nullptr);
    FAIL() << "no error for an unwritable jobid_this_session";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot set the command's jobid"), std::string::npos);
  }
}
