// SPDX-License-Identifier: GPL-2.0-or-later
// live_config_test.cpp - command line and filter terms -> BPF cfg; per-CPU
// sequence gaps -> drop counts; NI table parsing; attach-mode refusals.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <sys/stat.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "error.h"
#include "live/attach_plan.h"
#include "live/capture_config.h"
#include "live/kernel_memmap.h"
#include "live/layout_check.h"
#include "live/lustre_env.h"
#include "live/seq_tracker.h"
#include "live/self_check.h"
#include "lnetcap/lnet.h"
#include "lnetcap/record.h"

namespace lnetcap::live {
namespace {

const lnetcap_layout kLo = builtin_layout("2.16.1")->lo;

TEST(LiveConfig, SnaplenDefaultsZeroAndCap) {
  Options o;
  EXPECT_EQ(effective_snaplen(o), LNETCAP_DEFAULT_SNAPLEN);
  o.snaplen = 0;
  EXPECT_EQ(effective_snaplen(o), 0u);
  o.snaplen = 5u << 20;
  EXPECT_EQ(effective_snaplen(o), LNETCAP_MAX_SNAPLEN);
}

TEST(LiveConfig, RingIsPowerOfTwoAndFitsRecords) {
  Options o;
  EXPECT_EQ(ring_bytes(o, 1024, 4096), kDefaultRingBytes);
  o.buffer_kib = 3000;  // 2.93 MiB -> 4 MiB
  EXPECT_EQ(ring_bytes(o, 1024, 4096), 4u << 20);
  o.buffer_kib = 1;  // at least 8 records of the largest size
  EXPECT_EQ(ring_bytes(o, 1024, 4096), 16384u);
  o.buffer_kib = 1;
  EXPECT_EQ(ring_bytes(o, 0, 4096), 4096u);
}

const filter::Filter kNoFilter;

lnetcap_cfg cfg_of(const Options& o, const char* filter_text) {
  return make_cfg(o, filter::Filter::parse(filter_text), kLo, 64);
}

TEST(LiveConfig, DirectionMasks) {
  Options o;
  auto all = make_cfg(o, kNoFilter, kLo, 64);
  EXPECT_TRUE(all.dir_mask & (1u << LNETCAP_DIR_SEND));
  EXPECT_TRUE(all.dir_mask & (1u << LNETCAP_DIR_RECV));
  EXPECT_TRUE(all.dir_mask & (1u << LNETCAP_DIR_FORWARD));
  EXPECT_TRUE(all.dir_mask & LNETCAP_DIRMASK_DROP_RX);
  EXPECT_TRUE(all.dir_mask & LNETCAP_DIRMASK_DROP_TX);
  EXPECT_FALSE(all.filter_clauses);
  // -Q keeps a message's DROP on its side: received ones with in, sent
  // ones with out.
  o.direction = Direction::kIn;
  EXPECT_EQ(make_cfg(o, kNoFilter, kLo, 64).dir_mask,
            (1u << LNETCAP_DIR_RECV) | LNETCAP_DIRMASK_DROP_RX);
  o.direction = Direction::kOut;
  EXPECT_EQ(make_cfg(o, kNoFilter, kLo, 64).dir_mask,
            (1u << LNETCAP_DIR_SEND) | (1u << LNETCAP_DIR_FORWARD) | LNETCAP_DIRMASK_DROP_TX);
  // The directions the filter's clauses accept narrow the hooks' gate.
  EXPECT_EQ(cfg_of(o, "dir forward").dir_mask, 1u << LNETCAP_DIR_FORWARD);
  EXPECT_EQ(cfg_of(o, "dir recv").dir_mask, 0u);  // -Q out and dir recv: nothing
  EXPECT_EQ(cfg_of(o, "dir drop").dir_mask, LNETCAP_DIRMASK_DROP_TX);  // drops of sends
  // A disjunction: either direction.
  EXPECT_EQ(cfg_of(o, "dir forward or (dir send and type get)").dir_mask,
            (1u << LNETCAP_DIR_SEND) | (1u << LNETCAP_DIR_FORWARD));
}

// Clause i of cfg (packed: copied out).
lnetcap_clause clause_at(const lnetcap_cfg& c, unsigned i) {
  lnetcap_clause k;
  std::memcpy(&k, reinterpret_cast<const std::uint8_t*>(&c) + offsetof(lnetcap_cfg, clause) + i * sizeof(k),
              sizeof(k));
  return k;
}

// The one clause written into cfg, as the programs read it.
lnetcap_clause only_clause(const lnetcap_cfg& c) {
  EXPECT_TRUE(c.filter_clauses);
  EXPECT_EQ(c.clause_count, 1u);
  return clause_at(c, 0);
}

TEST(LiveConfig, InterfaceAsNidNetOrAny) {
  Options o;
  o.interface = "10.0.0.1@tcp";
  auto c = make_cfg(o, kNoFilter, kLo, 64);
  const lnetcap_clause ni = only_clause(c);
  EXPECT_EQ(ni.terms, LNETCAP_CL_NI);
  EXPECT_EQ(ni.ni_words, 1u);
  std::uint8_t raw[20];
  Nid::parse("10.0.0.1@tcp")->to_lnet_nid(raw);
  EXPECT_EQ(0, std::memcmp(&ni.ni, raw, 20));
  o.interface = "o2ib3";
  c = make_cfg(o, kNoFilter, kLo, 64);
  const lnetcap_clause net = only_clause(c);
  EXPECT_EQ(net.terms, LNETCAP_CL_NI_NET);
  EXPECT_EQ(net.ni_net_type, LNETCAP_LND_O2IBLND);
  EXPECT_EQ(net.ni_net_num, htons(3));
  o.interface = "any";
  c = make_cfg(o, kNoFilter, kLo, 64);
  EXPECT_FALSE(c.filter_clauses);
  o.interface = "eth0!";
  EXPECT_THROW(make_cfg(o, kNoFilter, kLo, 64), Error);
}

TEST(LiveConfig, FilterClausesArePushed) {
  Options o;
  o.packet_buffered = true;
  auto c = cfg_of(o, "type put and portal 12 and src nid 10.0.0.2@tcp and dst nid 10.0.0.3@tcp "
                     "and nid 10.0.0.4@tcp and net tcp7 and ni 10.0.0.3@tcp and opcode 3");
  EXPECT_EQ(c.wakeup_batch, 1u);
  const lnetcap_clause k = only_clause(c);
  EXPECT_EQ(k.type_mask, 1u << LNETCAP_MSG_PUT);
  EXPECT_EQ(k.terms, LNETCAP_CL_PORTAL | LNETCAP_CL_SRC | LNETCAP_CL_DST | LNETCAP_CL_ANY |
                         LNETCAP_CL_NET | LNETCAP_CL_NI);
  EXPECT_EQ(k.portal, 12u);
  EXPECT_EQ(k.net_type, LNETCAP_LND_SOCKLND);
  EXPECT_EQ(k.net_num, htons(7));
  EXPECT_EQ(0, std::memcmp(&c.lo, &kLo, sizeof(kLo)));
  Options plain;
  EXPECT_EQ(make_cfg(plain, kNoFilter, kLo, 64).wakeup_batch, kWakeupBatch);
  // Disjunctions are pushed as several clauses; -i narrows each of them.
  o.interface = "kfi";
  c = cfg_of(o, "type get or (type put and portal 12) or nid 10.0.0.4@tcp");
  ASSERT_TRUE(c.filter_clauses);
  ASSERT_EQ(c.clause_count, 3u);
  for (unsigned i = 0; i < c.clause_count; ++i)
    EXPECT_TRUE(clause_at(c, i).terms & LNETCAP_CL_NI_NET) << i;
  // What the kernel cannot test is left to user space: no table at all...
  o.interface = "any";
  EXPECT_FALSE(cfg_of(o, "len > 100").filter_clauses);
  EXPECT_FALSE(cfg_of(o, "not nid 10.0.0.4@tcp").filter_clauses);
  // ...or, with -i, only -i.
  o.interface = "10.0.0.3@tcp";
  EXPECT_EQ(only_clause(cfg_of(o, "len > 100")).terms, LNETCAP_CL_NI);
  // More alternatives than cfg holds: -i alone.
  c = cfg_of(o, "portal 1 or portal 2 or portal 3 or portal 4 or portal 5 or portal 6 or "
                "portal 7 or portal 8 or portal 9");
  EXPECT_EQ(only_clause(c).terms, LNETCAP_CL_NI);
  // A filter that can never match: a table of no clause rejects everything.
  o.interface = "any";
  c = cfg_of(o, "ni 10.0.0.3@tcp and ni 10.0.0.4@tcp");
  EXPECT_TRUE(c.filter_clauses);
  EXPECT_EQ(c.clause_count, 0u);
}

TEST(LiveSeqTracker, GapsBecomeDrops) {
  SeqTracker t;
  EXPECT_EQ(t.observe(0, 0), 0u);
  EXPECT_EQ(t.observe(0, 1), 0u);
  EXPECT_EQ(t.observe(0, 5), 3u);
  EXPECT_EQ(t.observe(3, 2), 2u);  // first record of CPU 3: 0 and 1 lost
  EXPECT_EQ(t.observe(0, 4), 0u);  // straggler
  EXPECT_EQ(t.observe(0, 6), 0u);
}

TEST(LiveEnv, ParsesLustreNisTable) {
  const char* text =
      "nid                      status alive refs peer  rtr   max    tx   min\n"
      "0@lo                         up     0    2    0    0     0     0     0\n"
      "0@lo                         up     0    0    0    0     0     0     0\n"
      "10.0.0.1@tcp                 up    -1    1    8    0   256   256   254\n"
      "10.0.0.1@tcp                 up    -1    1    8    0   256   256   254\n"
      "192.168.1.5@o2ib1          down    -1    1    8    0   256   256   254\n";
  auto nis = parse_nis_table(text);
  ASSERT_EQ(nis.size(), 3u);
  EXPECT_EQ(nis[0].nid, "0@lo");
  EXPECT_EQ(nis[1].nid, "10.0.0.1@tcp");
  EXPECT_EQ(nis[2].nid, "192.168.1.5@o2ib1");
  EXPECT_EQ(nis[2].status, "down");
}

class LiveEnvFakeRoot : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/lnetcap-env-XXXXXX";
    ASSERT_TRUE(mkdtemp(tmpl));
    root_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf " + root_).c_str()); }
  void file(const std::string& rel, const std::string& text) {
    std::system(("mkdir -p $(dirname " + root_ + "/" + rel + ")").c_str());
    std::ofstream(root_ + "/" + rel) << text;
  }
  std::string root_;
};

TEST_F(LiveEnvFakeRoot, DetectsModuleVersionBtfAndKfunc) {
  auto env = detect_lustre(root_);
  EXPECT_FALSE(env.lnet_loaded);
  // LNet's own version is not the Lustre release: an LNet-only node has none.
  file("sys/module/lnet/version", "0.7.0\n");
  env = detect_lustre(root_);
  EXPECT_TRUE(env.lnet_loaded);
  EXPECT_EQ(env.version, "");
  EXPECT_EQ(env.lnet_version, "0.7.0");
  EXPECT_EQ(describe_lustre(env), "none (LNet only, lnet 0.7.0)");
  file("sys/fs/lustre/version", "2.16.1\n");
  file("sys/kernel/btf/lnetcap_kfunc", "");
  file("sys/bus/event_source/devices/kprobe/type", "6\n");
  file("sys/kernel/debug/lnet/nis", "nid status\n10.0.0.9@tcp up\n");
  env = detect_lustre(root_);
  EXPECT_TRUE(env.lnet_loaded);
  EXPECT_EQ(env.version, "2.16.1");
  EXPECT_EQ(env.version_source, "/sys/fs/lustre/version");
  EXPECT_EQ(describe_lustre(env), "2.16.1");
  EXPECT_FALSE(env.lnet_btf);
  EXPECT_TRUE(env.kfunc_module);
  EXPECT_TRUE(env.kprobes);
  auto nis = list_local_nis(root_);
  ASSERT_EQ(nis.size(), 1u);
  EXPECT_EQ(nis[0].nid, "10.0.0.9@tcp");
}

// How page-vector payloads are mapped (bpf/lnetcap_pages.bpf.h): the
// variables of a KASLR kernel, the fixed layout without them, and a clear
// reason when kallsyms hides addresses.
TEST(KernelMemmap, FromKallsyms) {
  auto m = memmap_from_kallsyms("ffffffff81000000 T _stext\n"
                                "ffffffff82a1b2c8 D page_offset_base\n"
                                "ffffffff82a1b2d0 D vmemmap_base\n",
                                64, 4096);
  EXPECT_EQ(m.km.pages, 1);
  EXPECT_EQ(m.km.page_offset_var, 0xffffffff82a1b2c8ull);
  EXPECT_EQ(m.km.vmemmap_var, 0xffffffff82a1b2d0ull);
  EXPECT_EQ(m.km.page_struct_size, 64u);
  EXPECT_EQ(m.km.page_size, 4096u);

  m = memmap_from_kallsyms("ffffffff81000000 T _stext\n", 0, 4096);
  EXPECT_EQ(m.km.pages, 1);
  EXPECT_EQ(m.km.page_offset_var, 0u);
  EXPECT_EQ(m.km.page_offset, LNETCAP_X86_PAGE_OFFSET_L4);
  EXPECT_EQ(m.km.vmemmap, LNETCAP_X86_VMEMMAP_L4);
  EXPECT_EQ(m.km.page_struct_size, 64u);  // no BTF: the x86_64 size
  EXPECT_NE(m.describe.find("assumed 64"), std::string::npos);

  m = memmap_from_kallsyms("0000000000000000 T _stext\n0000000000000000 D vmemmap_base\n", 64,
                           4096);
  EXPECT_EQ(m.km.pages, 0);
  EXPECT_NE(m.describe.find("kptr_restrict"), std::string::npos);
  m = memmap_from_kallsyms("", 64, 4096);
  EXPECT_EQ(m.km.pages, 0);
  EXPECT_NE(m.describe.find("not readable"), std::string::npos);
}

// A layout that does not fit the running module shows in the first
// records; a right one passes them all.
TEST(LayoutCheck, FlagsImpossibleRecords) {
  auto rec = [](const char* local, std::uint32_t type, std::uint32_t plen) {
    RecordView v;
    v.hdr.local_nid = *Nid::parse(local);
    v.hdr.peer_nid = *Nid::parse("10.0.0.2@tcp");
    v.hdr.payload_len = plen;
    static std::uint8_t h[sizeof(struct lnetcap_hdr_nid16)];
    std::memset(h, 0, sizeof(h));
    h[LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, type)] = static_cast<std::uint8_t>(type);
    v.lnet_header = ByteSpan(h, sizeof(h));
    return v;
  };
  LayoutCheck ok({"0@lo", "10.0.0.1@tcp"});
  for (int i = 0; i < LayoutCheck::kRecords; ++i)
    EXPECT_FALSE(ok.problem(rec(i % 2 ? "0@lo" : "10.0.0.1@tcp", LNETCAP_MSG_PUT, 4096)));
  EXPECT_TRUE(ok.done());
  EXPECT_FALSE(ok.problem(rec("7.7.7.7@tcp", 9, 1u << 30)));  // checking is over

