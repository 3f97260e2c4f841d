// SPDX-License-Identifier: GPL-2.0-or-later
#include "reader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "../error.h"
#include "pcapng.h"

namespace lnetcap::pcapng {
namespace {
constexpr std::uint32_t kMaxBlock = 64u << 20;  // far above any real block

// fread() that resumes after signals: the handlers are installed without
// SA_RESTART (so live loops notice them), which interrupts reads from a pipe.
std::size_t read_fully(void* buf, std::size_t n, std::FILE* f) {
  std::size_t got = 0;
  while (got < n) {
    const std::size_t r = std::fread(static_cast<char*>(buf) + got, 1, n - got, f);
    got += r;
    if (got == n || !std::ferror(f) || errno != EINTR) break;
    std::clearerr(f);
  }
  return got;
}

std::string hex32(std::uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof(b), "0x%08x", v);
  return b;
}
}  // namespace

Reader::Reader(const std::string& path) : path_(path == "-" ? "standard input" : path) {
  if (path == "-") {
    file_ = stdin;
  } else {
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_) throw Error("cannot open " + path + ": " + std::strerror(errno));
    owns_file_ = true;
  }
  start();
}

Reader::Reader(std::FILE* stream, const std::string& name)
    : path_(name), file_(stream), owns_file_(stream != stdin) {
  start();
}

void Reader::start() {
  if (!read_block()) throw Error(path_ + " is empty");
  if (type_ != kBlockSHB) corrupt("not a pcapng file (first block type " + hex32(type_) + ")");
  parse_shb();
}

Reader::~Reader() {
  if (owns_file_ && file_) std::fclose(file_);
}

bool Reader::looks_like_pcapng(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::uint8_t b[4] = {};
  const bool ok = std::fread(b, 1, 4, f) == 4 && load_le32(b) == kBlockSHB;
  std::fclose(f);
  return ok;
}

DamagedBlock::DamagedBlock(const std::string& path, std::uint64_t offset, std::uint64_t number,
                           std::string reason)
    : Error(path + ": offset " + std::to_string(offset) + ": packet " + std::to_string(number) + ": " + reason,
            "the packet block is damaged; the packets before it were processed"),
      offset_(offset),
      number_(number),
      reason_(std::move(reason)) {}

void Reader::corrupt(const std::string& what) const {
  throw Error(path_ + ": offset " + std::to_string(block_offset_) + ": " + what,
              "the file is damaged or not an lnetcap capture; records before this offset were "
              "processed");
}

// Only for a packet block read whole: offset_ is already past it.
void Reader::damaged(const std::string& what) const { throw DamagedBlock(path_, block_offset_, packets_, what); }

// Reads one whole block.  The SHB fixes the byte order of its section, so a
// block type of 0x0A0D0D0A is recognised in either order (it is a palindrome).
bool Reader::read_block() {
  block_offset_ = offset_;
  std::uint8_t head[12];
  const std::size_t got = read_fully(head, 8, file_);
  if (got == 0 && std::feof(file_)) return false;
  if (got != 8) corrupt("file ends inside a block header (" + std::to_string(got) + " of 8 bytes)");
  std::uint32_t type = load_le32(head);
  std::uint32_t len;
  if (type == kBlockSHB) {
    // Byte-order magic follows the length; read it to learn the order.
    if (read_fully(head + 8, 4, file_) != 4) corrupt("file ends inside a section header");
    const std::uint32_t bom = load_le32(head + 8);
    if (bom == kByteOrderMagic)
      endian_.little = true;
    else if (bom == 0x4D3C2B1A)
      endian_.little = false;
    else
      corrupt("section header byte-order magic " + hex32(bom) + " is invalid");
    len = endian_.u32(head + 4);
  } else {
    type = endian_.u32(head);
    len = endian_.u32(head + 4);
  }
  if (len < 12 || len % 4 != 0 || len > kMaxBlock)
    corrupt("block " + hex32(type) + " has invalid length " + std::to_string(len));
  const std::size_t already = type == kBlockSHB ? 4 : 0;
  body_.resize(len - 8);
  if (already) std::memcpy(body_.data(), head + 8, 4);
  const std::size_t want = len - 8 - already;
  const std::size_t n = read_fully(body_.data() + already, want, file_);
  if (n != want)
    corrupt("block " + hex32(type) + " of " + std::to_string(len) + " bytes is truncated (file ends " +
            std::to_string(8 + already + n) + " bytes into it)");
  if (endian_.u32(body_.data() + body_.size() - 4) != len)
    corrupt("block " + hex32(type) + ": trailing length does not match " + std::to_string(len));
  body_.resize(body_.size() - 4);
  type_ = type;
  offset_ += len;
  return true;
}

