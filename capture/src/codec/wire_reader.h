// SPDX-License-Identifier: GPL-2.0-or-later
// wire_reader.h - reads and writes the fields of include/lnetcap's structs
// in a byte buffer, by offsetof, bounds-checked.
//
// Why: a field's offset is written once, in its struct, where
// LNETCAP_ASSERT_OFFSET pins it; the agent must not retype it as a number
// (tests/lint/no_literal_offsets.sh enforces this).  The plugin does the
// same with LNETCAP_OFF.  Structs are never cast from buffers: packed wire
// structs may be unaligned and of either byte order.
//
//   WireReader r(bytes);                       // little-endian by default
//   if (r.has(LNETCAP_FIELD(struct lnetcap_rec_hdr, seq)))
//     seq = r.u64(LNETCAP_FIELD(struct lnetcap_rec_hdr, seq));
//   WireReader put = r.at(LNETCAP_FIELD(struct lnetcap_hdr_nid4, msg));
//
// A field's size travels in its type (WireField<N>), so reading a 4-byte
// field with u64() does not compile.  A read outside the bytes gives 0:
// callers test has() wherever a missing field must differ from a zero one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "../bytes.h"

namespace lnetcap {

/// Where one field of an include/lnetcap struct lies; N is its size.
template <std::size_t N>
struct WireField {
  std::size_t off;
  static constexpr std::size_t size = N;
};

/// The field `field` of `type` (e.g. struct lnetcap_ptlrpc_body, pb_opc).
#define LNETCAP_FIELD(type, field) \
  (::lnetcap::WireField<sizeof(static_cast<type*>(nullptr)->field)>{offsetof(type, field)})

/// Element i of an array field, e.g. lm_buflens[i] of struct lnetcap_lustre_msg_v2.
#define LNETCAP_ELEMENT(type, field, i)                                      \
  (::lnetcap::WireField<sizeof(static_cast<type*>(nullptr)->field[0])>{      \
      offsetof(type, field) + (i) * sizeof(static_cast<type*>(nullptr)->field[0])})

class WireReader {
 public:
  WireReader() = default;
  explicit WireReader(ByteSpan bytes, Endian order = {}) : b_(bytes), e_(order) {}

  ByteSpan bytes() const { return b_; }
  std::size_t size() const { return b_.size(); }
  Endian order() const { return e_; }
  /// The same bytes read in another byte order (lustre_msg's magic decides).
  WireReader with_order(Endian order) const { return WireReader(b_, order); }

  bool has(std::size_t off, std::size_t len) const {
    return off <= b_.size() && len <= b_.size() - off;
  }
  template <std::size_t N>
  bool has(WireField<N> f) const { return has(f.off, N); }
  /// The whole of a struct fits.
  template <class T>
  bool holds() const { return sizeof(T) <= b_.size(); }

  std::uint8_t u8(WireField<1> f) const { return has(f) ? b_[f.off] : 0; }
  std::uint16_t u16(WireField<2> f) const { return has(f) ? e_.u16(b_.data() + f.off) : 0; }
  std::uint32_t u32(WireField<4> f) const { return has(f) ? e_.u32(b_.data() + f.off) : 0; }
  std::int32_t s32(WireField<4> f) const { return static_cast<std::int32_t>(u32(f)); }
  std::uint64_t u64(WireField<8> f) const { return has(f) ? e_.u64(b_.data() + f.off) : 0; }

  /// A field's bytes (a char array, a struct lnetcap_nid); empty when cut.
  template <std::size_t N>
  ByteSpan span(WireField<N> f) const { return has(f) ? b_.subspan(f.off, N) : ByteSpan{}; }
  /// A nested struct or union as a reader of its own, cut to what was captured.
  template <std::size_t N>
  WireReader at(WireField<N> f) const { return from(f.off).first(N); }
  /// The bytes from off on (a buffer at a computed offset); empty past the end.
  WireReader from(std::size_t off) const {
    return WireReader(off <= b_.size() ? b_.subspan(off) : ByteSpan{}, e_);
  }
  /// At most the first n bytes (a buffer's declared length).
  WireReader first(std::size_t n) const {
    return WireReader(b_.first(n < b_.size() ? n : b_.size()), e_);
  }

 private:
  ByteSpan b_;
  Endian e_;
};

/// The writing twin of WireReader, for buffers the agent owns (the
/// anonymizer rewrites identities in place).  Writes outside are dropped.
class WireWriter {
 public:
  WireWriter(std::span<std::uint8_t> bytes, Endian order) : b_(bytes), e_(order) {}

  WireReader reader() const { return WireReader(ByteSpan(b_.data(), b_.size()), e_); }
  template <std::size_t N>
  bool has(WireField<N> f) const { return reader().has(f); }
  WireWriter from(std::size_t off) const {
    return WireWriter(off <= b_.size() ? b_.subspan(off) : std::span<std::uint8_t>{}, e_);
  }
  std::span<std::uint8_t> bytes() const { return b_; }

  void u32(WireField<4> f, std::uint32_t v) {
    if (!has(f)) return;
    if (e_.little) store_le32(b_.data() + f.off, v);
    else store_be32(b_.data() + f.off, v);
  }
  void u64(WireField<8> f, std::uint64_t v) {
    if (!has(f)) return;
    if (e_.little) {
      store_le64(b_.data() + f.off, v);
    } else {
      store_be32(b_.data() + f.off, static_cast<std::uint32_t>(v >> 32));
      store_be32(b_.data() + f.off + sizeof(std::uint32_t), static_cast<std::uint32_t>(v));
    }
  }
  template <std::size_t N>
  std::span<std::uint8_t> span(WireField<N> f) const {
    return has(f) ? b_.subspan(f.off, N) : std::span<std::uint8_t>{};
  }

 private:
  std::span<std::uint8_t> b_;
  Endian e_;
};

}  // namespace lnetcap
