// SPDX-License-Identifier: GPL-2.0-or-later
#include "protocol.h"

#include <algorithm>

#include "../error.h"

namespace lnetcap::subscribe {
namespace {

constexpr std::uint8_t kMagic[4] = {'L', 'N', 'S', 'B'};
constexpr std::size_t kPreamble = 8;

Frame preamble(MessageType type) {
  Frame f;
  LeWriter w(f);
  w.bytes(kMagic, sizeof kMagic);
  w.u8(kProtocolVersion);
  w.u8(static_cast<std::uint8_t>(type));
  w.u16(0);
  return f;
}

Frame text_frame(const std::string& s) { return Frame(s.begin(), s.end()); }

std::string frame_text(const Frames& frames, std::size_t i) {
  if (i >= frames.size()) return {};
  return std::string(frames[i].begin(), frames[i].end());
}

// Reads little-endian fields whose presence the caller has checked.
class FieldReader {
 public:
  explicit FieldReader(const std::uint8_t* p) : p_(p) {}
  std::uint32_t u32() { auto v = load_le32(p_); p_ += 4; return v; }
  std::uint64_t u64() { auto v = load_le64(p_); p_ += 8; return v; }
  const std::uint8_t* position() const { return p_; }

 private:
  const std::uint8_t* p_;
};

// The fixed fields after the preamble, failing with the message name.
class FixedReader : public FieldReader {
 public:
  FixedReader(const Frames& frames, MessageType want, const char* name, std::size_t fixed_len,
              std::size_t min_frames)
      : FieldReader(checked(frames, want, name, fixed_len, min_frames)) {}

 private:
  static const std::uint8_t* checked(const Frames& frames, MessageType want, const char* name,
                                     std::size_t fixed_len, std::size_t min_frames) {
    if (message_type(frames) != want) throw Error(std::string("lnetcapd protocol: expected ") + name);
    if (frames[0].size() < kPreamble + fixed_len || frames.size() < min_frames)
      throw Error(std::string("lnetcapd protocol: truncated ") + name + " message");
    return frames[0].data() + kPreamble;
  }
};

constexpr std::size_t kCountersLen = 5 * 8;

void put_counters(LeWriter& w, const Counters& c) {
  w.u64(c.matched);
  w.u64(c.subscriber_dropped);
  w.u64(c.source_received);
  w.u64(c.source_dropped);
  w.u64(c.watermark_ns);
}

Counters get_counters(FieldReader& r) {
  Counters c;
  c.matched = r.u64();
  c.subscriber_dropped = r.u64();
  c.source_received = r.u64();
  c.source_dropped = r.u64();
  c.watermark_ns = r.u64();
  return c;
}

// A RECORD's fixed fields, also the head of every BATCH entry.
constexpr std::size_t kRecordMetaLen = 8 + kCountersLen + 8 + 16 + 8;

void put_record_meta(LeWriter& w, const RecordMeta& m) {
  w.u64(m.seq);
  put_counters(w, m.counters);
  w.u64(m.ts_ns);
  w.u32(m.interface_id);
  w.u32(m.orig_len);
  w.u32(m.epb_flags);
  w.u32(m.has_drops_before ? 1 : 0);
  w.u64(m.drops_before);
}

// A SHARED_BATCH entry's fixed fields: a RECORD's but the sequence
// number and the counters, which are each subscriber's own.
constexpr std::size_t kSharedEntryMetaLen = 8 + 16 + 8;

void put_shared_entry_meta(LeWriter& w, const RecordMeta& m) {
  w.u64(m.ts_ns);
  w.u32(m.interface_id);
  w.u32(m.orig_len);
  w.u32(m.epb_flags);
  w.u32(m.has_drops_before ? 1 : 0);
  w.u64(m.drops_before);
}

void get_shared_entry_meta(FieldReader& r, RecordMeta& m) {
  m.ts_ns = r.u64();
  m.interface_id = r.u32();
  m.orig_len = r.u32();
  m.epb_flags = r.u32();
  m.has_drops_before = r.u32() != 0;
  m.drops_before = r.u64();
}

RecordMeta get_record_meta(FieldReader& r) {
  RecordMeta m;
  m.seq = r.u64();
  m.counters = get_counters(r);
  m.ts_ns = r.u64();
  m.interface_id = r.u32();
  m.orig_len = r.u32();
  m.epb_flags = r.u32();
  m.has_drops_before = r.u32() != 0;
  m.drops_before = r.u64();
  if (m.seq == 0 || m.seq > m.counters.matched)
    throw Error("lnetcapd protocol: RECORD sequence number " + std::to_string(m.seq) +
                " outside 1.." + std::to_string(m.counters.matched));
  return m;
}

}  // namespace

std::string group_name_problem(std::string_view name) {
  if (name.empty()) return "a consumer group name may not be empty";
  if (name.size() > kMaxGroupNameBytes)
    return "a consumer group name has at most " + std::to_string(kMaxGroupNameBytes) + " characters";
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) return "a consumer group name has only letters, digits, '.', '_' and '-'";
  }
  return "";
}

