// SPDX-License-Identifier: GPL-2.0-or-later
#include "fake_lnet.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "bytes.h"
#include "error.h"
#include "lnetcap/lnet.h"
#include "lnetcap_bench.skel.h"
#include "lnetcap_uprobe.skel.h"

// The stand-ins: real symbols the uprobes attach to by name.  The asm
// keeps the compiler from dropping or merging them.
extern "C" {
__attribute__((noinline, used)) void lnet_ni_send(void* ni, void* msg) {
  asm volatile("" ::"r"(ni), "r"(msg) : "memory");
}
__attribute__((noinline, used)) int lnet_parse(void* ni, void* hdr, void* from_nid, void* priv,
                                               int rdma_req) {
  asm volatile("" ::"r"(ni), "r"(hdr), "r"(from_nid), "r"(priv), "r"(rdma_req) : "memory");
  auto body = std::move(lnetcap::test::parse_body);
  lnetcap::test::parse_body = nullptr;
  return body ? body() : 0;
}
__attribute__((noinline, used)) void lnet_finalize(void* msg, int rc) {
  asm volatile("" ::"r"(msg), "r"(rc) : "memory");
}
__attribute__((noinline, used)) int lnet_send(void* src_nid, void* msg, void* rtr_nid) {
  asm volatile("" ::"r"(src_nid), "r"(msg), "r"(rtr_nid) : "memory");
  return 0;
}
__attribute__((noinline, used)) void lnet_drop_message(void* ni, int cpt, void* priv, unsigned nob,
                                                       std::uint32_t type) {
  asm volatile("" ::"r"(ni), "r"(cpt), "r"(priv), "r"(nob), "r"(type) : "memory");
}
__attribute__((noinline, used)) void lnet_msg_commit(void* msg, int cpt) {
  asm volatile("" ::"r"(msg), "r"(cpt) : "memory");
}
__attribute__((noinline, used)) void lnet_handle_remote_failure_locked(void* lpni) {
  asm volatile("" ::"r"(lpni) : "memory");
}
__attribute__((noinline, used)) bool lnet_drop_rule_match(void* hdr, void* local_nid, void* hstatus) {
  asm volatile("" ::"r"(hdr), "r"(local_nid), "r"(hstatus) : "memory");
  return lnetcap::test::drop_rule_verdict;
}
}

namespace lnetcap::test {

std::function<int()> parse_body;
bool drop_rule_verdict = false;

std::string bpf_unprivileged_reason() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("CapEff:", 0) == 0) {
      unsigned long long eff = std::stoull(line.substr(7), nullptr, 16);
      bool admin = (eff >> 21) & 1, perfmon = (eff >> 38) & 1, bpf = (eff >> 39) & 1;
      if (admin || (bpf && perfmon)) return {};
      return "needs root or CAP_BPF+CAP_PERFMON";
    }
  }
  return "cannot read /proc/self/status";
}

std::vector<std::uint8_t> make_hdr(std::uint32_t type, const Nid& src, const Nid& dst,
                                   std::uint32_t payload_len, std::uint32_t portal) {
  std::vector<std::uint8_t> h(LNETCAP_HDR_NID16_LEN, 0);
  dst.to_lnet_nid(h.data());
  auto at = [&](std::size_t off) { return h.data() + off; };
  // Offsets of the nid16 header and of the PUT/GET in its msg union.
#define HDR(f) LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, f)
#define PUT(f) (HDR(msg) + LNETCAP_OFFSETOF(struct lnetcap_put, f))
#define GET(f) (HDR(msg) + LNETCAP_OFFSETOF(struct lnetcap_get, f))
  src.to_lnet_nid(at(HDR(src_nid)));
  store_le32(at(HDR(dest_pid)), 12345);
  store_le32(at(HDR(src_pid)), 12345);
  store_le32(at(HDR(type)), type);
  store_le32(at(HDR(payload_length)), payload_len);
  for (std::size_t i = 0; i < sizeof(struct lnetcap_handle_wire); ++i)
    *at(PUT(ack_wmd) + i) = static_cast<std::uint8_t>(0xa0 + i);  // wmd
  store_le64(at(PUT(match_bits)), 0x1122334455667788ull);
  if (type == LNETCAP_MSG_PUT) store_le32(at(PUT(ptl_index)), portal);
  if (type == LNETCAP_MSG_GET) store_le32(at(GET(ptl_index)), portal);
#undef HDR
#undef PUT
#undef GET
  return h;
}

