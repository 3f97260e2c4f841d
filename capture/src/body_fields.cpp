// SPDX-License-Identifier: GPL-2.0-or-later
#include "body_fields.h"

#include <strings.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "codec/wire_reader.h"
#include "lnetcap/ptlrpc.h"

namespace lnetcap {
namespace {

bool is_number(const BodyField& f) {
  return f.type == LNETCAP_BFT_U32 || f.type == LNETCAP_BFT_U64 || f.type == LNETCAP_BFT_SECS;
}

// The index of the first buffer of kind rmf in messages of (opc, reply),
// by the format table, or -1.  Asked per message and field, so the answer
// is kept per (opcode, direction, kind): the table walk happens once.
int buffer_index(std::uint32_t opc, bool reply, unsigned rmf) {
  struct Key {
    std::uint32_t opc;
    bool reply;
    unsigned rmf;
    int index;
  };
  // A handful of (opcode, kind) pairs are ever asked: a short list is enough.
  thread_local std::vector<Key> known;
  for (const Key& k : known)
    if (k.opc == opc && k.reply == reply && k.rmf == rmf) return k.index;
  int index = -1;
  for (unsigned i = 1; i < LNETCAP_RPC_FORMAT_MAX_BUFS && index < 0; ++i)
    if (lnetcap_rpc_buffer_kind(opc, 0, 0, reply, i) == rmf) index = static_cast<int>(i);
  if (known.size() < 256) known.push_back({opc, reply, rmf, index});  // bounded: opcodes are few
  return index;
}

}  // namespace

std::optional<std::size_t> body_field_by_keyword(std::string_view name) {
  for (std::size_t i = 0; i < LNETCAP_BF_COUNT; ++i) {
    const char* k = lnetcap_body_fields[i].keyword;
    if (k && is_number(lnetcap_body_fields[i]) && name.size() == std::string_view(k).size() &&
        strncasecmp(name.data(), k, name.size()) == 0)
      return i;
  }
  return std::nullopt;
}

std::optional<std::size_t> body_field_by_pcode(std::string_view code) {
  for (std::size_t i = 0; i < LNETCAP_BF_COUNT; ++i) {
    const char* c = lnetcap_body_fields[i].pcode;
    if (c && is_number(lnetcap_body_fields[i]) && code == c) return i;
  }
  return std::nullopt;
}

const std::vector<std::size_t>& body_fields_with_label() {
  static const std::vector<std::size_t> rows = [] {
    std::vector<std::size_t> v;
    for (std::size_t i = 0; i < LNETCAP_BF_COUNT; ++i)
      if (lnetcap_body_fields[i].label && is_number(lnetcap_body_fields[i])) v.push_back(i);
    return v;
  }();
  return rows;
}

std::optional<std::uint64_t> body_field_value(const Message& m, const BodyField& f) {
  const PtlrpcFields& r = m.rpc;
  if (!r.present || !r.body_len || !is_number(f)) return std::nullopt;
  Endian e;
  e.little = !r.big_endian;
  if (f.rmf == LNETCAP_RMF_PTLRPC_BODY) {
    // Buffer 0, v2 or v3 (fields.h): there when the body's length reaches
    // the member; read as far as it was captured (0 beyond), as
    // decode_ptlrpc() reads the body.
    if (r.body_len < std::uint32_t{f.offset} + f.width) return std::nullopt;
    const WireReader b = WireReader(m.rec.payload, e).from(r.buf_off[0]).first(r.body_len);
    return f.width == 4 ? b.u32(WireField<4>{f.offset}) : b.u64(WireField<8>{f.offset});
  }
  const int i = buffer_index(r.opc, r.type != LNETCAP_PTL_RPC_MSG_REQUEST, f.rmf);
  if (i < 0 || static_cast<std::uint32_t>(i) >= r.bufcount ||
      static_cast<std::size_t>(i) >= PtlrpcFields::kMaxBuffers || r.buf_len[i] < f.struct_size)
    return std::nullopt;
  const WireReader s = WireReader(m.rec.payload, e).from(r.buf_off[i]).first(f.struct_size);
  if (!s.has(0, f.struct_size)) return std::nullopt;  // the whole struct, as the plugin asks
  const int valid_at = lnetcap_body_valid_offset(f.rmf);
  if (f.valid_bit && valid_at >= 0 &&
      !(s.u64(WireField<8>{static_cast<std::size_t>(valid_at)}) & f.valid_bit))
    return std::nullopt;
  if (f.width == 4) return s.u32(WireField<4>{f.offset});
  if (f.width == 8) return s.u64(WireField<8>{f.offset});
  return std::nullopt;
}

const char* body_field_absent(const BodyField& f) {
  return f.rmf == LNETCAP_RMF_PTLRPC_BODY ? "no_ptlrpc" : "NA";
}

std::string body_field_text(const BodyField& f, std::uint64_t v) {
  char b[32];
  if (f.display == LNETCAP_BFD_HEX) std::snprintf(b, sizeof(b), "0x%" PRIx64, v);
  else if (f.display == LNETCAP_BFD_OCT) std::snprintf(b, sizeof(b), "0%" PRIo64, v);
  else std::snprintf(b, sizeof(b), "%" PRIu64, v);
  return b;
}

std::uint64_t body_field_max(const BodyField& f) { return f.width == 4 ? UINT32_MAX : UINT64_MAX; }

std::string body_fields_usage() {
  std::string out;
  for (std::size_t i = 0; i < LNETCAP_BF_COUNT; ++i) {
    const BodyField& f = lnetcap_body_fields[i];
    if (!is_number(f) || (!f.keyword && !f.pcode && !f.label)) continue;
    std::string line = "  ";
    line += f.keyword ? std::string(f.keyword) + " OP N" : std::string("-");
    line.resize(std::max<std::size_t>(line.size() + 1, 22), ' ');
    line += f.pcode ? std::string("%") + f.pcode : std::string("-");
    line.resize(std::max<std::size_t>(line.size() + 1, 28), ' ');
    line += f.label ? std::string("\"") + f.label + " N\"" : std::string("-");
    line.resize(std::max<std::size_t>(line.size() + 1, 42), ' ');
    line += f.name;
    line += " (";
    line += f.abbrev;
    line += ")\n";
    out += line;
  }
  if (out.empty()) return out;
  return "\nBody fields (include/lnetcap/fields.h): filter keyword, -p code, text word:\n" + out;
}

}  // namespace lnetcap
