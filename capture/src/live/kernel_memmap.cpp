// SPDX-License-Identifier: GPL-2.0-or-later
#include "kernel_memmap.h"

#include <unistd.h>

#include <charconv>
#include <fstream>
#include <sstream>

#ifdef LNETCAP_HAVE_BPF
#include <bpf/btf.h>
#endif

namespace lnetcap::live {
namespace {

// The size of struct page in the kernel's BTF, 0 when there is none.
std::uint32_t page_struct_size_from_btf(const std::string& path) {
#ifdef LNETCAP_HAVE_BPF
  btf* b = btf__parse(path.c_str(), nullptr);
  if (!b) return 0;
  std::uint32_t size = 0;
  std::int32_t id = btf__find_by_name_kind(b, "page", BTF_KIND_STRUCT);
  if (id > 0) size = btf__type_by_id(b, id)->size;
  btf__free(b);
  return size;
#else
  (void)path;
  return 0;
#endif
}

}  // namespace

KernelMemmap memmap_from_kallsyms(std::string_view kallsyms, std::uint32_t page_struct_size,
                                  std::uint32_t page_size) {
  KernelMemmap m;
#if !defined(__x86_64__)
  (void)kallsyms, (void)page_struct_size, (void)page_size;
  m.describe = "pages unreadable: page translation is implemented for x86_64 only";
  return m;
#else
  std::uint64_t page_offset_var = 0, vmemmap_var = 0;
  bool any_address = false, any_symbol = false;
  std::size_t pos = 0;
  while (pos < kallsyms.size()) {
    std::size_t eol = kallsyms.find('\n', pos);
    if (eol == std::string_view::npos) eol = kallsyms.size();
    std::string_view line = kallsyms.substr(pos, eol - pos);
    pos = eol + 1;
    // "ffffffff82a1b2c8 D page_offset_base"
    std::uint64_t addr = 0;
    auto r = std::from_chars(line.data(), line.data() + line.size(), addr, 16);
    if (r.ec != std::errc{}) continue;
    any_symbol = true;
    any_address = any_address || addr != 0;
    std::size_t name_at = line.rfind(' ');
    if (name_at == std::string_view::npos) continue;
    std::string_view name = line.substr(name_at + 1);
    if (name == "page_offset_base") page_offset_var = addr;
    if (name == "vmemmap_base") vmemmap_var = addr;
  }
  if (!any_symbol || !any_address) {
    m.describe = "pages unreadable: /proc/kallsyms " +
                 std::string(any_symbol ? "hides kernel addresses (kernel.kptr_restrict)"
                                        : "is not readable") +
                 "; run as root or with CAP_SYSLOG";
    return m;
  }
  m.km.page_struct_size = page_struct_size ? page_struct_size : 64;
  m.km.page_size = page_size;
  if (page_offset_var && vmemmap_var) {
    m.km.page_offset_var = page_offset_var;
    m.km.vmemmap_var = vmemmap_var;
    m.describe = "pages read through the direct map (page_offset_base, vmemmap_base";
  } else {
    // No randomized memory layout: the fixed 4-level map (5-level paging
    // always has the variables).
    m.km.page_offset = LNETCAP_X86_PAGE_OFFSET_L4;
    m.km.vmemmap = LNETCAP_X86_VMEMMAP_L4;
    m.describe = "pages read through the direct map (fixed layout";
  }
  m.describe += page_struct_size ? ", struct page from BTF)" : ", struct page assumed 64 bytes)";
  m.km.pages = 1;
  return m;
#endif
}

KernelMemmap detect_kernel_memmap(const std::string& root_in) {
  std::string root = root_in.empty() || root_in.back() == '/' ? root_in : root_in + "/";
  std::ifstream in(root + "proc/kallsyms");
  std::stringstream ss;
  if (in) ss << in.rdbuf();
  auto page = static_cast<std::uint32_t>(sysconf(_SC_PAGESIZE));
  return memmap_from_kallsyms(ss.str(), page_struct_size_from_btf(root + "sys/kernel/btf/vmlinux"),
                              page);
}

}  // namespace lnetcap::live