template <typename F>
bool Reader::for_each_option(std::size_t pos, F&& f) const {
  while (pos + 4 <= body_.size()) {
    const std::uint16_t code = endian_.u16(body_.data() + pos);
    const std::uint16_t len = endian_.u16(body_.data() + pos + 2);
    pos += 4;
    if (code == kOptEndOfOpt) return true;
    if (pos + len > body_.size()) return false;
    f(code, ByteSpan(body_.data() + pos, len));
    pos += (len + 3u) & ~3u;
  }
  return true;
}

static std::string as_string(ByteSpan v) { return std::string(v.begin(), v.end()); }

void Reader::parse_shb() {
  if (body_.size() < 16) corrupt("section header is too short");
  const std::uint16_t major = endian_.u16(body_.data() + 4);
  if (major != 1) corrupt("pcapng major version " + std::to_string(major) + " is not supported");
  SectionInfo s;
  const bool whole = for_each_option(16, [&](std::uint16_t code, ByteSpan v) {
    if (code == kOptComment) s.comments.push_back(as_string(v));
    if (code == kShbHardware) s.hardware = as_string(v);
    if (code == kShbOs) s.os = as_string(v);
    if (code == kShbUserAppl) s.user_appl = as_string(v);
  });
  if (!whole) corrupt("an option overruns the section header");
  sections_.push_back(std::move(s));
  section_base_ = static_cast<std::uint32_t>(interfaces_.size());
}

void Reader::parse_idb() {
  if (body_.size() < 8) corrupt("interface description block is too short");
  Interface i;
  i.linktype = endian_.u16(body_.data());
  i.snaplen = endian_.u32(body_.data() + 4);
  i.section = static_cast<std::uint32_t>(sections_.size() - 1);
  const bool whole = for_each_option(8, [&](std::uint16_t code, ByteSpan v) {
    switch (code) {
      case kOptComment: i.comments.push_back(as_string(v)); break;
      case kIfName: i.name = as_string(v); break;
      case kIfDescription: i.description = as_string(v); break;
      case kIfOs: i.os = as_string(v); break;
      case kIfHardware: i.hardware = as_string(v); break;
      case kIfTsresol:
        if (v.size() >= 1) {
          const std::uint8_t r = v[0];
          const unsigned exp = r & 0x7f;
          if ((r & 0x80) ? exp > 63 : exp > 19) corrupt("if_tsresol " + std::to_string(r) + " is out of range");
          std::uint64_t u = 1;
          for (unsigned k = 0; k < exp; ++k) u *= (r & 0x80) ? 2 : 10;
          i.units_per_second = u;
        }
        break;
      case 14:  // if_tsoffset
        if (v.size() == 8) i.ts_offset_s = static_cast<std::int64_t>(endian_.u64(v.data()));
        break;
      default: break;
    }
  });
  // An interface read wrong would misplace every packet after it: fatal.
  if (!whole) corrupt("an option overruns the interface description block");
  interfaces_.push_back(std::move(i));
}

std::uint64_t Reader::to_ns(const Interface& iface, std::uint64_t ts) const {
  const std::uint64_t ups = iface.units_per_second;
  std::uint64_t ns;
  if (ups == 1000000000ULL)
    ns = ts;
  else
    ns = (ts / ups) * 1000000000ULL + (ts % ups) * 1000000000ULL / ups;
  return ns + static_cast<std::uint64_t>(iface.ts_offset_s) * 1000000000ULL;
}

