// SPDX-License-Identifier: GPL-2.0-or-later
// reader.h - a strict pcapng reader: both byte orders, several sections,
// SHB/IDB/EPB/SPB/ISB with the options lnetcap uses; unknown blocks are
// skipped.  Every error names the file and the byte offset of the block.
//
// Two kinds of damage, told apart because only one ends the file: a block
// whose framing is broken (truncated, impossible length, trailing length
// that differs, bad byte-order magic) leaves no way to find the next block,
// so it is a plain Error; a packet block whose framing is whole but whose
// contents are not is a DamagedBlock, thrown once the reader is past it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "../bytes.h"
#include "../error.h"
#include "writer.h"

namespace lnetcap::pcapng {

/// A packet block (EPB, SPB) whose length words are consistent but whose
/// contents are unusable: an interface the section does not define, packet
/// data or an option overrunning the block.  The reader has already moved
/// past it, so next() may be called again and reads the following block.
/// A caller that does not catch it stops as on any other Error.
class DamagedBlock : public Error {
 public:
  DamagedBlock(const std::string& path, std::uint64_t offset, std::uint64_t number, std::string reason);
  std::uint64_t offset() const { return offset_; }
  /// Its packet number: packet blocks counted from 1, damaged ones
  /// included (Wireshark's frame number).
  std::uint64_t number() const { return number_; }
  /// What was wrong, without the file and offset.
  const std::string& reason() const { return reason_; }

 private:
  std::uint64_t offset_;
  std::uint64_t number_;
  std::string reason_;
};

struct Interface {
  std::uint16_t linktype = 0;
  std::uint32_t snaplen = 0;
  std::string name, description, os, hardware;
  std::vector<std::string> comments;
  std::uint64_t units_per_second = 1000000;  // from if_tsresol (default 10^-6)
  std::int64_t ts_offset_s = 0;              // if_tsoffset
  std::uint32_t section = 0;                 // section index it belongs to
};

struct Packet {
  std::uint32_t interface_id = 0;  // index into Reader::interfaces() (all sections)
  std::uint64_t ts_ns = 0;
  ByteSpan data;  // valid until the next call to next()
  std::uint32_t orig_len = 0;
  std::uint32_t flags = 0;
  std::optional<std::uint64_t> drop_count;
  std::vector<std::string> comments;
  std::uint64_t offset = 0;  // file offset of the block
  std::uint64_t number = 0;  // packet blocks from 1, damaged ones included (Wireshark's frame number)
};

class Reader {
 public:
  /// Opens path ("-" = standard input) and reads the first SHB.  Throws
  /// Error if the file cannot be opened or is not pcapng.
  explicit Reader(const std::string& path);
  /// Reads an already open stream (a pipe, FIFO or /dev/stdin: paths that
  /// cannot be opened twice), named in messages by name.  Closes it at the
  /// end unless it is stdin.
  Reader(std::FILE* stream, const std::string& name);
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  /// Next EPB or SPB; false at a clean end of file.  Throws Error naming
  /// the file and offset on a truncated or corrupt block, and DamagedBlock
  /// (an Error too) on a packet block that can be stepped over.
  bool next(Packet& out);

  const std::vector<Interface>& interfaces() const { return interfaces_; }
  const std::vector<SectionInfo>& sections() const { return sections_; }
  /// ISBs seen so far, with the global interface id they refer to.
  const std::vector<std::pair<std::uint32_t, InterfaceStats>>& statistics() const { return stats_; }
  const std::string& path() const { return path_; }
  /// True when the file starts like pcapng (checked without consuming it).
  static bool looks_like_pcapng(const std::string& path);

 private:
  void start();       // reads the first SHB
  bool read_block();  // fills type_/body_/block_offset_; false on clean EOF
  void parse_shb();
  void parse_idb();
  void parse_isb();
  void parse_epb(Packet& out);
  void parse_spb(Packet& out);
  [[noreturn]] void corrupt(const std::string& what) const;
  [[noreturn]] void damaged(const std::string& what) const;
  std::uint64_t to_ns(const Interface& iface, std::uint64_t ts) const;
  /// False when an option overruns the block; the caller decides whether
  /// that ends the file (SHB, IDB, ISB) or only the packet (EPB).
  template <typename F>
  [[nodiscard]] bool for_each_option(std::size_t start, F&& f) const;

  std::string path_;
  std::FILE* file_ = nullptr;
  bool owns_file_ = false;
  Endian endian_;
  std::uint32_t type_ = 0;
  std::vector<std::uint8_t> body_;  // block body without type/length words
  std::uint64_t offset_ = 0;        // next read position
  std::uint64_t block_offset_ = 0;
  std::uint32_t section_base_ = 0;  // first global interface id of this section
  std::uint64_t packets_ = 0;       // packet blocks read, damaged ones included
  std::vector<Interface> interfaces_;
  std::vector<SectionInfo> sections_;
  std::vector<std::pair<std::uint32_t, InterfaceStats>> stats_;
};

}  // namespace lnetcap::pcapng
