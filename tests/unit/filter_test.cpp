// SPDX-License-Identifier: GPL-2.0-or-later
#include "filter/filter.h"

#include <gtest/gtest.h>

#include "error.h"
#include "filter/kernel_clauses.h"
#include "message_fixtures.h"

using lnetcap::Error;
using lnetcap::filter::Filter;
namespace filter = lnetcap::filter;
namespace test = lnetcap::test;

namespace {
bool match(const char* expr, const lnetcap::Message& m) { return Filter::parse(expr).matches(m); }

std::string error_of(std::string_view expr) {
  try {
    Filter::parse(expr);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Filter, EmptyMatchesEverything) {
  auto o = test::ping_get();
  EXPECT_TRUE(Filter::parse("").matches(o.msg));
  EXPECT_TRUE(Filter::parse("  ").empty());
}

TEST(Filter, LnetTerms) {
  auto req = test::enqueue_request();
  auto ping = test::ping_get();
  EXPECT_TRUE(match("type put", req.msg));
  EXPECT_FALSE(match("type get", req.msg));
  EXPECT_TRUE(match("type GET", ping.msg));
  EXPECT_TRUE(match("portal MDS_REQUEST", req.msg));
  EXPECT_TRUE(match("portal 12", req.msg));
  EXPECT_TRUE(match("portal MDS_REQUEST_PORTAL", req.msg));
  EXPECT_FALSE(match("portal OST_IO", req.msg));
  EXPECT_TRUE(match("src nid 10.0.3.2@tcp", req.msg));
  EXPECT_FALSE(match("dst nid 10.0.3.2@tcp", req.msg));
  EXPECT_TRUE(match("nid 10.0.3.1@tcp", req.msg));
  EXPECT_TRUE(match("net tcp", req.msg));
  EXPECT_FALSE(match("net o2ib1", req.msg));
  EXPECT_TRUE(match("net kfi and src net kfi and dst net kfi", ping.msg));
  EXPECT_TRUE(match("len > 100", req.msg));
  EXPECT_TRUE(match("len == 0", ping.msg));
  EXPECT_TRUE(match("dir send", req.msg));
  EXPECT_TRUE(match("ni 10.0.3.2@tcp", req.msg));
  EXPECT_TRUE(match("ni tcp", req.msg));
  EXPECT_FALSE(match("ni none", req.msg));
  auto no_ni = test::enqueue_request();
  no_ni.msg.rec.hdr.local_nid = lnetcap::Nid{};
  EXPECT_TRUE(match("ni none", no_ni.msg));
  EXPECT_FALSE(match("ni tcp", no_ni.msg));
  EXPECT_TRUE(match("health REMOTE_TIMEOUT and retries >= 1", ping.msg));
  EXPECT_FALSE(match("health OK", ping.msg));
}

TEST(Filter, PtlrpcTerms) {
  auto req = test::enqueue_request();
  auto rep = test::enoent_reply();
  auto ping = test::ping_get();
  EXPECT_TRUE(match("opcode LDLM_ENQUEUE", req.msg));
  EXPECT_TRUE(match("opcode 101", rep.msg));
  EXPECT_FALSE(match("opcode LDLM_ENQUEUE", ping.msg));
  EXPECT_TRUE(match("xid 0x5f0000000080", req.msg));
  EXPECT_TRUE(match("xid 104453604638848", rep.msg));  // same value, decimal
  EXPECT_FALSE(match("xid 0x1", req.msg));
  EXPECT_TRUE(match("jobid dd.500", req.msg));
  EXPECT_TRUE(match("jobid \"dd.500\"", req.msg));
  EXPECT_TRUE(match("jobid", req.msg));
  EXPECT_FALSE(match("jobid", rep.msg));
  EXPECT_TRUE(match("status < 0", rep.msg));
  EXPECT_TRUE(match("status == -2", rep.msg));
  EXPECT_TRUE(match("status=-2", rep.msg));
  // A request's pb_status is the sender's pid, never a status.
  EXPECT_FALSE(match("status > 0", req.msg));
  EXPECT_TRUE(match("rpc request", req.msg));
  EXPECT_TRUE(match("rpc error", rep.msg));
  EXPECT_TRUE(match("uid 500 and gid 100 and projid 7", req.msg));
  EXPECT_TRUE(match("pid 4321", req.msg));
  EXPECT_FALSE(match("pid 4321", rep.msg));  // no task recorded
}

TEST(Filter, BooleanStructureAndPrecedence) {
  auto req = test::enqueue_request();
  EXPECT_TRUE(match("type get or type put and portal MDS_REQUEST", req.msg));
  EXPECT_FALSE(match("(type get or type put) and portal OST_IO", req.msg));
  EXPECT_TRUE(match("not type get", req.msg));
  EXPECT_TRUE(match("!type get && (net tcp || net o2ib)", req.msg));
  EXPECT_FALSE(match("not (type put)", req.msg));
  EXPECT_EQ(Filter::parse("type put and not portal 4 or net tcp").to_string(),
            "((type put and not portal 4) or net tcp)");
}

TEST(Filter, ErrorsPointAtTheBadToken) {
  EXPECT_NE(error_of("type pot").find("column 6 ('pot')"), std::string::npos) << error_of("type pot");
  EXPECT_NE(error_of("type pot").find("LNet message type"), std::string::npos);
  EXPECT_NE(error_of("frobnicate 3").find("unknown filter keyword at column 1"), std::string::npos);
  EXPECT_NE(error_of("nid 10.0.0.1").find("invalid NID"), std::string::npos);
  EXPECT_NE(error_of("type put and").find("end of the expression"), std::string::npos);
  EXPECT_NE(error_of("(type put").find("expected ')'"), std::string::npos);
  EXPECT_NE(error_of("type put)").find("unbalanced ')'"), std::string::npos);
  EXPECT_NE(error_of("opcode NOT_AN_OPCODE").find("unknown opcode"), std::string::npos);
  EXPECT_NE(error_of("status < x").find("expected a number"), std::string::npos);
  EXPECT_NE(error_of("type put portal 4").find("column 10"), std::string::npos);
  EXPECT_NE(error_of("jobid \"abc").find("unterminated"), std::string::npos);
  EXPECT_NE(error_of("src host").find("expected 'nid' or 'net'"), std::string::npos);
}

// Found by fuzz_filter (tests/fuzz/regressions/filter/nul-byte-in-a-word): a
// NUL byte made the lexer emit empty words forever, until memory ran out.
TEST(Filter, ANulByteIsPartOfAWordNotAnEndlessLoop) {
  using namespace std::string_view_literals;
  EXPECT_NE(error_of("opcode L\0DLM_ENQUEUE"sv).find("unknown opcode"), std::string::npos);
  EXPECT_NE(error_of("\0"sv).find("unknown filter keyword at column 1"), std::string::npos);
}

// Found by fuzz_filter: to_string() dropped the quotes of a string, so
// `jobid "dd 500"` printed as `jobid dd 500`, which does not parse back.
TEST(Filter, QuotedStringsKeepTheirQuotesInTheCanonicalText) {
  EXPECT_EQ(Filter::parse("jobid \"dd 500\" or jobid 'say \"hi\"'").to_string(),
            "(jobid \"dd 500\" or jobid 'say \"hi\"')");
  EXPECT_EQ(Filter::parse("jobid \"and\"").to_string(), "jobid \"and\"");
  EXPECT_NO_THROW(Filter::parse(Filter::parse("jobid \"dd 500\"").to_string()));
}

TEST(Filter, KernelClausesAlsoFromDisjunctionsAndNegations) {
  // The one translator (kernel_clauses.h) for the direct capture and lnetcapd.
  auto k = filter::kernel_clauses(
      Filter::parse("type put and portal OST_IO and src nid 10.0.0.1@tcp and opcode 3"));
  ASSERT_EQ(k.clauses.size(), 1u);
  EXPECT_EQ(k.clauses[0].type_mask, 1u << LNETCAP_MSG_PUT);
  EXPECT_EQ(k.clauses[0].portal, 6u);
  EXPECT_EQ(k.clauses[0].src->to_string(), "10.0.0.1@tcp");
  EXPECT_FALSE(k.clauses[0].net);
  EXPECT_EQ(filter::kernel_clauses(Filter::parse("type put or type get")).clauses.size(), 1u);
  EXPECT_EQ(filter::kernel_clauses(Filter::parse("not type put")).clauses[0].type_mask,
            ~(1u << LNETCAP_MSG_PUT));
  EXPECT_EQ(filter::kernel_clauses(Filter::parse("nid 10.0.0.1@tcp or ni o2ib1")).clauses.size(), 2u);
  // opcode is PtlRPC, which travels in PUTs: the kernel keeps the PUTs.
  EXPECT_EQ(filter::kernel_clauses(Filter::parse("opcode 3")).clauses[0].type_mask,
            1u << LNETCAP_MSG_PUT);
  auto n = filter::kernel_clauses(Filter::parse("net o2ib1 and dir recv"));
  ASSERT_EQ(n.clauses.size(), 1u);
  EXPECT_EQ(n.clauses[0].net->to_string(), "o2ib1");
  EXPECT_EQ(n.clauses[0].dir_mask, 1u << LNETCAP_DIR_RECV);
}

// Numbers are checked against the width of their field: nothing wraps.
TEST(Filter, NumbersOutsideTheirFieldAreRefusedWithTheRange) {
  EXPECT_NE(error_of("portal 4294967300").find("portal value out of range (0 to 4294967295) at column 8"),
            std::string::npos) << error_of("portal 4294967300");
  EXPECT_NE(error_of("opcode -1").find("opcode value out of range"), std::string::npos);
  EXPECT_NE(error_of("status == 2147483648").find("(-2147483648 to 2147483647)"), std::string::npos);
  EXPECT_NE(error_of("status < -9223372036854775808").find("status value out of range"), std::string::npos);
  EXPECT_NE(error_of("xid 18446744073709551616").find("(0 to 18446744073709551615)"), std::string::npos);
  EXPECT_NE(error_of("xid -1").find("xid value out of range"), std::string::npos);
  EXPECT_NE(error_of("retries 256").find("(0 to 255)"), std::string::npos);
  EXPECT_NE(error_of("len 0x100000000").find("len value out of range"), std::string::npos);
  EXPECT_EQ(error_of("status == -2147483648"), "");
  EXPECT_EQ(error_of("xid 0xffffffffffffffff"), "");
  EXPECT_EQ(error_of("portal 4294967295"), "");
}

TEST(Filter, XidsCompareAsUnsigned64BitNumbers) {
  auto o = test::enqueue_request();
  ASSERT_TRUE(o.msg.xid());
  ASSERT_LT(*o.msg.xid(), 1ULL << 63);
  EXPECT_FALSE(match("xid > 0x8000000000000000", o.msg));
  EXPECT_TRUE(match("xid < 0x8000000000000000", o.msg));
  EXPECT_TRUE(match("xid < 18446744073709551615", o.msg));
}

TEST(Filter, ErrorsOfAFilterFileGiveLineAndColumn) {
  const char* text = "      \n  net kfi\n  and type pot\n";
  try {
    Filter::parse(text, "site.filter");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("at line 3, column 12 of site.filter ('pot')"), std::string::npos)
        << e.what();
  }
  try {
    Filter::parse("net kfi and\njobid 'x", "f");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unterminated quoted string at line 2, column 7 of f"),
              std::string::npos) << e.what();
  }
}

