// SPDX-License-Identifier: GPL-2.0-or-later
#include "merge_source.h"

#include <cstdio>

#include "../error.h"
#include "../signals.h"

namespace lnetcap::subscribe {

MergeSource::MergeSource(std::vector<std::unique_ptr<TimedSource>> streams) {
  for (auto& s : streams) {
    Stream st;
    st.source = std::move(s);
    streams_.push_back(std::move(st));
  }
}

void MergeSource::request_stop() {
  for (auto& s : streams_) s.source->request_stop();
}

void MergeSource::sync_interfaces(Stream& s) {
  const auto& theirs = s.source->interfaces();
  while (s.ids.size() < theirs.size()) {
    s.ids.push_back(static_cast<std::uint32_t>(interfaces_.size()));
    interfaces_.push_back(theirs[s.ids.size() - 1]);
  }
}

bool MergeSource::next(CapturedRecord& out) {
  for (;;) {
    // Fill every empty head; an idle stream answers with an empty tick.
    bool ticked = false;
    for (auto& s : streams_) {
      if (s.handed_out) s.has_head = s.handed_out = false;  // the pipeline is done with it
      if (s.ended || s.has_head) continue;
      bool got = false;
      try {
        got = s.source->next(s.head);
      } catch (const Error& e) {
        // One stream lost (its daemon died or went silent): the others go
        // on, and every record already received from any stream is still
        // written; the error is raised once they have all ended.
        std::fprintf(stderr, "lnetcap: warning: %s; merging the other streams without it\n", e.what());
        if (!failure_) failure_ = std::make_unique<Error>(e);
        s.ended = true;
        continue;
      }
      if (!got) {
        s.ended = true;
      } else if (s.head.bytes.empty()) {
        ticked = true;
      } else {
        s.has_head = true;
      }
    }
    // `<=`: of equal timestamps the stream given last goes first, as
    // mergecap (wiretap/merge.c) picks among its files.  The client's and
    // the server's records of one message often tie to the nanosecond.
    Stream* oldest = nullptr;
    for (auto& s : streams_)
      if (s.has_head && (!oldest || s.head.ts_ns <= oldest->head.ts_ns)) oldest = &s;
    if (!oldest) {
      bool all_ended = true;
      for (auto& s : streams_) all_ended = all_ended && s.ended;
      if (all_ended) {
        if (failure_) {
          auto e = std::move(failure_);
          throw *e;  // exit non-zero, naming the stream that was lost
        }
        return false;
      }
    } else {
      bool safe = true;  // no stream may still send something older
      for (auto& s : streams_)
        if (!s.ended && !s.has_head && s.source->watermark_ns() < oldest->head.ts_ns) safe = false;
      if (safe) {
        sync_interfaces(*oldest);
        out = oldest->head;
        out.interface_id = oldest->ids[oldest->head.interface_id];
        oldest->handed_out = true;
        return true;
      }
    }
    if (ticked && (status_pending() || stop_requested())) {
      out = CapturedRecord{};
      return true;
    }
  }
}

SourceStats MergeSource::stats() const {
  SourceStats total;
  for (const auto& s : streams_) {
    const SourceStats one = s.source->stats();
    total.received += one.received;
    total.dropped += one.dropped;
    total.filtered += one.filtered;
    total.queue_dropped += one.queue_dropped;
    total.details.insert(total.details.end(), one.details.begin(), one.details.end());
    total.notes.insert(total.notes.end(), one.notes.begin(), one.notes.end());
  }
  return total;
}

}  // namespace lnetcap::subscribe
