// SPDX-License-Identifier: GPL-2.0-or-later
#include "pcapng_sink.h"

#include <sys/utsname.h>

#include <cstdio>
#include <ctime>

#include "lnetcap/record.h"
#include "signals.h"
#include "version.h"

namespace lnetcap {

pcapng::SectionInfo default_section_info() {
  pcapng::SectionInfo s;
  s.user_appl = std::string("lnetcap ") + LNETCAP_VERSION;
  struct utsname u;
  if (uname(&u) == 0) {
    s.os = std::string(u.sysname) + " " + u.release;
    s.hardware = u.machine;
  }
  return s;
}

PcapngSink::PcapngSink(PcapngSinkOptions opts) : opts_(std::move(opts)) {
  opts_.rotation.base = opts_.path;
  output::validate_rotation(opts_.rotation, !opts_.post_rotate_command.empty());
  if (!opts_.post_rotate_command.empty())
    post_rotate_ = std::make_unique<output::PostRotateCommand>(opts_.post_rotate_command);
  std::string path = opts_.path;
  if (opts_.rotation.enabled()) {
    rotation_.emplace(opts_.rotation);
    path = rotation_->first_file();
  }
  // Open at once: an unwritable path is reported before capture starts.
  open_file(path);
}

void PcapngSink::open_file(const std::string& path) {
  writer_ = std::make_unique<pcapng::Writer>(path, opts_.packet_buffered);
  pcapng::SectionInfo s = default_section_info();
  if (opts_.anonymized) {
    s.os.clear();
    s.hardware.clear();
  }
  s.comments = opts_.section_comments;
  writer_->begin_section(s);
  delivered_.clear();
  first_ts_ = last_ts_ = 0;
}

void PcapngSink::rotate(const std::vector<CaptureInterface>& interfaces) {
  const std::string closed = writer_->path();
  close_file(nullptr);
  open_file(rotation_->next_file());
  sync_interfaces(interfaces);
  if (post_rotate_) post_rotate_->run(closed);
}

void PcapngSink::sync_interfaces(const std::vector<CaptureInterface>& interfaces) {
  while (writer_->interface_count() < interfaces.size()) {
    CaptureInterface iface = interfaces[writer_->interface_count()];
    if (!opts_.interface_note.empty())
      iface.description += (iface.description.empty() ? "" : ", ") + opts_.interface_note;
    writer_->add_interface(LNETCAP_LINKTYPE, iface);
    delivered_.push_back(0);
  }
}

void PcapngSink::consume(const CapturedRecord& rec, const Message&,
                         const std::vector<CaptureInterface>& interfaces) {
  if (stopped_) return;
  if (rotation_) {
    switch (rotation_->before_write(writer_->bytes_written())) {
      case output::RotationPolicy::Action::kWrite: break;
      case output::RotationPolicy::Action::kRotate: rotate(interfaces); break;
      case output::RotationPolicy::Action::kStop:
        // tcpdump -G -W: exit once the last file's period is over.
        std::fprintf(stderr, "lnetcap: maximum file limit reached: %u\n",
                     *opts_.rotation.file_count);
        stopped_ = true;
        request_stop_now();
        return;
    }
  }
  sync_interfaces(interfaces);
  writer_->write_packet(rec.interface_id, rec.ts_ns, rec.bytes, rec.orig_len, rec.epb_flags,
                        rec.has_drops_before ? std::optional<std::uint64_t>(rec.drops_before)
                                             : std::nullopt,
                        rec.comments);
  ++delivered_[rec.interface_id];
  if (!first_ts_) first_ts_ = rec.ts_ns;
  last_ts_ = rec.ts_ns;
}

void PcapngSink::finish(const std::vector<CaptureInterface>& interfaces, const SourceStats& stats) {
  sync_interfaces(interfaces);
  close_file(&stats);
  // -z commands run in the background; wait so that whoever ran lnetcap
  // finds every rotated file processed when it exits.
  if (post_rotate_) post_rotate_->wait_all();
}

// stats == nullptr on rotation: the source's counters cover the whole
// capture, so they go only in the ISBs of the last file.
void PcapngSink::close_file(const SourceStats* stats) {
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  const std::uint64_t now_ns =
      static_cast<std::uint64_t>(now.tv_sec) * 1000000000ULL + static_cast<std::uint64_t>(now.tv_nsec);
  for (std::uint32_t i = 0; i < writer_->interface_count(); ++i) {
    pcapng::InterfaceStats s;
    s.timestamp_ns = last_ts_ ? last_ts_ : now_ns;
    if (first_ts_) {
      s.start_ns = first_ts_;
      s.end_ns = last_ts_;
    }
    s.usr_deliv = delivered_[i];
    // Source counters are not per interface (a full ring loses records of
    // every NI): they are reported once, on interface 0.
    if (i == 0 && stats) {
      s.if_recv = stats->received;
      s.if_drop = stats->dropped;
      std::uint64_t accepted = 0;
      for (auto d : delivered_) accepted += d;
      s.filter_accept = accepted;
    }
    writer_->write_interface_stats(i, s);
  }
  closed_bytes_ += writer_->bytes_written();
  writer_->close();
}

}  // namespace lnetcap
