// SPDX-License-Identifier: GPL-2.0-or-later
#include "record.h"

#include <cstddef>
#include <cstring>

#include "codec/wire_reader.h"
#include "error.h"
#include "lnetcap/record.h"

namespace lnetcap {

bool RecordHeader::is_outcome() const { return (flags & LNETCAP_REC_F_OUTCOME) != 0; }

bool RecordHeader::is_resend() const {
  // LNet counts the attempts in msg_retry_count: 0 on the first SEND.
  return direction == LNETCAP_DIR_SEND && !is_outcome() &&
         (flags & LNETCAP_REC_F_HEALTH_VALID) && retry_count > 0;
}

void encode_record(const RecordHeader& h, ByteSpan lnet_header, ByteSpan payload,
                   std::vector<std::uint8_t>& out) {
  if (!lnet_header.empty() && lnet_header.size() != LNETCAP_HDR_NID4_LEN &&
      lnet_header.size() != LNETCAP_HDR_NID16_LEN)
    throw Error("internal: LNet header of " + std::to_string(lnet_header.size()) + " bytes");
  const std::size_t start = out.size();
  LeWriter w(out);
  w.u32(LNETCAP_REC_MAGIC);
  w.u16(LNETCAP_REC_VERSION);
  const std::size_t hdr_len = h.has_health_fields() ? LNETCAP_REC_HDR_LEN : LNETCAP_REC_HDR_V1_LEN;
  w.u16(static_cast<std::uint16_t>(hdr_len));
  w.u8(h.direction);
  w.u8(h.hook);
  w.u8(h.lnd_type);
  w.u8(static_cast<std::uint8_t>(lnet_header.size()));
  w.u16(h.flags);
  w.u8(h.health_status);
  w.u8(h.retry_count);
  w.u32(h.cpu);
  w.u32(h.pid);
  char comm[16] = {};
  std::strncpy(comm, h.comm.c_str(), sizeof(comm) - 1);
  w.bytes(comm, sizeof(comm));
  w.u64(h.seq);
  w.u32(h.payload_len);
  w.u32(static_cast<std::uint32_t>(payload.size()));
  std::uint8_t nid[20];
  h.local_nid.to_lnet_nid(nid);
  w.bytes(nid, sizeof(nid));
  h.peer_nid.to_lnet_nid(nid);
  w.bytes(nid, sizeof(nid));
  w.u32(static_cast<std::uint32_t>(h.status));
  w.u32(h.ni_id);
  if (hdr_len == LNETCAP_REC_HDR_LEN) {
    w.u64(h.queue_ns);
    w.u64(h.msg_id);
    w.u8(h.drop_reason);
    const std::uint8_t reserved[7] = {};
    w.bytes(reserved, sizeof(reserved));
  }
  if (out.size() - start != hdr_len) throw Error("internal: record header size");
  w.bytes(lnet_header.data(), lnet_header.size());
  w.bytes(payload.data(), payload.size());
}

std::optional<RecordView> parse_record(ByteSpan b, std::string* why) {
  auto fail = [&](std::string reason) -> std::optional<RecordView> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  // The fixed prefix every version shares: magic, version, header length.
  if (b.size() < 8) return fail("record of " + std::to_string(b.size()) + " bytes is too short");
#define REC(field) LNETCAP_FIELD(struct lnetcap_rec_hdr, field)
  const WireReader all(b);
  if (all.u32(REC(magic)) != LNETCAP_REC_MAGIC) return fail("record magic is not \"LNCR\"");
  RecordView v;
  RecordHeader& h = v.hdr;
  h.version = all.u16(REC(version));
  h.rec_hdr_len = all.u16(REC(rec_hdr_len));
  if (h.version != LNETCAP_REC_VERSION)
    return fail("record version " + std::to_string(h.version) +
                " is not one this lnetcap understands (" + std::to_string(LNETCAP_REC_VERSION) +
                "); upgrade lnetcap");
  if (h.rec_hdr_len < LNETCAP_REC_HDR_V1_LEN)
    return fail("record header length " + std::to_string(h.rec_hdr_len) + " is below " +
                std::to_string(LNETCAP_REC_HDR_V1_LEN));
  if (b.size() < h.rec_hdr_len)
    return fail("record header (" + std::to_string(h.rec_hdr_len) + " bytes) is truncated at " +
                std::to_string(b.size()));
  // Only the header's own bytes: appended fields beyond rec_hdr_len read as 0.
  const WireReader r = all.first(h.rec_hdr_len);
  h.direction = r.u8(REC(direction));
  h.hook = r.u8(REC(hook));
  h.lnd_type = r.u8(REC(lnd_type));
  h.lnet_hdr_len = r.u8(REC(lnet_hdr_len));
  h.flags = r.u16(REC(rec_flags));
  h.health_status = r.u8(REC(health_status));
  h.retry_count = r.u8(REC(retry_count));
  h.cpu = r.u32(REC(cpu));
  h.pid = r.u32(REC(pid));
  const ByteSpan comm = r.span(REC(comm));
  h.comm.assign(reinterpret_cast<const char*>(comm.data()),
                strnlen(reinterpret_cast<const char*>(comm.data()), comm.size()));
  h.seq = r.u64(REC(seq));
  h.payload_len = r.u32(REC(payload_len));
  h.payload_caplen = r.u32(REC(payload_caplen));
  h.local_nid = Nid::from_lnet_nid(r.span(REC(local_nid)).data());
  h.peer_nid = Nid::from_lnet_nid(r.span(REC(peer_nid)).data());
  h.status = r.s32(REC(status));
  h.ni_id = r.u32(REC(ni_id));
  // Appended fields: present only in headers long enough to hold them.
  h.queue_ns = r.u64(REC(queue_ns));
  h.msg_id = r.u64(REC(msg_id));
  h.drop_reason = r.u8(REC(drop_reason));
#undef REC
  if (h.lnet_hdr_len != 0 && h.lnet_hdr_len != LNETCAP_HDR_NID4_LEN &&
      h.lnet_hdr_len != LNETCAP_HDR_NID16_LEN)
    return fail("LNet header length " + std::to_string(h.lnet_hdr_len) + " is not 0, 72 or 96");
  if (h.payload_caplen > h.payload_len)
    return fail("captured payload (" + std::to_string(h.payload_caplen) +
                ") exceeds the original length (" + std::to_string(h.payload_len) + ")");
  const std::size_t need = std::size_t{h.rec_hdr_len} + h.lnet_hdr_len + h.payload_caplen;
  if (b.size() != need)
    return fail("record is " + std::to_string(b.size()) + " bytes but its header announces " +
                std::to_string(need));
  v.lnet_header = b.subspan(h.rec_hdr_len, h.lnet_hdr_len);
  v.payload = b.subspan(std::size_t{h.rec_hdr_len} + h.lnet_hdr_len, h.payload_caplen);
  return v;
}

std::uint32_t record_orig_len(const RecordView& rec) {
  return rec.hdr.rec_hdr_len + rec.hdr.lnet_hdr_len + rec.hdr.payload_len;
}

}  // namespace lnetcap