TEST(Filter, LnetStatusHealthDropsAndQueueTime) {
  auto sent = test::queued_send();
  auto outcome = test::failed_send_outcome();
  auto unmatched = test::unmatched_put_drop();
  auto ok = test::enqueue_request();  // no LNet status, health or queue time
  auto sel = [&](const char* text) {
    auto f = Filter::parse(text);
    std::string got;
    for (const auto* m : {&sent.msg, &outcome.msg, &unmatched.msg, &ok.msg})
      got += f.matches(*m) ? '1' : '0';
    return got;
  };
  EXPECT_EQ(sel("drop"), "0110");
  EXPECT_EQ(sel("drop no-match"), "0010");
  EXPECT_EQ(sel("drop SEND-FAILED"), "0100");
  EXPECT_EQ(sel("rc != 0"), "0110");  // only where LNet's status is known
  EXPECT_EQ(sel("rc == -5"), "0100");
  EXPECT_EQ(sel("rc == 0"), "0000");
  EXPECT_EQ(sel("health != ok"), "0100");
  EXPECT_EQ(sel("health LOCAL_DROPPED"), "0100");
  EXPECT_EQ(sel("queue > 1ms"), "1000");
  EXPECT_EQ(sel("queue >= 1500us"), "1000");
  EXPECT_EQ(sel("queue > 1500000"), "0000");  // bare numbers are ns
  EXPECT_EQ(sel("queue < 1s"), "1000");        // records without queue time never match
  EXPECT_EQ(sel("not drop and type put"), "1001");
  EXPECT_EQ(Filter::parse("drop no-match").to_string(), "drop no-match");
}

