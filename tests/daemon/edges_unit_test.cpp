// SPDX-License-Identifier: GPL-2.0-or-later
// lnetcapd at its edges (issue 25), the unit-sized parts: the recorder's
// time bound and the trigger's per-minute limit survive a clock stepped
// back (record_clock.h); the metrics' status label is bounded; metric
// labels become pseudonyms; refused handshakes are logged with a limit;
// incident files never replace one another and leave nothing on failure.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include "daemon/flight_recorder.h"
#include "daemon/incident_file.h"
#include "daemon/log_text.h"
#include "daemon/metrics_http.h"
#include "daemon/refusal_log.h"
#include "daemon/rpc_metrics.h"
#include "daemon/trigger.h"
#include "trigger_feed.h"
#include "error.h"
#include "message_fixtures.h"

namespace lnetcap::daemon {
namespace {

constexpr std::uint64_t kSecond = 1'000'000'000ULL;
constexpr std::uint64_t kT0 = 1'700'000'000ULL * kSecond;

std::string temporary_directory() {
  char dir_template[] = "/tmp/lnetcap-edges-test.XXXXXX";
  EXPECT_NE(::mkdtemp(dir_template), nullptr);
  return dir_template;
}

// The records' time: `seconds` after kT0, an hour earlier from `step_at` on
// (the wall clock stepped back, as NTP or an admin may do).
std::uint64_t stepped(int seconds, int step_at) {
  const std::uint64_t t = kT0 + static_cast<std::uint64_t>(seconds) * kSecond;
  return seconds >= step_at ? t - 3600 * kSecond : t;
}

TEST(ClockSteppedBack, RecorderKeepsItsTimeBound) {
  FlightRecorder recorder({0, 30 * kSecond});
  const std::vector<std::uint8_t> bytes(100, 7);
  for (int s = 0; s < 300; ++s) {
    CapturedRecord r;
    r.ts_ns = stepped(s, 100);
    r.bytes = ByteSpan(bytes);
    r.orig_len = 100;
    recorder.add(r);
    // 30 s of records at one a second: 31, whatever the clock did (32
    // while the step's record, placed at the newest one's time, is held).
    ASSERT_LE(recorder.records_held(), 32u) << "after record " << s;
  }
  EXPECT_EQ(recorder.records_held(), 31u);
  EXPECT_EQ(recorder.held().back()->ts_ns, stepped(299, 100));
  EXPECT_EQ(recorder.window_ns(), 30 * kSecond);
}

TEST(ClockSteppedBack, TriggerFilesGoOn) {
  const std::string dir = temporary_directory();
  TriggerConfig config;
  config.filter = "opcode LDLM_ENQUEUE";
  config.directory = dir;
  config.before_ns = kSecond / 2;
  config.after_ns = kSecond / 2;
  config.max_per_minute = 4;
  TriggerWriter trigger(config, "node1");
  FlightRecorder recorder({0, 2 * kSecond});
  std::vector<CaptureInterface> interfaces{CaptureInterface{"tcp", "10.0.3.2@tcp", "", "", "", 1224}};
  const test::OwnedMessage m = test::enqueue_request();
  for (int s = 0; s < 240; ++s) {  // 2 minutes, the step, 2 more minutes
    test_feed::feed(m, stepped(s, 120), recorder, trigger, interfaces);
  }
  trigger.finish(interfaces);
  // 4 in each of the 4 minutes (the step's record falls in the third one,
  // whose limit is already used).
  EXPECT_EQ(trigger.counts().written, 16u);
  EXPECT_EQ(trigger.counts().failed, 0u);
  std::filesystem::remove_all(dir);
}

TEST(RpcMetricsEdges, StatusLabelIsBounded) {
  RpcMetrics metrics(8);
  const test::OwnedMessage reply = test::enoent_reply();
  for (int status = 1; status <= 1000; ++status) {
    Message m = reply.msg;
    m.rpc.status = -status;
    metrics.add(m);
  }
  const std::string text = metrics.render(1);
  std::set<std::string> statuses;
  std::regex re("lnetcap_rpc_errors_total\\{status=\"([^\"]*)\"\\} ([0-9]+)");
  std::uint64_t total = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
    statuses.insert((*it)[1]);
    total += std::stoull((*it)[2]);
  }
  EXPECT_EQ(statuses.size(), 9u);  // 8 values and "other"
  EXPECT_TRUE(statuses.count("other"));
  EXPECT_EQ(total, 1000u);  // nothing lost
}

TEST(RpcMetricsEdges, PseudonymisedLabels) {
  RpcMetrics metrics(256);
  metrics.pseudonymise_labels([](const std::string& v) {
    return std::regex_replace(v, std::regex("10\\.0\\.3\\.[0-9]+@tcp"), "PSEUDO");
  });
  metrics.add(test::enqueue_request().msg);
  metrics.add(test::enoent_reply().msg);
  const std::string text = metrics.render(1);
  EXPECT_EQ(text.find("10.0.3."), std::string::npos) << text;
  EXPECT_NE(text.find("peer=\"PSEUDO\""), std::string::npos);
}

TEST(RefusalLogEdges, AFloodIsSummedUp) {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* out = ::open_memstream(&buf, &len);
  {
    RefusalLog log("CurveZMQ handshakes", std::chrono::seconds(10), 3, out);
    const auto t = RefusalLog::Clock::now();
    for (int i = 0; i < 600; ++i) log.refused("lnetcapd: refused key " + std::to_string(i), t);
    log.tick(t + std::chrono::seconds(11));
    EXPECT_EQ(log.total(), 600u);
  }
  std::fclose(out);
  const std::string text(buf, len);
  std::free(buf);
  EXPECT_NE(text.find("refused key 2\n"), std::string::npos);
  EXPECT_EQ(text.find("refused key 3\n"), std::string::npos);
  EXPECT_NE(text.find("refused 597 more CurveZMQ handshakes in the last 10 s; the last: refused key 599"),
            std::string::npos)
      << text;
}

// Issue 34: 3000 refusals make a bounded number of lines, and the summary
// gives the count of those not logged one by one.
TEST(RefusalLogEdges, ThreeThousandRefusalsMakeBoundedLinesWithTheCount) {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* out = ::open_memstream(&buf, &len);
  {
    RefusalLog log("subscriptions", std::chrono::seconds(10), 5, out);
    const auto t = RefusalLog::Clock::now();
    for (int i = 0; i < 3000; ++i)
      log.refused("lnetcapd: refused client " + std::to_string(i), t + std::chrono::milliseconds(i));
    log.finish();  // at exit: the interval's summary, not lost
  }
  std::fclose(out);
  const std::string text(buf, len);
  std::free(buf);
  const auto lines = std::count(text.begin(), text.end(), '\n');
  EXPECT_LE(lines, 7) << text;  // 5 one by one, the notice, the summary
  EXPECT_NE(text.find("lnetcapd: refused 2995 more subscriptions in the last 10 s; the last: refused client 2999\n"),
            std::string::npos)
      << text;
}

TEST(RefusalLogEdges, EventsWithoutAVerbAreSummedUpToo) {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* out = ::open_memstream(&buf, &len);
  {
    RefusalLog log("subscriptions and departures", std::chrono::seconds(10), 2, out, "");
    const auto t = RefusalLog::Clock::now();
    for (int i = 0; i < 10; ++i) log.event("lnetcapd: subscriber " + std::to_string(i) + " left", t);
    log.tick(t + std::chrono::seconds(10));
  }
  std::fclose(out);
  const std::string text(buf, len);
  std::free(buf);
  EXPECT_NE(text.find("lnetcapd: further subscriptions and departures are summed up every 10 s\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("lnetcapd: 8 more subscriptions and departures in the last 10 s; the last: subscriber 9 left\n"),
            std::string::npos) << text;
}

// Issue 34: peer text cannot start a log line of its own, nor carry
// terminal controls, nor be longer than its bound.
TEST(LogText, PeerTextStaysOnItsLine) {
  EXPECT_EQ(log_text("lnetcap 1.0 on host"), "lnetcap 1.0 on host");
  EXPECT_EQ(log_text("evil\nlnetcapd: subscriber 9 (root) subscribed"),
            "evil\\012lnetcapd: subscriber 9 (root) subscribed");
  EXPECT_EQ(log_text("a\rb\x1b[31mc\\d\xff"), "a\\015b\\033[31mc\\\\d\\377");
  const std::string long_text(1000, 'x');
  EXPECT_EQ(log_text(long_text, 10), "xxxxxxxxxx... (1000 bytes)");
  for (int c = 0; c < 256; ++c) {
    const std::string out = log_text(std::string(1, static_cast<char>(c)));
    for (const char o : out) EXPECT_TRUE(o >= 0x20 && o < 0x7f) << c;
  }
}

TEST(IncidentFile, NeverReplacesAndLeavesNothingOnFailure) {
  const std::string dir = temporary_directory();
  auto fill = [](const std::string& path) { std::ofstream(path) << "data"; };
  const std::string first = write_incident_file(dir, "n-1", fill);
  const std::string second = write_incident_file(dir, "n-1", fill);
  EXPECT_EQ(first, dir + "/n-1.pcapng");
  EXPECT_EQ(second, dir + "/n-1-2.pcapng");
  struct stat st {};
  ASSERT_EQ(::stat(first.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_THROW(write_incident_file(dir, "n-2",
                                   [](const std::string& path) {
                                     std::ofstream(path) << "half";
                                     throw Error("No space left on device");
                                   }),
               Error);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 2u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace lnetcap::daemon

namespace lnetcap::daemon {
namespace {

// A connection to 127.0.0.1:port; rcvbuf > 0 sets a (tiny) receive window.
int connect_to(int port, int rcvbuf = 0) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (rcvbuf) ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  return fd;
}

// Sends a request and reads the whole answer, or gives up after `ms`.
std::string scrape(int port, int ms) {
  const int fd = connect_to(port);
  const std::string get = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
  EXPECT_EQ(::send(fd, get.data(), get.size(), MSG_NOSIGNAL), static_cast<ssize_t>(get.size()));
  std::string got;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buf[65536];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return got;
}

// A scraper that asks for a big page and never reads it (a tiny receive
// window), and ten that never ask, do not keep another scrape waiting.
TEST(MetricsHttpEdges, StalledClientsBlockNoScrape) {
  const std::string page(16 << 20, 'x');
  MetricsHttpServer server("127.0.0.1:0", [&page](std::uint64_t) { return page; });
  const int port = std::stoi(server.address().substr(server.address().rfind(':') + 1));
  const int stalled = connect_to(port, 1024);
  const std::string get = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(::send(stalled, get.data(), get.size(), MSG_NOSIGNAL), static_cast<ssize_t>(get.size()));
  std::vector<int> idle;
  for (int i = 0; i < 10; ++i) idle.push_back(connect_to(port));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the stalled answer is under way
  const auto start = std::chrono::steady_clock::now();
  const std::string got = scrape(port, 5000);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(got.rfind("HTTP/1.1 200 OK", 0), 0u) << got.substr(0, 80);
  EXPECT_GE(got.size(), page.size());
  EXPECT_LT(took, std::chrono::seconds(3));
  ::close(stalled);
  for (int fd : idle) ::close(fd);
}

}  // namespace
}  // namespace lnetcap::daemon