void Reader::parse_isb() {
  if (body_.size() < 12) corrupt("interface statistics block is too short");
  const std::uint32_t local = endian_.u32(body_.data());
  const std::uint32_t id = section_base_ + local;
  if (id >= interfaces_.size()) corrupt("statistics for undefined interface " + std::to_string(local));
  InterfaceStats s;
  const std::uint64_t ts = (std::uint64_t{endian_.u32(body_.data() + 4)} << 32) | endian_.u32(body_.data() + 8);
  s.timestamp_ns = to_ns(interfaces_[id], ts);
  const bool whole = for_each_option(12, [&](std::uint16_t code, ByteSpan v) {
    if (v.size() != 8) return;
    const std::uint64_t x = endian_.u64(v.data());
    const std::uint64_t t = (std::uint64_t{endian_.u32(v.data())} << 32) | endian_.u32(v.data() + 4);
    switch (code) {
      case kIsbStartTime: s.start_ns = to_ns(interfaces_[id], t); break;
      case kIsbEndTime: s.end_ns = to_ns(interfaces_[id], t); break;
      case kIsbIfRecv: s.if_recv = x; break;
      case kIsbIfDrop: s.if_drop = x; break;
      case kIsbFilterAccept: s.filter_accept = x; break;
      case kIsbOsDrop: s.os_drop = x; break;
      case kIsbUsrDeliv: s.usr_deliv = x; break;
      default: break;
    }
  });
  if (!whole) corrupt("an option overruns the interface statistics block");
  stats_.emplace_back(id, s);
}

void Reader::parse_epb(Packet& out) {
  if (body_.size() < 20) damaged("enhanced packet block is too short");
  const std::uint8_t* b = body_.data();
  const std::uint32_t local = endian_.u32(b);
  const std::uint32_t id = section_base_ + local;
  if (id >= interfaces_.size())
    damaged("packet refers to interface " + std::to_string(local) + " but the section defines " +
            std::to_string(interfaces_.size() - section_base_));
  const std::uint64_t ts = (std::uint64_t{endian_.u32(b + 4)} << 32) | endian_.u32(b + 8);
  const std::uint32_t caplen = endian_.u32(b + 12);
  if (std::uint64_t{caplen} + 20 > body_.size())
    damaged("packet data (" + std::to_string(caplen) + " bytes) overruns its block");
  out = Packet{};
  out.interface_id = id;
  out.ts_ns = to_ns(interfaces_[id], ts);
  out.orig_len = endian_.u32(b + 16);
  out.data = ByteSpan(b + 20, caplen);
  out.offset = block_offset_;
  out.number = packets_;
  const bool whole = for_each_option(20 + ((caplen + 3u) & ~3u), [&](std::uint16_t code, ByteSpan v) {
    if (code == kOptComment) out.comments.push_back(as_string(v));
    if (code == kEpbFlags && v.size() == 4) out.flags = endian_.u32(v.data());
    if (code == kEpbDropCount && v.size() == 8) out.drop_count = endian_.u64(v.data());
  });
  if (!whole) damaged("an option overruns the enhanced packet block");
}

void Reader::parse_spb(Packet& out) {
  if (body_.size() < 4) damaged("simple packet block is too short");
  if (interfaces_.size() <= section_base_) damaged("simple packet block before any interface");
  const std::uint32_t orig = endian_.u32(body_.data());
  out = Packet{};
  out.interface_id = section_base_;
  out.orig_len = orig;
  const std::size_t cap = std::min<std::size_t>(orig, body_.size() - 4);
  out.data = ByteSpan(body_.data() + 4, cap);
  out.offset = block_offset_;
  out.number = packets_;
}

bool Reader::next(Packet& out) {
  while (read_block()) {
    switch (type_) {
      case kBlockSHB: parse_shb(); break;
      case kBlockIDB: parse_idb(); break;
      case kBlockISB: parse_isb(); break;
      case kBlockEPB:
        ++packets_;
        parse_epb(out);
        return true;
      case kBlockSPB:
        ++packets_;
        parse_spb(out);
        return true;
      default:
        break;  // NRB, DSB, custom blocks: not ours to interpret
    }
  }
  return false;
}

}  // namespace lnetcap::pcapng
