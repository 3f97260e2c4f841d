// SPDX-License-Identifier: GPL-2.0-or-later
#include "anonymizer.h"

#include <fcntl.h>
#include <glib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "../error.h"
#include "../message.h"
#include "../record.h"
#include "codec/lustre_msg.h"
#include "codec/ping_info.h"
#include "buffer_policy.h"
#include "codec/wire_reader.h"
#include "lnetcap/bodies.h"
#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/rpc_formats.h"

namespace lnetcap::anon {
namespace {

constexpr std::size_t kMinKeyBytes = 16;

#define BODY_FIELD(field) LNETCAP_FIELD(struct lnetcap_ptlrpc_body, field)

// A buffer holding text: printable bytes, then only NULs.
bool looks_like_string(const std::uint8_t* p, std::size_t n) {
  std::size_t i = 0;
  while (i < n && p[i] >= 0x20 && p[i] < 0x7f) ++i;
  if (i == 0) return false;
  for (std::size_t j = i; j < n; ++j)
    if (p[j] != 0) return false;
  return true;
}

}  // namespace

std::string Changes::summary() const {
  return "anonymized " + std::to_string(records) + " records: " + std::to_string(nids) +
         " NIDs, " + std::to_string(jobids) + " jobids, " + std::to_string(ids) +
         " uid/gid/projid fields, " + std::to_string(handles) + " handles, " + std::to_string(buffers) +
         " PtlRPC buffers replaced (names, UUIDs, EAs), " + std::to_string(payload_bytes_dropped) +
         " payload bytes dropped" +
         // Only Lustre 2.17's EFA and fault-injection pings carry them.
         (ping_metadata ? ", " + std::to_string(ping_metadata) + " ping NID metadata entries zeroed" : "");
}

Anonymizer::Anonymizer(std::vector<std::uint8_t> key) : key_(std::move(key)) {
  if (key_.size() < kMinKeyBytes) throw Error("anonymization key is shorter than 16 bytes");
}

std::vector<std::uint8_t> Anonymizer::random_key() {
  std::vector<std::uint8_t> k(32);
  std::ifstream in("/dev/urandom", std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(k.data()), static_cast<std::streamsize>(k.size())))
    throw Error("cannot read /dev/urandom for an anonymization key");
  return k;
}

std::vector<std::uint8_t> Anonymizer::load_or_create_key(const std::string& path) {
  // Not std::ifstream: a directory "opens" and its read then throws
  // std::ios_base::failure, which took lnetcapd down on SIGHUP (issue 25).
  const int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (in >= 0) {
    struct stat st;
    if (::fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(in);
      throw Error("anonymization key file " + path + " is not a regular file",
                  "name a file (lnetcap creates it with a random key when it does not exist)");
    }
    std::vector<std::uint8_t> k(static_cast<std::size_t>(std::min<off_t>(st.st_size, 1 << 20)));
    const ssize_t got = k.empty() ? 0 : ::read(in, k.data(), k.size());
    const int read_errno = errno;
    ::close(in);
    if (got < 0)
      throw Error("cannot read anonymization key file " + path + ": " + std::strerror(read_errno));
    k.resize(static_cast<std::size_t>(got));
    if (k.size() < kMinKeyBytes)
      throw Error("anonymization key file " + path + " holds " + std::to_string(k.size()) +
                      " bytes; at least 16 are needed",
                  "delete it to have lnetcap create a new random key");
    return k;
  }
  if (errno != ENOENT)
    throw Error("cannot open anonymization key file " + path + ": " + std::strerror(errno));
  auto k = random_key();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw Error("cannot create anonymization key file " + path + ": " + std::strerror(errno));
  const bool ok = ::write(fd, k.data(), k.size()) == static_cast<ssize_t>(k.size());
  ::close(fd);
  if (!ok) throw Error("cannot write anonymization key file " + path);
  return k;
}

