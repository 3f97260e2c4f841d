// SPDX-License-Identifier: GPL-2.0-or-later
// ring_reader.cpp - see ring_reader.h.  The layout is the kernel's
// (kernel/bpf/ringbuf.c, UAPI linux/bpf.h): page 0 = consumer position
// (read-write), page 1 = producer position, then the data area mapped twice
// so a sample that wraps is contiguous.  Each sample starts with an 8-byte
// header whose first word is its length plus BUSY (not committed yet) and
// DISCARD bits.
#include "ring_reader.h"

#include <linux/bpf.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "../error.h"

namespace lnetcap::live {
namespace {

std::uint64_t load_acquire(const std::uint64_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
std::uint32_t load_acquire(const std::uint32_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

}  // namespace

RingReader::RingReader(int map_fd, std::uint32_t ring_bytes) : map_fd_(map_fd) {
  page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  size_ = ring_bytes;
  mask_ = size_ - 1;
  if (size_ == 0 || (size_ & mask_) != 0)
    throw Error("internal: ring size " + std::to_string(size_) + " is not a power of two");
  cons_map_ = mmap(nullptr, page_, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
  if (cons_map_ == MAP_FAILED)
    throw Error(std::string("cannot map the BPF ring buffer: ") + std::strerror(errno));
  prod_map_ = mmap(nullptr, page_ + 2 * size_, PROT_READ, MAP_SHARED, map_fd,
                   static_cast<off_t>(page_));
  if (prod_map_ == MAP_FAILED) {
    int e = errno;
    munmap(cons_map_, page_);
    throw Error(std::string("cannot map the BPF ring buffer data: ") + std::strerror(e),
                "a smaller -B may fit the locked-memory limit (ulimit -l)");
  }
  cons_pos_ = static_cast<std::uint64_t*>(cons_map_);
  prod_pos_ = static_cast<const std::uint64_t*>(prod_map_);
  data_ = static_cast<const std::uint8_t*>(prod_map_) + page_;
  pos_ = published_ = load_acquire(cons_pos_);

  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  if (epoll_fd_ < 0 || epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, map_fd, &ev) < 0) {
    int e = errno;
    release();  // the destructor does not run for a throwing constructor
    throw Error(std::string("cannot poll the BPF ring buffer: ") + std::strerror(e));
  }
}

RingReader::~RingReader() { release(); }

void RingReader::release() {
  if (epoll_fd_ >= 0) close(epoll_fd_);
  epoll_fd_ = -1;
  if (prod_map_ && prod_map_ != MAP_FAILED) munmap(prod_map_, page_ + 2 * size_);
  if (cons_map_ && cons_map_ != MAP_FAILED) munmap(cons_map_, page_);
  prod_map_ = cons_map_ = nullptr;
}

void RingReader::publish() {
  if (published_ != pos_) {
    __atomic_store_n(cons_pos_, pos_, __ATOMIC_RELEASE);
    published_ = pos_;
  }
}

std::optional<ByteSpan> RingReader::next() {
  pos_ += pending_;
  pending_ = 0;
  // Give space back in chunks of an eighth of the ring: often enough that
  // the producer never sees a ring fuller than it is by more than that.
  if (pos_ - published_ >= size_ / 8) publish();
  for (;;) {
    std::uint64_t prod = load_acquire(prod_pos_);
    if (pos_ >= prod) return std::nullopt;
    const auto* hdr = reinterpret_cast<const std::uint32_t*>(data_ + (pos_ & mask_));
    std::uint32_t len = load_acquire(hdr);
    if (len & BPF_RINGBUF_BUSY_BIT) return std::nullopt;  // reserved, not yet committed
    std::uint64_t total = (static_cast<std::uint64_t>(len & ~BPF_RINGBUF_DISCARD_BIT) +
                           BPF_RINGBUF_HDR_SZ + 7) & ~std::uint64_t{7};
    if (len & BPF_RINGBUF_DISCARD_BIT) {
      pos_ += total;
      continue;
    }
    pending_ = total;
    len &= ~BPF_RINGBUF_DISCARD_BIT;
    return ByteSpan(reinterpret_cast<const std::uint8_t*>(hdr) + BPF_RINGBUF_HDR_SZ, len);
  }
}

bool RingReader::wait(int timeout_ms) {
  publish();
  epoll_event ev{};
  int n = epoll_wait(epoll_fd_, &ev, 1, timeout_ms);
  return n > 0;
}

std::uint64_t RingReader::backlog() const { return load_acquire(prod_pos_) - pos_; }

}  // namespace lnetcap::live
