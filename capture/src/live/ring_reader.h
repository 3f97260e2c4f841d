// SPDX-License-Identifier: GPL-2.0-or-later
// ring_reader.h - zero-copy consumer of a BPF ring buffer map.
//
// libbpf's ring_buffer__poll() hands every sample to a callback; the
// pipeline instead pulls one record at a time (RecordSource::next), so this
// reads the mmapped ring directly and releases a sample only when the next
// one is asked for: the record handed out stays valid, in place, without a
// copy.  Consumer-position updates are batched to keep the producer's cache
// line quiet.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "../bytes.h"

namespace lnetcap::live {

class RingReader {
 public:
  /// Maps the ring of map_fd (a BPF_MAP_TYPE_RINGBUF of ring_bytes data).
  RingReader(int map_fd, std::uint32_t ring_bytes);
  ~RingReader();
  RingReader(const RingReader&) = delete;
  RingReader& operator=(const RingReader&) = delete;

  /// Releases the previous sample and returns the next committed one, or
  /// nullopt when the producer has nothing (more) committed right now.
  std::optional<ByteSpan> next();
  /// Sleeps until the kernel signals data or timeout_ms passes.  Returns
  /// false on timeout.  Publishes the consumer position first.
  bool wait(int timeout_ms);
  /// Bytes committed but not yet consumed (for tests and the benchmark).
  std::uint64_t backlog() const;

 private:
  void publish();
  void release();

  int map_fd_;
  int epoll_fd_ = -1;
  std::size_t page_ = 0;
  std::uint64_t mask_ = 0;
  std::uint64_t size_ = 0;
  void* cons_map_ = nullptr;
  void* prod_map_ = nullptr;
  std::uint64_t* cons_pos_ = nullptr;        // shared, written by us
  const std::uint64_t* prod_pos_ = nullptr;  // shared, written by the kernel
  const std::uint8_t* data_ = nullptr;       // data area, mapped twice
  std::uint64_t pos_ = 0;                    // our consumer position
  std::uint64_t pending_ = 0;                // size of the sample handed out
  std::uint64_t published_ = 0;              // last value stored in *cons_pos_
};

}  // namespace lnetcap::live