MessageType message_type(const Frames& frames) {
  if (frames.empty() || frames[0].size() < kPreamble ||
      !std::equal(kMagic, kMagic + 4, frames[0].begin()))
    throw Error("lnetcapd protocol: not an lnetcapd message",
                "is the URI an lnetcapd endpoint?");
  if (frames[0][4] != kProtocolVersion)
    throw Error("lnetcapd protocol version " + std::to_string(frames[0][4]) +
                    " is not the one this lnetcap speaks (" +
                    std::to_string(kProtocolVersion) + ")",
                "use lnetcap and lnetcapd of the same release");
  return static_cast<MessageType>(frames[0][5]);
}

Frames encode(const Subscribe& m) {
  Frame f = preamble(MessageType::kSubscribe);
  LeWriter w(f);
  w.u32(m.snaplen);
  // An older daemon ignores the flags word, or the flags it does not know.
  w.u32((m.takes_batches ? kSubscribeTakesBatches : 0) | (m.takes_shared_batches ? kSubscribeTakesSharedBatches : 0) |
        (m.maps_ring ? kSubscribeMapsRing : 0));
  Frames frames{f, text_frame(m.filter), text_frame(m.client)};
  if (!m.group.empty()) frames.push_back(text_frame(m.group));
  return frames;
}

Frames encode_bye() { return {preamble(MessageType::kBye)}; }

Frames encode_dump(const Subscribe& m) {
  Frames f = encode(m);
  f[0][5] = static_cast<std::uint8_t>(MessageType::kDump);
  return f;
}

Frames encode_status_request() { return {preamble(MessageType::kStatus)}; }

Frames encode(const Status& m) {
  Frames f{preamble(MessageType::kStatusReply)};
  for (const auto& [name, value] : m.items) {
    f.push_back(text_frame(name));
    f.push_back(text_frame(value));
  }
  return f;
}

Frames encode(const Accept& m) {
  Frames frames{preamble(MessageType::kAccept), text_frame(m.node), text_frame(m.source)};
  if (!m.group.empty()) frames.push_back(text_frame(m.group));
  return frames;
}

Frames encode(const Refuse& m) {
  return {preamble(MessageType::kRefuse), text_frame(m.message), text_frame(m.hint)};
}

Frames encode(const InterfaceAnnouncement& m) {
  Frame f = preamble(MessageType::kInterface);
  LeWriter w(f);
  w.u32(m.id);
  w.u32(m.iface.snaplen);
  return {f, text_frame(m.iface.name), text_frame(m.iface.description), text_frame(m.iface.os),
          text_frame(m.iface.hardware), text_frame(m.iface.filter)};
}

Frames encode(const Counters& heartbeat) {
  Frame f = preamble(MessageType::kHeartbeat);
  LeWriter w(f);
  put_counters(w, heartbeat);
  return {f};
}

Frames encode(const End& m) {
  Frame f = preamble(MessageType::kEnd);
  LeWriter w(f);
  put_counters(w, m.counters);
  w.u32(m.failed ? 1 : 0);
  return {f, text_frame(m.reason)};
}

Frame encode_record_header(const RecordMeta& m) {
  Frame f = preamble(MessageType::kRecord);
  LeWriter w(f);
  put_record_meta(w, m);
  return f;
}

Frame encode_batch_header(std::uint32_t count) {
  Frame f = preamble(MessageType::kBatch);
  LeWriter(f).u32(count);
  return f;
}

namespace {
// A batch entry's record and its comments, after its metadata (the same in
// BATCH and SHARED_BATCH).
void put_record_and_comments(LeWriter& w, ByteSpan record, const std::vector<std::string>& comments) {
  w.u32(static_cast<std::uint32_t>(record.size()));
  w.bytes(record.data(), record.size());
  w.u32(static_cast<std::uint32_t>(comments.size()));
  for (const auto& c : comments) {
    w.u32(static_cast<std::uint32_t>(c.size()));
    w.bytes(c.data(), c.size());
  }
}
}  // namespace

void append_batch_entry(Frame& body, const RecordMeta& m, ByteSpan record,
                        const std::vector<std::string>& comments) {
  LeWriter w(body);
  put_record_meta(w, m);
  put_record_and_comments(w, record, comments);
}

