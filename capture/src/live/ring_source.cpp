// SPDX-License-Identifier: GPL-2.0-or-later
#ifdef LNETCAP_HAVE_BPF

#include "ring_source.h"
#include "codec/wire_reader.h"
#include "lnetcap/lnet.h"
#include "lnetcap/record.h"

#include <time.h>

#include <cstddef>
#include <cstdio>
#include <cstring>

#include "../bytes.h"
#include "../error.h"
#include "../nid.h"
#include "../record.h"
#include "../signals.h"

namespace lnetcap::live {
namespace {

std::int64_t ns(clockid_t c) {
  timespec ts{};
  clock_gettime(c, &ts);
  return std::int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

// bpf_ktime_get_ns() is CLOCK_MONOTONIC: measure its offset to UTC once,
// keeping the tightest of a few bracketed samples.
std::int64_t monotonic_to_utc() {
  std::int64_t best = 0, best_gap = INT64_MAX;
  for (int i = 0; i < 5; ++i) {
    std::int64_t m1 = ns(CLOCK_MONOTONIC), r = ns(CLOCK_REALTIME), m2 = ns(CLOCK_MONOTONIC);
    if (m2 - m1 < best_gap) {
      best_gap = m2 - m1;
      best = r - (m1 + (m2 - m1) / 2);
    }
  }
  return best;
}

constexpr std::size_t kEnv = sizeof(lnetcap_ring_env);

}  // namespace

RingSource::RingSource(std::unique_ptr<LoadedBpf> bpf, const std::vector<std::string>& nis,
                       std::uint32_t snaplen, std::string description,
                       std::string layout_origin)
    : bpf_(std::move(bpf)),
      ring_(bpf_->ring_fd(), bpf_->ring_bytes()),
      rec_snaplen_(LNETCAP_REC_HDR_LEN + LNETCAP_HDR_NID16_LEN + snaplen),
      description_(std::move(description)),
      layout_origin_(std::move(layout_origin)),
      check_(nis),
      mono_to_utc_ns_(monotonic_to_utc()) {
  for (const auto& name : nis) {
    std::string key;
    if (auto nid = Nid::parse(name)) {
      std::uint8_t raw[20];
      nid->to_lnet_nid(raw);
      key.assign(reinterpret_cast<const char*>(raw), sizeof(raw));
    }
    add_interface(name, key);
  }
}

std::uint32_t RingSource::add_interface(const std::string& name, const std::string& key) {
  CaptureInterface ci;
  ci.name = name;
  ci.description = "LNet NI " + name + (description_.empty() ? "" : ", " + description_);
  ci.os = "Linux";
  ci.snaplen = rec_snaplen_;
  ifaces_.push_back(std::move(ci));
  auto id = static_cast<std::uint32_t>(ifaces_.size() - 1);
  if (!key.empty()) by_nid_.emplace(key, id);
  return id;
}

std::uint32_t RingSource::interface_for(const std::uint8_t* raw_nid) {
  // Consecutive records almost always share the NI.
  if (last_key_.size() == 20 && std::memcmp(last_key_.data(), raw_nid, 20) == 0)
    return last_iface_;
  std::string key(reinterpret_cast<const char*>(raw_nid), 20);
  auto it = by_nid_.find(key);
  std::uint32_t id;
  if (it != by_nid_.end()) {
    id = it->second;
  } else {
    static const std::uint8_t zero[20] = {};
    std::string name = std::memcmp(raw_nid, zero, 20) == 0 ? std::string("unknown-ni")
                                                            : Nid::from_lnet_nid(raw_nid).to_string();
    id = add_interface(name, key);
  }
  last_key_ = std::move(key);
  last_iface_ = id;
  return id;
}

bool RingSource::next(CapturedRecord& out) {
  for (;;) {
    if (!draining_ && (stop_.load(std::memory_order_relaxed) || stop_requested())) {
      // No new records from here on; whatever is committed is delivered.
      bpf_->detach();
      draining_ = true;
    }
    std::optional<ByteSpan> s;
    bool self = false;
    if (!held_.empty()) {
      current_ = std::move(held_.front().bytes);
      self = held_.front().self;
      held_.pop_front();
      s = ByteSpan(current_.data(), current_.size());
    } else {
      s = ring_.next();
    }
    if (!s) {
      if (draining_) return false;
      ring_.wait(kPollMs);
      if (status_pending()) {  // idle: let the pipeline print its status line
        out = CapturedRecord{};
        return true;
      }
      continue;
    }
    if (s->size() < kEnv + LNETCAP_REC_HDR_V1_LEN) {
      ++invalid_;
      continue;
    }
    const std::uint8_t* rec = s->data() + kEnv;
    std::size_t avail = s->size() - kEnv;
    // The record's length from its own header, before parse_record checks it.
    const WireReader hr(ByteSpan(rec, avail));
    std::size_t len = std::size_t{hr.u16(LNETCAP_FIELD(struct lnetcap_rec_hdr, rec_hdr_len))} +
                      hr.u8(LNETCAP_FIELD(struct lnetcap_rec_hdr, lnet_hdr_len)) +
                      hr.u32(LNETCAP_FIELD(struct lnetcap_rec_hdr, payload_caplen));
    std::string why;
    std::optional<RecordView> view;
    if (len <= avail) view = parse_record(ByteSpan(rec, len), &why);
    if (!view) {
      if (++invalid_ == 1) std::fprintf(stderr, "lnetcap: skipping a bad kernel record: %s\n", why.c_str());
      continue;
    }
    if (self) {  // the self-check's ping: numbered, never delivered
      seqs_.observe(view->hdr.cpu, view->hdr.seq);
      continue;
    }
    if (!layout_origin_.empty() && !check_.done()) {
      if (auto bad = check_.problem(*view))
        throw Error("the struct offsets in use (" + layout_origin_ +
                        ") do not match the running lnet module: a captured message is "
                        "impossible (" + *bad + "), so nothing more is printed",
                    "make the offsets from Lustre's debuginfo (pahole "
                    "--btf_encode_detached=lnet.btf lnet.ko, then --btf lnet.btf), or name "
                    "the running release with --lustre-version X.Y; lnetcap -D -v shows what "
                    "was detected");
    }
    out.bytes = ByteSpan(rec, len);
    out.orig_len = record_orig_len(*view);
    out.ts_ns = static_cast<std::uint64_t>(static_cast<std::int64_t>(load_le64(s->data())) +
                                           mono_to_utc_ns_);
    out.interface_id = interface_for(rec + offsetof(struct lnetcap_rec_hdr, local_nid));
    out.drops_before = seqs_.observe(view->hdr.cpu, view->hdr.seq);
    out.has_drops_before = out.drops_before != 0;
    switch (view->hdr.direction) {
      case LNETCAP_DIR_RECV: out.epb_flags = 1; break;
      case LNETCAP_DIR_SEND:
      case LNETCAP_DIR_FORWARD: out.epb_flags = 2; break;
      default: out.epb_flags = 0; break;
    }
    out.comments.clear();
    ++received_;
    return true;
  }
}

SelfCheckResult RingSource::self_check(std::uint32_t tid) {
  SelfCheckResult out;
  std::string why;
  int rc = lnet_self_ping(&why);
  // The hooks ran in this thread, inside the ioctl: every record the ping
  // made is committed by now (a wrong table may have made fewer).  Drain
  // what the ring holds; other threads' records wait in held_.
  std::vector<std::vector<std::uint8_t>> mine;
  while (std::optional<ByteSpan> s = ring_.next()) {
    Held h;
    h.bytes.assign(s->data(), s->data() + s->size());
    if (s->size() >= kEnv + LNETCAP_REC_HDR_V1_LEN) {
      const WireReader hr(s->subspan(kEnv));
      h.self = hr.u32(LNETCAP_FIELD(struct lnetcap_rec_hdr, pid)) == tid;
    }
    if (h.self) mine.push_back(h.bytes);
    held_.push_back(std::move(h));
  }
  if (rc < 0) {
    out.status = SelfCheckResult::kImpossible;
    out.detail = why;
    return out;
  }
  std::vector<RecordView> views;
  for (const auto& b : mine) {
    ByteSpan rec(b.data() + kEnv, b.size() - kEnv);
    const WireReader hr(rec);
    std::size_t len = std::size_t{hr.u16(LNETCAP_FIELD(struct lnetcap_rec_hdr, rec_hdr_len))} +
                      hr.u8(LNETCAP_FIELD(struct lnetcap_rec_hdr, lnet_hdr_len)) +
                      hr.u32(LNETCAP_FIELD(struct lnetcap_rec_hdr, payload_caplen));
    std::string bad;
    if (len <= rec.size())
      if (auto v = parse_record(rec.first(len), &bad)) views.push_back(*v);
  }
  return judge_self_ping(views);
}

SourceStats RingSource::stats() const {
  auto k = bpf_->stats();
  SourceStats st;
  st.received = received_;
  st.dropped = k[LNETCAP_STAT_RING_FULL];
  st.filtered = k[LNETCAP_STAT_FILTERED];
  st.details = {
      {"messages seen by the eBPF hooks", k[LNETCAP_STAT_SEEN]},
      {"records committed to the ring", k[LNETCAP_STAT_EMITTED]},
      {"payload copies that failed", k[LNETCAP_STAT_PAYLOAD_READ_FAILED]},
  };
  // Not silent: these messages lack queue time or drop links (map full).
  if (k[LNETCAP_STAT_UNTRACKED])
    st.details.emplace_back("messages not tracked (lnet_msg or lnet_parse map full)",
                            k[LNETCAP_STAT_UNTRACKED]);
  if (invalid_) st.details.emplace_back("malformed kernel records skipped", invalid_);
  return st;
}

}  // namespace lnetcap::live

#endif  // LNETCAP_HAVE_BPF
