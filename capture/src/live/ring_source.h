// SPDX-License-Identifier: GPL-2.0-or-later
// ring_source.h - the RecordSource over loaded lnetcap BPF programs: pulls
// records out of the ring in place, validates them, stamps UTC time, maps
// the local NI to a pcapng interface and turns sequence gaps into
// epb_dropcount.
#pragma once

#ifdef LNETCAP_HAVE_BPF

#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "../source.h"
#include "bpf_loader.h"
#include "layout_check.h"
#include "ring_reader.h"
#include "self_check.h"
#include "seq_tracker.h"

namespace lnetcap::live {

class RingSource : public RecordSource {
 public:
  /// nis: local NIDs known at start (one pcapng interface each, in order);
  /// interfaces for other local NIDs are added as records show them.
  /// layout_origin: where the struct offsets came from; when not empty,
  /// the first records are checked (LayoutCheck) and an implausible one
  /// stops the capture with an Error naming it.
  RingSource(std::unique_ptr<LoadedBpf> bpf, const std::vector<std::string>& nis,
             std::uint32_t snaplen, std::string description, std::string layout_origin = {});

  bool next(CapturedRecord& out) override;
  const std::vector<CaptureInterface>& interfaces() const override { return ifaces_; }
  SourceStats stats() const override;
  void request_stop() override { stop_.store(true, std::memory_order_relaxed); }
  lnetcap_subfilter* kernel_clause_table() override { return bpf_->subfilter(); }

  /// The start-up self-check (self_check.h), before the first next():
  /// pings 0@lo from this thread (tid must be the programs'
  /// lnetcap_cfg.self_tid) and judges the records it made.  Everything else
  /// the ring held meanwhile is kept for next(); the ping's own records are
  /// never delivered.
  SelfCheckResult self_check(std::uint32_t tid);

  /// Samples that failed validation (a bug if ever non-zero).
  std::uint64_t invalid() const { return invalid_; }
  LoadedBpf& bpf() { return *bpf_; }
  /// Poll timeout: how long an idle tail may wait without a wake-up.
  static constexpr int kPollMs = 100;

 private:
  std::uint32_t interface_for(const std::uint8_t* raw_nid);
  std::uint32_t add_interface(const std::string& name, const std::string& key);

  std::unique_ptr<LoadedBpf> bpf_;
  RingReader ring_;
  SeqTracker seqs_;
  std::vector<CaptureInterface> ifaces_;
  std::unordered_map<std::string, std::uint32_t> by_nid_;  // raw 20-byte NID -> interface
  std::string last_key_;
  std::uint32_t last_iface_ = 0;
  std::uint32_t rec_snaplen_;
  std::string description_;
  std::string layout_origin_;
  LayoutCheck check_;
  std::int64_t mono_to_utc_ns_ = 0;
  std::atomic<bool> stop_{false};
  bool draining_ = false;
  std::uint64_t received_ = 0;
  std::uint64_t invalid_ = 0;
  // Samples drained by self_check(), delivered (or, self == the
  // self-check's own, skipped) before the ring is read again.
  struct Held {
    std::vector<std::uint8_t> bytes;
    bool self = false;
  };
  std::deque<Held> held_;
  std::vector<std::uint8_t> current_;  // the held sample handed out last
};

}  // namespace lnetcap::live

#endif  // LNETCAP_HAVE_BPF