Frame encode_shared_batch_header(std::uint32_t count, std::uint64_t first_seq, const Counters& counters) {
  Frame f = preamble(MessageType::kSharedBatch);
  LeWriter w(f);
  w.u32(count);
  w.u64(first_seq);
  put_counters(w, counters);
  return f;
}

void append_shared_batch_entry(Frame& body, const RecordMeta& m, ByteSpan record,
                               const std::vector<std::string>& comments) {
  LeWriter w(body);
  put_shared_entry_meta(w, m);
  put_record_and_comments(w, record, comments);
}

Frames encode(const RingOffer& m) {
  Frame f = preamble(MessageType::kRingOffer);
  LeWriter w(f);
  w.bytes(m.token.data(), m.token.size());
  w.u32(m.slots);
  w.u32(m.slot_bytes);
  return {f};
}

Frame encode_ring_batch_header(const RingBatch& m) {
  Frame f = preamble(MessageType::kRingBatch);
  LeWriter w(f);
  w.u32(m.count);
  w.u64(m.first_seq);
  put_counters(w, m.counters);
  w.u64(m.gen);
  w.u32(m.slot);
  w.u32(m.body_len);
  return f;
}

namespace {

Subscribe decode_request(const Frames& frames, MessageType type, const char* name) {
  FixedReader r(frames, type, name, 4, 2);
  Subscribe m;
  m.snaplen = r.u32();
  // The flags word came with batching; an older subscriber sends none.
  const std::uint32_t flags = frames[0].size() >= kPreamble + 8 ? r.u32() : 0;
  m.takes_batches = (flags & kSubscribeTakesBatches) != 0;
  // Shared batches are batches: a peer that claims one without the other gets neither.
  m.takes_shared_batches = m.takes_batches && (flags & kSubscribeTakesSharedBatches) != 0;
  m.maps_ring = m.takes_shared_batches && (flags & kSubscribeMapsRing) != 0;
  m.filter = frame_text(frames, 1);
  m.client = frame_text(frames, 2);
  m.group = frame_text(frames, 3);
  return m;
}

}  // namespace

Subscribe decode_subscribe(const Frames& frames) {
  return decode_request(frames, MessageType::kSubscribe, "SUBSCRIBE");
}

Subscribe decode_dump(const Frames& frames) { return decode_request(frames, MessageType::kDump, "DUMP"); }

Status decode_status(const Frames& frames) {
  FixedReader r(frames, MessageType::kStatusReply, "STATUS_REPLY", 0, 1);
  if (frames.size() % 2 != 1) throw Error("lnetcapd protocol: STATUS_REPLY has a name without a value");
  Status m;
  for (std::size_t i = 1; i + 1 < frames.size(); i += 2)
    m.items.emplace_back(frame_text(frames, i), frame_text(frames, i + 1));
  return m;
}

Accept decode_accept(const Frames& frames) {
  FixedReader r(frames, MessageType::kAccept, "ACCEPT", 0, 3);
  return Accept{frame_text(frames, 1), frame_text(frames, 2), frame_text(frames, 3)};
}

Refuse decode_refuse(const Frames& frames) {
  FixedReader r(frames, MessageType::kRefuse, "REFUSE", 0, 2);
  return Refuse{frame_text(frames, 1), frame_text(frames, 2)};
}

InterfaceAnnouncement decode_interface(const Frames& frames) {
  FixedReader r(frames, MessageType::kInterface, "INTERFACE", 8, 6);
  InterfaceAnnouncement m;
  m.id = r.u32();
  m.iface.snaplen = r.u32();
  m.iface.name = frame_text(frames, 1);
  m.iface.description = frame_text(frames, 2);
  m.iface.os = frame_text(frames, 3);
  m.iface.hardware = frame_text(frames, 4);
  m.iface.filter = frame_text(frames, 5);
  return m;
}

Counters decode_heartbeat(const Frames& frames) {
  FixedReader r(frames, MessageType::kHeartbeat, "HEARTBEAT", kCountersLen, 1);
  return get_counters(r);
}

End decode_end(const Frames& frames) {
  FixedReader r(frames, MessageType::kEnd, "END", kCountersLen + 4, 2);
  End m;
  m.counters = get_counters(r);
  m.failed = r.u32() != 0;
  m.reason = frame_text(frames, 1);
  return m;
}

RecordMeta decode_record_header(const Frames& frames) {
  FixedReader r(frames, MessageType::kRecord, "RECORD", kRecordMetaLen, 2);
  return get_record_meta(r);
}

