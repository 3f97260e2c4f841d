// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/chart.h"

#include <gtest/gtest.h>

#include "report/text_escape.h"
#include "report_messages.h"

using namespace lnetcap;
using namespace lnetcap::report;

namespace {

ChartModel scenario_chart(std::size_t cap = ChartBuilder::kDefaultMaxArrows) {
  ChartBuilder b(cap);
  for (const Message& m : test::rpc_scenario()) b.add(m);
  return b.model();
}

bool contains(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

}  // namespace

TEST(ReportChart, JobidSplitsTheClientLifelineAndRepliesGoBack) {
  const ChartModel m = scenario_chart();
  // Client with jobid dd.0, the server, then the client without a jobid.
  ASSERT_EQ(m.participants,
            (std::vector<std::string>{"10.0.3.2@tcp dd.0", "10.0.3.1@tcp", "10.0.3.2@tcp"}));
  ASSERT_EQ(m.arrows.size(), 11u);
  EXPECT_EQ(m.arrows[0].kind, ArrowKind::kRequest);
  EXPECT_EQ(m.arrows[0].from, 0u);
  EXPECT_EQ(m.arrows[0].to, 1u);
  EXPECT_EQ(m.arrows[0].label, "LDLM_ENQUEUE x4096");
  EXPECT_EQ(m.arrows[1].kind, ArrowKind::kEarly);
  EXPECT_EQ(m.arrows[1].to, 0u);  // early replies go back to the sender too
  EXPECT_EQ(m.arrows[2].kind, ArrowKind::kReply);
  EXPECT_EQ(m.arrows[2].to, 0u);  // back to the dd.0 lifeline
  EXPECT_EQ(m.arrows[2].label, "LDLM_ENQUEUE ok 2.00ms");
  EXPECT_EQ(m.arrows[6].kind, ArrowKind::kError);
  EXPECT_EQ(m.arrows[6].label, "MDS_GETATTR -2 (ENOENT) 1.00ms");
  EXPECT_EQ(m.arrows[6].to, 2u);
  EXPECT_EQ(m.arrows[9].kind, ArrowKind::kLnet);
  EXPECT_EQ(m.arrows[9].label, "GET OST_BULK 1048576 B");
  EXPECT_EQ(m.omitted, 0u);
}

TEST(ReportChart, MermaidText) {
  const std::string t = render_mermaid(scenario_chart());
  EXPECT_EQ(t.rfind("sequenceDiagram\n", 0), 0u);
  EXPECT_TRUE(contains(t, "    participant P0 as 10.0.3.2@tcp dd.0\n"));
  EXPECT_TRUE(contains(t, "    P0->>P1: +0.000000 LDLM_ENQUEUE x4096\n"));
  EXPECT_TRUE(contains(t, "    P1-->>P0: +0.002000 LDLM_ENQUEUE ok 2.00ms\n"));
  EXPECT_TRUE(contains(t, "    P1--xP2: +0.020000 MDS_GETATTR -2 (ENOENT) 1.00ms\n"));
  EXPECT_TRUE(contains(t, "    P1-)P2: +0.040000 GET OST_BULK 1048576 B\n"));
  EXPECT_FALSE(contains(t, "Note over"));
}

TEST(ReportChart, CapAddsANote) {
  const ChartModel m = scenario_chart(4);
  EXPECT_EQ(m.arrows.size(), 4u);
  EXPECT_EQ(m.omitted, 7u);
  const std::string t = render_mermaid(m);
  EXPECT_TRUE(contains(t, "Note over P0,P1: 7 more messages not shown (the chart stops at 4 arrows"));
  const std::string h = render_html(m);
  EXPECT_TRUE(contains(h, "7 more messages not shown"));
}

TEST(ReportChart, MermaidTextCannotBreakTheDiagram) {
  EXPECT_EQ(mermaid_text("job;#1\nx"), "job#59;#35;1 x");
}

TEST(ReportChart, HtmlIsSelfContained) {
  ChartBuilder b;
  for (Message m : test::rpc_scenario()) {
    if (!m.rpc.jobid.empty()) m.rpc.jobid = "<script>alert(1)</script>";
    b.add(m);
  }
  const std::string h = render_html(b.model());
  EXPECT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_TRUE(contains(h, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_TRUE(contains(h, "</svg>\n</body>\n</html>\n"));
  // No scripts, no external resources; wire strings are escaped.
  EXPECT_FALSE(contains(h, "<script"));
  EXPECT_FALSE(contains(h, "src="));
  EXPECT_FALSE(contains(h, "href="));
  EXPECT_TRUE(contains(h, "&lt;script&gt;"));
  EXPECT_TRUE(contains(h, ">LDLM_ENQUEUE ok 2.00ms</text>"));
  // One <g> per arrow, classed by kind.
  std::size_t groups = 0;
  for (std::size_t p = 0; (p = h.find("<g class=", p)) != std::string::npos; ++p) ++groups;
  EXPECT_EQ(groups, 11u);
  EXPECT_TRUE(contains(h, "<g class=\"err\">"));
}