  LayoutCheck c({"10.0.0.1@tcp"});
  auto p = c.problem(rec("7.0.0.3@tcp", LNETCAP_MSG_GET, 0));
  ASSERT_TRUE(p);
  EXPECT_NE(p->find("7.0.0.3@tcp is not one of this node's NIs"), std::string::npos);
  EXPECT_TRUE(c.problem(rec("10.0.0.1@tcp", 7, 0)));
  EXPECT_TRUE(c.problem(rec("10.0.0.1@tcp", LNETCAP_MSG_PUT, (1u << 20) + 1)));
  EXPECT_FALSE(c.problem(rec("10.0.0.1@tcp", LNETCAP_MSG_ACK, 0)));
}

// 2.17.54+ publish the release as lnet.ko's version (LU-18839): it names
// the module whose structs are read, and an LNet-only node has it too.
TEST_F(LiveEnvFakeRoot, ReleaseFromTheLnetModule) {
  file("sys/module/lnet/version", "2.17.57\n");
  auto env = detect_lustre(root_);
  EXPECT_EQ(env.version, "2.17.57");
  EXPECT_EQ(env.version_source, "/sys/module/lnet/version");
  file("sys/fs/lustre/version", "2.17.57\n");
  EXPECT_EQ(detect_lustre(root_).version_source, "/sys/module/lnet/version");
  file("sys/module/lnet/version", "0.7.0\n");  // 2.17.53 and older
  EXPECT_EQ(detect_lustre(root_).version_source, "/sys/fs/lustre/version");
}

