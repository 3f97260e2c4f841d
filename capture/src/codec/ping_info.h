// SPDX-License-Identifier: GPL-2.0-or-later
// ping_info.h - the one walk of struct lnet_ping_info (the payload of a
// ping REPLY and of a discovery push) in the agent: the fixed part, the
// nid4 NI list, the large-address NI list (LARGE_ADDR) and the NID
// metadata trailer (METADATA, Lustre 2.17), as include/lnetcap/lnet.h lays
// them out.  The text output, the summary's multi-rail peers and the
// anonymizer all read a ping info through it, so the layout is walked in
// one place.
//
// Bounded: it reads only the captured bytes, and a count (pi_nnis,
// num_nid_mappings) yields at most the entries those bytes hold, so a
// hostile 0xffffffff costs nothing.  Whatever the capture or the message
// cuts is reported, never guessed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "bytes.h"
#include "nid.h"

namespace lnetcap {

/// Why a list of a ping info ends before its count says it should.
enum class PingCut {
  kNone,           // complete
  kSnapLength,     // the capture ended first; the message went on
  kMessageLength,  // the message itself ends first: the requester's buffer
                   // was shorter (LNet truncates a REPLY to the GET's sink
                   // length) or a count or size is bogus
};

/// One NI of the info: an lnet_ni_status (nid4) or lnet_ni_large_status.
struct PingNi {
  Nid nid;
  std::uint32_t status = 0;  // for 0@lo: the ping target's sequence
  bool large = false;
  std::size_t nid_offset = 0;  // where the NID lies in the payload
  std::size_t nid_len = 0;     // its bytes: 8 (nid4) or struct lnet_nid cut to its size
};

/// One lnet_nid_md_entry of the metadata trailer.
struct PingMetadataEntry {
  Nid nid;  // a nid4 on the wire
  std::size_t offset = 0;  // the entry's offset in the payload
  ByteSpan buffer;         // LNETCAP_LNET_MD_BUFFER_SZ bytes, LND-defined
};

struct PingInfo {
  Endian order;  // the sender's, from pi_magic
  std::uint32_t features = 0;
  std::uint32_t pid = 0;
  std::uint32_t nnis = 0;  // nid4 entries, as declared
  std::vector<PingNi> nis;  // 0@lo first, nid4 then large
  PingCut nis_cut = PingCut::kNone;
  /// The trailer, when the METADATA feature is set and its count was read.
  std::optional<std::uint32_t> md_count;
  std::size_t md_offset = 0;  // where the trailer starts (also: where the NI lists end)
  std::vector<PingMetadataEntry> metadata;
  PingCut md_cut = PingCut::kNone;
  /// How far the parsed structure reaches into the payload; past it are
  /// the unused rest of the sender's ping buffer.
  std::size_t end = 0;

  bool has_feature(std::uint32_t bit) const { return (features & bit) != 0; }
};

/// True when the bytes start with the ping magic in either byte order.
bool is_ping_info(ByteSpan payload);

/// Parses the captured bytes of a ping info whose message carried
/// message_len bytes (the LNet payload_length; a captured prefix may be
/// shorter).  nullopt when the bytes are not a ping info (magic, or shorter
/// than the fixed part).
std::optional<PingInfo> parse_ping_info(ByteSpan captured, std::size_t message_len);

}  // namespace lnetcap
