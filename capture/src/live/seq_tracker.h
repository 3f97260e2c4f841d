// SPDX-License-Identifier: GPL-2.0-or-later
// seq_tracker.h - turns per-CPU record sequence gaps into per-record drop
// counts (pcapng epb_dropcount).  The BPF side takes a sequence number for
// every message that passed the filter, before reserving ring space, so a
// reservation that failed leaves a gap on that CPU.
#pragma once

#include <cstdint>
#include <vector>

namespace lnetcap::live {

class SeqTracker {
 public:
  /// Records lost on `cpu` since the previous record from that CPU.
  /// Sequences start at 0 when the programs are loaded.  A record that
  /// arrives late (fentry programs can be preempted between taking a
  /// number and committing) reports 0 and does not move the expectation;
  /// its earlier absence was already counted, so the per-record counts can
  /// over-report by such stragglers, never under-report.
  std::uint64_t observe(std::uint32_t cpu, std::uint64_t seq) {
    if (cpu >= next_.size()) next_.resize(cpu + 1, 0);
    std::uint64_t& want = next_[cpu];
    if (seq < want) return 0;
    std::uint64_t lost = seq - want;
    want = seq + 1;
    return lost;
  }

 private:
  std::vector<std::uint64_t> next_;
};

}  // namespace lnetcap::live
