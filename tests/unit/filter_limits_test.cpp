// SPDX-License-Identifier: GPL-2.0-or-later
// The filter's limits (filter.h, Limits): lnetcapd parses and evaluates
// filters its subscribers send, so no text may overflow the parser's or
// the evaluator's stack, and a filter's size is bounded.  Issue 25 item 1:
// "not (" x 20000 crashed the parser; 200,000 "type get or" terms crashed
// the evaluator and destructor (a left-deep tree).
#include "filter/filter.h"

#include <gtest/gtest.h>

#include "error.h"
#include "message_fixtures.h"

using lnetcap::Error;
using lnetcap::filter::Filter;
using lnetcap::filter::Limits;
namespace test = lnetcap::test;

namespace {
std::string error_of(const std::string& expr) {
  try {
    Filter::parse(expr);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

// n terms joined by op: "type get or type get or ...".
std::string chain(std::size_t n, const std::string& op = " or ") {
  std::string out = "type get";
  for (std::size_t i = 1; i < n; ++i) out += op + "type get";
  return out;
}
}  // namespace

TEST(FilterLimits, DeepNestingIsRefusedNamingTheLimit) {
  // Within the size limit (64 KiB), as deep as it gets.
  const std::string deep = repeat("not (", 10000) + "type get" + repeat(")", 10000);
  const std::string e = error_of(deep);
  EXPECT_NE(e.find("more than 64 levels deep (the limit)"), std::string::npos) << e.substr(0, 200);
  EXPECT_NE(error_of(repeat("not ", 15000) + "type get").find("levels deep"), std::string::npos);
  EXPECT_NE(error_of(repeat("(", 30000) + "type get" + repeat(")", 30000)).find("levels deep"),
            std::string::npos);
  // The 100 KB one: refused, by its size.
  EXPECT_NE(error_of(repeat("not (", 20000) + "type get" + repeat(")", 20000)).find("limit"),
            std::string::npos);
}

TEST(FilterLimits, NestingUpToTheLimitParsesAndPrintsTextThatParsesAgain) {
  const auto ping = test::ping_get();
  const std::string at_limit = repeat("not ", Limits::kMaxDepth) + "type get";
  EXPECT_TRUE(Filter::parse(at_limit).matches(ping.msg));  // an even number of "not"s
  // or and and alternating inside parentheses: the tree is twice as deep
  // as the parentheses; to_string() must never print what cannot parse.
  std::string nested = "type get";
  for (std::size_t i = 0; i < 40; ++i) nested = "type put or type ack and (" + nested + ")";
  std::string e = error_of(nested);
  if (e.empty()) {
    EXPECT_NO_THROW(Filter::parse(Filter::parse(nested).to_string()));
  } else {
    EXPECT_NE(e.find("levels deep"), std::string::npos) << e;
  }
}

TEST(FilterLimits, TooManyTermsAreRefusedNamingTheLimit) {
  const std::string e = error_of(chain(Limits::kMaxTerms + 1));
  EXPECT_NE(e.find("more than 1024 terms (the limit)"), std::string::npos) << e.substr(0, 200);
  EXPECT_NE(error_of(chain(Limits::kMaxTerms + 1, " and ")).find("terms (the limit)"),
            std::string::npos);
}

TEST(FilterLimits, HugeTextIsRefusedBeforeItIsParsed) {
  // The 200,000-term filter: 2.4 MB.
  const std::string e = error_of(chain(200000));
  EXPECT_NE(e.find("bytes, more than the limit of 65536"), std::string::npos) << e.substr(0, 200);
}

// A list of alternatives at the limit is one wide node: evaluating and
// freeing it does not recurse per term, and it prints flat.
TEST(FilterLimits, AListOfAlternativesIsWideNotDeep) {
  const auto ping = test::ping_get();
  const auto req = test::enqueue_request();
  {
    const Filter f = Filter::parse(chain(Limits::kMaxTerms));
    EXPECT_EQ(f.terms(), Limits::kMaxTerms);
    EXPECT_TRUE(f.matches(ping.msg));
    EXPECT_FALSE(f.matches(req.msg));
    EXPECT_EQ(Filter::parse(f.to_string()).to_string(), f.to_string());
  }
  EXPECT_EQ(Filter::parse("type put or type get or type ack").to_string(),
            "(type put or type get or type ack)");
  EXPECT_EQ(Filter::parse("type put and portal 12 and not type get or net tcp").to_string(),
            "((type put and portal 12 and not type get) or net tcp)");
  EXPECT_TRUE(Filter::parse("type put and portal MDS_REQUEST and not type get").matches(req.msg));
  EXPECT_FALSE(Filter::parse("type put and portal MDS_REQUEST and type get").matches(req.msg));
}
