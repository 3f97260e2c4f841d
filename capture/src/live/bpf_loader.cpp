// SPDX-License-Identifier: GPL-2.0-or-later
#ifdef LNETCAP_HAVE_BPF

#include "bpf_loader.h"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>

namespace lnetcap::live {
namespace {

int g_verbose = 0;

int print_fn(enum libbpf_print_level level, const char* fmt, va_list args) {
  if (level == LIBBPF_DEBUG && g_verbose < 2) return 0;
  if (level == LIBBPF_INFO && g_verbose < 2) return 0;
  if (level == LIBBPF_WARN && g_verbose < 1) return 0;
  std::fputs("libbpf: ", stderr);
  return std::vfprintf(stderr, fmt, args);
}

}  // namespace

void set_libbpf_verbosity(int verbose) {
  g_verbose = verbose;
  libbpf_set_print(print_fn);
}

int libbpf_verbosity() { return g_verbose; }

[[noreturn]] void throw_load_error(const char* step, int err, const std::string& what) {
  if (err > 0) err = -err;
  std::string msg = std::string("cannot ") + step + " the " + what + " eBPF programs: " +
                    std::strerror(-err);
  // The verifier refuses a program with EACCES too ("combined stack size
  // ... too large", an invalid access): as root that is no privilege matter.
  if (err == -EACCES && geteuid() == 0)
    throw Error(msg, "the kernel's verifier refused the programs; run with -vv for its log "
                     "and report it with `uname -r` and the Lustre version");
  if (err == -EPERM || err == -EACCES)
    throw Error(msg, "run as root, or give lnetcap CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN "
                     "(module BTF lookup; docs/EXTCAP.md); lockdown=confidentiality also "
                     "forbids reading kernel memory");
  if (err == -ESRCH || err == -ENOENT)
    throw Error(msg, "an LNet function or type was not found: check that the lnet module is "
                     "loaded; -v shows libbpf's details");
  if (err == -EINVAL || err == -E2BIG)
    throw Error(msg, "the kernel's verifier refused the programs; run with -vv for its log "
                     "and report it with `uname -r` and the Lustre version");
  throw Error(msg, "run with -vv for libbpf's details");
}

LoadedBpf::LoadedBpf(bpf_object* obj, std::function<void()> detach, std::function<void()> destroy,
                     int ring_fd, std::uint32_t ring_bytes, int pcpu_fd, std::uint32_t ncpus,
                     bool map_subfilter)
    : obj_(obj), detach_(std::move(detach)), destroy_(std::move(destroy)), ring_fd_(ring_fd),
      ring_bytes_(ring_bytes), ncpus_(ncpus) {
  std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  pcpu_len_ = (sizeof(lnetcap_pcpu) * ncpus + page - 1) / page * page;
  void* p = mmap(nullptr, pcpu_len_, PROT_READ, MAP_SHARED, pcpu_fd, 0);
  if (p == MAP_FAILED) {
    int e = errno;
    destroy_();
    throw Error(std::string("cannot map the lnetcap counters: ") + std::strerror(e));
  }
  pcpu_ = static_cast<const lnetcap_pcpu*>(p);
  // lnetcapd's clause table: only mapped when the programs read it.
  bpf_map* table = map_subfilter ? bpf_object__find_map_by_name(obj, "subfilter") : nullptr;
  if (table) {
    subfilter_len_ = (sizeof(lnetcap_subfilter) + page - 1) / page * page;
    p = mmap(nullptr, subfilter_len_, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(table), 0);
    if (p == MAP_FAILED) {
      int e = errno;
      munmap(const_cast<lnetcap_pcpu*>(pcpu_), pcpu_len_);
      destroy_();
      throw Error(std::string("cannot map lnetcapd's in-kernel clause table: ") + std::strerror(e));
    }
    subfilter_ = static_cast<lnetcap_subfilter*>(p);
  }
}

LoadedBpf::~LoadedBpf() {
  if (pcpu_) munmap(const_cast<lnetcap_pcpu*>(pcpu_), pcpu_len_);
  if (subfilter_) munmap(subfilter_, subfilter_len_);
  destroy_();
}

std::array<std::uint64_t, LNETCAP_STAT_COUNT> LoadedBpf::stats() const {
  std::array<std::uint64_t, LNETCAP_STAT_COUNT> sum{};
  for (std::uint32_t c = 0; c < ncpus_; ++c)
    for (int i = 0; i < LNETCAP_STAT_COUNT; ++i)
      sum[i] += __atomic_load_n(&pcpu_[c].stat[i], __ATOMIC_RELAXED);
  return sum;
}

void LoadedBpf::detach() {
  if (!detached_) detach_();
  detached_ = true;
}

}  // namespace lnetcap::live

#endif  // LNETCAP_HAVE_BPF
