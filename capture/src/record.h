// SPDX-License-Identifier: GPL-2.0-or-later
// record.h - encode and validate lnetcap capture records (format v1,
// include/lnetcap/record.h).  Records are parsed field by field in little
// endian, so the code is independent of host byte order and alignment.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bytes.h"
#include "nid.h"

namespace lnetcap {

/// Host-order copy of struct lnetcap_rec_hdr.
struct RecordHeader {
  std::uint16_t version = 1;
  std::uint16_t rec_hdr_len = 0;  // filled in by encode_record
  std::uint8_t direction = 0;     // enum lnetcap_direction
  std::uint8_t hook = 0;          // enum lnetcap_hook
  std::uint8_t lnd_type = 0;
  std::uint8_t lnet_hdr_len = 0;  // filled in by encode_record
  std::uint16_t flags = 0;        // LNETCAP_REC_F_*
  std::uint8_t health_status = 0;
  std::uint8_t retry_count = 0;
  std::uint32_t cpu = 0xffffffffu;
  std::uint32_t pid = 0;
  std::string comm;  // at most 15 characters are kept
  std::uint64_t seq = 0;
  std::uint32_t payload_len = 0;
  std::uint32_t payload_caplen = 0;  // filled in by encode_record
  Nid local_nid;
  Nid peer_nid;
  std::int32_t status = 0;
  std::uint32_t ni_id = 0;
  // Appended fields (rec_hdr_len 128); 0 in records with the 104-byte header.
  std::uint64_t queue_ns = 0;     // with LNETCAP_REC_F_QUEUE_VALID
  std::uint64_t msg_id = 0;       // LNETCAP_MSG_ID(cpu, seq) of the message's first record
  std::uint8_t drop_reason = 0;   // enum lnetcap_drop_reason

  /// The record reports the outcome of a message recorded before (msg_id):
  /// it is not a message of its own and is never counted as one.
  bool is_outcome() const;
  /// A resend: a SEND with retry_count > 0 (health fields valid), which
  /// keeps the msg_id of the message's first SEND.  One of the message's
  /// attempts, not a message of its own.
  bool is_resend() const;
  /// Needs the 128-byte header: one of the appended fields is set.
  bool has_health_fields() const { return queue_ns || msg_id || drop_reason; }
};

/// A validated record: its header and views of the LNet header and payload
/// prefix inside the caller's buffer.
struct RecordView {
  RecordHeader hdr;
  ByteSpan lnet_header;
  ByteSpan payload;
  bool truncated() const { return hdr.payload_caplen < hdr.payload_len; }
};

/// Appends one record to out.  lnet_header must be 0, 72 or 96 bytes.
/// Sets rec_hdr_len, lnet_hdr_len and payload_caplen from the arguments.
/// The header is the 104-byte first v1 layout unless one of the appended
/// fields is set (then 128), so records without them stay byte-identical.
void encode_record(const RecordHeader& hdr, ByteSpan lnet_header, ByteSpan payload,
                   std::vector<std::uint8_t>& out);

/// Validates and decodes a record.  On failure returns nullopt and puts a
/// one-line reason in *why (e.g. "record version 3 is newer than this
/// lnetcap understands (1)").
std::optional<RecordView> parse_record(ByteSpan bytes, std::string* why);

/// Original length of the whole record (what the EPB's orig_len holds).
std::uint32_t record_orig_len(const RecordView& rec);

}  // namespace lnetcap
