// SPDX-License-Identifier: GPL-2.0-or-later
// batch_ring.h - the shared-memory ring a fan-out class's local members
// read SHARED_BATCH bodies from (docs/DAEMON.md "Fan-out"): the daemon
// writes each batch body once into a slot of a sealed memfd, and every
// member copies it out of its own read-only mapping, so the kernel no
// longer copies 64 KiB into each subscriber's socket.
//
// A slot is a seqlock: its header's `gen` is kBusy while the daemon writes
// the body, then the batch's generation number (1, 2, ...; slot gen % S).
// A reader checks gen before and after copying the body out; when either
// differs from the generation the RING_BATCH named, the slot was
// overwritten (the reader was more than S batches behind) and the batch is
// lost for it - counted by the reader as a gap, never read half-written.
//
// Each member also has a tail page (its own 4 KiB memfd, mapped by both):
// the member stores there the last generation it has finished with.  The
// daemon reads it as an untrusted number: a lossless replay waits for it
// before overwriting a slot the member was sent; and when the daemon
// overwrites such a slot while the tail is behind, it counts the batch
// dropped for that member (its counters, its log, --status: as a batch
// its queue had no room for) and says so in the page's verdict words.
// The count is exact, not a guess: the daemon marks the slot busy, then
// reads the tail; the reader stores its tail, then re-reads the slot's
// generation (both sequentially consistent).  Whoever comes second sees
// the other: when the reader finds the slot changed it waits for the
// daemon's write to end and takes the verdict - counted lost means lost;
// not counted means the daemon read its tail after the copy was done, so
// the copy is whole.  A member that lies about its tail harms only itself.
//
// Both the ring and the RING_BATCH header are untrusted for the reader:
// RingReader::copy_out checks every index and length before it reads.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "protocol.h"

namespace lnetcap::subscribe {

/// A slot's header, at the start of each slot; the body follows it.
struct RingSlotHeader {
  std::atomic<std::uint64_t> gen;  // kRingBusy while written, else the batch's generation (0: never written)
  std::uint32_t body_len;
  std::uint32_t records;
  std::uint8_t reserved[48];
};
static_assert(sizeof(RingSlotHeader) == kRingSlotHeaderBytes, "slot header layout");
inline constexpr std::uint64_t kRingBusy = ~std::uint64_t{0};

/// A mapping (munmap and close at destruction).
class Mapping {
 public:
  Mapping() = default;
  Mapping(void* base, std::size_t size) : base_(base), size_(size) {}
  ~Mapping();
  Mapping(Mapping&& o) noexcept : base_(o.base_), size_(o.size_) { o.base_ = nullptr; o.size_ = 0; }
  Mapping& operator=(Mapping&& o) noexcept;
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  std::uint8_t* data() const { return static_cast<std::uint8_t*>(base_); }
  std::size_t size() const { return size_; }
  explicit operator bool() const { return base_ != nullptr; }

