// SPDX-License-Identifier: GPL-2.0-or-later
// kernel_memmap.h - how the BPF programs turn a struct page pointer into
// the address of its bytes (the direct map, as page_address() does), so
// page-vector payloads are readable without any kernel module: the
// addresses of vmemmap_base and page_offset_base from /proc/kallsyms,
// sizeof(struct page) from the kernel's BTF (lnetcap_abi.h, struct
// lnetcap_kmem).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lnetcap_abi.h"

namespace lnetcap::live {

struct KernelMemmap {
  lnetcap_kmem km{};
  /// "pages read through the direct map (...)", or why payload pages are
  /// unreadable; for -v and -D.
  std::string describe;
};

/// From the text of /proc/kallsyms, sizeof(struct page) (0 = unknown) and
/// the page size.  Pure, for tests.
KernelMemmap memmap_from_kallsyms(std::string_view kallsyms, std::uint32_t page_struct_size,
                                  std::uint32_t page_size);

/// The running kernel's (root: "/" or a fake tree for tests).
KernelMemmap detect_kernel_memmap(const std::string& root = "/");

}  // namespace lnetcap::live
