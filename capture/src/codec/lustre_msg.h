// SPDX-License-Identifier: GPL-2.0-or-later
// lustre_msg.h - where lustre_msg_v2's variable parts lie: lm_buflens[i]
// follows struct lnetcap_lustre_msg_v2, and the buffers follow the
// buflens (LNETCAP_LUSTRE_MSG_HDR_SIZE), each padded to 8 bytes.
#pragma once

#include <cstdint>

#include "codec/wire_reader.h"
#include "lnetcap/ptlrpc.h"

namespace lnetcap {

/// lm_buflens[i], the length of buffer i.
inline WireField<sizeof(std::uint32_t)> lustre_msg_buflen(std::uint32_t i) {
  return {sizeof(struct lnetcap_lustre_msg_v2) + sizeof(std::uint32_t) * std::size_t{i}};
}

/// The message's byte order, from lm_magic (read little-endian); false when
/// the bytes are not a lustre_msg_v2.
inline bool lustre_msg_order(const WireReader& msg, Endian* order) {
  const std::uint32_t magic = msg.u32(LNETCAP_FIELD(struct lnetcap_lustre_msg_v2, lm_magic));
  if (magic == LNETCAP_LUSTRE_MSG_MAGIC_V2) order->little = true;
  else if (magic == LNETCAP_LUSTRE_MSG_MAGIC_V2_SWABBED) order->little = false;
  else return false;
  return true;
}

}  // namespace lnetcap