std::vector<std::uint8_t> Anonymizer::digest(const char* domain, const void* data, std::size_t len) const {
  GHmac* h = g_hmac_new(G_CHECKSUM_SHA256, key_.data(), key_.size());
  g_hmac_update(h, reinterpret_cast<const guchar*>(domain), std::strlen(domain) + 1);
  g_hmac_update(h, static_cast<const guchar*>(data), static_cast<gssize>(len));
  std::vector<std::uint8_t> out(32);
  gsize n = out.size();
  g_hmac_get_digest(h, out.data(), &n);
  g_hmac_unref(h);
  return out;
}

Nid Anonymizer::map_nid(const Nid& nid) {
  if (nid.is_any() || nid.type == LNETCAP_LND_LOLND) return nid;
  auto it = nid_cache_.find(nid);
  if (it != nid_cache_.end()) return it->second;
  std::uint8_t raw[20];
  nid.to_lnet_nid(raw);
  const auto d = digest("nid", raw, sizeof(raw));
  Nid out = nid;
  out.addr.fill(0);
  const bool ip_style = nid.type == LNETCAP_LND_SOCKLND || nid.type == LNETCAP_LND_O2IBLND ||
                        nid.type == LNETCAP_LND_GNIIPLND || nid.type == LNETCAP_LND_EFALND;
  if (ip_style && nid.size == 0) {
    // 10.x.y.z, never a network or broadcast-looking last byte.
    out.addr = {10, d[0], d[1], static_cast<std::uint8_t>(1 + d[2] % 254)};
  } else if (ip_style && nid.size == LNETCAP_NID_SIZE_IPV6) {
    out.addr[0] = 0xfd;  // unique local addresses
    for (int i = 1; i < 16; ++i) out.addr[i] = d[i];
  } else if (nid.size == 0) {
    store_be32(out.addr.data(), 1 + ((std::uint32_t{d[0]} << 8) | d[1]));
  } else {
    for (int i = 0; i < nid.size + 4; ++i) out.addr[i] = d[i];
  }
  nid_cache_.emplace(nid, out);
  return out;
}

std::uint32_t Anonymizer::map_id(std::uint32_t id) {
  if (id == 0 || id == 0xffffffffu) return id;  // root and "none" carry no identity
  const auto d = digest("id", &id, sizeof(id));
  return 10000 + load_le32(d.data()) % 50000;
}

std::string Anonymizer::map_string(std::string_view s, const char* domain) {
  if (s.empty()) return {};
  const auto d = digest(domain, s.data(), s.size());
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string out(s.size(), 'x');
  for (std::size_t i = 0; i < s.size(); ++i) out[i] = kAlphabet[d[i % d.size()] % 36];
  out[0] = kAlphabet[d[0] % 26];  // starts with a letter
  return out;
}

std::string Anonymizer::rewrite_text(std::string_view text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t at = text.find('@', i);
    if (at == std::string_view::npos) break;
    std::size_t b = at, e = at + 1;
    while (b > i && (std::isxdigit(static_cast<unsigned char>(text[b - 1])) || text[b - 1] == '.' ||
                     text[b - 1] == ':'))
      --b;
    while (e < text.size() && (std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '<' ||
                               text[e] == '>' || text[e] == ':'))
      ++e;
    auto nid = Nid::parse(text.substr(b, e - b));
    out.append(text.substr(i, b - i));
    if (nid) {
      out += map_nid(*nid).to_string();
      ++changes_.nids;
    } else {
      out.append(text.substr(b, e - b));
    }
    i = e;
  }
  out.append(text.substr(i));
  return out;
}