TEST(Filter, LnetHealthTermErrorsAndPushdown) {
  auto err = [](const char* text) { return error_of(text); };
  EXPECT_NE(err("queue > 3 ms").find("expected 'and', 'or'"), std::string::npos) << err("queue > 3 ms");
  EXPECT_NE(err("queue > 1xs").find("expected a duration such as 500us, 2ms or 1s at column 9"),
            std::string::npos)
      << err("queue > 1xs");
  EXPECT_NE(err("queue > ms").find("expected a duration"), std::string::npos);
  EXPECT_NE(err("queue > 99999999999999999999s").find("out of range"), std::string::npos);
  EXPECT_NE(err("drop bogus").find("unknown drop reason"), std::string::npos) << err("drop bogus");
  EXPECT_NE(err("rc > 4294967296").find("out of range"), std::string::npos);
  // "drop" is "dir drop" in the kernel; a reason is user space only.
  auto k = filter::kernel_clauses(Filter::parse("drop and type put"));
  ASSERT_EQ(k.clauses.size(), 1u);
  EXPECT_EQ(k.clauses[0].dir_mask, 1u << LNETCAP_DIR_DROP);
  EXPECT_EQ(k.clauses[0].type_mask, 1u << LNETCAP_MSG_PUT);
  k = filter::kernel_clauses(Filter::parse("drop no-match"));
  ASSERT_EQ(k.clauses.size(), 1u);
  EXPECT_EQ(k.clauses[0].dir_mask, 1u << LNETCAP_DIR_DROP);
}
