// SPDX-License-Identifier: GPL-2.0-or-later
// file_source.h - records from an lnetcap pcapng file (-r).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "pcapng/reader.h"
#include "source.h"

namespace lnetcap {

class LnetcapFileSource : public RecordSource {
 public:
  explicit LnetcapFileSource(const std::string& path);
  /// An open stream that cannot be reopened (see pcapng::Reader).
  LnetcapFileSource(std::FILE* stream, const std::string& name) : reader_(stream, name) {}
  /// Next valid record.  A damaged record (see skip_damaged) is an Error
  /// unless a handler was given; a broken block framing always is, and its
  /// message says how many records were read before it.
  bool next(CapturedRecord& out) override;

  using DamageHandler = std::function<void(const DamagedRecord&)>;
  /// Read past damaged records - a block whose framing is whole but that
  /// holds no valid lnetcap record - handing each to report and counting it
  /// in stats().damaged.  Without a handler the first one is fatal: a
  /// caller cannot lose records without being told of them.
  void skip_damaged(DamageHandler report) { on_damaged_ = std::move(report); }

  const std::vector<CaptureInterface>& interfaces() const override { return interfaces_; }
  SourceStats stats() const override { return stats_; }
  /// Ctrl-C, or a reader that went away: stop before the next record.
  void request_stop() override { stopped_ = true; }
  /// Bytes of the file consumed so far and its size (0 when unknown), for a
  /// progress indicator.
  std::uint64_t position() const;
  std::uint64_t size() const { return size_; }
  /// The file's first section header: who captured it, where, how (its
  /// comments, application, OS and hardware), kept when it is rewritten.
  const pcapng::SectionInfo& provenance() const { return reader_.sections().front(); }

  /// True when path is a pcapng whose first packet (or, without packets,
  /// every interface) uses the lnetcap link type.
  static bool is_lnetcap_capture(const std::string& path);

 private:
  void sync_interfaces();
  bool read_packet();
  void damaged(std::uint64_t offset, std::uint64_t number, const std::string& why);
  std::string where(std::uint64_t offset) const;
  std::string read_so_far() const;
  void count_drops();
  void hand_over_drops(CapturedRecord& out);

  pcapng::Reader reader_;
  pcapng::Packet packet_;
  std::vector<CaptureInterface> interfaces_;
  SourceStats stats_;
  std::uint64_t size_ = 0;
  std::uint64_t offset_ = 0;
  bool stopped_ = false;
  DamageHandler on_damaged_;
  // Kernel drops reported by packets not yet delivered (a damaged record's
  // epb_dropcount), for the next record delivered.
  std::optional<std::uint64_t> drops_pending_;
};

}  // namespace lnetcap
