// SPDX-License-Identifier: GPL-2.0-or-later
// pcapng_sink.h - writes the record stream as pcapng: an SHB describing the
// capture, one IDB per interface (as interfaces appear), one EPB per
// record with direction flags and drop counts, and an ISB per interface
// at the end, so a capture stopped with Ctrl-C is complete and valid.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "output/post_rotate.h"
#include "output/rotation.h"
#include "pcapng/writer.h"
#include "sink.h"

namespace lnetcap {

struct PcapngSinkOptions {
  std::string path;              // "-" = standard output
  bool packet_buffered = false;  // -U
  std::vector<std::string> section_comments;  // capture metadata
  // Appended to every interface description: the capturing node ("on
  // node17"), so captures from several nodes merged with mergecap say
  // which node saw what.  Empty for file conversions and anonymized output.
  std::string interface_note;
  output::RotationOptions rotation;  // -C/-G/-W (base is taken from path)
  std::string post_rotate_command;   // -z
  // --anonymize: the section header does not name the writer's kernel and
  // machine (shb_os, shb_hardware) either.
  bool anonymized = false;
};

class PcapngSink : public RecordSink {
 public:
  explicit PcapngSink(PcapngSinkOptions opts);
  void consume(const CapturedRecord& rec, const Message& msg,
               const std::vector<CaptureInterface>& interfaces) override;
  void finish(const std::vector<CaptureInterface>& interfaces, const SourceStats& stats) override;
  /// Bytes written to every file so far (the status line's figure).
  std::uint64_t bytes_written() const {
    return closed_bytes_ + (writer_ ? writer_->bytes_written() : 0);
  }

 private:
  void start_file(const std::vector<CaptureInterface>& interfaces);
  // Rotation (output/rotation.h): a file is an SHB, the IDBs, the EPBs and
  // an ISB per interface; every rotated file is complete on its own.
  void open_file(const std::string& path);
  void close_file(const SourceStats* stats);
  void rotate(const std::vector<CaptureInterface>& interfaces);
  void sync_interfaces(const std::vector<CaptureInterface>& interfaces);

  PcapngSinkOptions opts_;
  std::unique_ptr<pcapng::Writer> writer_;
  std::vector<std::uint64_t> delivered_;  // records written per interface
  std::uint64_t first_ts_ = 0, last_ts_ = 0;
  std::optional<output::RotationPolicy> rotation_;
  std::unique_ptr<output::PostRotateCommand> post_rotate_;
  std::uint64_t closed_bytes_ = 0;
  bool stopped_ = false;  // -G -W: the last file is full
};

/// "lnetcap 0.1.0", uname's OS and machine: the SHB of every file we write.
pcapng::SectionInfo default_section_info();

}  // namespace lnetcap
