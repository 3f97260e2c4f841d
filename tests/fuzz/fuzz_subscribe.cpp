// SPDX-License-Identifier: GPL-2.0-or-later
// fuzz_subscribe - the lnetcapd subscription protocol (subscribe/protocol.h)
// as both ends decode what the other sends, and the shared-memory ring as
// a subscriber reads it (subscribe/batch_ring.h): every message type's
// decoder, a RING_BATCH's header checked against a real ring and its body
// copied out and decoded.  A malformed message must end in lnetcap::Error,
// a hostile ring header in Copy::kBad or kLost - never a read out of bounds.
//
// Input: frames, each a u16 little-endian length and that many bytes (a
// length past the end takes what is left).  Frame 0 is the message's
// first frame as it travels (preamble and fixed fields).
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "error.h"
#include "subscribe/batch_ring.h"
#include "subscribe/protocol.h"

using namespace lnetcap;
using namespace lnetcap::subscribe;

namespace {

Frames split(const std::uint8_t* data, std::size_t size) {
  Frames frames;
  std::size_t at = 0;
  while (at + 2 <= size && frames.size() < 64) {
    std::size_t len = data[at] | (static_cast<std::size_t>(data[at + 1]) << 8);
    at += 2;
    len = std::min(len, size - at);
    frames.emplace_back(data + at, data + at + len);
    at += len;
  }
  return frames;
}

// A small real ring, written once with generations 1..6 of 4 slots.
struct SmallRing {
  std::optional<RingWriter> writer;
  std::optional<RingTail> tail;
  std::optional<RingReader> reader;
  SmallRing() {
    std::string why;
    writer = RingWriter::create(4, kRingSlotHeaderBytes + 256, &why);
    if (!writer) return;  // a kernel without the seals: the decoders are still fuzzed
    tail = RingTail::create(&why);
    Fd fd = writer->reader_fd(&why);
    reader = RingReader::map(fd.get(), tail->fd(), 4, kRingSlotHeaderBytes + 256, &why);
    std::uint8_t body[256] = {};
    for (int g = 1; g <= 6; ++g) writer->write(body, static_cast<std::uint32_t>(g * 10), 1);
  }
};

void ring_batch(const Frames& frames) {
  static SmallRing ring;
  const RingBatch h = decode_ring_batch(frames);
  if (!ring.reader) return;
  Frame body;
  if (ring.reader->copy_out(h.gen, h.slot, h.body_len, &body) == RingReader::Copy::kOk) {
    if (body.size() != h.body_len) std::abort();
    (void)decode_ring_batch_body(h, body);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Frames frames = split(data, size);
  try {
    switch (message_type(frames)) {
      case MessageType::kSubscribe: (void)decode_subscribe(frames); break;
      case MessageType::kDump: (void)decode_dump(frames); break;
      case MessageType::kStatusReply: (void)decode_status(frames); break;
      case MessageType::kAccept: (void)decode_accept(frames); break;
      case MessageType::kRefuse: (void)decode_refuse(frames); break;
      case MessageType::kInterface: (void)decode_interface(frames); break;
      case MessageType::kRecord: (void)decode_record_header(frames); break;
      case MessageType::kHeartbeat: (void)decode_heartbeat(frames); break;
      case MessageType::kEnd: (void)decode_end(frames); break;
      case MessageType::kBatch: (void)decode_batch(frames); break;
      case MessageType::kSharedBatch: (void)decode_shared_batch(frames); break;
      case MessageType::kRingOffer: (void)decode_ring_offer(frames); break;
      case MessageType::kRingBatch: ring_batch(frames); break;
      default: break;
    }
  } catch (const Error& e) {
    if (std::string(e.what()).empty()) std::abort();  // errors say what was wrong
  }
  return 0;
}
