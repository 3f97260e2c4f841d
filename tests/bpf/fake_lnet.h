// SPDX-License-Identifier: GPL-2.0-or-later
// fake_lnet.h - user-space stand-ins for the LNet functions lnetcap hooks,
// and fake Lustre objects laid out per the built-in Lustre 2.16 table, so
// the real hook programs (compiled as uprobes) run on this host.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "live/bpf_loader.h"
#include "live/capture_config.h"
#include "live/layout.h"
#include "nid.h"

extern "C" {
void lnet_ni_send(void* ni, void* msg);
int lnet_parse(void* ni, void* hdr, void* from_nid, void* priv, int rdma_req);
void lnet_finalize(void* msg, int rc);
int lnet_send(void* src_nid, void* msg, void* rtr_nid);
void lnet_drop_message(void* ni, int cpt, void* priv, unsigned nob, std::uint32_t type);
bool lnet_drop_rule_match(void* hdr, void* local_nid, void* hstatus);
void lnet_msg_commit(void* msg, int cpt);
void lnet_handle_remote_failure_locked(void* lpni);
}

namespace lnetcap::test {
/// What the stand-in lnet_parse does inside (LNet finalizes and drops
/// refused messages from within lnet_parse) and returns; reset by each
/// call.  lnet_drop_rule_match returns drop_rule_verdict.
extern std::function<int()> parse_body;
extern bool drop_rule_verdict;
}

namespace lnetcap::test {

/// 0 when this process may load tracing BPF programs, else a reason.
std::string bpf_unprivileged_reason();

/// An LNet header in the 96-byte in-memory form.
std::vector<std::uint8_t> make_hdr(std::uint32_t type, const Nid& src, const Nid& dst,
                                   std::uint32_t payload_len, std::uint32_t portal);

/// Fake struct lnet_ni / lnet_peer_ni / lnet_libmd / lnet_msg in one arena.
class FakeLnet {
 public:
  explicit FakeLnet(const lnetcap_layout& lo);
  void* ni() { return ni_.data(); }
  void* ni2() { return ni2_.data(); }
  void* msg() { return msg_.data(); }
  void* peer_nid() { return peer_.data() + lo_.lpni_nid; }
  void* peer() { return peer_.data(); }  // struct lnet_peer_ni
  std::uint8_t* hdr() { return msg_.data() + lo_.msg_hdr; }
  std::vector<std::uint8_t>& payload() { return payload_; }

  void set_ni(const Nid& nid, bool second = false);
  void set_peer(const Nid& nid);
  void set_hdr(const std::vector<std::uint8_t>& hdr);
  /// A send (or receive when rx) of len payload bytes from a contiguous MD.
  void set_msg(std::uint32_t type, std::uint32_t len, std::uint32_t wanted, bool kiov_md,
               bool no_md);
  /// One bio_vec of a page vector: a page of the fake direct map, and
  /// where in it the bytes are.
  struct Piece {
    std::uint32_t page, offset, len;
  };
  /// Makes msg's payload the page vector `pieces` (a KIOV MD), starting
  /// msg_offset bytes into it.  The pages live in a fake direct map whose
  /// struct pages sit in a fake vmemmap (kmem() describes both).
  void set_kiov(const std::vector<Piece>& pieces, std::uint32_t msg_offset);
  /// The bytes a page-vector payload holds from its first byte.
  std::vector<std::uint8_t> kiov_bytes(std::uint32_t n) const;
  /// The page translation for the fake maps; with vars, through fake
  /// page_offset_base / vmemmap_base variables as on a KASLR kernel.
  lnetcap_kmem kmem(bool vars);
  /// Overwrites the page pointer of bio_vec i (to test bad pointers).
  void set_kiov_page_ptr(std::uint32_t i, std::uint64_t page);
  void set_flags(bool tx_committed, bool rx_committed, bool routing);
  /// Marks msg's MD unlinked under it (LNET_MD_FLAG_ABORTED), with or
  /// without an event handler.
  void set_md_aborted(bool aborted, bool handler);
  /// Adds option and flag bits to msg's MD (GPU memory, LNET_MD_DISCARD).
  void add_md_bits(std::uint32_t options, std::uint32_t flags);
  void set_health(int status, int retries);
  void set_from(const Nid& nid);
  /// The objects packed into lnetcap_bench's 8 KiB arena (bpf/lnetcap.bpf.c:
  /// ni 0, peer 512, md 1024, msg 2048, payload 4096); the BPF side fixes up
  /// the pointer fields.
  std::vector<std::uint8_t> arena() const;

 private:
  template <class T> void put(std::vector<std::uint8_t>& b, std::size_t off, T v);
  lnetcap_layout lo_;
  std::vector<std::uint8_t> ni_, ni2_, peer_, md_, msg_, payload_;
  // The fake direct map (page aligned inside dmap_) and vmemmap.
  static constexpr std::uint32_t kPages = 8, kPageStruct = 64;
  std::vector<std::uint8_t> dmap_, vmemmap_, kiov_;
  std::uint8_t* dmap_base_ = nullptr;
  std::uint64_t vars_[2] = {};  // page_offset_base, vmemmap_base
  std::vector<Piece> pieces_;
  std::uint32_t kiov_skip_ = 0;
};

/// Loads the uprobe flavour and attaches it to the stand-ins above.
class UprobeCapture {
 public:
  UprobeCapture(const lnetcap_cfg& cfg, std::uint32_t ring_bytes);
  ~UprobeCapture();
  std::unique_ptr<live::LoadedBpf>& loaded() { return bpf_; }
  /// Runs the lnet_ni_send hook n times through BPF_PROG_TEST_RUN.
  int bench_send(void* ni, void* msg, std::uint32_t n);

 private:
  std::unique_ptr<live::LoadedBpf> bpf_;  // may be moved into a RingSource
  bpf_object* obj_ = nullptr;
  std::vector<bpf_link*> links_;
};

/// The benchmark flavour: the lnet_ni_send hook reading kernel memory (a
/// map value holding a FakeLnet arena), driven by BPF_PROG_TEST_RUN.
class KernelBenchCapture {
 public:
  KernelBenchCapture(const lnetcap_cfg& cfg, std::uint32_t ring_bytes, const FakeLnet& fake);
  std::unique_ptr<live::LoadedBpf>& loaded() { return bpf_; }
  int send(std::uint32_t n);

 private:
  std::unique_ptr<live::LoadedBpf> bpf_;
  bpf_object* obj_ = nullptr;
};

/// cfg with the 2.16 layout, all directions, the given snaplen.
lnetcap_cfg default_cfg(std::uint32_t snaplen);

}  // namespace lnetcap::test
