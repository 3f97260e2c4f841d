// SPDX-License-Identifier: GPL-2.0-or-later
// bpf_loader.h - open, configure, load and attach one lnetcap skeleton, and
// own it afterwards.  A template over the skeleton type because each attach
// flavour (bpf/CMakeLists.txt) is its own skeleton; they share the maps and
// the .rodata cfg by construction (same source).
#pragma once

#ifdef LNETCAP_HAVE_BPF

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "../error.h"
#include "lnetcap_abi.h"

namespace lnetcap::live {

/// A loaded (and usually attached) set of lnetcap programs.
class LoadedBpf {
 public:
  LoadedBpf(bpf_object* obj, std::function<void()> detach, std::function<void()> destroy,
            int ring_fd, std::uint32_t ring_bytes, int pcpu_fd, std::uint32_t ncpus,
            bool map_subfilter = false);
  ~LoadedBpf();
  LoadedBpf(const LoadedBpf&) = delete;
  LoadedBpf& operator=(const LoadedBpf&) = delete;

  bpf_object* object() const { return obj_; }
  int ring_fd() const { return ring_fd_; }
  std::uint32_t ring_bytes() const { return ring_bytes_; }
  /// Counters summed over CPUs, read from the mmapped map (no syscall, so it
  /// still works after -Z dropped CAP_BPF).
  std::array<std::uint64_t, LNETCAP_STAT_COUNT> stats() const;
  /// lnetcapd's clause table, mapped writable (nullptr unless the programs
  /// were loaded with cfg.filter_sub).  Mapped like the counters, so it
  /// can be rewritten after -Z dropped CAP_BPF.
  lnetcap_subfilter* subfilter() const { return subfilter_; }
  /// Stops new records (destroys the links); the ring stays readable.
  void detach();

 private:
  bpf_object* obj_;
  std::function<void()> detach_, destroy_;
  int ring_fd_;
  std::uint32_t ring_bytes_;
  const lnetcap_pcpu* pcpu_ = nullptr;
  std::size_t pcpu_len_ = 0;
  lnetcap_subfilter* subfilter_ = nullptr;
  std::size_t subfilter_len_ = 0;
  std::uint32_t ncpus_;
  bool detached_ = false;
};

/// Turns a libbpf failure into the user-facing error (privileges, verifier,
/// missing attach target).
[[noreturn]] void throw_load_error(const char* step, int err, const std::string& what);

/// Routes libbpf's messages to stderr by -v level (0: none, 1: warnings,
/// 2+: debug).
void set_libbpf_verbosity(int verbose);
int libbpf_verbosity();

/// Bytes of each CPU's slot in map "pages" (bpf/lnetcap_pages.bpf.h):
/// two u32 totals, then snaplen's bit mask + 1 plus two pieces of data.
inline std::uint32_t pages_slot_bytes(std::uint32_t snaplen) {
  std::uint32_t m = snaplen;
  for (int sh = 1; sh < 32; sh <<= 1) m |= m >> sh;
  return 8 + m + 1 + 2 * LNETCAP_PIECE_MAX;
}

/// Opens Skel, writes cfg and the map sizes, loads and, if attach, attaches
/// every auto-attachable program.
template <class Skel>
std::unique_ptr<LoadedBpf> load_skeleton(const lnetcap_cfg& cfg, std::uint32_t ring_bytes,
                                         bool attach, const std::string& what) {
  Skel* s = Skel::open();
  if (!s) throw_load_error("open", -errno, what);
  std::unique_ptr<Skel, void (*)(Skel*)> guard(s, [](Skel* p) { Skel::destroy(p); });
  std::memcpy(const_cast<void*>(static_cast<const volatile void*>(&s->rodata->cfg)), &cfg,
              sizeof(cfg));
  int ncpus = libbpf_num_possible_cpus();
  if (ncpus <= 0) ncpus = 1;
  int err = bpf_map__set_max_entries(s->maps.events, ring_bytes);
  if (!err) err = bpf_map__set_max_entries(s->maps.pcpu, static_cast<std::uint32_t>(ncpus));
  // One slot per CPU for payloads gathered from several pages.
  if (!err) err = bpf_map__set_max_entries(s->maps.pages, static_cast<std::uint32_t>(ncpus));
  if (!err) err = bpf_map__set_value_size(s->maps.pages, pages_slot_bytes(cfg.snaplen));
  if (err) throw_load_error("size maps of", err, what);
  // -vv: the verifier's statistics of every program ("processed N insns"),
  // how docs/PERFORMANCE.md counts what the in-kernel filter costs.
  if (libbpf_verbosity() >= 2) {
    bpf_program* p;
    bpf_object__for_each_program(p, s->obj) bpf_program__set_log_level(p, 4);
  }
  err = Skel::load(s);
  if (err) throw_load_error("load", err, what);
  if (attach) {
    err = Skel::attach(s);
    if (err) throw_load_error("attach", err, what);
  }
  Skel* raw = guard.release();
  return std::make_unique<LoadedBpf>(
      raw->obj, [raw] { Skel::detach(raw); }, [raw] { Skel::destroy(raw); },
      bpf_map__fd(raw->maps.events), ring_bytes, bpf_map__fd(raw->maps.pcpu),
      static_cast<std::uint32_t>(ncpus), cfg.filter_sub != 0);
}

}  // namespace lnetcap::live

#endif  // LNETCAP_HAVE_BPF
