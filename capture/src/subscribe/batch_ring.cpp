// SPDX-License-Identifier: GPL-2.0-or-later
#include "batch_ring.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010  // Linux 5.1
#endif

namespace lnetcap::subscribe {
namespace {

std::string failed(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// The tail's one word, at the start of its page.
std::atomic<std::uint64_t>* tail_word(const Mapping& m) {
  return reinterpret_cast<std::atomic<std::uint64_t>*>(m.data());
}

RingSlotHeader* slot_header(std::uint8_t* base, std::uint32_t slot_bytes, std::uint32_t slot) {
  return reinterpret_cast<RingSlotHeader*>(base + static_cast<std::size_t>(slot) * slot_bytes);
}

}  // namespace

Mapping::~Mapping() {
  if (base_) ::munmap(base_, size_);
}

Mapping& Mapping::operator=(Mapping&& o) noexcept {
  if (this != &o) {
    if (base_) ::munmap(base_, size_);
    base_ = o.base_;
    size_ = o.size_;
    o.base_ = nullptr;
    o.size_ = 0;
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

std::optional<RingWriter> RingWriter::create(std::uint32_t slots, std::uint32_t slot_bytes, std::string* why) {
  RingWriter w;
  w.slots_ = slots;
  w.slot_bytes_ = slot_bytes;
  const std::size_t size = static_cast<std::size_t>(slots) * slot_bytes;
  w.fd_ = Fd(::memfd_create("lnetcapd-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!w.fd_) return *why = failed("memfd_create"), std::nullopt;
  if (::ftruncate(w.fd_.get(), static_cast<off_t>(size)) != 0) return *why = failed("ftruncate"), std::nullopt;
  void* base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, w.fd_.get(), 0);
  if (base == MAP_FAILED) return *why = failed("mmap"), std::nullopt;
  w.map_ = Mapping(base, size);
  // After the daemon's writable mapping exists: nobody gets another one,
  // nor writes through any descriptor, nor changes the size under the
  // readers (a shrink would SIGBUS them), nor lifts the seals.
  if (::fcntl(w.fd_.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL) != 0)
    return *why = failed("sealing the ring (F_SEAL_FUTURE_WRITE needs Linux 5.1)"), std::nullopt;
  (void)::fchmod(w.fd_.get(), 0400);  // belt and braces: the members' descriptors are read-only anyway
  // Only a read-only descriptor is kept (members get duplicates of it).
  const std::string path = "/proc/self/fd/" + std::to_string(w.fd_.get());
  Fd read_only(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!read_only) return *why = failed("re-opening the ring read-only"), std::nullopt;
  w.fd_ = std::move(read_only);
  return w;
}

void RingWriter::mark_busy(std::uint64_t gen) {
  RingSlotHeader* h = slot_header(map_.data(), slot_bytes_, slot_of(gen));
  // Before the tails are read (seq_cst on both sides: see batch_ring.h).
  h->gen.store(kRingBusy, std::memory_order_seq_cst);
}

void RingWriter::finish(std::uint64_t gen, const std::uint8_t* body, std::uint32_t len, std::uint32_t records) {
  RingSlotHeader* h = slot_header(map_.data(), slot_bytes_, slot_of(gen));
  std::memcpy(reinterpret_cast<std::uint8_t*>(h) + kRingSlotHeaderBytes, body, len);
  h->body_len = len;
  h->records = records;
  h->gen.store(gen, std::memory_order_release);
  next_gen_ = gen + 1;
}

Fd RingWriter::reader_fd(std::string* why) const {
  Fd fd(::fcntl(fd_.get(), F_DUPFD_CLOEXEC, 0));
  if (!fd) *why = failed("dup");
  return fd;
}

std::optional<RingTail> RingTail::create(std::string* why) {
  RingTail t;
  t.fd_ = Fd(::memfd_create("lnetcapd-ring-tail", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!t.fd_) return *why = failed("memfd_create"), std::nullopt;
  if (::ftruncate(t.fd_.get(), kRingTailBytes) != 0) return *why = failed("ftruncate"), std::nullopt;
  // The member writes it: it must not be able to shrink it under the
  // daemon's mapping (a read past the end would be SIGBUS).
  if (::fcntl(t.fd_.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
    return *why = failed("sealing a tail page"), std::nullopt;
  void* base = ::mmap(nullptr, kRingTailBytes, PROT_READ | PROT_WRITE, MAP_SHARED, t.fd_.get(), 0);
  if (base == MAP_FAILED) return *why = failed("mmap"), std::nullopt;
  t.map_ = Mapping(base, kRingTailBytes);
  tail_word(t.map_)->store(kRingTailUnmapped, std::memory_order_release);
  return t;
}

std::uint64_t RingTail::load() const { return tail_word(map_)->load(std::memory_order_seq_cst); }

void RingTail::mark_lost(std::uint64_t gen) const {
  tail_word(map_)[1 + gen % kRingVerdicts].store(gen, std::memory_order_release);
}

std::optional<RingReader> RingReader::map(int ring_fd, int tail_fd, std::uint32_t slots, std::uint32_t slot_bytes,
                                          std::string* why) {
  if (slots == 0 || slots > kMaxRingSlots || slot_bytes <= kRingSlotHeaderBytes ||
      slot_bytes > kMaxRingSlotBytes || slot_bytes % 64 != 0)
    return *why = "impossible ring geometry", std::nullopt;
  const std::size_t size = static_cast<std::size_t>(slots) * slot_bytes;
  struct stat st {};
  // Sealed against shrinking by the daemon, so a read within this size
  // never faults; a file of another size is not the ring offered.
  if (::fstat(ring_fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) != size ||
      ::fstat(tail_fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) != kRingTailBytes)
    return *why = "the descriptors are not the ring offered", std::nullopt;
  const int seals = ::fcntl(ring_fd, F_GET_SEALS);
  if (seals < 0 || (seals & F_SEAL_SHRINK) == 0) return *why = "the ring is not sealed", std::nullopt;
  const int tail_seals = ::fcntl(tail_fd, F_GET_SEALS);
  if (tail_seals < 0 || (tail_seals & F_SEAL_SHRINK) == 0) return *why = "the tail page is not sealed", std::nullopt;
  RingReader r;
  r.slots_ = slots;
  r.slot_bytes_ = slot_bytes;
  void* ring = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, ring_fd, 0);
  if (ring == MAP_FAILED) return *why = failed("mmap of the ring"), std::nullopt;
  r.ring_ = Mapping(ring, size);
  void* tail = ::mmap(nullptr, kRingTailBytes, PROT_READ | PROT_WRITE, MAP_SHARED, tail_fd, 0);
  if (tail == MAP_FAILED) return *why = failed("mmap of the tail page"), std::nullopt;
  r.tail_ = Mapping(tail, kRingTailBytes);
  r.finished(0);  // mapped: from now on the daemon sends RING_BATCH (kRingTailUnmapped)
  return r;
}

RingReader::Copy RingReader::copy_out(std::uint64_t gen, std::uint32_t slot, std::uint32_t body_len,
                                      Frame* out) const {
  if (slot >= slots_ || body_len > slot_bytes_ - kRingSlotHeaderBytes || gen == 0 || gen == kRingBusy ||
      gen % slots_ != slot)
    return Copy::kBad;
  const RingSlotHeader* h = slot_header(ring_.data(), slot_bytes_, slot);
  // Overwritten before we began: our tail is behind gen, so the daemon,
  // which reads it after marking the slot busy, counts the batch lost.
  // (The tail stays where it is: stored now, it could reach the daemon
  // after the mark and before that read, and the batch would go uncounted.)
  if (h->gen.load(std::memory_order_seq_cst) != gen) return Copy::kLost;
  const std::uint8_t* body = reinterpret_cast<const std::uint8_t*>(h) + kRingSlotHeaderBytes;
  out->assign(body, body + body_len);
  tail_word(tail_)->store(gen, std::memory_order_seq_cst);
  if (h->gen.load(std::memory_order_seq_cst) == gen) return Copy::kOk;
  // The daemon began overwriting meanwhile: it read our tail either before
  // we stored it (it counted the batch lost, and our copy may be torn) or
  // after (not counted, and it wrote nothing before our copy was done).
  // Its verdict is written before the slot stops being busy.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  while (h->gen.load(std::memory_order_acquire) == kRingBusy)
    if (std::chrono::steady_clock::now() > deadline) return Copy::kLost;  // a daemon that died writing
  const std::uint64_t verdict = tail_word(tail_)[1 + gen % kRingVerdicts].load(std::memory_order_acquire);
  // A verdict of a later generation in that word: a reader that slept
  // through kRingVerdicts batches; lost, as its copy may well be.
  return verdict >= gen ? Copy::kLost : Copy::kOk;
}

void RingReader::finished(std::uint64_t gen) const { tail_word(tail_)->store(gen, std::memory_order_release); }

}  // namespace lnetcap::subscribe