// "10.0.3.2:1023" or "[fe80::1]:988" -> the same endpoint with the address
// replaced by the pseudonym of its @tcp NID, so it matches the NIDs of the
// records; nullopt when the text is not an endpoint.
std::optional<std::string> Anonymizer::map_endpoint(std::string_view ep) {
  const std::size_t colon = ep.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == ep.size()) return std::nullopt;
  const std::string_view port = ep.substr(colon + 1);
  if (!std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  std::string_view addr = ep.substr(0, colon);
  const bool v6 = addr.size() > 2 && addr.front() == '[' && addr.back() == ']';
  if (v6) addr = addr.substr(1, addr.size() - 2);
  auto nid = Nid::parse(std::string(addr) + "@tcp");
  if (!nid) return std::nullopt;
  const std::string mapped = map_nid(*nid).to_string();
  const std::string a = mapped.substr(0, mapped.rfind('@'));
  ++changes_.nids;
  return (v6 ? "[" + a + "]" : a) + ":" + std::string(port);
}

// An interface name may stay only as what lnetcap itself writes there: a net
// name ("o2ib1"), a NID (mapped) or a socklnd stream's "A:port-B:port"
// (addresses mapped).  Anything else could be a host name: replaced.
std::string Anonymizer::rewrite_interface_name(std::string_view name) {
  if (Net::parse(name)) return std::string(name);
  if (auto nid = Nid::parse(name)) {
    ++changes_.nids;
    return map_nid(*nid).to_string();
  }
  // "A:p-B:q": the dash between the ports (IPv6 addresses have no dashes).
  const std::size_t dash = name.find("-");
  if (dash != std::string_view::npos) {
    auto a = map_endpoint(name.substr(0, dash));
    auto b = map_endpoint(name.substr(dash + 1));
    if (a && b) return *a + "-" + *b;
  }
  return "anonymized";
}

CaptureInterface Anonymizer::rewrite_interface(const CaptureInterface& in) {
  CaptureInterface out;
  out.name = rewrite_interface_name(in.name);
  // Descriptions may name hosts; keep only the NIDs they mention, mapped.
  std::string nids;
  const std::string mapped = rewrite_text(in.description);
  for (std::size_t at = mapped.find('@'); at != std::string::npos; at = mapped.find('@', at + 1)) {
    std::size_t b = mapped.rfind(' ', at);
    b = b == std::string::npos ? 0 : b + 1;
    std::size_t e = mapped.find(' ', at);
    auto candidate = mapped.substr(b, e == std::string::npos ? std::string::npos : e - b);
    while (!candidate.empty() && candidate.back() == ',') candidate.pop_back();
    if (Nid::parse(candidate)) nids += (nids.empty() ? "" : ", ") + candidate;
  }
  out.description = "anonymized interface" + (nids.empty() ? "" : "; NIDs " + nids);
  // os, hardware, the filter text and comments are free text that may name
  // hosts, jobs or files: not copied (an allowlist has nothing to keep there).
  out.snaplen = in.snaplen;
  return out;
}

// The ping info's layout is walked by parse_ping_info() (the text output and
// the summary read it there too); this only rewrites what it found:
//  * every NI's NID (nid4 or struct lnet_nid) is mapped in place;
//  * the NID metadata trailer (Lustre 2.17, METADATA) keeps its count and
//    entries: each entry's NID is mapped and its LNETCAP_LNET_MD_BUFFER_SZ
//    LND bytes become zeros - the EFA LND puts its GID and queue pair data
//    there, addresses no pseudonym can name;
//  * whatever follows the structure (the unused rest of the sender's ping
//    buffer, an entry the capture cut) is dropped.
void Anonymizer::rewrite_ping_info(std::vector<std::uint8_t>& p, std::size_t message_len) {
  const auto info = parse_ping_info(p, message_len);
  if (!info) return;
  const WireWriter w(std::span<std::uint8_t>(p), info->order);
  for (const PingNi& ni : info->nis) {
    std::uint8_t* nid = &p[ni.nid_offset];
    if (ni.large) {
      std::uint8_t raw[sizeof(struct lnetcap_nid)] = {};
      std::memcpy(raw, nid, ni.nid_len);
      map_nid(ni.nid).to_lnet_nid(raw);
      std::memcpy(nid, raw, ni.nid_len);
    } else {
      w.from(ni.nid_offset).u64(LNETCAP_FIELD(struct lnetcap_ni_status, ns_nid), map_nid(ni.nid).to_nid4());
    }
    ++changes_.nids;
  }
  for (const PingMetadataEntry& e : info->metadata) {
    WireWriter entry = w.from(e.offset);
    entry.u64(LNETCAP_FIELD(struct lnetcap_nid_md_entry, nid), map_nid(e.nid).to_nid4());
    ++changes_.nids;
    const auto buffer = entry.span(LNETCAP_FIELD(struct lnetcap_nid_md_entry, buffer));
    std::fill(buffer.begin(), buffer.end(), std::uint8_t{0});
    ++changes_.ping_metadata;
  }
  if (info->end < p.size()) {
    changes_.payload_bytes_dropped += p.size() - info->end;
    p.resize(info->end);
  }
}

