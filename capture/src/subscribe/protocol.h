// SPDX-License-Identifier: GPL-2.0-or-later
// protocol.h - the lnetcapd subscription protocol (docs/DAEMON.md), shared
// by the daemon and `lnetcap --from`.  Pure encode/decode of ZeroMQ
// multipart messages (a list of frames, without the ROUTER's routing id),
// so it is tested without sockets.
//
// Frame 0 of every message starts with an 8-byte preamble: "LNSB", the
// protocol version (u8), the message type (u8) and two reserved zero bytes;
// fixed little-endian fields follow in the same frame, strings and the
// record bytes travel in their own frames.  A RECORD's body frame is the
// lnetcap record exactly as an EPB of a pcapng file holds it.
//
// BATCH carries several records in one ZeroMQ message (one message costs
// both ends far more than its bytes): frame 0 holds the record count,
// frame 1 the records one after another, each as a RECORD's fixed fields,
// u32 length + the unchanged lnetcap record, u32 comment count and u32
// length + bytes per comment.  Only a subscriber whose SUBSCRIBE set
// kSubscribeTakesBatches gets them; an older one (SUBSCRIBE without the
// flags word) still gets one RECORD per record, and an older daemon
// ignores the flags word - so neither side needs a version bump.
//
// SHARED_BATCH is a BATCH whose body is the same bytes for every subscriber
// of one fan-out class (the daemon encodes it once and hands the one
// buffer to libzmq for all of them: docs/DAEMON.md "Fan-out"): frame 0
// holds the record count, the first record's sequence number and this
// subscriber's own counters, frame 1 the records, each as a BATCH entry
// without its sequence number and counters; the i-th record's number is
// the first plus i.  Only a subscriber whose SUBSCRIBE set
// kSubscribeTakesSharedBatches gets them (compatible the same way).
//
// RING_OFFER and RING_BATCH carry a SHARED_BATCH's body through shared
// memory instead (batch_ring.h): a local subscriber whose SUBSCRIBE also
// set kSubscribeMapsRing may get, after ACCEPT, a RING_OFFER - a one-use
// token, the ring's slot count and slot size - and fetches the ring's
// descriptors with the token from the daemon's socket PATH.ring.  From
// then on its batches may come as RING_BATCH: a SHARED_BATCH's frame 0
// plus the ring generation, slot and body length where the body is.  An
// older daemon sends neither; an older subscriber does not set the flag.
#pragma once

#include <array>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../bytes.h"
#include "../source.h"

