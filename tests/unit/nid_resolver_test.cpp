// SPDX-License-Identifier: GPL-2.0-or-later
// The system-resolver names for IP NIDs (nid_resolver.h) with an injected
// look-up function, so no test depends on DNS or /etc/hosts.
#include "nid_resolver.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "nid_names.h"

using lnetcap::Nid;
using lnetcap::NidResolver;
using lnetcap::NidResolverLimits;
using namespace std::chrono_literals;

namespace {

// A resolver double: answers from a table, counts the questions, and can
// hang on one address until released (a dead DNS server).  Shared by
// pointer because a look-up thread may outlive the resolver that started it.
struct StubDns {
  std::mutex mutex;
  std::map<std::string, std::string> names;
  std::map<std::string, int> asked;
  std::string hang_on;
  std::chrono::milliseconds delay{0};
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();

  int times_asked(const std::string& a) {
    std::lock_guard l(mutex);
    return asked.count(a) ? asked[a] : 0;
  }
  int total_asked() {
    std::lock_guard l(mutex);
    int n = 0;
    for (const auto& [a, c] : asked) n += c;
    return n;
  }
};

NidResolver::LookupFn lookup_with(const std::shared_ptr<StubDns>& dns) {
  return [dns](const std::string& address) -> std::optional<std::string> {
    std::optional<std::string> answer;
    bool hang = false;
    {
      std::lock_guard l(dns->mutex);
      ++dns->asked[address];
      if (auto it = dns->names.find(address); it != dns->names.end()) answer = it->second;
      hang = address == dns->hang_on;
    }
    if (hang) dns->released.wait();
    if (dns->delay.count()) std::this_thread::sleep_for(dns->delay);
    return answer;
  };
}

Nid nid(const char* text) { return *Nid::parse(text); }

// Bounds that a loaded test machine cannot hit by being slow to start a
// thread: for the tests that are not about the bounds.
constexpr NidResolverLimits kPatient{.per_lookup = 30s, .total = 60s, .max_lookups = 100};

// The warnings a resolver wrote, one per line.
struct Warnings {
  char* buf = nullptr;
  std::size_t size = 0;
  std::FILE* f = open_memstream(&buf, &size);
  ~Warnings() {
    std::fclose(f);
    std::free(buf);
  }
  std::string text() {
    std::fflush(f);
    return std::string(buf, size);
  }
  int lines() {
    const std::string t = text();
    return static_cast<int>(std::count(t.begin(), t.end(), '\n'));
  }
};

}  // namespace

TEST(NidResolver, NamesIpNidsAndAsksOncePerAddress) {
  auto dns = std::make_shared<StubDns>();
  dns->names = {{"10.0.0.1", "oss1.example"}, {"fe80::1", "rtr6"}};
  NidResolver r(lookup_with(dns), kPatient);
  EXPECT_EQ(r.name(nid("10.0.0.1@tcp")), "oss1.example");
  EXPECT_EQ(r.name(nid("10.0.0.1@tcp")), "oss1.example");
  // The same address on another net is the same host: no second question.
  EXPECT_EQ(r.name(nid("10.0.0.1@o2ib1")), "oss1.example");
  EXPECT_EQ(r.name(nid("fe80::1@tcp")), "rtr6");
  EXPECT_EQ(r.name(nid("10.9.8.7@gip")), std::nullopt);
  EXPECT_EQ(r.name(nid("10.9.8.7@efa")), std::nullopt);  // cached "no name"
  EXPECT_EQ(dns->times_asked("10.0.0.1"), 1);
  EXPECT_EQ(dns->times_asked("10.9.8.7"), 1);
  EXPECT_EQ(r.lookups(), 3u);
  EXPECT_FALSE(r.gave_up());
}

TEST(NidResolver, NeverAsksAboutNidsThatAreNotIpAddresses) {
  auto dns = std::make_shared<StubDns>();
  NidResolver r(lookup_with(dns), kPatient);
  for (const char* s : {"16@kfi", "16@kfi2", "27@gni", "0@lo", "5@ptlf", "7@bxi3f", "c0a80102@<99:0>", "<?>"})
    EXPECT_EQ(r.name(nid(s)), std::nullopt) << s;
  EXPECT_EQ(dns->total_asked(), 0);
  EXPECT_TRUE(NidResolver::resolvable(nid("10.0.0.1@o2ib")));
  EXPECT_FALSE(NidResolver::resolvable(nid("16@kfi")));
}

TEST(NidResolver, RefusesAnswersThatAreNotHostNames) {
  // A PTR record can hold anything: nothing that could forge a NID or a line.
  auto dns = std::make_shared<StubDns>();
  dns->names = {{"10.0.0.1", "evil@tcp"}, {"10.0.0.2", "two words"}, {"10.0.0.3", std::string(300, 'a')},
                {"10.0.0.4", "ok-name_1.site"}};
  NidResolver r(lookup_with(dns), kPatient);
  EXPECT_EQ(r.name(nid("10.0.0.1@tcp")), std::nullopt);
  EXPECT_EQ(r.name(nid("10.0.0.2@tcp")), std::nullopt);
  EXPECT_EQ(r.name(nid("10.0.0.3@tcp")), std::nullopt);
  EXPECT_EQ(r.name(nid("10.0.0.4@tcp")), "ok-name_1.site");
}

