// SPDX-License-Identifier: GPL-2.0-or-later
// live_layout_test.cpp - derives the built-in Lustre struct offsets
// (capture/src/live/layout_tables.cpp) from mirrors of the Lustre
// declarations and checks the table against them.
//
// The mirrors repeat, member by member and with the same C types, the
// declarations of struct lnet_msg, lnet_libmd, lnet_ni and lnet_peer_ni in
// lnet/include/lnet/lib-types.h at lustre-release tags v2_15_0, v2_16_0 and
// v2_17_0, and include/linux/lnet/lib-types.h at v2_17_55 (struct
// lnet_event, lnet_nid and lnet_processid from the uapi headers), up to
// the last member lnetcap reads.
// Kernel types are their x86_64 production sizes: list_head 16,
// spinlock_t 4 (no spinlock debugging), atomic_t 4, ktime_t/time64_t 8.
// Bitfield positions are found by setting the field in a zeroed mirror.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "live/layout.h"

namespace {
namespace k {

struct list_head { list_head *next, *prev; };
struct spinlock_t { unsigned int raw; };
struct atomic_t { int counter; };
using ktime_t = long long;
struct __attribute__((packed)) lnet_nid {
  std::uint8_t nid_size, nid_type;
  std::uint16_t nid_num;
  std::uint32_t nid_addr[4];
};
struct lnet_processid { lnet_nid nid; std::uint32_t pid; };
struct lnet_handle_md { std::uint64_t cookie; };
struct lnet_event {
  lnet_processid target, initiator, source;
  lnet_nid sender;
  int type;
  unsigned pt_index;
  std::uint64_t match_bits;
  unsigned rlength, mlength;
  lnet_handle_md md_handle;
  void *md_start, *md_user_ptr;
  unsigned md_options;
  std::uint64_t hdr_data;
  std::uint32_t msg_type;
  int status, unlinked;
  unsigned offset;
  unsigned long sequence;
};
struct __attribute__((packed)) lnet_hdr { std::uint8_t bytes[96]; };

#define LNETCAP_MIRROR_MSG_START                                                     \
  list_head msg_activelist, msg_list;                                                \
  lnet_processid msg_target;                                                         \
  lnet_nid msg_initiator, msg_from;                                                  \
  std::uint32_t msg_type;                                                            \
  lnet_nid msg_src_nid_param, msg_rtr_nid_param;                                     \
  ktime_t msg_deadline;
#define LNETCAP_MIRROR_MSG_HEALTH                                                    \
  int msg_health_status; /* enum lnet_msg_hstatus */                                 \
  bool msg_recovery;
#define LNETCAP_MIRROR_MSG_HEAD LNETCAP_MIRROR_MSG_START LNETCAP_MIRROR_MSG_HEALTH
#define LNETCAP_MIRROR_MSG_TAIL                                                      \
  int msg_retry_count;                                                               \
  bool msg_no_resend;                                                                \
  unsigned msg_tx_committed : 1, msg_tx_cpt : 15, msg_rx_committed : 1,              \
      msg_rx_cpt : 15, msg_tx_delayed : 1, msg_rx_delayed : 1, msg_rx_ready_delay : 1; \
  unsigned msg_vmflush : 1, msg_target_is_router : 1, msg_routing : 1, msg_ack : 1,  \
      msg_sending : 1, msg_receiving : 1, msg_txcredit : 1, msg_peertxcredit : 1,    \
      msg_rtrcredit : 1, msg_peerrtrcredit : 1, msg_onactivelist : 1, msg_rdma_get : 1; \
  void *msg_txpeer, *msg_rxpeer, *msg_private, *msg_md, *msg_txni, *msg_rxni;        \
  unsigned msg_len, msg_wanted, msg_offset, msg_niov;                                \
  void* msg_kiov;                                                                    \
  lnet_event msg_ev;                                                                 \
  lnet_hdr msg_hdr;

// v2_15_0 has `bool msg_rdma_force` after msg_recovery; v2_16_0 and
// v2_17_0 removed it.
struct lnet_msg_215 { LNETCAP_MIRROR_MSG_HEAD bool msg_rdma_force; LNETCAP_MIRROR_MSG_TAIL };
struct lnet_msg_216 { LNETCAP_MIRROR_MSG_HEAD LNETCAP_MIRROR_MSG_TAIL };
// v2_17_55 (commit 3ff6e87c90, LU-20426): msg_t_start and msg_t_end after
// msg_deadline.
struct lnet_msg_21755 {
  LNETCAP_MIRROR_MSG_START
  ktime_t msg_t_start;
  ktime_t msg_t_end;
  LNETCAP_MIRROR_MSG_HEALTH
  LNETCAP_MIRROR_MSG_TAIL
};

struct lnet_libhandle { list_head lh_hash_chain; std::uint64_t lh_cookie; };
struct lnet_libmd {
  list_head md_list;
  lnet_libhandle md_lh;
  void* md_me;
  char* md_start;
  unsigned md_offset, md_length, md_max_size;
  int md_threshold, md_refcount;
  unsigned md_options, md_flags, md_niov;
  void *md_user_ptr, *md_rspt_ptr;
  void (*md_handler)(void*);
  std::uint64_t md_bulk_handle;
  struct { void* page; unsigned len, offset; } md_kiov[1];
};
struct lnet_ni {
  list_head ni_netlist, ni_recovery;
  lnet_handle_md ni_ping_mdh;
  spinlock_t ni_lock;
  int ni_ncpts;
  std::uint32_t* ni_cpts;
  lnet_nid ni_nid;
};
struct lnet_comm_count { atomic_t get, put, reply, ack, hello; };
struct lnet_element_stats { lnet_comm_count send, recv, drop; };
struct lnet_health_remote_stats { atomic_t dropped, timeout, error, network_timeout; };
#define LNETCAP_MIRROR_LPNI_HEAD                                                     \
  list_head lpni_peer_nis, lpni_on_remote_peer_ni_list, lpni_recovery, lpni_hashlist,  \
      lpni_txq;                                                                        \
  void* lpni_peer_net;                                                                 \
  lnet_element_stats lpni_stats;                                                       \
  lnet_health_remote_stats lpni_hstats;
#define LNETCAP_MIRROR_LPNI_TAIL                                                     \
  spinlock_t lpni_lock;                                                                \
  int lpni_txcredits, lpni_mintxcredits, lpni_rtrcredits, lpni_minrtrcredits;          \
  long lpni_txqnob;                                                                    \
  void* lpni_net;                                                                      \
  lnet_nid lpni_nid;
struct lnet_peer_ni { LNETCAP_MIRROR_LPNI_HEAD LNETCAP_MIRROR_LPNI_TAIL };
// v2_17_55 (LU-20426): struct lnet_latency_stats
// lpni_latency[LNET_LATENCY_NR] (3) before lpni_lock.
struct atomic64_t { long long counter; };
struct lnet_latency_stats {
  atomic_t lls_samples;
  atomic64_t lls_sum_ns, lls_min_ns, lls_max_ns;
};
struct lnet_peer_ni_21755 {
  LNETCAP_MIRROR_LPNI_HEAD
  lnet_latency_stats lpni_latency[3];
  LNETCAP_MIRROR_LPNI_TAIL
};

}  // namespace k

struct Bit {
  std::size_t byte;
  int bit;
};
template <class M, class Set>
Bit find_bit(Set set) {
  M m;
  std::memset(&m, 0, sizeof(m));
  set(m);
  const auto* p = reinterpret_cast<const unsigned char*>(&m);
  for (std::size_t i = 0; i < sizeof(m); ++i)
    if (p[i]) return {i, __builtin_ctz(p[i])};
  return {0, -1};
}

template <class M, class P = k::lnet_peer_ni, std::size_t kMsgSize = 528>
void expect_msg_layout(const lnetcap_layout& lo) {
  EXPECT_EQ(lo.msg_type, offsetof(M, msg_type));
  EXPECT_EQ(lo.msg_from, offsetof(M, msg_from));
  EXPECT_EQ(lo.msg_health_status, offsetof(M, msg_health_status));
  EXPECT_EQ(lo.msg_retry_count, offsetof(M, msg_retry_count));
  EXPECT_EQ(lo.msg_txpeer, offsetof(M, msg_txpeer));
  EXPECT_EQ(lo.msg_md, offsetof(M, msg_md));
  EXPECT_EQ(lo.msg_txni, offsetof(M, msg_txni));
  EXPECT_EQ(lo.msg_rxni, offsetof(M, msg_rxni));
  EXPECT_EQ(lo.msg_len, offsetof(M, msg_len));
  EXPECT_EQ(lo.msg_wanted, offsetof(M, msg_wanted));
  EXPECT_EQ(lo.msg_offset, offsetof(M, msg_offset));
  EXPECT_EQ(lo.msg_niov, offsetof(M, msg_niov));
  EXPECT_EQ(lo.msg_kiov, offsetof(M, msg_kiov));
  EXPECT_EQ(lo.msg_hdr, offsetof(M, msg_hdr));
  Bit tx = find_bit<M>([](M& m) { m.msg_tx_committed = 1; });
  Bit rx = find_bit<M>([](M& m) { m.msg_rx_committed = 1; });
  Bit rt = find_bit<M>([](M& m) { m.msg_routing = 1; });
  EXPECT_EQ(lo.msg_tx_committed_byte, tx.byte);
  EXPECT_EQ(lo.msg_tx_committed_bit, tx.bit);
  EXPECT_EQ(lo.msg_rx_committed_byte, rx.byte);
  EXPECT_EQ(lo.msg_rx_committed_bit, rx.bit);
  EXPECT_EQ(lo.msg_routing_byte, rt.byte);
  EXPECT_EQ(lo.msg_routing_bit, rt.bit);
  // 2.16.1's module BTF says 528; 2.17.55 adds two ktime_t.
  EXPECT_EQ(sizeof(M), kMsgSize);
  EXPECT_EQ(lo.md_start, offsetof(k::lnet_libmd, md_start));
  EXPECT_EQ(lo.md_options, offsetof(k::lnet_libmd, md_options));
  EXPECT_EQ(lo.md_flags, offsetof(k::lnet_libmd, md_flags));
  EXPECT_EQ(lo.md_handler, offsetof(k::lnet_libmd, md_handler));
  EXPECT_EQ(lo.ni_nid, offsetof(k::lnet_ni, ni_nid));
  EXPECT_EQ(lo.lpni_nid, offsetof(P, lpni_nid));
  EXPECT_EQ(lo.md_niov, offsetof(k::lnet_libmd, md_niov));
  EXPECT_EQ(lo.md_kiov, offsetof(k::lnet_libmd, md_kiov));
}

TEST(LiveLayout, Lustre215TableMatchesMirror) {
  auto l = lnetcap::live::builtin_layout("2.15.0");
  ASSERT_TRUE(l);
  expect_msg_layout<k::lnet_msg_215>(l->lo);
}

TEST(LiveLayout, Lustre216To21754TablesMatchMirror) {
  for (const char* v : {"2.15.51", "2.16.0", "2.16.1", "2.16.55", "2.17.0", "2.17.52", "2.17.53",
                        "2.17.54", "2.17.54_3_g1a2b3c4"}) {
    auto l = lnetcap::live::builtin_layout(v);
    ASSERT_TRUE(l) << v;
    EXPECT_FALSE(l->candidate) << v;
    expect_msg_layout<k::lnet_msg_216>(l->lo);
  }
}

// Master from 2.17.55: lnet_msg from msg_health_status on moved 16 bytes,
// lpni_nid 104 (issue 31: 2.17.57 was read with the 2.17.0 table).
TEST(LiveLayout, Lustre21755TableMatchesMirror) {
  for (const char* v : {"2.17.55", "2.17.56", "2.17.57", "2.17.57_12_gabcdef0"}) {
    auto l = lnetcap::live::builtin_layout(v);
    ASSERT_TRUE(l) << v;
    EXPECT_FALSE(l->candidate) << v;
    expect_msg_layout<k::lnet_msg_21755, k::lnet_peer_ni_21755, 544>(l->lo);
  }
  EXPECT_EQ(lnetcap::live::builtin_layout("2.17.57")->lo.msg_hdr, 448);
  EXPECT_EQ(lnetcap::live::builtin_layout("2.17.57")->lo.lpni_nid, 304);
}

// Exact release ranges, never major.minor alone: a release not read gets
// no table, only a candidate the self-check has to prove.
TEST(LiveLayout, VersionSelection) {
  using lnetcap::live::builtin_layout;
  using lnetcap::live::candidate_layout;
  EXPECT_TRUE(builtin_layout("2.15.4_ddn12"));
  EXPECT_TRUE(builtin_layout("2.15.8"));
  EXPECT_NE(builtin_layout("2.16.1")->origin.find("2.15.0-2.17.54"), std::string::npos);
  EXPECT_NE(builtin_layout("2.17.57")->origin.find("2.17.55-2.17.57"), std::string::npos);
  for (const char* unread : {"2.15.9", "2.16.2", "2.17.1", "2.17.58", "2.18.0", "3.0.0"}) {
    EXPECT_FALSE(builtin_layout(unread)) << unread;
    auto c = candidate_layout(unread);
    ASSERT_TRUE(c) << unread;
    EXPECT_TRUE(c->candidate);
    EXPECT_NE(c->origin.find("candidate"), std::string::npos);
  }
  // The nearest older release's table.
  EXPECT_EQ(candidate_layout("2.16.2")->lo.msg_hdr, 432);
  EXPECT_EQ(candidate_layout("2.17.58")->lo.msg_hdr, 448);
  EXPECT_FALSE(candidate_layout("2.17.57"));  // exact, not a candidate
  EXPECT_FALSE(builtin_layout("2.14.0"));
  EXPECT_FALSE(candidate_layout("2.14.0"));
  EXPECT_FALSE(builtin_layout("2.16"));  // major.minor alone is not a release
  EXPECT_FALSE(builtin_layout("garbage"));
  EXPECT_FALSE(builtin_layout("2.16.1_lnetcap_double"));
  EXPECT_FALSE(builtin_layout(""));
  EXPECT_TRUE(lnetcap::live::lnet_0_7_0_candidate()->candidate);
}

// lnet_drop_rule_match's local_nid: lnet_nid_t value up to 2.15.50,
// struct lnet_nid * from 2.15.51 (LU-10391).
TEST(LiveLayout, DropRuleNidForm) {
  EXPECT_TRUE(lnetcap::live::builtin_layout("2.15.8")->drop_rule_nid4);
  EXPECT_FALSE(lnetcap::live::builtin_layout("2.15.51")->drop_rule_nid4);
  EXPECT_FALSE(lnetcap::live::builtin_layout("2.16.1")->drop_rule_nid4);
  EXPECT_FALSE(lnetcap::live::builtin_layout("2.17.57")->drop_rule_nid4);
}

}  // namespace
