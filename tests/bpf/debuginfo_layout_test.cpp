// SPDX-License-Identifier: GPL-2.0-or-later
// debuginfo_layout_test.cpp - with no module BTF, lnetcap finds Lustre's
// installed debuginfo (by the module's build-id, else by path), makes BTF
// from it with pahole and reads the offsets from that rather than from a
// built-in table.  A fake root holds /sys/module/lnet's build-id note and
// /usr/lib/debug; the debuginfo is lustre_debuginfo.o (compiled with -g
// from Lustre 2.16's declarations), so its offsets equal the 2.16 table.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "error.h"
#include "live/attach_plan.h"
#include "live/lnet_debuginfo.h"
#include "live/lustre_env.h"

namespace lnetcap::live {
namespace {

namespace fs = std::filesystem;

class DebuginfoLayout : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/lnetcap-debuginfo-test.XXXXXX";
    ASSERT_TRUE(::mkdtemp(tmpl));
    root_ = std::string(tmpl) + "/";
    fs::create_directories(root_ + "sys/module/lnet/notes");
    fs::create_directories(root_ + "sys/kernel/tracing");
    std::ofstream(root_ + "sys/kernel/tracing/kprobe_events").put('\n');
  }
  void TearDown() override { fs::remove_all(root_); }

  // The module's notes file: one NT_GNU_BUILD_ID note (ELF note layout).
  void write_build_id(const std::vector<std::uint8_t>& id) {
    std::vector<std::uint8_t> note;
    auto u32 = [&note](std::uint32_t v) {
      for (int i = 0; i < 4; ++i) note.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    };
    u32(4);
    u32(static_cast<std::uint32_t>(id.size()));
    u32(3);  // NT_GNU_BUILD_ID
    for (char c : std::string("GNU", 4)) note.push_back(static_cast<std::uint8_t>(c));
    note.insert(note.end(), id.begin(), id.end());
    while (note.size() % 4) note.push_back(0);
    std::ofstream(root_ + "sys/module/lnet/notes/.note.gnu.build-id", std::ios::binary)
        .write(reinterpret_cast<const char*>(note.data()), static_cast<std::streamsize>(note.size()));
  }

  std::string install_debuginfo(const std::string& rel) {
    const std::string p = root_ + rel;
    fs::create_directories(fs::path(p).parent_path());
    fs::copy_file(LNETCAP_TEST_DEBUGINFO, p);
    return p;
  }

  std::string root_;
};

TEST_F(DebuginfoLayout, FoundByBuildIdAndUsedInsteadOfTheTable) {
  write_build_id({0xab, 0xcd, 0xef, 0x01, 0x23});
  const std::string dbg = install_debuginfo("usr/lib/debug/.build-id/ab/cdef0123.debug");
  // A debuginfo of another build is beside it: only the build-id decides.
  install_debuginfo("usr/lib/debug/.build-id/ab/cdef0124.debug");
  LustreEnv env = detect_lustre(root_);
  ASSERT_TRUE(env.lnet_loaded);
  EXPECT_EQ(env.lnet_debuginfo, dbg);

  Options opts;
  AttachPlan plan = plan_attach(opts, env);
  EXPECT_EQ(plan.mode, AttachMode::kKprobe);
  EXPECT_NE(plan.layout.origin.find("debuginfo " + dbg), std::string::npos) << plan.layout.origin;
  const auto table = builtin_layout("2.16.1");
  ASSERT_TRUE(table);
  EXPECT_EQ(layout_text(plan.layout.lo), layout_text(table->lo));

  // --lustre-version forces the built-in table.
  opts.lustre_version = "2.16.1";
  EXPECT_NE(plan_attach(opts, env).layout.origin.find("built-in"), std::string::npos);
}

TEST_F(DebuginfoLayout, OtherBuildIdIsNotTaken) {
  write_build_id({0x11, 0x22, 0x33});
  install_debuginfo("usr/lib/debug/.build-id/ab/cdef0123.debug");
  EXPECT_EQ(detect_lustre(root_).lnet_debuginfo, "");
}

TEST_F(DebuginfoLayout, FoundByPathUnderTheRunningKernel) {
  fs::create_directories(root_ + "proc/sys/kernel");
  std::ofstream(root_ + "proc/sys/kernel/osrelease") << "6.1.0-test-amd64\n";
  install_debuginfo("usr/lib/debug/lib/modules/6.1.0-other/extra/lnet.ko.debug");
  EXPECT_EQ(find_lnet_debuginfo(root_), "");  // another kernel's
  const std::string dbg =
      install_debuginfo("usr/lib/debug/lib/modules/6.1.0-test-amd64/extra/lustre-client/net/lnet.ko.debug");
  EXPECT_EQ(find_lnet_debuginfo(root_), dbg);
}

TEST_F(DebuginfoLayout, WithoutPaholeTheTableIsUsedAndSaysWhy) {
  write_build_id({0xab, 0xcd, 0xef, 0x01, 0x23});
  install_debuginfo("usr/lib/debug/.build-id/ab/cdef0123.debug");
  LustreEnv env = detect_lustre(root_);
  env.version = "2.16.1";
  const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", root_.c_str(), 1);  // no pahole here
  AttachPlan plan = plan_attach(Options(), env);
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_NE(plan.layout.origin.find("built-in table"), std::string::npos) << plan.layout.origin;
  EXPECT_NE(plan.layout.origin.find("cannot run pahole"), std::string::npos) << plan.layout.origin;
}

TEST_F(DebuginfoLayout, DebuginfoWithoutLustreStructsIsRefused) {
  const std::string bogus = root_ + "bogus.debug";
  std::ofstream(bogus) << "not an ELF file";
  EXPECT_THROW(layout_from_debuginfo(bogus), Error);
}

}  // namespace
}  // namespace lnetcap::live
