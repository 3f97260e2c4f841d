// SPDX-License-Identifier: GPL-2.0-or-later
// Rewriting an lnetcap pcapng (-r a.pcapng -w b.pcapng) keeps the records
// and the capture's story: the section comments that say where, when and
// how it was captured, the original application/OS, and every interface's
// description and comments; the rewrite adds its own step.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app.h"
#include "options.h"
#include "pcapng/reader.h"
#include "pcapng/writer.h"
#include "version.h"

using namespace lnetcap;

namespace {

const std::vector<std::string> kProvenance = {
    "lnetcap 0.0.9", "host: node17", "kernel: 5.14.0-362 aarch64", "lustre: 2.15.4",
    "command: lnetcap -i o2ib1 -w trace.pcapng"};

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "/provenance-" + std::to_string(getpid()) + "-" + name;
}

// The synthetic sample as a node would have captured it: its records, with
// a live capture's section comments and interface comments.
void write_input(const std::string& path) {
  pcapng::Reader r(LNETCAP_SOURCE_DIR "/samples/synthetic-rpcs.pcapng");
  pcapng::Writer w(path);
  pcapng::SectionInfo s;
  s.user_appl = "lnetcap 0.0.9";
  s.os = "Linux 5.14.0-362";
  s.hardware = "aarch64";
  s.comments = kProvenance;
  w.begin_section(s);
  pcapng::Packet p;
  while (r.next(p)) {
    while (w.interface_count() < r.interfaces().size()) {
      const pcapng::Interface& i = r.interfaces()[w.interface_count()];
      CaptureInterface c;
      c.name = i.name;
      c.description = i.description + ", on node17";
      c.snaplen = i.snaplen;
      c.comments = {"filter: net " + i.name, "NI of " + i.name};
      w.add_interface(i.linktype, c);
    }
    w.write_packet(p.interface_id, p.ts_ns, p.data, p.orig_len, p.flags, p.drop_count, p.comments);
  }
  w.close();
}

int run_lnetcap(std::vector<std::string> args) {
  args.insert(args.begin(), "lnetcap");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return run(parse_options(static_cast<int>(argv.size()), argv.data()));
}

}  // namespace

TEST(RewriteProvenance, KeepsSectionAndInterfaceMetadataAndAddsTheRewrite) {
  const std::string in = temp_path("in.pcapng"), out = temp_path("out.pcapng");
  write_input(in);
  ASSERT_EQ(run_lnetcap({"-r", in, "-w", out, "net", "kfi"}), 0);

  pcapng::Reader a(in), b(out);
  pcapng::Packet p;
  std::size_t records = 0;
  while (b.next(p)) ++records;
  EXPECT_EQ(records, 2u);  // the filter applied
  const std::vector<std::string>& c = b.sections().at(0).comments;
  ASSERT_EQ(c.size(), kProvenance.size() + 3) << ::testing::PrintToString(c);
  EXPECT_EQ(std::vector<std::string>(c.begin(), c.begin() + kProvenance.size()), kProvenance);
  EXPECT_EQ(c[kProvenance.size()], "written by: lnetcap 0.0.9, Linux 5.14.0-362, aarch64");
  const std::string& step = c[kProvenance.size() + 1];
  EXPECT_EQ(step.rfind(std::string("rewritten by lnetcap ") + LNETCAP_VERSION + " on ", 0), 0u) << step;
  const std::string command = "lnetcap -r " + in + " -w " + out + " net kfi";
  EXPECT_EQ(step.substr(step.size() - command.size()), command) << step;
  EXPECT_EQ(c.back(), "filter: net kfi");

  while (a.next(p)) {
  }
  ASSERT_EQ(b.interfaces().size(), a.interfaces().size());
  for (std::size_t i = 0; i < a.interfaces().size(); ++i) {
    EXPECT_EQ(b.interfaces()[i].name, a.interfaces()[i].name);
    EXPECT_EQ(b.interfaces()[i].description, a.interfaces()[i].description);
    EXPECT_EQ(b.interfaces()[i].comments, a.interfaces()[i].comments);
  }
  unlink(in.c_str());
  unlink(out.c_str());
}

TEST(RewriteProvenance, AnAnonymizedRewriteKeepsNoHostOrCommand) {
  const std::string in = temp_path("in2.pcapng"), out = temp_path("anon.pcapng"),
                    key = temp_path("key");
  write_input(in);
  ASSERT_EQ(run_lnetcap({"-r", in, "-w", out, "--anon-key", key}), 0);
  pcapng::Reader b(out);
  pcapng::Packet p;
  while (b.next(p)) {
  }
  const std::vector<std::string>& c = b.sections().at(0).comments;
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c.front(), std::string("rewritten by lnetcap ") + LNETCAP_VERSION);
  for (const std::string& s : c) EXPECT_EQ(s.find("node17"), std::string::npos) << s;
  for (const auto& i : b.interfaces()) {
    EXPECT_TRUE(i.comments.empty());
    EXPECT_EQ(i.description.find("node17"), std::string::npos);
  }
  unlink(in.c_str());
  unlink(out.c_str());
  unlink(key.c_str());
}

// The section header of an anonymized rewrite: no filter text (it can name
// a jobid) and not the writer's OS and machine either.
TEST(RewriteProvenance, AnAnonymizedRewriteHidesTheFilterAndTheWritersMachine) {
  const std::string in = temp_path("in3.pcapng"), out = temp_path("anon3.pcapng"),
                    key = temp_path("key3");
  write_input(in);
  ASSERT_EQ(run_lnetcap({"-r", in, "-w", out, "--anon-key", key, "not", "jobid", "secretjob.42"}), 0);
  pcapng::Reader b(out);
  pcapng::Packet p;
  while (b.next(p)) {
  }
  const pcapng::SectionInfo& s = b.sections().at(0);
  for (const std::string& c : s.comments) EXPECT_EQ(c.find("secretjob"), std::string::npos) << c;
  EXPECT_NE(std::find(s.comments.begin(), s.comments.end(), "filter: set (not shown in an anonymized trace)"),
            s.comments.end());
  EXPECT_TRUE(s.os.empty()) << s.os;
  EXPECT_TRUE(s.hardware.empty()) << s.hardware;
  for (const auto& i : b.interfaces()) {
    EXPECT_TRUE(i.os.empty());
    EXPECT_EQ(i.name.find("node17"), std::string::npos);
  }
  unlink(in.c_str());
  unlink(out.c_str());
  unlink(key.c_str());
}