// The second line behind the self-check: a SEND's peer NI is on the
// sending NI's net (lpni_nid, which a loopback ping cannot exercise).
TEST(LayoutCheck, SendPeerOnTheLocalNet) {
  RecordView v;
  v.hdr.hook = LNETCAP_HOOK_LNET_NI_SEND;
  v.hdr.direction = LNETCAP_DIR_SEND;
  v.hdr.local_nid = *Nid::parse("10.0.0.1@tcp");
  v.hdr.peer_nid = *Nid::parse("10.0.0.2@tcp");
  LayoutCheck c({"10.0.0.1@tcp"});
  EXPECT_FALSE(c.problem(v));
  v.hdr.peer_nid = *Nid::parse("10.0.0.2@o2ib");
  auto p = c.problem(v);
  ASSERT_TRUE(p);
  EXPECT_NE(p->find("not on the net of its local NI"), std::string::npos);
}

// The records a ping of 0@lo makes, as LNet makes them (self_check.h).
struct PingRecs {
  std::uint8_t get_hdr[96]{}, reply_hdr[96]{}, info[32]{};
  std::vector<RecordView> recs;
  static void hdr(std::uint8_t* h, std::uint32_t type, std::uint32_t plen) {
    Nid lo = Nid::from_nid4(std::uint64_t{LNETCAP_LND_LOLND} << 48);
    using H = struct lnetcap_hdr_nid16;
    lo.to_lnet_nid(h + offsetof(H, dest_nid));
    lo.to_lnet_nid(h + offsetof(H, src_nid));
    std::uint32_t pid = LNETCAP_LNET_PID_LUSTRE;
    std::memcpy(h + offsetof(H, dest_pid), &pid, 4);
    std::memcpy(h + offsetof(H, src_pid), &pid, 4);
    std::memcpy(h + offsetof(H, type), &type, 4);
    std::memcpy(h + offsetof(H, payload_length), &plen, 4);
    if (type == LNETCAP_MSG_GET) {  // ptl_index stays 0
      std::uint64_t mb = LNETCAP_LNET_PING_MATCHBITS;
      std::memcpy(h + offsetof(H, msg) + offsetof(struct lnetcap_get, match_bits), &mb, 8);
    }
  }
  PingRecs() {
    hdr(get_hdr, LNETCAP_MSG_GET, 0);
    hdr(reply_hdr, LNETCAP_MSG_REPLY, sizeof(info));
    std::uint32_t magic = LNETCAP_LNET_PROTO_PING_MAGIC;
    std::memcpy(info, &magic, 4);
    const Nid lo = Nid::from_nid4(std::uint64_t{LNETCAP_LND_LOLND} << 48);
    auto rec = [&](std::uint8_t hook, std::uint8_t dir, const std::uint8_t* h, std::uint32_t plen) {
      RecordView v;
      v.hdr.hook = hook;
      v.hdr.direction = dir;
      v.hdr.local_nid = lo;
      v.hdr.peer_nid = lo;
      v.hdr.payload_len = plen;
      v.hdr.payload_caplen = plen;
      v.lnet_header = ByteSpan(h, 96);
      v.payload = ByteSpan(info, plen);
      return v;
    };
    recs.push_back(rec(LNETCAP_HOOK_LNET_NI_SEND, LNETCAP_DIR_SEND, get_hdr, 0));
    recs.push_back(rec(LNETCAP_HOOK_LNET_PARSE, LNETCAP_DIR_RECV, get_hdr, 0));
    recs.push_back(rec(LNETCAP_HOOK_LNET_NI_SEND, LNETCAP_DIR_SEND, reply_hdr, sizeof(info)));
    recs.push_back(rec(LNETCAP_HOOK_LNET_FINALIZE, LNETCAP_DIR_RECV, reply_hdr, sizeof(info)));
  }
};