FakeLnet::FakeLnet(const lnetcap_layout& lo)
    : lo_(lo), ni_(256, 0), ni2_(256, 0), peer_(512, 0), md_(512, 0), msg_(1024, 0), payload_(4096),
      dmap_((kPages + 1) * 4096), vmemmap_(kPages * kPageStruct), kiov_(16 * 64) {
  for (std::size_t i = 0; i < payload_.size(); ++i) payload_[i] = static_cast<std::uint8_t>(i * 7);
  auto a = reinterpret_cast<std::uintptr_t>(dmap_.data());
  dmap_base_ = dmap_.data() + ((4096 - a % 4096) % 4096);
  // Every byte of the direct map says where it is: page * 31 + offset.
  for (std::uint32_t p = 0; p < kPages; ++p)
    for (std::uint32_t o = 0; o < 4096; ++o)
      dmap_base_[p * 4096 + o] = static_cast<std::uint8_t>(p * 31 + o * 3 + (o >> 8));
}

void FakeLnet::set_kiov(const std::vector<Piece>& pieces, std::uint32_t msg_offset) {
  pieces_ = pieces;
  kiov_skip_ = msg_offset;
  std::fill(kiov_.begin(), kiov_.end(), 0);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    std::uint8_t* bv = kiov_.data() + i * LNETCAP_BVEC_SIZE;
    void* page = vmemmap_.data() + pieces[i].page * kPageStruct;
    std::memcpy(bv, &page, sizeof(page));
    std::memcpy(bv + LNETCAP_BVEC_LEN, &pieces[i].len, 4);
    std::memcpy(bv + LNETCAP_BVEC_OFFSET, &pieces[i].offset, 4);
  }
  put<std::uint32_t>(md_, lo_.md_options, LNETCAP_LNET_MD_KIOV);
  put<std::uint32_t>(msg_, lo_.msg_offset, msg_offset);
  put<std::uint32_t>(msg_, lo_.msg_niov, static_cast<std::uint32_t>(pieces.size()));
  put<void*>(msg_, lo_.msg_kiov, kiov_.data());
}

void FakeLnet::set_kiov_page_ptr(std::uint32_t i, std::uint64_t page) {
  std::memcpy(kiov_.data() + i * LNETCAP_BVEC_SIZE, &page, sizeof(page));
}

std::vector<std::uint8_t> FakeLnet::kiov_bytes(std::uint32_t n) const {
  std::vector<std::uint8_t> out;
  std::uint32_t skip = kiov_skip_;
  for (const auto& p : pieces_) {
    for (std::uint32_t o = 0; o < p.len && out.size() < n; ++o) {
      if (skip) {
        --skip;
        continue;
      }
      out.push_back(dmap_base_[p.page * 4096 + p.offset + o]);
    }
  }
  return out;
}

lnetcap_kmem FakeLnet::kmem(bool vars) {
  lnetcap_kmem km{};
  auto base = reinterpret_cast<std::uint64_t>(dmap_base_);
  auto vmemmap = reinterpret_cast<std::uint64_t>(vmemmap_.data());
  if (vars) {
    vars_[0] = base;
    vars_[1] = vmemmap;
    km.page_offset_var = reinterpret_cast<std::uint64_t>(&vars_[0]);
    km.vmemmap_var = reinterpret_cast<std::uint64_t>(&vars_[1]);
  } else {
    km.page_offset = base;
    km.vmemmap = vmemmap;
  }
  km.page_struct_size = kPageStruct;
  km.page_size = 4096;
  km.pages = 1;
  return km;
}

