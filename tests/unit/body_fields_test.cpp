// SPDX-License-Identifier: GPL-2.0-or-later
// The rows of include/lnetcap/fields.h: their names, and every row the
// agent offers reaching the filter, -p and the text line by the row alone.
#include "body_fields.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <set>
#include <string>

#include "filter/filter.h"
#include "filter/filter_ast.h"
#include "message_fixtures.h"
#include "text/format.h"
#include "text/line.h"

using namespace lnetcap;

namespace {

std::string render(const std::string& spec, const Message& m) {
  std::string out;
  text::Format::compile(spec).render(m, 1, out);
  return out;
}

std::string line(const Message& m) {
  std::string out;
  text::format_line(m, text::LineStyle{}, out);
  return out;
}

bool offered(const BodyField& f) { return f.keyword || f.pcode || f.label; }

class BodyFieldsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

}  // namespace

// The plugin adds a kind's rows in row order from one row to the last of
// its kind: they must be contiguous and in struct order.
TEST(BodyFields, RowsOfAKindAreContiguousAndInStructOrder) {
  std::set<unsigned> seen;
  for (std::size_t i = 0; i < LNETCAP_BF_COUNT; ++i) {
    const BodyField& f = body_field(i);
    if (i == 0 || body_field(i - 1).rmf != f.rmf) {
      EXPECT_TRUE(seen.insert(f.rmf).second) << f.abbrev << ": rows of its kind are split";
      continue;
    }
    EXPECT_GE(f.offset, body_field(i - 1).offset + body_field(i - 1).width)
        << f.abbrev << " is out of struct order";
    EXPECT_LE(f.offset + f.width, f.struct_size) << f.abbrev;
  }
}

// A name is one row's: keywords, -p codes, labels and abbrevs are unique,
// and no keyword or code is shadowed by a built-in one.
TEST(BodyFields, NamesAreUniqueAndNotShadowed) {
  std::set<std::string> keywords, codes, labels, abbrevs;
  auto one = [](std::set<std::string>& s, const char* n) {
    if (n) {
      EXPECT_TRUE(s.insert(n).second) << "'" << n << "' names two rows";
    }
  };
  for (std::size_t i = 0; i < LNETCAP_BF_COUNT; ++i) {
    const BodyField& f = body_field(i);
    ASSERT_NE(f.abbrev, nullptr);
    ASSERT_NE(f.name, nullptr);
    one(keywords, f.keyword);
    one(codes, f.pcode);
    one(labels, f.label);
    one(abbrevs, f.abbrev);
    if (offered(f)) {
      EXPECT_NE(f.type, LNETCAP_BFT_OSTID) << f.abbrev << ": the agent reads numbers only";
    }
    if (f.pcode) {
      EXPECT_EQ(std::string(f.pcode).size(), 2u) << f.pcode;
      const auto fmt = text::Format::compile(std::string("%") + f.pcode);
      ASSERT_EQ(fmt.items().size(), 1u);
      EXPECT_EQ(fmt.items()[0].code, text::Code::kBodyField) << "%" << f.pcode << " is a built-in code";
      EXPECT_EQ(fmt.items()[0].body_field, i);
    }
    if (f.keyword) {
      const auto flt = filter::Filter::parse(std::string(f.keyword) + " == 1");
      ASSERT_NE(flt.syntax_tree(), nullptr);
      EXPECT_EQ(flt.syntax_tree()->term.field, filter::Field::kBody)
          << f.keyword << " is a built-in keyword";
      EXPECT_EQ(flt.syntax_tree()->term.body_field, i);
    }
  }
}