// The selector that picks one of an opcode's formats (rpc_formats.h): an
// MDS_REINT request's rr_opcode, an LDLM_ENQUEUE request's intent opcode
// (0 without an intent).  Replies do not carry it: *have stays false and
// only what every format of the opcode agrees on is read.
std::uint32_t Anonymizer::format_selector(const WireWriter& msg, std::uint32_t count, std::uint32_t opc,
                                          bool is_reply, bool* have) {
  *have = false;
  if (is_reply || count < 2) return 0;
  const std::uint32_t body_len = msg.reader().u32(lustre_msg_buflen(0));
  const std::size_t buf1 = LNETCAP_LUSTRE_MSG_HDR_SIZE(count) + LNETCAP_LUSTRE_MSG_ROUND8(body_len);
  if (opc == LNETCAP_OPC_MDS_REINT) {
    const WireReader rec = msg.from(buf1).reader();
    constexpr auto kOp = LNETCAP_FIELD(struct lnetcap_mdt_rec_reint, rr_opcode);
    if (!rec.has(kOp)) return 0;
    *have = true;
    return rec.u32(kOp);
  }
  if (opc == LNETCAP_OPC_LDLM_ENQUEUE) {
    if (count == 2) {
      *have = true;  // no intent buffer
      return 0;
    }
    const std::uint32_t dlm_len = msg.reader().u32(lustre_msg_buflen(1));
    const std::uint32_t it_len = msg.reader().u32(lustre_msg_buflen(2));
    const WireReader it = msg.from(buf1 + LNETCAP_LUSTRE_MSG_ROUND8(dlm_len)).reader();
    constexpr auto kIt = LNETCAP_FIELD(struct lnetcap_ldlm_intent, opc);
    if (it_len != sizeof(struct lnetcap_ldlm_intent) || !it.has(kIt)) return 0;
    *have = true;
    return static_cast<std::uint32_t>(it.u64(kIt));
  }
  return 0;
}

void Anonymizer::remember_selector(const RpcKey& rpc, std::uint32_t sel) {
  if (selectors_.insert_or_assign(rpc, sel).second) selector_order_.push_back(rpc);
  if (selector_order_.size() > kMaxSelectors) {
    selectors_.erase(selector_order_.front());
    selector_order_.pop_front();
  }
}

