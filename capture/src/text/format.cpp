// SPDX-License-Identifier: GPL-2.0-or-later
#include "format.h"

#include <cinttypes>
#include <cstdio>
#include <ctime>

#include "../body_fields.h"
#include "../error.h"
#include "../report/text_escape.h"
#include "lnetcap/lnet.h"
#include "lnetcap/direction_words.h"
#include "lnetcap/record.h"

namespace lnetcap::text {
namespace {

struct CodeName {
  const char* text;
  Code code;
};

// Two-character codes first: lookup tries two characters, then one.
constexpr CodeName kTwoChar[] = {
    // (%Pu %Pg %PL %PS: rows of include/lnetcap/fields.h.)
    {"Ls", Code::kLnetSendRecv}, {"Lt", Code::kLnetType},     {"Ll", Code::kLnetLength},
    {"LP", Code::kLnetPortal},   {"Lm", Code::kLnetMatchBits}, {"Po", Code::kRpcOpcode},
    {"Pj", Code::kRpcJobid},     {"Pp", Code::kRpcProjid},
    {"Dt", Code::kDlmResType},   {"Dc", Code::kDlmLockCount}, {"Dn", Code::kDlmResName},
    {"Ts", Code::kEpoch},        {"Ns", Code::kSrcNid},       {"Nd", Code::kDstNid},
    {"Ni", Code::kLocalNid},     {"Np", Code::kPeerNid},      {"Px", Code::kXid},
    {"Pt", Code::kRpcType},      {"Ps", Code::kRpcStatus},    {"Hs", Code::kHealth},
    {"Hr", Code::kRetries},
};
constexpr CodeName kOneChar[] = {{"c", Code::kCounter}, {"T", Code::kTime}};

std::string hex64(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof(b), "0x%" PRIX64, v);
  return b;
}

// lnetdump's SEND/RECV, extended with lnetcap's other directions.
const char* send_recv(std::uint32_t dir) {
  const char* word = lnetcap_direction_word(dir);
  return word ? word : "UNKNOWN";
}

// A record header's NID; NA when LNet had not filled it (no NI chosen).
std::string recorded_nid(const Nid& n) { return n.is_unset() ? "NA" : n.to_string(); }

std::string value(const Item& it, const Message& m, std::uint64_t counter) {
  const LnetFields& l = m.lnet;
  const PtlrpcFields& r = m.rpc;
  const LdlmFields& d = m.dlm;
  const bool rpc = r.present && r.body_len;
  switch (it.code) {
    case Code::kLiteral: return it.literal;
    case Code::kCounter: return std::to_string(counter);
    case Code::kLnetSendRecv: return send_recv(m.rec.hdr.direction);
    case Code::kLnetType: {
      const char* n = l.present ? msg_type_name(l.type) : nullptr;
      return n ? n : "UNKNOWN";
    }
    case Code::kLnetLength: return std::to_string(l.payload_length);
    case Code::kLnetPortal: {
      if (!l.portal) return "NA";
      const char* n = portal_name(*l.portal);
      return n ? std::string(n) + "_PORTAL" : std::to_string(*l.portal);
    }
    case Code::kLnetMatchBits: return l.match_bits ? hex64(*l.match_bits) : "NA";
    case Code::kRpcOpcode: {
      if (!rpc) return "no_ptlrpc";
      const char* n = opcode_name(r.opc);
      return n ? n : std::to_string(r.opc);
    }
    case Code::kRpcJobid: return rpc ? report::wire_text(r.jobid) : "no_ptlrpc";
    case Code::kRpcProjid: return rpc ? std::to_string(r.projid) : "no_ptlrpc";
    case Code::kRpcType: {
      const char* n = rpc ? rpc_type_name(r.type) : nullptr;
      return rpc ? (n ? n : std::to_string(r.type)) : "no_ptlrpc";
    }
    case Code::kRpcStatus: return rpc ? status_string(r.status) : "no_ptlrpc";
    case Code::kXid: {
      auto x = m.xid();
      return x ? hex64(*x) : "NA";
    }
    case Code::kDlmResType: {
      if (!d.present) return "no_dlm";
      const char* n = ldlm_type_name(d.res_type);
      return n ? n : std::to_string(d.res_type);
    }
    case Code::kDlmLockCount: return d.present ? std::to_string(d.lock_count) : "no_dlm";
    case Code::kDlmResName: return d.present ? resource_fid(d.res_name) : "no_dlm";
    case Code::kTime: return clock_time(m.ts_ns, false);
    case Code::kEpoch: {
      char b[32];
      std::snprintf(b, sizeof(b), "%" PRIu64 ".%09" PRIu64, std::uint64_t{m.ts_ns / 1000000000U},
                    std::uint64_t{m.ts_ns % 1000000000U});
      return b;
    }
    case Code::kSrcNid: return l.present ? l.src_nid.to_string() : "NA";
    case Code::kDstNid: return l.present ? l.dest_nid.to_string() : "NA";
    case Code::kLocalNid: return recorded_nid(m.rec.hdr.local_nid);
    case Code::kPeerNid: return recorded_nid(m.rec.hdr.peer_nid);
    case Code::kHealth: {
      const char* n = health_name(m.rec.hdr.health_status);
      return n ? n : std::to_string(m.rec.hdr.health_status);
    }
    case Code::kRetries: return std::to_string(m.rec.hdr.retry_count);
    case Code::kBodyField: {
      // Absent: the message's format has no such field, or it is not valid.
      const BodyField& f = body_field(it.body_field);
      const auto v = body_field_value(m, f);
      return v ? body_field_text(f, *v) : body_field_absent(f);
    }
  }
  return "";
}

}  // namespace