TEST(SelfCheck, ProvesTheLoopbackPing) {
  PingRecs p;
  auto r = judge_self_ping(p.recs);
  EXPECT_EQ(r.status, SelfCheckResult::kProven) << r.detail;
}

TEST(SelfCheck, NamesTheFieldThatDiffers) {
  {  // msg_hdr read 16 bytes off: the header of another place in the msg
    PingRecs p;
    std::uint8_t junk[96]{};
    p.recs[0].lnet_header = ByteSpan(junk, 96);
    auto r = judge_self_ping(p.recs);
    EXPECT_EQ(r.status, SelfCheckResult::kMismatch);
    EXPECT_EQ(r.detail,
              "in the ping's GET (SEND at lnet_ni_send), msg_hdr (type): expected GET (2), read ACK (0)");
  }
  {  // msg_len
    PingRecs p;
    p.recs[0].hdr.payload_len = 4096;
    auto r = judge_self_ping(p.recs);
    EXPECT_EQ(r.status, SelfCheckResult::kMismatch);
    EXPECT_NE(r.detail.find("msg_len: expected 0, read 4096"), std::string::npos) << r.detail;
  }
  {  // payload read at the wrong place (msg_kiov / msg_offset)
    PingRecs p;
    std::uint8_t zeros[32]{};
    p.recs[2].payload = ByteSpan(zeros, 32);
    auto r = judge_self_ping(p.recs);
    EXPECT_EQ(r.status, SelfCheckResult::kMismatch);
    EXPECT_NE(r.detail.find("msg_kiov"), std::string::npos) << r.detail;
  }
  {  // msg_wanted
    PingRecs p;
    p.recs[3].hdr.payload_len = 7;
    auto r = judge_self_ping(p.recs);
    EXPECT_NE(r.detail.find("msg_wanted: expected 32, read 7"), std::string::npos) << r.detail;
  }
  {  // no RECV at lnet_finalize: the committed bits or msg_type misread
    PingRecs p;
    p.recs.pop_back();
    auto r = judge_self_ping(p.recs);
    EXPECT_EQ(r.status, SelfCheckResult::kMismatch);
    EXPECT_NE(r.detail.find("RECV of its REPLY at lnet_finalize"), std::string::npos) << r.detail;
  }
  {  // nothing at all
    auto r = judge_self_ping({});
    EXPECT_EQ(r.status, SelfCheckResult::kMismatch);
  }
}