void Anonymizer::rewrite_ptlrpc(std::vector<std::uint8_t>& p, std::uint32_t opc_hint,
                                const std::optional<RpcKey>& rpc) {
  const WireReader probe{ByteSpan(p.data(), p.size())};
  const bool little =
      probe.u32(LNETCAP_FIELD(struct lnetcap_lustre_msg_v2, lm_magic)) == LNETCAP_LUSTRE_MSG_MAGIC_V2;
  const WireWriter msg(std::span<std::uint8_t>(p), Endian{little});
  const std::uint32_t count = msg.reader().u32(LNETCAP_FIELD(struct lnetcap_lustre_msg_v2, lm_bufcount));
  std::size_t off = LNETCAP_LUSTRE_MSG_HDR_SIZE(count);
  if (count == 0 || count > LNETCAP_PTLRPC_MAX_BUFCOUNT || off > p.size()) {
    // Not a message lnetcap can walk: nothing of it is known to be safe.
    changes_.payload_bytes_dropped += p.size();
    p.clear();
    return;
  }
  WireWriter(msg).u32(LNETCAP_FIELD(struct lnetcap_lustre_msg_v2, lm_padding_3), 0);
  // The header's own padding after lm_buflens.
  const std::size_t lens_end = sizeof(struct lnetcap_lustre_msg_v2) + sizeof(std::uint32_t) * count;
  std::fill(p.begin() + static_cast<std::ptrdiff_t>(std::min(lens_end, off)),
            p.begin() + static_cast<std::ptrdiff_t>(off), 0);

  std::uint32_t opc = opc_hint;
  bool is_reply = false;
  {
    const WireReader body = msg.from(off).reader();
    if (body.has(BODY_FIELD(pb_opc))) opc = body.u32(BODY_FIELD(pb_opc));
    is_reply = body.u32(BODY_FIELD(pb_type)) != LNETCAP_PTL_RPC_MSG_REQUEST;
  }
  bool have_sel = false;
  std::uint32_t sel = format_selector(msg, count, opc, is_reply, &have_sel);
  if (rpc && (opc == LNETCAP_OPC_MDS_REINT || opc == LNETCAP_OPC_LDLM_ENQUEUE)) {
    if (!is_reply && have_sel) {
      remember_selector(*rpc, sel);
    } else if (is_reply) {
      // Not erased: an early reply and the final one share the XID.
      const auto it = selectors_.find(*rpc);
      if (it != selectors_.end()) {
        have_sel = true;
        sel = it->second;
      }
    }
  }

  // Replaces the uid/gid/projid in field f of the buffer at off.
  auto id_at = [&](WireField<4> f) {
    WireWriter buf = msg.from(off);
    if (!buf.has(f)) return;
    const std::uint32_t v = buf.reader().u32(f);
    buf.u32(f, map_id(v));
    if (v) ++changes_.ids;
  };
#define MDT(field) LNETCAP_FIELD(struct lnetcap_mdt_body, field)
#define REINT(field) LNETCAP_FIELD(struct lnetcap_mdt_rec_reint, field)
#define SETATTR(field) LNETCAP_FIELD(struct lnetcap_mdt_rec_setattr, field)
#define OBDO(field) LNETCAP_FIELD(struct lnetcap_obdo, field)
  for (std::uint32_t i = 0; i < count && off < p.size(); ++i) {
    const std::uint32_t len = msg.reader().u32(lustre_msg_buflen(i));
    const std::size_t end = std::min<std::size_t>(off + len, p.size());
    const std::size_t padded_end = std::min<std::size_t>(off + LNETCAP_LUSTRE_MSG_ROUND8(len), p.size());
    const enum lnetcap_rmf kind =
        i == 0 ? LNETCAP_RMF_PTLRPC_BODY : lnetcap_rpc_buffer_kind(opc, have_sel, sel, is_reply, i);
    const Treatment how = len == 0 ? Treatment::kKeep : treatment(kind, len);
    if (how != Treatment::kZero && how != Treatment::kToken)
      changes_.handles += handles_.rewrite_buffer(kind, std::span<std::uint8_t>(&p[off], end - off), little);
    switch (how) {
      case Treatment::kKeep:
        break;
      case Treatment::kPtlrpcBody: {
        // Padding words carry nothing Lustre defines: zero, whatever they hold
        // (all lie in the v2 body, which kPtlrpcBody requires).
        WireWriter body = msg.from(off);
        const std::span<std::uint8_t> pad0 = body.span(BODY_FIELD(pb_padding0));
        std::fill(pad0.begin(), pad0.end(), 0);
        body.u64(BODY_FIELD(pb_padding64_0), 0);
        body.u64(BODY_FIELD(pb_padding64_1), 0);
        xids_.rewrite_ptlrpc_body(std::span<std::uint8_t>(&p[off], end - off), little);
        id_at(BODY_FIELD(pb_projid));
        if (len >= LNETCAP_PTLRPC_BODY_V2_LEN) {
          id_at(BODY_FIELD(pb_uid));
          id_at(BODY_FIELD(pb_gid));
        }
        const std::span<std::uint8_t> jobid = msg.from(off).span(BODY_FIELD(pb_jobid));
        if (len >= LNETCAP_PTLRPC_BODY_V3_LEN && !jobid.empty()) {
          char* j = reinterpret_cast<char*>(jobid.data());
          const std::size_t n = strnlen(j, LNETCAP_LUSTRE_JOBID_SIZE);
          if (n) {
            const std::string m = map_string(std::string_view(j, n), "jobid");
            std::memcpy(j, m.data(), n);
            ++changes_.jobids;
          }
          // Bytes after the jobid's NUL are whatever the sender's buffer held.
          std::fill(jobid.begin() + static_cast<std::ptrdiff_t>(n), jobid.end(), 0);
        }
        break;
      }
      case Treatment::kDlm: {
        // ldlm_request and ldlm_reply both begin lock_flags, a padding or
        // count word, then the lock_desc (bodies.h asserts the offsets).
        constexpr auto kType = LNETCAP_FIELD(struct lnetcap_ldlm_request, lock_desc.l_resource.lr_type);
        constexpr auto kName = LNETCAP_FIELD(struct lnetcap_ldlm_request, lock_desc.l_resource.lr_name);
        static_assert(offsetof(struct lnetcap_ldlm_request, lock_desc) ==
                      offsetof(struct lnetcap_ldlm_reply, lock_desc));
        const WireWriter dlm = msg.from(off);
        if (dlm.reader().u32(kType) == LNETCAP_LDLM_PLAIN) {
          const std::span<std::uint8_t> name = dlm.span(kName);
          const auto d = digest("resname", name.data(), name.size());
          std::copy_n(d.begin(), std::min(d.size(), name.size()), name.begin());
          ++changes_.buffers;
        }
        break;
      }
      case Treatment::kMdtBody:
        for (auto f : {MDT(mbo_fsuid), MDT(mbo_fsgid), MDT(mbo_uid), MDT(mbo_gid), MDT(mbo_suppgid),
                       MDT(mbo_uid_h), MDT(mbo_gid_h), MDT(mbo_projid)})
          id_at(f);
        break;
      case Treatment::kReint: {
        for (auto f : {REINT(rr_fsuid), REINT(rr_fsuid_h), REINT(rr_fsgid), REINT(rr_fsgid_h),
                       REINT(rr_suppgid1), REINT(rr_suppgid1_h), REINT(rr_suppgid2), REINT(rr_suppgid2_h)})
          id_at(f);
        const WireReader rec = msg.from(off).reader();
        if (rec.u32(REINT(rr_opcode)) == LNETCAP_REINT_SETATTR)
          for (auto f : {SETATTR(sa_uid), SETATTR(sa_gid), SETATTR(sa_projid)}) id_at(f);
        break;
      }
      case Treatment::kObdo:
        for (auto f : {OBDO(o_uid), OBDO(o_gid), OBDO(o_uid_h), OBDO(o_gid_h), OBDO(o_projid)}) id_at(f);
        break;
      case Treatment::kToken: {
        std::uint8_t* b = &p[off];
        const std::size_t n = end - off;
        if (looks_like_string(b, n)) {
          const std::size_t sl = strnlen(reinterpret_cast<char*>(b), n);
          const std::string m = map_string(std::string_view(reinterpret_cast<char*>(b), sl), "name");
          std::memcpy(b, m.data(), sl);
        } else {
          std::memset(b, 0, n);
        }
        ++changes_.buffers;
        break;
      }
      case Treatment::kZero:
        std::memset(&p[off], 0, end - off);
        ++changes_.buffers;
        break;
    }
    // Padding to the next buffer: whatever the sender's memory held.
    std::fill(p.begin() + static_cast<std::ptrdiff_t>(end), p.begin() + static_cast<std::ptrdiff_t>(padded_end), 0);
    off = padded_end;
  }
  // Bytes after the last buffer belong to no buffer.
  if (off < p.size()) {
    changes_.payload_bytes_dropped += p.size() - off;
    p.resize(off);
  }
#undef OBDO
#undef SETATTR
#undef REINT
#undef MDT
}

