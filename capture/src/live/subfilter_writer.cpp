// SPDX-License-Identifier: GPL-2.0-or-later
#include "subfilter_writer.h"

#include <atomic>
#include <cstddef>
#include <cstring>

namespace lnetcap::live {

bool SubfilterWriter::publish(const filter::KernelClauseSet& set) {
  lnetcap_subfilter next{};
  filter::fill_table(set, next);
  // Everything after gen, compared and copied as bytes.
  constexpr std::size_t kBody = offsetof(lnetcap_subfilter, pass_all);
  auto* dst = reinterpret_cast<std::uint8_t*>(table_) + kBody;
  const auto* src = reinterpret_cast<const std::uint8_t*>(&next) + kBody;
  if (std::memcmp(dst, src, sizeof(next) - kBody) == 0) return false;

  std::atomic_ref<std::uint32_t> gen(table_->gen);
  const std::uint32_t g = gen.load(std::memory_order_relaxed);
  gen.store(g | 1u, std::memory_order_relaxed);          // odd: being written
  std::atomic_thread_fence(std::memory_order_release);   // ... before the clauses
  std::memcpy(dst, src, sizeof(next) - kBody);
  gen.store((g | 1u) + 1u, std::memory_order_release);   // even, and new
  ++updates_;
  return true;
}

}  // namespace lnetcap::live
