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
#include "lnetcap/bodies.h"
#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"

namespace lnetcap::anon {
namespace {

constexpr std::size_t kMinKeyBytes = 16;

// Byte-order-aware field access inside a buffer we own.
struct Field32 {
  std::vector<std::uint8_t>& b;
  bool little;
  bool fits(std::size_t off) const { return off + 4 <= b.size(); }
  std::uint32_t get(std::size_t off) const {
    return little ? load_le32(b.data() + off) : load_be32(b.data() + off);
  }
  void set(std::size_t off, std::uint32_t v) {
    if (little) store_le32(b.data() + off, v);
    else store_be32(b.data() + off, v);
  }
  std::uint64_t get64(std::size_t off) const {
    return little ? load_le64(b.data() + off)
                  : (std::uint64_t{load_be32(b.data() + off)} << 32) | load_be32(b.data() + off + 4);
  }
  void set64(std::size_t off, std::uint64_t v) {
    if (little) {
      store_le64(b.data() + off, v);
    } else {
      store_be32(b.data() + off, static_cast<std::uint32_t>(v >> 32));
      store_be32(b.data() + off + 4, static_cast<std::uint32_t>(v));
    }
  }
};

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
  const bool little = load_le32(p.data()) == LNETCAP_LNET_PROTO_PING_MAGIC;
  Field32 f{p, little};
  if (!f.fits(12)) return;
  const std::uint32_t features = f.get(4);
  const std::uint32_t nnis = f.get(12);
  std::size_t pos = 16;
  for (std::uint32_t i = 0; i < nnis && pos + 16 <= p.size(); ++i, pos += 16) {
    f.set64(pos, map_nid(Nid::from_nid4(f.get64(pos))).to_nid4());
    ++changes_.nids;
  }
  if (features & 0x20) {  // LNET_PING_FEAT_LARGE_ADDR: {status u32, struct lnet_nid} entries
    while (pos + 4 + 8 <= p.size()) {
      const std::size_t nid_bytes = std::size_t{p[pos + 4]} + 8;
      if (p[pos + 4] > LNETCAP_NID_SIZE_MAX || pos + 4 + nid_bytes > p.size()) break;
      std::uint8_t raw[20] = {};
      std::memcpy(raw, &p[pos + 4], nid_bytes);
      map_nid(Nid::from_lnet_nid(raw)).to_lnet_nid(raw);
      std::memcpy(&p[pos + 4], raw, nid_bytes);
      ++changes_.nids;
      pos += (4 + nid_bytes + 3) & ~std::size_t{3};
    }
  }
  // Anything further (NID metadata) is not needed to read the ping.
  if (pos < p.size()) {
    changes_.payload_bytes_dropped += p.size() - pos;
    p.resize(pos);
  }
}

void Anonymizer::rewrite_ptlrpc(std::vector<std::uint8_t>& p, std::uint32_t opc_hint) {
  const bool little = load_le32(p.data() + 8) == LNETCAP_LUSTRE_MSG_MAGIC_V2;
  Field32 f{p, little};
  const std::uint32_t count = f.get(0);
  if (count == 0 || count > LNETCAP_PTLRPC_MAX_BUFCOUNT) return;
  std::size_t off = LNETCAP_LUSTRE_MSG_HDR_SIZE(count);
  std::uint32_t opc = opc_hint;
  auto id_at = [&](std::size_t o) {
    if (!f.fits(o)) return;
    const std::uint32_t v = f.get(o);
    f.set(o, map_id(v));
    if (v) ++changes_.ids;
  };
  for (std::uint32_t i = 0; i < count && off < p.size(); ++i) {
    const std::uint32_t len = f.fits(32 + 4 * i) ? f.get(32 + 4 * i) : 0;
    const std::size_t end = std::min<std::size_t>(off + len, p.size());
    if (i == 0) {  // ptlrpc_body
      if (f.fits(off + 16)) opc = f.get(off + 16);
      id_at(off + 36);   // pb_projid
      if (len >= 152) {
        id_at(off + 144);  // pb_uid
        id_at(off + 148);  // pb_gid
      }
      if (len >= 184 && off + 184 <= p.size()) {
        char* j = reinterpret_cast<char*>(&p[off + 152]);
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
      for (std::size_t o : {104, 108, 120, 124, 144, 164, 168, 172}) id_at(off + o);
    } else if (len == sizeof(struct lnetcap_mdt_rec_reint)) {
      for (std::size_t o : {8, 12, 16, 20, 24, 28, 32, 36}) id_at(off + o);
      if (f.fits(off) && f.get(off) == LNETCAP_REINT_SETATTR)
        for (std::size_t o : {64, 68, 124}) id_at(off + o);  // sa_uid, sa_gid, sa_projid
    } else if (len == sizeof(struct lnetcap_obdo) && is_ost_opcode(opc)) {
      for (std::size_t o : {88, 92, 168, 172, 184}) id_at(off + o);
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
}

std::vector<std::uint8_t> Anonymizer::rewrite_record(ByteSpan bytes) {
  std::string why;
  auto rec = parse_record(bytes, &why);
  if (!rec) throw Error("cannot anonymize a bad record: " + why);
  const Message msg = decode_message(*rec, 0, 0);
  RecordHeader h = rec->hdr;
  h.local_nid = map_nid(h.local_nid);
  h.peer_nid = map_nid(h.peer_nid);
  changes_.nids += 2;

  std::vector<std::uint8_t> hdr(rec->lnet_header.begin(), rec->lnet_header.end());
  if (hdr.size() == LNETCAP_HDR_NID4_LEN) {
    for (std::size_t o : {0, 8}) store_le64(&hdr[o], map_nid(Nid::from_nid4(load_le64(&hdr[o]))).to_nid4());
    changes_.nids += 2;
  } else if (hdr.size() == LNETCAP_HDR_NID16_LEN) {
    for (std::size_t o : {0, 20}) map_nid(Nid::from_lnet_nid(&hdr[o])).to_lnet_nid(&hdr[o]);
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
