// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/assertion.h"

#include <gtest/gtest.h>

#include "error.h"
#include "report/assertion_engine.h"
#include "report_messages.h"

using namespace lnetcap;
using namespace lnetcap::report;

namespace {

// Evaluates one assertion over the shared RPC scenario (11 messages).
AssertionResult run(const std::string& text) {
  AssertionEngine e({text});
  for (const Message& m : test::rpc_scenario()) e.observe(m);
  return e.evaluate().at(0);
}

bool passes(const std::string& text) { return run(text).passed; }

std::string parse_error(const std::string& text) {
  try {
    Assertion::parse(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(ReportAssertion, EveryComparisonOperator) {
  // count() is 11 in the scenario.
  EXPECT_TRUE(passes("count() == 11"));
  EXPECT_FALSE(passes("count() == 12"));
  EXPECT_TRUE(passes("count() = 11"));  // '=' is '=='
  EXPECT_TRUE(passes("count() != 12"));
  EXPECT_FALSE(passes("count() != 11"));
  EXPECT_TRUE(passes("count() < 12"));
  EXPECT_FALSE(passes("count() < 11"));
  EXPECT_TRUE(passes("count() <= 11"));
  EXPECT_FALSE(passes("count() <= 10"));
  EXPECT_TRUE(passes("count() > 10"));
  EXPECT_FALSE(passes("count() > 11"));
  EXPECT_TRUE(passes("count() >= 11"));
  EXPECT_FALSE(passes("count() >= 12"));
  EXPECT_TRUE(passes("12 > count(*)"));  // a literal on the left
  EXPECT_FALSE(passes("11 > count(*)"));
}

TEST(ReportAssertion, BooleanCombinators) {
  EXPECT_FALSE(passes("count() == 11 and count() == 12"));
  EXPECT_TRUE(passes("count() == 11 or count() == 12"));
  EXPECT_FALSE(passes("count() == 10 || count() == 12"));
  EXPECT_TRUE(passes("not count() == 12"));
  EXPECT_FALSE(passes("!(count() == 11)"));
  EXPECT_TRUE(passes("count() == 11 && (count() < 1 || count() > 2)"));
  // and binds tighter than or.
  EXPECT_TRUE(passes("count() == 1 and count() == 2 or count() == 11"));
  EXPECT_FALSE(passes("count() == 1 and (count() == 2 or count() == 11)"));
}

TEST(ReportAssertion, CountTakesAFilterExpression) {
  EXPECT_TRUE(passes("count(opcode LDLM_ENQUEUE) == 5"));  // 2 requests, early + 2 replies
  EXPECT_TRUE(passes("count(type put and portal MDS_REQUEST) == 4"));
  EXPECT_TRUE(passes("count(type get) == 1"));
  EXPECT_TRUE(passes("count((opcode OBD_PING or opcode MDS_GETATTR) and rpc request) == 2"));
  EXPECT_TRUE(passes("count(opcode LDLM_ENQUEUE) > count(opcode MDS_GETATTR)"));
}

TEST(ReportAssertion, BytesErrorsAndLatency) {
  // LNet payload bytes: 5 requests x 400 + early reply 224 + 4 replies x 300;
  // the bulk GET moves no payload itself (its data comes back in a REPLY).
  EXPECT_TRUE(passes("bytes() == 3424"));
  EXPECT_TRUE(passes("bytes(type get) == 0"));
  EXPECT_TRUE(passes("bytes() > 3k and bytes() < 3.5k"));
  EXPECT_TRUE(passes("bytes() > 3KiB"));  // 3072
  EXPECT_TRUE(passes("errors() == 1"));
  EXPECT_TRUE(passes("errors(opcode MDS_GETATTR) == 1"));
  EXPECT_TRUE(passes("errors(opcode LDLM_ENQUEUE) == 0"));
  // ENQUEUE latencies 2 and 4 ms; all RPCs 1, 2, 4, 8 ms (milliseconds).
  EXPECT_TRUE(passes("latency_p50(opcode LDLM_ENQUEUE) == 2"));
  EXPECT_TRUE(passes("latency_max(opcode LDLM_ENQUEUE) == 4ms"));
  EXPECT_TRUE(passes("latency_p90() == 8ms"));
  EXPECT_TRUE(passes("latency_p99() <= 8000us"));
  EXPECT_TRUE(passes("latency_p50() < 0.003s"));
  EXPECT_TRUE(passes("latency_max(opcode OST_WRITE) == 8ms"));
  // The latency of an RPC counts when its request matches the filter, even
  // if the reply does not (replies go to another portal).
  EXPECT_TRUE(passes("latency_max(portal MDS_REQUEST) == 4ms"));
  // No RPC of that kind was answered: the value is "none", never true.
  EXPECT_FALSE(passes("latency_max(opcode OBD_PING) >= 0"));
  EXPECT_FALSE(passes("latency_max(opcode OBD_PING) < 1000"));
}

TEST(ReportAssertion, UnansweredRequestsAreRememberedWithinTheMatchersBound) {
  // A long live --assert whose replies are lost (or never captured) must not
  // grow without bound: past the matcher's cap the oldest are forgotten, and
  // a kept request still gets its latency.
  AssertionEngine e({"latency_max() < 1s"}, 4);
  for (std::uint64_t xid = 1; xid <= 3000; ++xid)
    e.observe(test::rpc_request(xid, "10.0.3.2@tcp", "10.0.3.1@tcp", xid * 128,
                                LNETCAP_OPC_OBD_PING, LNETCAP_PORTAL_MDS_REQUEST));
  EXPECT_EQ(e.waiting_for_latency(), 4u);
  e.observe(test::rpc_reply(5000 * 1000000ull, "10.0.3.2@tcp", "10.0.3.1@tcp", 3000 * 128,
                            LNETCAP_OPC_OBD_PING, LNETCAP_PORTAL_MDC_REPLY));
  EXPECT_EQ(e.waiting_for_latency(), 3u);
  EXPECT_FALSE(e.evaluate().at(0).passed);  // 5 s less 3000 ns: one sample, over 1 s
  EXPECT_NEAR(*e.value(0, 0), 4999.997, 1e-6);
}

TEST(ReportAssertion, ReportShowsObservedAgainstExpected) {
  const AssertionResult bad = run("count(opcode LDLM_ENQUEUE) <= 2");
  EXPECT_FALSE(bad.passed);
  ASSERT_EQ(bad.details.size(), 1u);
  EXPECT_EQ(bad.details[0], "count(opcode LDLM_ENQUEUE) = 5, expected <= 2  <-- false");
  const AssertionResult both = run("count(type get) == 1 and errors() == 0");
  ASSERT_EQ(both.details.size(), 2u);
  EXPECT_EQ(both.details[0], "count(type get) = 1, expected == 1");
  EXPECT_EQ(both.details[1], "errors() = 1, expected == 0  <-- false");
  const AssertionResult lat = run("latency_p50(opcode OBD_PING) < 5ms");
  EXPECT_NE(lat.details[0].find("latency_p50(opcode OBD_PING) = none"), std::string::npos);

  const std::string text = format_results({run("count() == 11"), bad});
  EXPECT_NE(text.find("lnetcap: assert PASS: count() == 11\n"), std::string::npos);
  EXPECT_NE(text.find("lnetcap: assert FAIL: count(opcode LDLM_ENQUEUE) <= 2\n"), std::string::npos);
  EXPECT_NE(text.find("lnetcap: 1 of 2 assertions passed\n"), std::string::npos);
}

TEST(ReportAssertion, SeveralAssertionsAreIndependent) {
  AssertionEngine e({"count(type get) == 1", "count(type ack) == 1"});
  for (const Message& m : test::rpc_scenario()) e.observe(m);
  const auto r = e.evaluate();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(r[0].passed);
  EXPECT_FALSE(r[1].passed);
}

TEST(ReportAssertion, SyntaxErrorsNameTheTokenAndColumn) {
  EXPECT_EQ(parse_error("count(opcode LDLM_ENQUEUE) =< 2"),
            "assertion 'count(opcode LDLM_ENQUEUE) =< 2': expected a number or a function such "
            "as count(...) but found '<' at column 29");
  EXPECT_NE(parse_error("cnt(type put) < 2").find("unknown function 'cnt'"), std::string::npos);
  EXPECT_NE(parse_error("count(type put < 2").find("'(' is never closed at column 6"),
            std::string::npos);
  EXPECT_NE(parse_error("count(type put) 2").find("expected a comparison"), std::string::npos);
  EXPECT_NE(parse_error("count() < 5 parsecs").find("unexpected 'parsecs'"), std::string::npos);
  EXPECT_NE(parse_error("count() < 5pc").find("unknown unit 'pc'"), std::string::npos);
  EXPECT_NE(parse_error("   ").find("empty assertion"), std::string::npos);
  EXPECT_NE(parse_error("(count() < 5").find("expected ')'"), std::string::npos);
  EXPECT_NE(parse_error("count(type pot) == 1").find("in the filter of count()"), std::string::npos);
  EXPECT_NE(parse_error("count(type pot) == 1").find("pot"), std::string::npos);
  EXPECT_EQ(parse_error("count(jobid \"a)b\") == 0"), "(no error)");  // quotes protect ')'
}
