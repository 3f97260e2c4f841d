// SPDX-License-Identifier: GPL-2.0-or-later
#include "shared_batch.h"

#include <memory>
#include <new>

namespace lnetcap::daemon {
namespace {

// Shared by the daemon's loop (take) and libzmq's I/O thread (give_back),
// and never destroyed: a message may be let go of at any time, even while
// the process exits.
class BufferPool {
 public:
  static BufferPool& instance() {
    static BufferPool* pool = new BufferPool;
    return *pool;
  }
  subscribe::Frame* take() {
    in_use_.fetch_add(1, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!idle_.empty()) {
        subscribe::Frame* f = idle_.back();
        idle_.pop_back();
        return f;
      }
    }
    return new subscribe::Frame;
  }
  void give_back(subscribe::Frame* f) noexcept {
    in_use_.fetch_sub(1, std::memory_order_relaxed);
    f->clear();  // keeps its capacity
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (idle_.size() < SharedBatch::kKeptBuffers) {
        idle_.push_back(f);  // reserved to kKeptBuffers: cannot throw
        return;
      }
    }
    delete f;
  }
  std::size_t in_use() const { return in_use_.load(std::memory_order_relaxed); }

 private:
  BufferPool() { idle_.reserve(SharedBatch::kKeptBuffers); }
  std::mutex mutex_;
  std::vector<subscribe::Frame*> idle_;
  std::atomic<std::size_t> in_use_{0};
};

void give_back(void* /*data*/, void* hint) { BufferPool::instance().give_back(static_cast<subscribe::Frame*>(hint)); }

}  // namespace

SharedBatch::SharedBatch() : body_(BufferPool::instance().take()) {}

SharedBatch::~SharedBatch() {
  if (body_) BufferPool::instance().give_back(body_);
}

SharedBatch::SharedBatch(SharedBatch&& other) noexcept : records(other.records), body_(other.body_) {
  other.body_ = nullptr;
  other.records = 0;
}

void SharedBatch::seal(zmq_msg_t* msg) {
  subscribe::Frame* full = body_;
  body_ = BufferPool::instance().take();
  records = 0;
  // libzmq calls give_back once every reference is closed; when it cannot
  // even make the message the buffer is given back here.
  if (zmq_msg_init_data(msg, full->data(), full->size(), give_back, full) != 0) {
    BufferPool::instance().give_back(full);
    throw std::bad_alloc();
  }
}

std::size_t SharedBatch::buffers_in_use() { return BufferPool::instance().in_use(); }

}  // namespace lnetcap::daemon
