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
#include "codec/wire_reader.h"
#include "lnetcap/bodies.h"
#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"

namespace lnetcap::anon {
namespace {

constexpr std::size_t kMinKeyBytes = 16;

bool is_ost_opcode(std::uint32_t opc) { return opc <= LNETCAP_OPC_OST_SEEK; }
bool is_ldlm_opcode(std::uint32_t opc) {
  return opc >= LNETCAP_OPC_LDLM_ENQUEUE && opc <= LNETCAP_OPC_LDLM_SET_INFO;
}
bool is_connect_opcode(std::uint32_t opc) {
  return opc == LNETCAP_OPC_OST_CONNECT || opc == LNETCAP_OPC_MDS_CONNECT ||
         opc == LNETCAP_OPC_MGS_CONNECT;
}

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
         " uid/gid/projid fields, " + std::to_string(buffers) +
         " PtlRPC buffers replaced (names, UUIDs, EAs), " + std::to_string(payload_bytes_dropped) +
         " payload bytes dropped";
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

CaptureInterface Anonymizer::rewrite_interface(const CaptureInterface& in) {
  CaptureInterface out = in;
  // Descriptions may name hosts; keep only the NIDs they mention, mapped.
  std::string nids;
  const std::string mapped = rewrite_text(in.description);
  for (std::size_t at = mapped.find('@'); at != std::string::npos; at = mapped.find('@', at + 1)) {
    std::size_t b = mapped.rfind(' ', at);
    b = b == std::string::npos ? 0 : b + 1;
    std::size_t e = mapped.find(' ', at);
    auto candidate = mapped.substr(b, e == std::string::npos ? std::string::npos : e - b);
    if (Nid::parse(candidate)) nids += (nids.empty() ? "" : ", ") + candidate;
  }
  out.description = "anonymized interface" + (nids.empty() ? "" : "; NIDs " + nids);
  out.hardware.clear();
  out.filter = rewrite_text(in.filter);
  out.comments.clear();  // free text that may name hosts, like descriptions
  return out;
}

void Anonymizer::rewrite_ping_info(std::vector<std::uint8_t>& p) {
#define PING(field) LNETCAP_FIELD(struct lnetcap_ping_info, field)
  const bool little = load_le32(p.data()) == LNETCAP_LNET_PROTO_PING_MAGIC;
  const WireWriter w(std::span<std::uint8_t>(p), Endian{little});
  if (!w.has(PING(pi_nnis))) return;
  const std::uint32_t features = w.reader().u32(PING(pi_features));
  const std::uint32_t nnis = w.reader().u32(PING(pi_nnis));
#undef PING
  // pi_ni[]: struct lnetcap_ni_status entries after the fixed part.
  std::size_t pos = sizeof(struct lnetcap_ping_info);
  constexpr auto kNid = LNETCAP_FIELD(struct lnetcap_ni_status, ns_nid);
  for (std::uint32_t i = 0; i < nnis && pos + sizeof(struct lnetcap_ni_status) <= p.size();
       ++i, pos += sizeof(struct lnetcap_ni_status)) {
    WireWriter ni = w.from(pos);
    ni.u64(kNid, map_nid(Nid::from_nid4(ni.reader().u64(kNid))).to_nid4());
    ++changes_.nids;
  }
  if (features & 0x20) {  // LNET_PING_FEAT_LARGE_ADDR: {status u32, struct lnet_nid} entries
    // Each entry: a __u32 status, then a struct lnet_nid cut to its size
    // (nid_addr holds nid_size + 4 bytes), padded to 4 bytes.
    constexpr std::size_t kStatus = sizeof(std::uint32_t);
    constexpr std::size_t kNidHead = offsetof(struct lnetcap_nid, nid_addr);
    while (pos + kStatus + kNidHead + sizeof(std::uint32_t) <= p.size()) {
      std::uint8_t* nid = &p[pos + kStatus];
      const std::uint8_t nid_size = nid[offsetof(struct lnetcap_nid, nid_size)];
      const std::size_t nid_bytes = kNidHead + nid_size + sizeof(std::uint32_t);
      if (nid_size > LNETCAP_NID_SIZE_MAX || pos + kStatus + nid_bytes > p.size()) break;
      std::uint8_t raw[sizeof(struct lnetcap_nid)] = {};
      std::memcpy(raw, nid, nid_bytes);
      map_nid(Nid::from_lnet_nid(raw)).to_lnet_nid(raw);
      std::memcpy(nid, raw, nid_bytes);
      ++changes_.nids;
      pos += (kStatus + nid_bytes + 3) & ~std::size_t{3};
    }
  }
  // Anything further (NID metadata) is not needed to read the ping.
  if (pos < p.size()) {
    changes_.payload_bytes_dropped += p.size() - pos;
    p.resize(pos);
  }
}

void Anonymizer::rewrite_ptlrpc(std::vector<std::uint8_t>& p, std::uint32_t opc_hint) {
  const WireReader probe{ByteSpan(p.data(), p.size())};
  const bool little =
      probe.u32(LNETCAP_FIELD(struct lnetcap_lustre_msg_v2, lm_magic)) == LNETCAP_LUSTRE_MSG_MAGIC_V2;
  const WireWriter msg(std::span<std::uint8_t>(p), Endian{little});
  const std::uint32_t count = msg.reader().u32(LNETCAP_FIELD(struct lnetcap_lustre_msg_v2, lm_bufcount));
  if (count == 0 || count > LNETCAP_PTLRPC_MAX_BUFCOUNT) return;
  std::size_t off = LNETCAP_LUSTRE_MSG_HDR_SIZE(count);
  std::uint32_t opc = opc_hint;
  // Replaces the uid/gid/projid in field f of the buffer at off.
  auto id_at = [&](WireField<4> f) {
    WireWriter buf = msg.from(off);
    if (!buf.has(f)) return;
    const std::uint32_t v = buf.reader().u32(f);
    buf.u32(f, map_id(v));
    if (v) ++changes_.ids;
  };
#define BODY(field) LNETCAP_FIELD(struct lnetcap_ptlrpc_body, field)
#define MDT(field) LNETCAP_FIELD(struct lnetcap_mdt_body, field)
#define REINT(field) LNETCAP_FIELD(struct lnetcap_mdt_rec_reint, field)
#define SETATTR(field) LNETCAP_FIELD(struct lnetcap_mdt_rec_setattr, field)
#define OBDO(field) LNETCAP_FIELD(struct lnetcap_obdo, field)
  for (std::uint32_t i = 0; i < count && off < p.size(); ++i) {
    const std::uint32_t len = msg.reader().u32(lustre_msg_buflen(i));
    const std::size_t end = std::min<std::size_t>(off + len, p.size());
    if (i == 0) {  // ptlrpc_body
      const WireReader body = msg.from(off).reader();
      if (body.has(BODY(pb_opc))) opc = body.u32(BODY(pb_opc));
      id_at(BODY(pb_projid));
      if (len >= LNETCAP_PTLRPC_BODY_V2_LEN) {
        id_at(BODY(pb_uid));
        id_at(BODY(pb_gid));
      }
      const std::span<std::uint8_t> jobid = msg.from(off).span(BODY(pb_jobid));
      if (len >= LNETCAP_PTLRPC_BODY_V3_LEN && !jobid.empty()) {
        char* j = reinterpret_cast<char*>(jobid.data());
        const std::size_t n = strnlen(j, LNETCAP_LUSTRE_JOBID_SIZE);
        if (n) {
          const std::string m = map_string(std::string_view(j, n), "jobid");
          std::memcpy(j, m.data(), n);
          ++changes_.jobids;
        }
      }
    } else if (len == 0) {
      // nothing to do
    } else if ((is_ldlm_opcode(opc) && i == 1) ||                        // ldlm_request/reply
               (opc == LNETCAP_OPC_LDLM_ENQUEUE && i == 2 && len == 8) ||  // ldlm_intent
               ((opc == LNETCAP_OPC_OST_READ || opc == LNETCAP_OPC_OST_WRITE) &&
                ((i == 2 && len % 24 == 0) || (i == 3 && len % 16 == 0))) ||  // ioobj, niobufs
               len == 24 || len == 8 ||                                   // ioepoch/seq range, handle
               (is_connect_opcode(opc) && len == 192)) {                   // obd_connect_data
      // structured and free of identities: kept as is
    } else if (len == sizeof(struct lnetcap_mdt_body)) {
      for (auto f : {MDT(mbo_fsuid), MDT(mbo_fsgid), MDT(mbo_uid), MDT(mbo_gid), MDT(mbo_suppgid),
                     MDT(mbo_uid_h), MDT(mbo_gid_h), MDT(mbo_projid)})
        id_at(f);
    } else if (len == sizeof(struct lnetcap_mdt_rec_reint)) {
      for (auto f : {REINT(rr_fsuid), REINT(rr_fsuid_h), REINT(rr_fsgid), REINT(rr_fsgid_h),
                     REINT(rr_suppgid1), REINT(rr_suppgid1_h), REINT(rr_suppgid2), REINT(rr_suppgid2_h)})
        id_at(f);
      const WireReader rec = msg.from(off).reader();
      if (rec.has(REINT(rr_opcode)) && rec.u32(REINT(rr_opcode)) == LNETCAP_REINT_SETATTR)
        for (auto f : {SETATTR(sa_uid), SETATTR(sa_gid), SETATTR(sa_projid)}) id_at(f);
    } else if (len == sizeof(struct lnetcap_obdo) && is_ost_opcode(opc)) {
      for (auto f : {OBDO(o_uid), OBDO(o_gid), OBDO(o_uid_h), OBDO(o_gid_h), OBDO(o_projid)}) id_at(f);
    } else {
      // Names, symlink targets, UUIDs, xattrs, layouts, ACLs, LVBs, ...
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
    }
    off += LNETCAP_LUSTRE_MSG_ROUND8(len);
  }
#undef OBDO
#undef SETATTR
#undef REINT
#undef MDT
#undef BODY
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

  std::vector<std::uint8_t> payload(rec->payload.begin(), rec->payload.end());
  const bool ping_info =
      payload.size() >= 16 && (load_le32(payload.data()) == LNETCAP_LNET_PROTO_PING_MAGIC ||
                               load_be32(payload.data()) == LNETCAP_LNET_PROTO_PING_MAGIC);
  if (msg.rpc.present) {
    rewrite_ptlrpc(payload, msg.rpc.opc);
  } else if (ping_info && (!msg.lnet.portal || *msg.lnet.portal == 0)) {
    rewrite_ping_info(payload);
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