template <class T>
void FakeLnet::put(std::vector<std::uint8_t>& b, std::size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof(v));
}

void FakeLnet::set_ni(const Nid& nid, bool second) {
  nid.to_lnet_nid((second ? ni2_ : ni_).data() + lo_.ni_nid);
}
void FakeLnet::set_peer(const Nid& nid) { nid.to_lnet_nid(peer_.data() + lo_.lpni_nid); }
void FakeLnet::set_from(const Nid& nid) { nid.to_lnet_nid(msg_.data() + lo_.msg_from); }
void FakeLnet::set_hdr(const std::vector<std::uint8_t>& hdr) {
  std::memcpy(msg_.data() + lo_.msg_hdr, hdr.data(), hdr.size());
}

void FakeLnet::set_msg(std::uint32_t type, std::uint32_t len, std::uint32_t wanted, bool kiov_md,
                       bool no_md) {
  put<std::uint32_t>(msg_, lo_.msg_type, type);
  put<std::uint32_t>(msg_, lo_.msg_len, len);
  put<std::uint32_t>(msg_, lo_.msg_wanted, wanted);
  put<std::uint32_t>(msg_, lo_.msg_offset, 16);  // payload starts 16 bytes into the MD
  put<void*>(msg_, lo_.msg_txpeer, peer_.data());
  put<void*>(msg_, lo_.msg_txni, ni_.data());
  put<void*>(msg_, lo_.msg_rxni, ni_.data());
  put<void*>(msg_, lo_.msg_md, no_md ? nullptr : md_.data());
  put<char*>(md_, lo_.md_start, reinterpret_cast<char*>(payload_.data()));
  put<std::uint32_t>(md_, lo_.md_options, kiov_md ? LNETCAP_LNET_MD_KIOV : 0);
  set_md_aborted(false, false);
}

void FakeLnet::set_md_aborted(bool aborted, bool handler) {
  put<std::uint32_t>(md_, lo_.md_flags, aborted ? LNETCAP_LNET_MD_FLAG_ABORTED : 0);
  put<void*>(md_, lo_.md_handler, handler ? md_.data() : nullptr);  // any non-NULL
}

void FakeLnet::add_md_bits(std::uint32_t options, std::uint32_t flags) {
  std::uint32_t v = 0;
  std::memcpy(&v, md_.data() + lo_.md_options, sizeof(v));
  put<std::uint32_t>(md_, lo_.md_options, v | options);
  std::memcpy(&v, md_.data() + lo_.md_flags, sizeof(v));
  put<std::uint32_t>(md_, lo_.md_flags, v | flags);
}

void FakeLnet::set_flags(bool tx_committed, bool rx_committed, bool routing) {
  auto set = [&](std::uint16_t byte, std::uint8_t bit, bool on) {
    if (on)
      msg_[byte] |= static_cast<std::uint8_t>(1u << bit);
    else
      msg_[byte] &= static_cast<std::uint8_t>(~(1u << bit));
  };
  set(lo_.msg_tx_committed_byte, lo_.msg_tx_committed_bit, tx_committed);
  set(lo_.msg_rx_committed_byte, lo_.msg_rx_committed_bit, rx_committed);
  set(lo_.msg_routing_byte, lo_.msg_routing_bit, routing);
}

void FakeLnet::set_health(int status, int retries) {
  put<int>(msg_, lo_.msg_health_status, status);
  put<int>(msg_, lo_.msg_retry_count, retries);
}

std::vector<std::uint8_t> FakeLnet::arena() const {
  std::vector<std::uint8_t> a(8192, 0);
  auto put_at = [&](std::size_t off, const std::vector<std::uint8_t>& v, std::size_t max) {
    std::memcpy(a.data() + off, v.data(), std::min(v.size(), max));
  };
  put_at(0, ni_, 512);
  put_at(512, peer_, 512);
  put_at(1024, md_, 1024);
  put_at(2048, msg_, 1024);
  put_at(4096, payload_, 4096);
  return a;
}