namespace lnetcap::subscribe {

using Frame = std::vector<std::uint8_t>;
using Frames = std::vector<Frame>;

inline constexpr std::uint8_t kProtocolVersion = 1;
/// SUBSCRIBE's snap length meaning "the payload bytes the daemon captured".
inline constexpr std::uint32_t kSnaplenAsCaptured = 0xffffffffu;
/// SUBSCRIBE flag: this subscriber understands BATCH.
inline constexpr std::uint32_t kSubscribeTakesBatches = 1u;
/// SUBSCRIBE flag: this subscriber understands SHARED_BATCH.
inline constexpr std::uint32_t kSubscribeTakesSharedBatches = 2u;
/// SUBSCRIBE flag: this subscriber can map a shared-memory ring (RING_OFFER).
inline constexpr std::uint32_t kSubscribeMapsRing = 4u;
/// The ring (batch_ring.h): a slot's header, and what a subscriber accepts
/// of an offer's geometry at most.
inline constexpr std::uint32_t kRingSlotHeaderBytes = 64;
inline constexpr std::uint32_t kMaxRingSlots = 4096;
inline constexpr std::uint32_t kMaxRingSlotBytes = 1u << 20;
inline constexpr std::size_t kRingTokenBytes = 16;

enum class MessageType : std::uint8_t {
  // subscriber -> daemon
  kSubscribe = 1,
  kBye = 2,
  kDump = 3,    // the flight recorder's records (SUBSCRIBE's fields); then as a subscription
  kStatus = 4,  // the daemon's status; answered with STATUS_REPLY
  // daemon -> subscriber
  kAccept = 16,
  kRefuse = 17,
  kInterface = 18,
  kRecord = 19,
  kHeartbeat = 20,
  kEnd = 21,
  kStatusReply = 22,
  kBatch = 23,
  kSharedBatch = 24,
  kRingOffer = 25,
  kRingBatch = 26,
};

struct Subscribe {
  std::string filter;                         // the lnetcap filter language
  std::uint32_t snaplen = kSnaplenAsCaptured;  // payload bytes kept per record
  std::string client;                         // "lnetcap 0.1.0 pid 42 uid 1000", for logs
  bool takes_batches = false;                 // records may come as BATCH
  bool takes_shared_batches = false;          // ... and as SHARED_BATCH
  bool maps_ring = false;                     // ... and as RING_BATCH (local only)
  // A consumer group to join ("" = none): the daemon sends each record to
  // one member of it.  Frame 3, after the client: an older daemon ignores
  // it, and its ACCEPT then names no group (Accept::group).
  std::string group{};
};

/// A consumer group's name is what a subscriber chose: bounded, and of
/// characters that need no escaping anywhere (logs, --status).
inline constexpr std::size_t kMaxGroupNameBytes = 64;
/// Why `name` is not a valid consumer group name ("" when it is); both ends
/// check it, the daemon because a peer may send anything.
std::string group_name_problem(std::string_view name);

/// STATUS_REPLY: the daemon's figures, in the order it lists them
/// ("records held", "12345"); `lnetcap --status` prints them.
struct Status {
  std::vector<std::pair<std::string, std::string>> items;
};

struct Accept {
  std::string node;    // the daemon's node name (pcapng interface descriptions)
  std::string source;  // what it captures: "replay of x.pcapng", "eBPF live capture"
  // The consumer group joined (frame 3; absent when none): a subscriber
  // that asked for one and gets no such answer is talking to a daemon that
  // would send it every record.
  std::string group{};
};

struct Refuse {
  std::string message;  // one line, e.g. the filter's parse error
  std::string hint;
};

struct InterfaceAnnouncement {
  std::uint32_t id = 0;  // the interface_id records use
  CaptureInterface iface;
};

/// Per-subscriber counters; every RECORD, HEARTBEAT and END carries them.
struct Counters {
  std::uint64_t matched = 0;             // records that matched this filter so far
  std::uint64_t subscriber_dropped = 0;  // of those, lost because the queue was full
  std::uint64_t source_received = 0;     // records the source delivered to the daemon
  std::uint64_t source_dropped = 0;      // lost before the daemon (kernel ring, gaps)
  std::uint64_t watermark_ns = 0;        // no later record is older than this (0 = unknown)
};

struct RecordMeta {
  std::uint64_t seq = 0;  // = counters.matched when it was sent; a gap = drops
  Counters counters;      // subscriber_dropped counts drops before this record
  std::uint64_t ts_ns = 0;
  std::uint32_t interface_id = 0;
  std::uint32_t orig_len = 0;
  std::uint32_t epb_flags = 0;
  bool has_drops_before = false;  // the source's own epb_dropcount
  std::uint64_t drops_before = 0;
};

/// One record of a BATCH; the spans point into the message's frame 1.
struct BatchEntry {
  RecordMeta meta;
  ByteSpan record;
  std::vector<ByteSpan> comments;
};

/// RING_OFFER: fetch the ring's descriptors from PATH.ring with `token`.
struct RingOffer {
  std::array<std::uint8_t, kRingTokenBytes> token{};
  std::uint32_t slots = 0;
  std::uint32_t slot_bytes = 0;  // header and body capacity
};

/// RING_BATCH: a SHARED_BATCH whose body is in the ring.
struct RingBatch {
  std::uint32_t count = 0;
  std::uint64_t first_seq = 0;
  Counters counters;
  std::uint64_t gen = 0;  // the ring generation holding the body
  std::uint32_t slot = 0;
  std::uint32_t body_len = 0;
};

struct End {
  Counters counters;
  bool failed = false;  // the source failed (reason says how)
  std::string reason;   // "end of samples/x.pcapng", "lnetcapd stopping"
};

/// Type of a message; throws Error when frame 0 is not an lnetcapd message
/// of this protocol version.
MessageType message_type(const Frames& frames);

Frames encode(const Subscribe& m);
Frames encode_bye();
/// DUMP: the same fields as SUBSCRIBE (filter, snap length, client).
Frames encode_dump(const Subscribe& m);
Frames encode_status_request();
Frames encode(const Status& m);
Frames encode(const Accept& m);
Frames encode(const Refuse& m);
Frames encode(const InterfaceAnnouncement& m);
Frames encode(const Counters& heartbeat);
Frames encode(const End& m);
/// A RECORD's header frame; the daemon sends it, the record bytes and one
/// frame per EPB comment.
Frame encode_record_header(const RecordMeta& m);
/// BATCH: encode_batch_header(n) and a body of n append_batch_entry().
Frame encode_batch_header(std::uint32_t count);
void append_batch_entry(Frame& body, const RecordMeta& m, ByteSpan record,
                        const std::vector<std::string>& comments);
/// SHARED_BATCH: a header of `count` records numbered first_seq on, with
/// one subscriber's counters (counters.matched: the last record's number),
/// and a body shared by every subscriber of the class, of
/// append_shared_batch_entry() (m.seq and m.counters are not encoded).
Frame encode_shared_batch_header(std::uint32_t count, std::uint64_t first_seq, const Counters& counters);
void append_shared_batch_entry(Frame& body, const RecordMeta& m, ByteSpan record,
                               const std::vector<std::string>& comments);
Frames encode(const RingOffer& m);
Frame encode_ring_batch_header(const RingBatch& m);

// Decoders throw Error naming what is malformed.
Subscribe decode_subscribe(const Frames& frames);
Subscribe decode_dump(const Frames& frames);
Status decode_status(const Frames& frames);
Accept decode_accept(const Frames& frames);
Refuse decode_refuse(const Frames& frames);
InterfaceAnnouncement decode_interface(const Frames& frames);
Counters decode_heartbeat(const Frames& frames);
End decode_end(const Frames& frames);
/// frames[0] is the header, frames[1] the record, frames[2...] comments.
RecordMeta decode_record_header(const Frames& frames);
/// A BATCH's records, in order; the spans point into frames[1].
std::vector<BatchEntry> decode_batch(const Frames& frames);
/// A SHARED_BATCH's records, numbered and counted as a BATCH's would be.
std::vector<BatchEntry> decode_shared_batch(const Frames& frames);
RingOffer decode_ring_offer(const Frames& frames);
/// RING_BATCH's header (its numbering checked as SHARED_BATCH's is).
RingBatch decode_ring_batch(const Frames& frames);
/// The records of a RING_BATCH whose body was copied out of the ring.
std::vector<BatchEntry> decode_ring_batch_body(const RingBatch& header, const Frame& body);

}  // namespace lnetcap::subscribe