// An unknown release gets a candidate, never an exact table; "0.7.0" with
// no release is a candidate too.
TEST(LiveAttachPlan, UnknownReleaseIsOnlyACandidate) {
  Options o;
  LustreEnv env;
  env.lnet_loaded = true;
  env.kprobes = true;
  env.version = "2.17.58";
  auto p = plan_attach(o, env);
  EXPECT_TRUE(p.layout.candidate);
  EXPECT_NE(p.describe().find("candidate"), std::string::npos);
  env.version = "2.17.57";
  EXPECT_FALSE(plan_attach(o, env).layout.candidate);
  env.version.clear();
  env.lnet_version = "0.7.0";
  EXPECT_TRUE(plan_attach(o, env).layout.candidate);
  env.lnet_version = "weird";
  EXPECT_THROW(plan_attach(o, env), Error);
}

TEST(LiveAttachPlan, RefusesWithoutLnet) {
  Options o;
  LustreEnv env;
  try {
    plan_attach(o, env);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "the lnet kernel module is not loaded");
    EXPECT_FALSE(e.hint().empty());
  }
}

TEST(LiveAttachPlan, KprobeWithBuiltinTable) {
  Options o;
  LustreEnv env;
  env.lnet_loaded = true;
  env.kprobes = true;
  env.version = "2.15.3";
  auto p = plan_attach(o, env);
  EXPECT_EQ(p.mode, AttachMode::kKprobe);
  EXPECT_FALSE(p.kfunc);
  EXPECT_NE(p.describe().find("kprobe"), std::string::npos);
  EXPECT_NE(p.describe().find("2.15"), std::string::npos);
}

TEST(LiveAttachPlan, NoModeSaysWhatToDo) {
  Options o;
  LustreEnv env;
  env.lnet_loaded = true;
  env.kprobes = true;
  env.version = "2.12.9";
  try {
    plan_attach(o, env);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no attach mode fits"), std::string::npos);
    EXPECT_NE(e.hint().find("--btf"), std::string::npos);
    EXPECT_NE(e.hint().find("pahole"), std::string::npos);
  }
  o.lustre_version = "2.16.0";  // the override picks a table
  EXPECT_EQ(plan_attach(o, env).mode, AttachMode::kKprobe);
  o.attach_mode = "fentry";
  EXPECT_THROW(plan_attach(o, env), Error);  // no module BTF
  o.attach_mode = "uprobe";
  EXPECT_THROW(plan_attach(o, env), Error);
  env.kprobes = false;
  o.attach_mode = "kprobe";
  EXPECT_THROW(plan_attach(o, env), Error);
}

}  // namespace
}  // namespace lnetcap::live