std::vector<std::uint8_t> Anonymizer::rewrite_record(ByteSpan bytes) {
  std::string why;
  auto view = parse_record(bytes, &why);
  if (!view) throw Error("cannot anonymize a bad record: " + why);
  return rewrite_record(decode_message(*view, 0, 0));
}

std::vector<std::uint8_t> Anonymizer::rewrite_record(const Message& msg) {
  const RecordView* rec = &msg.rec;
  RecordHeader h = rec->hdr;
  h.local_nid = map_nid(h.local_nid);
  h.peer_nid = map_nid(h.peer_nid);
  changes_.nids += 2;

  std::vector<std::uint8_t> hdr(rec->lnet_header.begin(), rec->lnet_header.end());
  if (hdr.size() == LNETCAP_HDR_NID4_LEN) {
    WireWriter w(std::span<std::uint8_t>(hdr), Endian{});
    for (auto f : {LNETCAP_FIELD(struct lnetcap_hdr_nid4, dest_nid), LNETCAP_FIELD(struct lnetcap_hdr_nid4, src_nid)})
      w.u64(f, map_nid(Nid::from_nid4(w.reader().u64(f))).to_nid4());
    changes_.nids += 2;
  } else if (hdr.size() == LNETCAP_HDR_NID16_LEN) {
    const WireWriter w(std::span<std::uint8_t>(hdr), Endian{});
    for (auto f : {LNETCAP_FIELD(struct lnetcap_hdr_nid16, dest_nid), LNETCAP_FIELD(struct lnetcap_hdr_nid16, src_nid)}) {
      std::uint8_t* nid = w.span(f).data();
      map_nid(Nid::from_lnet_nid(nid)).to_lnet_nid(nid);
    }
    changes_.nids += 2;
  }
  changes_.handles += handles_.rewrite_lnet_header(hdr);
  xids_.rewrite_lnet_header(hdr);

  std::vector<std::uint8_t> payload(rec->payload.begin(), rec->payload.end());
  const bool ping_info = is_ping_info(payload);
  if (msg.rpc.present) {
    std::optional<RpcKey> rpc;
    if (const auto xid = msg.xid())
      rpc = RpcKey{msg.rpc.type == LNETCAP_PTL_RPC_MSG_REQUEST ? msg.lnet.src_nid : msg.lnet.dest_nid, *xid};
    rewrite_ptlrpc(payload, msg.rpc.opc, rpc);
  } else if (ping_info && (!msg.lnet.portal || *msg.lnet.portal == 0)) {
    rewrite_ping_info(payload, msg.lnet.present ? msg.lnet.payload_length : rec->hdr.payload_len);
  } else {
    changes_.payload_bytes_dropped += payload.size();
    payload.clear();
  }
  // The comm of the sending task can name a user's program; keep only
  // whether it was known.
  if (!h.comm.empty()) h.comm = map_string(h.comm, "comm").substr(0, 15);
  ++changes_.records;
  std::vector<std::uint8_t> out;
  encode_record(h, hdr, payload, out);
  return out;
}

}  // namespace lnetcap::anon
