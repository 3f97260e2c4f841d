// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>

#include "error.h"
#include "report/command_runner.h"
#include "report/progress_meter.h"
#include "report/status_line.h"

using namespace lnetcap::report;

TEST(ReportStatus, StatusLineFormat) {
  EXPECT_EQ(format_status_line({12345, 3, 17, 2100000}),
            "lnetcap: 12345 messages, 3 dropped, 17 filtered, 2.1 MB written\n");
  EXPECT_EQ(format_status_line({5, 0, 0, std::nullopt}),
            "lnetcap: 5 messages, 0 dropped, 0 filtered\n");
  EXPECT_EQ(format_status_line({894, 0, 0, std::nullopt, 1}),
            "lnetcap: 894 messages, 0 dropped, 0 filtered, 1 damaged\n");
}

namespace {

struct Captured {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  ~Captured() {
    if (f) std::fclose(f);
    free(buf);
  }
  std::string text() {
    std::fflush(f);
    return std::string(buf, len);
  }
};

}  // namespace

TEST(ReportStatus, ProgressMeterRedrawsAtMostFourTimesASecondAndClears) {
  Captured out;
  auto now = std::chrono::steady_clock::time_point{};
  ProgressMeter m("big.pcapng", 1000, out.f, 1, [&] { return now; });
  ASSERT_TRUE(m.enabled());
  m.update(100);
  EXPECT_EQ(out.text(), "\rlnetcap: reading big.pcapng  10%\033[K");
  m.update(200);  // same instant: not redrawn
  now += std::chrono::milliseconds(100);
  m.update(300);  // 100 ms later: still not
  EXPECT_EQ(out.text(), "\rlnetcap: reading big.pcapng  10%\033[K");
  now += std::chrono::milliseconds(200);
  m.update(500);
  EXPECT_TRUE(out.text().ends_with("\rlnetcap: reading big.pcapng  50%\033[K"));
  m.finish();
  EXPECT_TRUE(out.text().ends_with("\r\033[K"));
}

TEST(ReportStatus, ProgressMeterIsSilentWhenNotATerminal) {
  Captured out;
  ProgressMeter m("f", 1000, out.f);  // a memstream is not a terminal
  EXPECT_FALSE(m.enabled());
  m.update(500);
  m.finish();
  EXPECT_EQ(out.text(), "");
  ProgressMeter unknown_size("f", 0, out.f, 1);
  EXPECT_FALSE(unknown_size.enabled());
}

namespace {
std::atomic<int> g_done{0};
void mark_done() { ++g_done; }
}  // namespace

TEST(ReportCommand, RunsTheCommandAndReportsItsStatus) {
  g_done = 0;
  CommandRunner ok({"sh", "-c", "exit 0"}, std::chrono::milliseconds(10));
  ok.start(mark_done);
  const CommandOutcome o = ok.wait();
  EXPECT_TRUE(o.ok());
  EXPECT_EQ(o.describe(), "exited with status 0");
  EXPECT_EQ(g_done.load(), 1);  // on_done ran after the drain

  CommandRunner bad({"sh", "-c", "exit 3"}, std::chrono::milliseconds(0));
  bad.start(nullptr);
  EXPECT_EQ(bad.wait().describe(), "exited with status 3");

  CommandRunner killed({"sh", "-c", "kill -9 $$"}, std::chrono::milliseconds(0));
  killed.start(nullptr);
  const CommandOutcome k = killed.wait();
  EXPECT_FALSE(k.exited);
  EXPECT_EQ(k.code, 9);
}

TEST(ReportCommand, DestroyedWithoutWaitTerminatesTheCommand) {
  // What happens when lnetcap fails mid-capture: no hang on a long command.
  const auto t0 = std::chrono::steady_clock::now();
  {
    CommandRunner r({"sleep", "30"}, std::chrono::milliseconds(0));
    r.start(nullptr);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

TEST(ReportCommand, MissingProgramIsAnErrorNamingIt) {
  CommandRunner r({"/nonexistent/lnetcap-test-cmd"});
  try {
    r.start(nullptr);
    FAIL();
  } catch (const lnetcap::Error& e) {
    EXPECT_NE(std::string(e.what()).find("'/nonexistent/lnetcap-test-cmd'"), std::string::npos);
  }
  EXPECT_THROW(CommandRunner({}), lnetcap::Error);
}

TEST(ReportCommand, ExitStatusPolicy) {
  CommandOutcome ok{true, true, 0}, failed{true, true, 1}, killed{true, false, 9};
  EXPECT_EQ(assertion_exit_status(true, nullptr), 0);
  EXPECT_EQ(assertion_exit_status(false, nullptr), 1);
  EXPECT_EQ(assertion_exit_status(true, &ok), 0);
  EXPECT_EQ(assertion_exit_status(false, &ok), 1);
  EXPECT_EQ(assertion_exit_status(true, &failed), 2);
  EXPECT_EQ(assertion_exit_status(false, &failed), 2);
  EXPECT_EQ(assertion_exit_status(true, &killed), 2);
}