TEST(NidResolver, ADeadServerCostsOneWaitThenNumbersWithOneWarning) {
  auto dns = std::make_shared<StubDns>();
  dns->names = {{"10.0.0.9", "never-seen"}, {"10.0.0.2", "host2"}};
  dns->hang_on = "10.0.0.9";
  Warnings w;
  NidResolver r(lookup_with(dns), NidResolverLimits{.per_lookup = 50ms, .total = 5s, .max_lookups = 100}, w.f);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(r.name(nid("10.0.0.9@tcp")), std::nullopt);
  EXPECT_EQ(r.name(nid("10.0.0.2@tcp")), std::nullopt);  // given up: not asked
  EXPECT_EQ(r.name(nid("10.0.0.9@o2ib")), std::nullopt);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);  // unbounded: it would hang
  EXPECT_TRUE(r.gave_up());
  EXPECT_EQ(dns->times_asked("10.0.0.2"), 0);
  EXPECT_EQ(w.lines(), 1) << w.text();
  EXPECT_NE(w.text().find("no answer from the system resolver for 10.0.0.9 within 50 ms"), std::string::npos)
      << w.text();
  // The late answer does not change a NID that has already been printed.
  dns->release.set_value();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(r.name(nid("10.0.0.9@tcp")), std::nullopt);
}

TEST(NidResolver, TotalWaitIsBoundedOverTheRun) {
  auto dns = std::make_shared<StubDns>();
  dns->delay = 30ms;  // slow but answering, every time
  Warnings w;
  NidResolver r(lookup_with(dns), NidResolverLimits{.per_lookup = 30s, .total = 100ms, .max_lookups = 100}, w.f);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 1; i <= 20; ++i) r.name(nid(("10.0.1." + std::to_string(i) + "@tcp").c_str()));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);  // 20 look-ups of 30 ms: 600 ms and more
  EXPECT_LE(r.lookups(), 4u);  // each waits 30 ms or more: the 4th crosses 100 ms
  EXPECT_TRUE(r.gave_up());
  EXPECT_EQ(w.lines(), 1) << w.text();
  EXPECT_NE(w.text().find("more than 100 ms in all"), std::string::npos) << w.text();
}

TEST(NidResolver, NumberOfLookupsIsBounded) {
  auto dns = std::make_shared<StubDns>();
  Warnings w;
  NidResolver r(lookup_with(dns), NidResolverLimits{.per_lookup = 30s, .total = 60s, .max_lookups = 3}, w.f);
  for (int i = 1; i <= 10; ++i) r.name(nid(("10.0.2." + std::to_string(i) + "@tcp").c_str()));
  EXPECT_EQ(dns->total_asked(), 3);
  EXPECT_EQ(w.lines(), 1) << w.text();
  EXPECT_NE(w.text().find("more than 3 addresses"), std::string::npos) << w.text();
}

TEST(NidResolver, TheNamesFileWinsAndDisplayNidIsTheOnePath) {
  auto dns = std::make_shared<StubDns>();
  dns->names = {{"10.0.0.1", "dns-name"}, {"10.0.0.2", "host2"}, {"192.168.2.1", "dns-oss"}};
  char path[] = "/tmp/nid_resolver_test.XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << "10.0.0.1@tcp client1\n192.168.2.1@o2ib* oss1\n";
  lnetcap::NidNames::global().load(path);
  std::remove(path);
  lnetcap::set_global_nid_resolver(std::make_unique<NidResolver>(lookup_with(dns), kPatient));

  EXPECT_EQ(lnetcap::display_nid(nid("10.0.0.1@tcp")), "client1@tcp");
  EXPECT_EQ(lnetcap::display_nid(nid("192.168.2.1@o2ib3")), "oss1@o2ib3");
  EXPECT_EQ(dns->times_asked("10.0.0.1"), 0);  // named by the file: never asked
  EXPECT_EQ(dns->times_asked("192.168.2.1"), 0);
  // Not in the file (another net than the exact key): the resolver, shown NAME@NET.
  EXPECT_EQ(lnetcap::display_nid(nid("10.0.0.1@o2ib")), "dns-name@o2ib");
  EXPECT_EQ(lnetcap::display_nid(nid("10.0.0.2@tcp1")), "host2@tcp1");
  EXPECT_EQ(lnetcap::display_nid(nid("10.0.0.3@tcp")), "10.0.0.3@tcp");
  EXPECT_EQ(lnetcap::display_nid(nid("16@kfi")), "16@kfi");

  lnetcap::set_global_nid_resolver(nullptr);
  lnetcap::NidNames::global() = lnetcap::NidNames{};
  EXPECT_EQ(lnetcap::display_nid(nid("10.0.0.2@tcp1")), "10.0.0.2@tcp1");
}