// Every row the agent offers works from its row alone: the vector
// (every_field_obdo) gives each row its own value, so a new row is tested
// without a new test.
TEST_F(BodyFieldsTest, EveryOfferedRowReachesFilterPAndText) {
  const auto rep = test::ost_write_reply();
  const std::string text = line(rep.msg);
  for (std::size_t i = 0; i < LNETCAP_BF_COUNT; ++i) {
    const BodyField& f = body_field(i);
    if (!offered(f)) continue;
    ASSERT_TRUE(f.rmf == LNETCAP_RMF_OST_BODY || f.rmf == LNETCAP_RMF_PTLRPC_BODY)
        << f.abbrev << ": give tests/unit/message_fixtures.h a vector of its buffer kind";
    const std::uint64_t v = test::every_field_value(f);
    const std::string shown = body_field_text(f, v);
    EXPECT_EQ(body_field_value(rep.msg, f), v) << f.abbrev;
    if (f.keyword) {
      EXPECT_TRUE(filter::Filter::parse(std::string(f.keyword) + " == " + std::to_string(v))
                      .matches(rep.msg))
          << f.keyword;
      EXPECT_FALSE(filter::Filter::parse(std::string(f.keyword) + " != " + std::to_string(v))
                       .matches(rep.msg))
          << f.keyword;
    }
    if (f.pcode) {
      EXPECT_EQ(render(std::string("%") + f.pcode, rep.msg), shown) << f.pcode;
    }
    if (f.label) {
      EXPECT_NE(text.find(std::string(" ") + f.label + " " + shown), std::string::npos)
          << f.label << " missing from: " << text;
    }
  }
}

// Without its valid bit, or in a message whose format has no such buffer,
// a field is absent: no match, NA (no_ptlrpc for the ptlrpc_body's), not
// printed.
TEST_F(BodyFieldsTest, AbsentWithoutValidBitOrBuffer) {
  auto obdo = test::every_field_obdo();
  store_le64(obdo.data() + LNETCAP_OFFSETOF(struct lnetcap_obdo, o_valid), 0);
  const auto invalid = test::ost_write_reply(obdo);
  const auto no_ost_body = test::enqueue_request();  // no ost_body in its format
  const auto no_ptlrpc = test::ping_get();
  // lnetdump's word for a ptlrpc_body code of a message without PtlRPC.
  EXPECT_EQ(render("%Pu %Pg %PL %PS", no_ptlrpc.msg), "no_ptlrpc no_ptlrpc no_ptlrpc no_ptlrpc");
  for (std::size_t i = 0; i < LNETCAP_BF_COUNT; ++i) {
    const BodyField& f = body_field(i);
    if (!offered(f)) continue;
    const Message& other = f.rmf == LNETCAP_RMF_PTLRPC_BODY ? no_ptlrpc.msg : no_ost_body.msg;
    for (const Message* m : {&other, f.valid_bit ? &invalid.msg : &other}) {
      EXPECT_FALSE(body_field_value(*m, f)) << f.abbrev;
      if (f.keyword) {
        EXPECT_FALSE(filter::Filter::parse(std::string(f.keyword) + " >= 0").matches(*m)) << f.keyword;
      }
      if (f.pcode) {
        EXPECT_EQ(render(std::string("%") + f.pcode, *m), body_field_absent(f)) << f.pcode;
      }
      if (f.label) {
        EXPECT_EQ(line(*m).find(std::string(" ") + f.label + " "), std::string::npos) << f.label;
      }
    }
  }
}

// The walk's golden line (docs/CONTRIBUTING.md, "Adding a body field"):
// o_grant of an OST_WRITE reply, the grant the OST gives the client
// (tgt_grant_prepare_write()), in text, -p and the filter.
TEST_F(BodyFieldsTest, GrantOfAnOstWriteReply) {
  const auto rep = test::ost_write_reply();  // o_grant (offset 72) 299008, FLGRANT set
  EXPECT_EQ(line(rep.msg),
            "22:13:20.123456 RECV PUT 10.0.3.3@tcp > 10.0.3.2@tcp OSC_REPLY xid 0x5f0000000100 "
            "len 448: OST_WRITE reply 1048576 bytes grant 299008");
  EXPECT_EQ(render("%Po %Pt %Og", rep.msg), "OST_WRITE reply 299008");
  EXPECT_TRUE(filter::Filter::parse("grant == 299008 and opcode OST_WRITE").matches(rep.msg));
  EXPECT_FALSE(filter::Filter::parse("grant > 299008").matches(rep.msg));
}