namespace {

// A BATCH's or a SHARED_BATCH's body: `entry_meta` reads one entry's fixed
// fields (meta_len bytes, checked present).
template <typename ReadMeta>
std::vector<BatchEntry> decode_batch_body(const Frame& body, std::uint32_t count, const char* name,
                                          std::size_t meta_len, ReadMeta entry_meta) {
  const std::uint8_t* const end = body.data() + body.size();
  FieldReader r(body.data());
  auto need = [&](std::size_t n) {
    if (static_cast<std::size_t>(end - r.position()) < n)
      throw Error(std::string("lnetcapd protocol: truncated ") + name + " message (" + std::to_string(count) +
                  " records announced)");
  };
  auto span = [&](std::uint32_t len) {
    need(len);
    ByteSpan s(r.position(), len);
    r = FieldReader(r.position() + len);
    return s;
  };
  std::vector<BatchEntry> out;
  out.reserve(std::min<std::size_t>(count, body.size() / (meta_len + 8)));
  for (std::uint32_t i = 0; i < count; ++i) {
    BatchEntry e;
    need(meta_len + 4);
    e.meta = entry_meta(r, i);
    e.record = span(r.u32());
    need(4);
    for (std::uint32_t c = r.u32(); c > 0; --c) {
      need(4);
      e.comments.push_back(span(r.u32()));
    }
    out.push_back(std::move(e));
  }
  if (r.position() != end)
    throw Error(std::string("lnetcapd protocol: ") + name + " message longer than its records");
  return out;
}

}  // namespace

std::vector<BatchEntry> decode_batch(const Frames& frames) {
  FixedReader header(frames, MessageType::kBatch, "BATCH", 4, 2);
  return decode_batch_body(frames[1], header.u32(), "BATCH", kRecordMetaLen,
                           [](FieldReader& r, std::uint32_t) { return get_record_meta(r); });
}

namespace {

// The numbers first_seq .. first_seq + count - 1, the last one the
// counters' matched: checked once here, as get_record_meta checks each.
void check_numbering(std::uint32_t count, std::uint64_t first_seq, const Counters& counters, const char* name) {
  if (count == 0 || first_seq == 0 || first_seq > counters.matched || counters.matched - first_seq != count - 1)
    throw Error(std::string("lnetcapd protocol: ") + name + " of " + std::to_string(count) +
                " records numbered from " + std::to_string(first_seq) + " does not end at " +
                std::to_string(counters.matched));
}

std::vector<BatchEntry> decode_shared_body(const Frame& body, std::uint32_t count, std::uint64_t first_seq,
                                           const Counters& counters, const char* name) {
  return decode_batch_body(body, count, name, kSharedEntryMetaLen, [&](FieldReader& r, std::uint32_t i) {
    RecordMeta m;
    m.seq = first_seq + i;
    m.counters = counters;
    m.counters.matched = m.seq;  // as each RECORD says
    get_shared_entry_meta(r, m);
    return m;
  });
}

}  // namespace

std::vector<BatchEntry> decode_shared_batch(const Frames& frames) {
  FixedReader header(frames, MessageType::kSharedBatch, "SHARED_BATCH", 4 + 8 + kCountersLen, 2);
  const std::uint32_t count = header.u32();
  const std::uint64_t first_seq = header.u64();
  const Counters counters = get_counters(header);
  check_numbering(count, first_seq, counters, "SHARED_BATCH");
  return decode_shared_body(frames[1], count, first_seq, counters, "SHARED_BATCH");
}

RingOffer decode_ring_offer(const Frames& frames) {
  FixedReader r(frames, MessageType::kRingOffer, "RING_OFFER", kRingTokenBytes + 8, 1);
  RingOffer m;
  std::copy_n(r.position(), kRingTokenBytes, m.token.begin());
  FieldReader rest(r.position() + kRingTokenBytes);
  m.slots = rest.u32();
  m.slot_bytes = rest.u32();
  return m;
}

RingBatch decode_ring_batch(const Frames& frames) {
  FixedReader r(frames, MessageType::kRingBatch, "RING_BATCH", 4 + 8 + kCountersLen + 8 + 4 + 4, 1);
  RingBatch m;
  m.count = r.u32();
  m.first_seq = r.u64();
  m.counters = get_counters(r);
  m.gen = r.u64();
  m.slot = r.u32();
  m.body_len = r.u32();
  check_numbering(m.count, m.first_seq, m.counters, "RING_BATCH");
  return m;
}

std::vector<BatchEntry> decode_ring_batch_body(const RingBatch& header, const Frame& body) {
  return decode_shared_body(body, header.count, header.first_seq, header.counters, "RING_BATCH");
}

}  // namespace lnetcap::subscribe
