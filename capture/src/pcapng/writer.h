// SPDX-License-Identifier: GPL-2.0-or-later
// writer.h - a small, careful pcapng writer (libpcap can only read pcapng).
// Blocks are encoded straight into an output buffer and written with
// write(2); every write is checked, and when the disk fills the file is cut
// back to the last whole block, so what was written stays a valid pcapng.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../bytes.h"
#include "../source.h"

namespace lnetcap::pcapng {

struct SectionInfo {
  std::string user_appl;  // shb_userappl: "lnetcap 0.1.0"
  std::string os;         // shb_os: "Linux 6.1.0-56-amd64"
  std::string hardware;   // shb_hardware: "x86_64"
  std::vector<std::string> comments;
};

/// Interface Statistics Block contents; unset fields are not written.
struct InterfaceStats {
  std::uint64_t timestamp_ns = 0;
  std::optional<std::uint64_t> start_ns, end_ns;
  std::optional<std::uint64_t> if_recv, if_drop, filter_accept, os_drop, usr_deliv;
};

class Writer {
 public:
  /// Opens path for writing ("-" = standard output).  Throws Error naming
  /// the file when it cannot be created.
  explicit Writer(const std::string& path, bool packet_buffered = false);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  void begin_section(const SectionInfo& info);
  /// Writes an IDB (if_tsresol = 9, nanoseconds) and returns its id.
  std::uint32_t add_interface(std::uint16_t linktype, const CaptureInterface& iface);
  std::uint32_t interface_count() const { return interfaces_; }
  void write_packet(std::uint32_t interface_id, std::uint64_t ts_ns, ByteSpan data,
                    std::uint32_t orig_len, std::uint32_t epb_flags,
                    std::optional<std::uint64_t> drop_count,
                    const std::vector<std::string>& comments = {});
  void write_interface_stats(std::uint32_t interface_id, const InterfaceStats& stats);
  void flush();
  /// Flushes and closes; throws Error on failure.  The destructor closes
  /// quietly if close() was not called.
  void close();

  const std::string& path() const { return path_; }
  std::uint64_t bytes_written() const { return file_offset_ + buffer_.size(); }

 private:
  void begin_block(std::uint32_t type);
  void end_block();
  void option(std::uint16_t code, const void* value, std::size_t len);
  void option_string(std::uint16_t code, const std::string& s);
  void option_u64(std::uint16_t code, std::uint64_t v);
  void end_options();
  void write_out(bool force);

  std::string path_;
  int fd_ = -1;
  bool owns_fd_ = false;
  bool packet_buffered_ = false;
  bool failed_ = false;
  std::vector<std::uint8_t> buffer_;
  std::size_t block_start_ = 0;
  std::uint64_t file_offset_ = 0;  // bytes already written to fd_
  std::uint32_t interfaces_ = 0;
  std::uint32_t section_snaplen_ = 0;
};

}  // namespace lnetcap::pcapng
