// SPDX-License-Identifier: GPL-2.0-or-later
// merge_source.h - several streams (one per `--from`) merged in time order,
// as mergecap merges files: the oldest head goes first and, as mergecap
// does, of heads with the same timestamp the stream given last.  A stream with nothing queued holds the merge back
// unless its watermark says nothing older can still come from it, so the
// result does not depend on which daemon answered faster.
//
// A stream that fails (lost contact, its daemon's source failed) ends
// there: the others go on, every record received from any stream is
// handed out, and its error is raised when they have all ended.
//
// Interfaces: each stream's interfaces, in the order they appear, get the
// next free pcapng interface id (so one per node and NI).
#pragma once

#include <memory>
#include <vector>

#include "../error.h"
#include "subscription_source.h"

namespace lnetcap::subscribe {

class MergeSource : public RecordSource {
 public:
  explicit MergeSource(std::vector<std::unique_ptr<TimedSource>> streams);
  bool next(CapturedRecord& out) override;
  const std::vector<CaptureInterface>& interfaces() const override { return interfaces_; }
  /// Sums over the streams; details are each stream's, in order.
  SourceStats stats() const override;
  void request_stop() override;

 private:
  struct Stream {
    std::unique_ptr<TimedSource> source;
    CapturedRecord head;
    bool has_head = false, ended = false;
    bool handed_out = false;        // head went to the pipeline: refill before use
    std::vector<std::uint32_t> ids;  // stream interface id -> merged id
  };
  void sync_interfaces(Stream& s);

  std::vector<Stream> streams_;
  std::vector<CaptureInterface> interfaces_;
  std::unique_ptr<Error> failure_;  // the first stream lost (raised at the end)
};

}  // namespace lnetcap::subscribe