 private:
  void* base_ = nullptr;
  std::size_t size_ = 0;
};

/// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd();
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() { const int f = fd_; fd_ = -1; return f; }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

/// A member's tail page: word 0 the last generation it has finished with,
/// then kRingVerdicts words where the daemon writes a generation it counted
/// lost for the member (word 1 + gen % kRingVerdicts).
inline constexpr std::size_t kRingTailBytes = 4096;
inline constexpr std::size_t kRingVerdicts = kRingTailBytes / 8 - 1;
/// The tail word as the daemon makes it: the member has not mapped the
/// ring yet.  The member stores 0 once it has (RingReader::map), and only
/// then does the daemon send it RING_BATCH instead of SHARED_BATCH: a
/// member that got the descriptors and could not map them (or was stopped
/// in the middle, its recvmsg then failing with EINTR) loses nothing.
inline constexpr std::uint64_t kRingTailUnmapped = ~std::uint64_t{0};

/// The daemon's side of a ring.
class RingWriter {
 public:
  /// A sealed memfd of `slots` slots of `slot_bytes` each, mapped writable
  /// here; nullopt (and *why says why) when the kernel cannot seal it
  /// against writes by others (F_SEAL_FUTURE_WRITE, Linux 5.1).
  static std::optional<RingWriter> create(std::uint32_t slots, std::uint32_t slot_bytes, std::string* why);
  std::uint32_t slots() const { return slots_; }
  std::uint32_t slot_bytes() const { return slot_bytes_; }
  std::size_t body_capacity() const { return slot_bytes_ - kRingSlotHeaderBytes; }
  /// The generation the next write() will get, and its slot.
  std::uint64_t next_gen() const { return next_gen_; }
  std::uint32_t slot_of(std::uint64_t gen) const { return static_cast<std::uint32_t>(gen % slots_); }
  /// Writes body (at most body_capacity()) into the next slot; returns its
  /// generation.  `while_busy` runs once the slot is marked busy, before
  /// the body is written: where the daemon reads the tails of the members
  /// the slot's previous batch went to (see above).
  template <typename WhileBusy>
  std::uint64_t write(const std::uint8_t* body, std::uint32_t len, std::uint32_t records, WhileBusy while_busy) {
    const std::uint64_t gen = next_gen_;
    mark_busy(gen);
    while_busy();
    finish(gen, body, len, records);
    return gen;
  }
  std::uint64_t write(const std::uint8_t* body, std::uint32_t len, std::uint32_t records) {
    return write(body, len, records, [] {});
  }
  /// A read-only descriptor of the ring, for a member (a duplicate of the
  /// one the writer keeps, re-opened read-only through /proc/self/fd: never
  /// writable, whatever the seals).
  Fd reader_fd(std::string* why) const;

 private:
  RingWriter() = default;
  void mark_busy(std::uint64_t gen);
  void finish(std::uint64_t gen, const std::uint8_t* body, std::uint32_t len, std::uint32_t records);
  Fd fd_;  // read-only: the writable one is closed once mapped and sealed
  Mapping map_;
  std::uint32_t slots_ = 0, slot_bytes_ = 0;
  std::uint64_t next_gen_ = 1;
};

/// A member's tail page, as the daemon holds it.
class RingTail {
 public:
  static std::optional<RingTail> create(std::string* why);
  /// What the member says it has finished with (untrusted).
  std::uint64_t load() const;
  /// The member has mapped the ring (it said so in its tail word).
  bool mapped() const { return load() != kRingTailUnmapped; }
  /// Tells the member that generation `gen` was counted lost for it.
  void mark_lost(std::uint64_t gen) const;
  int fd() const { return fd_.get(); }
  /// The descriptor, for the member (the mapping stays; the daemon holds
  /// no descriptor per member).
  Fd take_fd() { return std::move(fd_); }

 private:
  RingTail() = default;
  Fd fd_;
  Mapping map_;
};

/// The subscriber's side: a read-only mapping of the ring and its tail page.
class RingReader {
 public:
  /// Maps `ring_fd` (read-only, checked to be slots * slot_bytes long) and
  /// `tail_fd` (read-write); nullopt and *why on any failure.
  static std::optional<RingReader> map(int ring_fd, int tail_fd, std::uint32_t slots, std::uint32_t slot_bytes,
                                       std::string* why);
  enum class Copy { kOk, kLost, kBad };
  /// Copies the body of generation `gen` (said to be in `slot`, body_len
  /// long) into *out, and tells the daemon it is finished with gen.
  /// kLost: overwritten first (the daemon counted it dropped: a gap);
  /// kBad: the header is impossible (slot out of range, body too long, gen
  /// not of that slot) and nothing was read.
  Copy copy_out(std::uint64_t gen, std::uint32_t slot, std::uint32_t body_len, Frame* out) const;
  /// Stores gen as the tail (copy_out does; tests lie with it).
  void finished(std::uint64_t gen) const;
  std::uint32_t slots() const { return slots_; }
  std::uint32_t slot_bytes() const { return slot_bytes_; }

 private:
  RingReader() = default;
  Mapping ring_, tail_;
  std::uint32_t slots_ = 0, slot_bytes_ = 0;
};

}  // namespace lnetcap::subscribe