KernelBenchCapture::KernelBenchCapture(const lnetcap_cfg& cfg, std::uint32_t ring_bytes,
                                       const FakeLnet& fake) {
  bpf_ = live::load_skeleton<lnetcap_bench>(cfg, ring_bytes, false, "kernel bench");
  obj_ = bpf_->object();
  bpf_map* m = bpf_object__find_map_by_name(obj_, "arena");
  std::uint32_t zero = 0;
  auto a = fake.arena();
  if (!m || bpf_map_update_elem(bpf_map__fd(m), &zero, a.data(), 0) != 0)
    throw Error(std::string("cannot fill the bench arena: ") + std::strerror(errno));
}

int KernelBenchCapture::send(std::uint32_t n) {
  bpf_program* prog = bpf_object__find_program_by_name(obj_, "lnetcap_bench_kernel");
  std::uint64_t args[1] = {n};
  LIBBPF_OPTS(bpf_test_run_opts, topts, .ctx_in = args, .ctx_size_in = sizeof(args));
  int err = bpf_prog_test_run_opts(bpf_program__fd(prog), &topts);
  return err ? err : static_cast<int>(topts.retval);
}

lnetcap_cfg default_cfg(std::uint32_t snaplen) {
  Options o;
  o.snaplen = snaplen;
  return live::make_cfg(o, filter::Filter(), live::builtin_layout("2.16.0")->lo, snaplen);
}

UprobeCapture::UprobeCapture(const lnetcap_cfg& cfg, std::uint32_t ring_bytes) {
  bpf_ = live::load_skeleton<lnetcap_uprobe>(cfg, ring_bytes, false, "uprobe test");
  obj_ = bpf_->object();
  struct Hook {
    const char* prog;
    const char* fn;
    bool ret;
  };
  const Hook hooks[] = {
      {"lnetcap_uprobe_lnet_ni_send", "lnet_ni_send", false},
      {"lnetcap_uprobe_lnet_parse", "lnet_parse", false},
      {"lnetcap_uprobe_lnet_finalize", "lnet_finalize", false},
      {"lnetcap_uprobe_lnet_send", "lnet_send", false},
      {"lnetcap_uprobe_lnet_drop_message", "lnet_drop_message", false},
      {"lnetcap_uprobe_lnet_msg_commit", "lnet_msg_commit", false},
      {"lnetcap_uprobe_lnet_handle_remote_failure_locked", "lnet_handle_remote_failure_locked",
       false},
      {"lnetcap_uretprobe_lnet_parse", "lnet_parse", true},
      {"lnetcap_uretprobe_lnet_drop_rule_match", "lnet_drop_rule_match", true},
  };
  for (const auto& [prog_name, fn, ret] : hooks) {
    bpf_program* prog = bpf_object__find_program_by_name(obj_, prog_name);
    if (!prog) throw Error(std::string("no program ") + prog_name);
    LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = ret, .func_name = fn);
    bpf_link* link = bpf_program__attach_uprobe_opts(prog, 0, "/proc/self/exe", 0, &uo);
    if (!link) throw Error(std::string("cannot attach uprobe to ") + fn + ": " + std::strerror(errno));
    links_.push_back(link);
  }
}

UprobeCapture::~UprobeCapture() {
  for (auto* l : links_) bpf_link__destroy(l);
}

int UprobeCapture::bench_send(void* ni, void* msg, std::uint32_t n) {
  bpf_program* prog = bpf_object__find_program_by_name(obj_, "lnetcap_bench_ni_send");
  std::uint64_t args[3] = {reinterpret_cast<std::uint64_t>(ni), reinterpret_cast<std::uint64_t>(msg), n};
  LIBBPF_OPTS(bpf_test_run_opts, topts, .ctx_in = args, .ctx_size_in = sizeof(args));
  int err = bpf_prog_test_run_opts(bpf_program__fd(prog), &topts);
  return err ? err : static_cast<int>(topts.retval);
}

}  // namespace lnetcap::test