std::string resource_fid(const std::uint64_t name[4]) {
  char b[64];
  std::snprintf(b, sizeof(b), "[0x%" PRIx64 ":0x%x:0x%x]", name[0],
                static_cast<unsigned>(name[1] & 0xffffffffu), static_cast<unsigned>(name[1] >> 32));
  return b;
}

std::string clock_time(std::uint64_t ts_ns, bool nano) {
  const time_t secs = static_cast<time_t>(ts_ns / 1000000000ULL);
  struct tm tm;
  localtime_r(&secs, &tm);
  char b[48];
  if (nano)
    std::snprintf(b, sizeof(b), "%02d:%02d:%02d.%09" PRIu64, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  std::uint64_t{ts_ns % 1000000000U});
  else
    std::snprintf(b, sizeof(b), "%02d:%02d:%02d.%06" PRIu64, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  std::uint64_t{(ts_ns % 1000000000U) / 1000});
  return b;
}

Format Format::compile(std::string_view spec) {
  Format f;
  std::string literal;
  auto flush_literal = [&] {
    if (!literal.empty()) f.items_.push_back({Code::kLiteral, literal, 0, false});
    literal.clear();
  };
  for (std::size_t i = 0; i < spec.size();) {
    if (spec[i] != '%') {
      literal += spec[i++];
      continue;
    }
    const std::size_t start = i++;
    if (i < spec.size() && spec[i] == '%') {
      literal += '%';
      ++i;
      continue;
    }
    Item it;
    if (i < spec.size() && spec[i] == '-') {
      it.left = true;
      ++i;
    }
    const std::size_t digits = i;
    std::uint64_t width = 0;
    while (i < spec.size() && spec[i] >= '0' && spec[i] <= '9') {
      if (width <= std::uint64_t{kMaxWidth})  // stop growing once too large: no overflow
        width = width * 10 + static_cast<std::uint64_t>(spec[i] - '0');
      ++i;
    }
    if (width > std::uint64_t{kMaxWidth})
      throw Error("-p: width " + std::string(spec.substr(digits, i - digits)) + " at column " +
                      std::to_string(start + 1) + " is too large (0 to " +
                      std::to_string(kMaxWidth) + ")",
                  "widths pad a column, e.g. %-20LP");
    it.width = static_cast<int>(width);
    bool found = false;
    for (const auto& c : kTwoChar)
      if (spec.substr(i, 2) == c.text) {
        it.code = c.code;
        i += 2;
        found = true;
        break;
      }
    if (!found)
      if (const auto row = body_field_by_pcode(spec.substr(i, 2))) {  // include/lnetcap/fields.h
        it.code = Code::kBodyField;
        it.body_field = *row;
        i += 2;
        found = true;
      }
    if (!found)
      for (const auto& c : kOneChar)
        if (spec.substr(i, 1) == c.text) {
          it.code = c.code;
          i += 1;
          found = true;
          break;
        }
    if (!found)
      throw Error("-p: unknown format code '" + std::string(spec.substr(start, i + 2 - start)) +
                      "' at column " + std::to_string(start + 1),
                  "see the -p codes in lnetcap -h");
    flush_literal();
    f.items_.push_back(std::move(it));
  }
  flush_literal();
  return f;
}

void Format::render(const Message& m, std::uint64_t counter, std::string& out) const {
  for (const Item& it : items_) {
    if (it.code == Code::kLiteral) {
      out += it.literal;
      continue;
    }
    const std::string v = value(it, m, counter);
    const std::size_t pad = it.width > static_cast<int>(v.size()) ? it.width - v.size() : 0;
    if (!it.left) out.append(pad, ' ');
    out += v;
    if (it.left) out.append(pad, ' ');
  }
}

}  // namespace lnetcap::text
