// SPDX-License-Identifier: GPL-2.0-or-later
// shared_batch.h - the body of one SHARED_BATCH, encoded once for every
// subscriber of a fan-out class (subscriber_set.h) and handed to libzmq
// without a copy per subscriber: seal() wraps the buffer in a ZeroMQ
// message whose bytes libzmq shares among every peer it is sent to (each
// send takes a reference) and gives back when the last peer's copy is
// written out - in libzmq's I/O thread, or at once when nobody took it.
//
// Buffers come from a pool so that a steady stream allocates nothing: a
// fresh 64 KiB per batch cost page faults that outweighed the copy it
// saved.  The pool keeps at most kKeptBuffers idle buffers; buffers in
// flight are bounded by the subscribers' queues (ZMQ_SNDHWM messages each).
#pragma once

#include <zmq.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "../subscribe/protocol.h"

namespace lnetcap::daemon {

class SharedBatch {
 public:
  SharedBatch();
  ~SharedBatch();
  SharedBatch(const SharedBatch&) = delete;
  SharedBatch& operator=(const SharedBatch&) = delete;
  SharedBatch(SharedBatch&& other) noexcept;

  /// The body gathered so far (append_shared_batch_entry writes here).
  subscribe::Frame& body() { return *body_; }
  std::uint32_t records = 0;
  /// Hands the body over as *msg (the caller sends it, then closes it) and
  /// starts an empty one.
  void seal(zmq_msg_t* msg);
  /// Starts an empty body in the same buffer (the batch went another way).
  void clear() {
    body_->clear();
    records = 0;
  }

  /// Buffers taken from the pool and not given back yet (held by a batch
  /// being gathered or by a message libzmq has not let go of): tests and
  /// --status check that a subscriber that leaves lets go of its share.
  static std::size_t buffers_in_use();
  /// Idle buffers the pool keeps for reuse at most (4 MiB of 64 KiB ones).
  static constexpr std::size_t kKeptBuffers = 64;

 private:
  subscribe::Frame* body_;
};

}  // namespace lnetcap::daemon
