// SPDX-License-Identifier: GPL-2.0-or-later
#include "snap_length.h"

#include <cstddef>

#include "lnetcap/lnet.h"
#include "lnetcap/record.h"

namespace lnetcap::daemon {
namespace {
constexpr std::size_t kRecHdrLenOffset = offsetof(lnetcap_rec_hdr, rec_hdr_len);
constexpr std::size_t kLnetHdrLenOffset = offsetof(lnetcap_rec_hdr, lnet_hdr_len);
constexpr std::size_t kPayloadCaplenOffset = offsetof(lnetcap_rec_hdr, payload_caplen);
}  // namespace

ByteSpan cut_payload(ByteSpan record, std::uint32_t snaplen, std::vector<std::uint8_t>* scratch) {
  const std::uint32_t caplen = load_le32(record.data() + kPayloadCaplenOffset);
  if (caplen <= snaplen) return record;
  const std::size_t headers =
      std::size_t{load_le16(record.data() + kRecHdrLenOffset)} + record[kLnetHdrLenOffset];
  scratch->assign(record.begin(), record.begin() + static_cast<std::ptrdiff_t>(headers + snaplen));
  store_le32(scratch->data() + kPayloadCaplenOffset, snaplen);
  return ByteSpan(*scratch);
}

CaptureInterface interface_for_snaplen(CaptureInterface iface, std::uint32_t snaplen) {
  const std::uint64_t longest = std::uint64_t{LNETCAP_REC_HDR_LEN} + LNETCAP_HDR_NID16_LEN + snaplen;
  if (iface.snaplen == 0 || iface.snaplen > longest) iface.snaplen = static_cast<std::uint32_t>(longest);
  return iface;
}

}  // namespace lnetcap::daemon
