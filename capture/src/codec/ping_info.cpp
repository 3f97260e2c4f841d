// SPDX-License-Identifier: GPL-2.0-or-later
#include "codec/ping_info.h"

#include <algorithm>

#include "codec/wire_reader.h"
#include "lnetcap/lnet.h"

namespace lnetcap {
namespace {

// Sizes as 64-bit sums, so no count read from the wire can wrap them.
using Size = std::uint64_t;

// Which of the two ends came first when `need` bytes were wanted.
PingCut cut_by(Size need, Size message_len) {
  return need <= message_len ? PingCut::kSnapLength : PingCut::kMessageLength;
}

// The bytes of one lnet_ni_large_status: a u32 status and the struct
// lnet_nid cut to its size (nid_size + 4 address bytes), rounded up to 4
// (lib-types.h lnet_ping_sts_size()); 0 when nid_size is beyond any NID.
std::size_t large_status_size(std::uint8_t nid_size) {
  if (nid_size > LNETCAP_NID_SIZE_MAX) return 0;
  const std::size_t n = offsetof(struct lnetcap_ni_large_status, ns_nid) +
                        offsetof(struct lnetcap_nid, nid_addr) + nid_size + sizeof(std::uint32_t);
  return (n + 3) & ~std::size_t{3};
}

// pi_ni[]: nnis lnet_ni_status entries after the fixed part.  Returns
// false when the list is cut (info->nis_cut says by what).
bool read_nid4_list(const WireReader& r, Size message_len, PingInfo* info) {
  constexpr auto kNid = LNETCAP_FIELD(struct lnetcap_ni_status, ns_nid);
  constexpr auto kStatus = LNETCAP_FIELD(struct lnetcap_ni_status, ns_status);
  constexpr std::size_t kEntry = sizeof(struct lnetcap_ni_status);
  std::size_t pos = sizeof(struct lnetcap_ping_info);
  for (std::uint32_t i = 0; i < info->nnis; ++i, pos += kEntry) {
    if (!r.has(pos, kEntry)) {
      info->nis_cut = cut_by(sizeof(struct lnetcap_ping_info) + Size{kEntry} * info->nnis, message_len);
      info->md_offset = info->end = pos;
      return false;
    }
    const WireReader ni = r.from(pos);
    PingNi n;
    n.nid = Nid::from_nid4(ni.u64(kNid));
    n.status = ni.u32(kStatus);
    n.nid_offset = pos + kNid.off;
    n.nid_len = kNid.size;
    info->nis.push_back(n);
  }
  info->md_offset = info->end = pos;
  return true;
}

// With LARGE_ADDR, lnet_ni_large_status entries from the end of the nid4
// list up to pi_ni[0].ns_msg_size & ~3, the size of the whole NI part
// (lnet-idl.h lnet_ping_info_size()).
bool read_large_list(const WireReader& r, Size message_len, PingInfo* info) {
  if (info->nnis == 0) return true;  // no pi_ni[0], so no total: nothing to walk
  const WireReader lo = r.from(sizeof(struct lnetcap_ping_info));
  const std::size_t total = lo.u32(LNETCAP_FIELD(struct lnetcap_ni_status, ns_msg_size)) & ~std::uint32_t{3};
  std::size_t pos = info->md_offset;
  if (total < pos) {  // a size that ends inside the nid4 list
    info->nis_cut = PingCut::kMessageLength;
    return false;
  }
  constexpr auto kStatus = LNETCAP_FIELD(struct lnetcap_ni_large_status, ns_status);
  constexpr auto kNid = LNETCAP_FIELD(struct lnetcap_ni_large_status, ns_nid);
  constexpr auto kNidSize = LNETCAP_FIELD(struct lnetcap_nid, nid_size);
  while (pos < total) {
    const WireReader e = r.from(pos);
    const WireReader nid = e.from(kNid.off);
    if (!nid.has(kNidSize)) {
      info->nis_cut = cut_by(Size{total}, message_len);
      break;
    }
    const std::size_t len = large_status_size(nid.u8(kNidSize));
    if (len == 0 || pos + len > total) {  // no NID is that long, or it crosses the end
      info->nis_cut = PingCut::kMessageLength;
      break;
    }
    if (!r.has(pos, len)) {
      info->nis_cut = cut_by(Size{total}, message_len);
      break;
    }
    std::uint8_t raw[sizeof(struct lnetcap_nid)] = {};
    const std::size_t nid_len = len - kNid.off < sizeof(raw) ? len - kNid.off : sizeof(raw);
    std::copy_n(nid.bytes().begin(), nid_len, raw);
    PingNi n;
    n.nid = Nid::from_lnet_nid(raw);
    n.status = e.u32(kStatus);
    n.large = true;
    n.nid_offset = pos + kNid.off;
    // The NID's own bytes; the rest of the entry is padding to 4.
    n.nid_len = offsetof(struct lnetcap_nid, nid_addr) + n.nid.size + sizeof(std::uint32_t);
    info->nis.push_back(n);
    pos += len;
  }
  info->md_offset = info->end = pos;
  return info->nis_cut == PingCut::kNone;
}

// The METADATA trailer where the NI lists end.
void read_metadata(const WireReader& r, Size message_len, PingInfo* info) {
  constexpr auto kCount = LNETCAP_FIELD(struct lnetcap_nid_metadata, num_nid_mappings);
  constexpr auto kNid = LNETCAP_FIELD(struct lnetcap_nid_md_entry, nid);
  constexpr auto kBuffer = LNETCAP_FIELD(struct lnetcap_nid_md_entry, buffer);
  constexpr std::size_t kEntry = sizeof(struct lnetcap_nid_md_entry);
  const WireReader md = r.from(info->md_offset);
  if (!md.has(kCount)) {
    info->md_cut = cut_by(Size{info->md_offset} + sizeof(struct lnetcap_nid_metadata), message_len);
    return;
  }
  const std::uint32_t count = md.u32(kCount);
  info->md_count = count;
  std::size_t pos = info->md_offset + sizeof(struct lnetcap_nid_metadata);
  for (std::uint32_t i = 0; i < count; ++i, pos += kEntry) {
    if (!r.has(pos, kEntry)) {
      info->md_cut = cut_by(Size{info->md_offset} + sizeof(struct lnetcap_nid_metadata) + Size{kEntry} * count,
                            message_len);
      break;
    }
    const WireReader e = r.from(pos);
    info->metadata.push_back({Nid::from_nid4(e.u64(kNid)), pos, e.span(kBuffer)});
  }
  info->end = info->md_offset + sizeof(struct lnetcap_nid_metadata) + kEntry * info->metadata.size();
}

}  // namespace

bool is_ping_info(ByteSpan payload) {
  return payload.size() >= sizeof(struct lnetcap_ping_info) &&
         (load_le32(payload.data()) == LNETCAP_LNET_PROTO_PING_MAGIC ||
          load_be32(payload.data()) == LNETCAP_LNET_PROTO_PING_MAGIC);
}

std::optional<PingInfo> parse_ping_info(ByteSpan captured, std::size_t message_len) {
  if (!is_ping_info(captured)) return std::nullopt;
  PingInfo info;
  // Sender-native: the receiver swaps when the magic reads swapped.
  info.order.little = load_le32(captured.data()) == LNETCAP_LNET_PROTO_PING_MAGIC;
  const WireReader r(captured, info.order);
  info.features = r.u32(LNETCAP_FIELD(struct lnetcap_ping_info, pi_features));
  info.pid = r.u32(LNETCAP_FIELD(struct lnetcap_ping_info, pi_pid));
  info.nnis = r.u32(LNETCAP_FIELD(struct lnetcap_ping_info, pi_nnis));
  const Size len = std::max<Size>(message_len, captured.size());
  if (!read_nid4_list(r, len, &info)) return info;
  if (info.has_feature(LNETCAP_PING_FEAT_LARGE_ADDR) && !read_large_list(r, len, &info)) return info;
  if (info.has_feature(LNETCAP_PING_FEAT_METADATA)) read_metadata(r, len, &info);
  return info;
}

}  // namespace lnetcap
