// SPDX-License-Identifier: GPL-2.0-or-later
#include "writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "../error.h"
#include "pcapng.h"

namespace lnetcap::pcapng {
namespace {
constexpr std::size_t kFlushThreshold = 256 * 1024;
constexpr std::uint8_t kTsresolNanoseconds = 9;
}  // namespace

Writer::Writer(const std::string& path, bool packet_buffered)
    : path_(path == "-" ? "standard output" : path), packet_buffered_(packet_buffered) {
  if (path == "-") {
    fd_ = STDOUT_FILENO;
  } else {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw Error("cannot create " + path + ": " + std::strerror(errno),
                  "check that the directory exists and is writable");
    owns_fd_ = true;
  }
  buffer_.reserve(kFlushThreshold + 64 * 1024);
}

Writer::~Writer() {
  if (fd_ < 0) return;
  try {
    close();
  } catch (...) {
    // Destructors must not throw; close() is called explicitly on the normal path.
  }
}

void Writer::begin_block(std::uint32_t type) {
  block_start_ = buffer_.size();
  LeWriter w(buffer_);
  w.u32(type);
  w.u32(0);  // total length, patched by end_block
}

void Writer::end_block() {
  const std::uint32_t len = static_cast<std::uint32_t>(buffer_.size() - block_start_ + 4);
  LeWriter(buffer_).u32(len);
  store_le32(buffer_.data() + block_start_ + 4, len);
}

void Writer::option(std::uint16_t code, const void* value, std::size_t len) {
  if (len > 0xffff) len = 0xffff;
  LeWriter w(buffer_);
  w.u16(code);
  w.u16(static_cast<std::uint16_t>(len));
  w.bytes(value, len);
  w.zeros((4 - len % 4) % 4);
}

void Writer::option_string(std::uint16_t code, const std::string& s) {
  if (!s.empty()) option(code, s.data(), s.size());
}

void Writer::option_u64(std::uint16_t code, std::uint64_t v) {
  std::uint8_t b[8];
  store_le64(b, v);
  option(code, b, sizeof(b));
}

void Writer::end_options() { LeWriter(buffer_).u32(0); }  // opt_endofopt, length 0

void Writer::begin_section(const SectionInfo& info) {
  begin_block(kBlockSHB);
  LeWriter w(buffer_);
  w.u32(kByteOrderMagic);
  w.u16(1);
  w.u16(0);
  w.u64(~0ULL);  // section length unknown: we stream
  for (const auto& c : info.comments) option_string(kOptComment, c);
  option_string(kShbHardware, info.hardware);
  option_string(kShbOs, info.os);
  option_string(kShbUserAppl, info.user_appl);
  end_options();
  end_block();
  interfaces_ = 0;
  write_out(true);
}

std::uint32_t Writer::add_interface(std::uint16_t linktype, const CaptureInterface& iface) {
  begin_block(kBlockIDB);
  LeWriter w(buffer_);
  w.u16(linktype);
  w.u16(0);
  // libpcap (so tcpdump) refuses a section whose interfaces differ in
  // snapshot length, so every IDB repeats the first interface's value.
  if (interfaces_ == 0) section_snaplen_ = iface.snaplen;
  w.u32(section_snaplen_);
  for (const auto& c : iface.comments) option_string(kOptComment, c);
  option_string(kIfName, iface.name);
  option_string(kIfDescription, iface.description);
  option(kIfTsresol, &kTsresolNanoseconds, 1);
  if (!iface.filter.empty()) {
    // if_filter: first byte 0 = libpcap filter string; ours is free text, so
    // a private code would be unreadable by others; store it as a comment.
    option_string(kOptComment, "filter: " + iface.filter);
  }
  option_string(kIfOs, iface.os);
  option_string(kIfHardware, iface.hardware);
  end_options();
  end_block();
  write_out(packet_buffered_);
  return interfaces_++;
}

void Writer::write_packet(std::uint32_t interface_id, std::uint64_t ts_ns, ByteSpan data,
                          std::uint32_t orig_len, std::uint32_t epb_flags,
                          std::optional<std::uint64_t> drop_count,
                          const std::vector<std::string>& comments) {
  if (interface_id >= interfaces_)
    throw Error("internal: packet for undefined pcapng interface " + std::to_string(interface_id));
  begin_block(kBlockEPB);
  LeWriter w(buffer_);
  w.u32(interface_id);
  w.u32(static_cast<std::uint32_t>(ts_ns >> 32));
  w.u32(static_cast<std::uint32_t>(ts_ns));
  w.u32(static_cast<std::uint32_t>(data.size()));
  w.u32(orig_len < data.size() ? static_cast<std::uint32_t>(data.size()) : orig_len);
  w.bytes(data.data(), data.size());
  w.zeros((4 - data.size() % 4) % 4);
  if (epb_flags || drop_count || !comments.empty()) {
    for (const auto& c : comments) option_string(kOptComment, c);
    if (epb_flags) {
      std::uint8_t b[4];
      store_le32(b, epb_flags);
      option(kEpbFlags, b, 4);
    }
    if (drop_count) option_u64(kEpbDropCount, *drop_count);
    end_options();
  }
  end_block();
  write_out(packet_buffered_);
}

void Writer::write_interface_stats(std::uint32_t interface_id, const InterfaceStats& s) {
  begin_block(kBlockISB);
  LeWriter w(buffer_);
  w.u32(interface_id);
  w.u32(static_cast<std::uint32_t>(s.timestamp_ns >> 32));
  w.u32(static_cast<std::uint32_t>(s.timestamp_ns));
  auto ts_option = [&](std::uint16_t code, std::uint64_t ns) {
    std::uint8_t b[8];
    store_le32(b, static_cast<std::uint32_t>(ns >> 32));
    store_le32(b + 4, static_cast<std::uint32_t>(ns));
    option(code, b, 8);
  };
  if (s.start_ns) ts_option(kIsbStartTime, *s.start_ns);
  if (s.end_ns) ts_option(kIsbEndTime, *s.end_ns);
  if (s.if_recv) option_u64(kIsbIfRecv, *s.if_recv);
  if (s.if_drop) option_u64(kIsbIfDrop, *s.if_drop);
  if (s.filter_accept) option_u64(kIsbFilterAccept, *s.filter_accept);
  if (s.os_drop) option_u64(kIsbOsDrop, *s.os_drop);
  if (s.usr_deliv) option_u64(kIsbUsrDeliv, *s.usr_deliv);
  end_options();
  end_block();
  write_out(packet_buffered_);
}

// Writes the buffer when it is large enough (or when forced).  The buffer
// only ever holds whole blocks, so on a short write (full disk) the file is
// cut back to the end of the last block that fully reached it.
void Writer::write_out(bool force) {
  if (failed_) throw Error("write to " + path_ + " failed earlier; output is closed");
  if (buffer_.empty() || (!force && buffer_.size() < kFlushThreshold)) return;
  std::size_t done = 0;
  while (done < buffer_.size()) {
    ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : ENOSPC;
      failed_ = true;
      // Find the last block boundary at or before 'done' and cut there.
      std::size_t good = 0;
      while (good + 8 <= buffer_.size()) {
        const std::uint32_t len = load_le32(buffer_.data() + good + 4);
        if (good + len > done) break;
        good += len;
      }
      if (owns_fd_) {
        if (::ftruncate(fd_, static_cast<off_t>(file_offset_ + good)) != 0) {
          // Nothing more can be done; the error below names the file.
        }
      }
      file_offset_ += good;
      buffer_.clear();
      throw Error("write to " + path_ + " failed: " + std::strerror(err),
                  "the file holds every whole record written before the error");
    }
    done += static_cast<std::size_t>(n);
  }
  file_offset_ += buffer_.size();
  buffer_.clear();
}

void Writer::flush() { write_out(true); }

void Writer::close() {
  if (fd_ < 0) return;
  std::string error;
  try {
    if (!failed_) write_out(true);
  } catch (const Error& e) {
    error = e.what();
  }
  if (owns_fd_) {
    if (::close(fd_) != 0 && error.empty())
      error = "closing " + path_ + " failed: " + std::strerror(errno);
  }
  fd_ = -1;
  if (!error.empty()) throw Error(error);
}

}  // namespace lnetcap::pcapng
