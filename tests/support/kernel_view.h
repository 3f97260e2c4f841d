// SPDX-License-Identifier: GPL-2.0-or-later
// kernel_view.h - a record as the BPF programs would have seen it: the LNet
// header in its 96-byte in-memory form (struct lnetcap_hdr_nid16), which is
// what the in-kernel filters test, and the record rebuilt around it, which
// is what the daemon decodes and filters.  Wire records (nid4, socklnd
// imports) are converted; on x86 the in-memory fields are the same
// little-endian values.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "lnetcap/lnet.h"
#include "nid.h"
#include "record.h"

namespace lnetcap::test {

inline std::vector<std::uint8_t> nid16_header(const RecordView& v) {
  std::vector<std::uint8_t> h(LNETCAP_HDR_NID16_LEN, 0);
  if (v.lnet_header.size() == LNETCAP_HDR_NID16_LEN) {
    std::memcpy(h.data(), v.lnet_header.data(), h.size());
    return h;
  }
  if (v.lnet_header.size() != LNETCAP_HDR_NID4_LEN) return {};
  const std::uint8_t* w = v.lnet_header.data();
#define N4(f) LNETCAP_OFFSETOF(struct lnetcap_hdr_nid4, f)
#define N16(f) LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, f)
  Nid::from_nid4(load_le64(w + N4(dest_nid))).to_lnet_nid(h.data() + N16(dest_nid));
  Nid::from_nid4(load_le64(w + N4(src_nid))).to_lnet_nid(h.data() + N16(src_nid));
  // pids, type, payload_length, then the msg union: the same in both forms.
  std::memcpy(h.data() + N16(dest_pid), w + N4(dest_pid), N4(msg) - N4(dest_pid));
  std::memcpy(h.data() + N16(msg), w + N4(msg), sizeof(union lnetcap_msg_union));
#undef N4
#undef N16
  return h;
}

/// The record with its header in the in-memory form (empty when the
/// record has no LNet header: the kernel always has one).
inline std::vector<std::uint8_t> kernel_record(const RecordView& v) {
  std::vector<std::uint8_t> out;
  const std::vector<std::uint8_t> h = nid16_header(v);
  if (!h.empty()) encode_record(v.hdr, ByteSpan(h), v.payload, out);
  return out;
}

}  // namespace lnetcap::test
