// SPDX-License-Identifier: GPL-2.0-or-later
#include "nid.h"

#include <arpa/inet.h>

#include <charconv>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "lnetcap/lnet.h"

namespace lnetcap {
namespace {

struct LndInfo {
  unsigned type;
  const char* name;
  int style;
};

constexpr LndInfo kLnds[] = {
#define X(id, value, str, style) {value, str, style},
    LNETCAP_LND_LIST(X)
#undef X
};

const LndInfo* find_lnd(unsigned type) {
  for (const auto& l : kLnds)
    if (l.type == type) return &l;
  return nullptr;
}

// Lustre prints only LNDs that still have string functions.
const LndInfo* printable_lnd(unsigned type) {
  const LndInfo* l = find_lnd(type);
  return (l && l->style != LNETCAP_ADDR_STYLE_NONE) ? l : nullptr;
}

template <typename T>
std::optional<T> parse_number(std::string_view s, int base = 10) {
  T v{};
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

const char* lnd_name(unsigned lnd_type) {
  const LndInfo* l = printable_lnd(lnd_type);
  return l ? l->name : nullptr;
}

std::optional<unsigned> lnd_from_name(std::string_view name) {
  for (const auto& l : kLnds)
    if (l.style != LNETCAP_ADDR_STYLE_NONE && name == l.name) return l.type;
  return std::nullopt;
}

std::string Net::to_string() const {
  const char* name = lnd_name(type);
  // Lustre never numbers its loopback net and parse() refuses "lo3": a
  // numbered one (only a damaged record has it) prints in the generic form,
  // which parses back (found by fuzz_filter).
  if (!name || (type == LNETCAP_LND_LOLND && num != 0))
    return "<" + std::to_string(type) + ":" + std::to_string(num) + ">";
  return num ? std::string(name) + std::to_string(num) : std::string(name);
}

std::optional<Net> Net::parse(std::string_view text) {
  if (text.size() > 2 && text.front() == '<' && text.back() == '>') {
    auto inner = text.substr(1, text.size() - 2);
    auto colon = inner.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    auto t = parse_number<unsigned>(inner.substr(0, colon));
    auto n = parse_number<unsigned>(inner.substr(colon + 1));
    if (!t || !n || *t > 0xff || *n > 0xffff) return std::nullopt;
    return Net{static_cast<std::uint8_t>(*t), static_cast<std::uint16_t>(*n)};
  }
  std::size_t digits = text.size();
  while (digits > 0 && text[digits - 1] >= '0' && text[digits - 1] <= '9') --digits;
  auto type = lnd_from_name(text.substr(0, digits));
  if (!type) return std::nullopt;
  std::uint16_t num = 0;
  if (digits < text.size()) {
    auto n = parse_number<unsigned>(text.substr(digits));
    if (!n || *n > 0xffff) return std::nullopt;
    num = static_cast<std::uint16_t>(*n);
  }
  // Lustre's loopback net takes no number.
  if (*type == LNETCAP_LND_LOLND && num != 0) return std::nullopt;
  return Net{static_cast<std::uint8_t>(*type), num};
}

Nid Nid::from_nid4(std::uint64_t nid4) {
  Nid n;
  if (nid4 == LNETCAP_LNET_NID_ANY) return any();
  const std::uint32_t net = LNETCAP_NID4_NET(nid4);
  n.type = static_cast<std::uint8_t>(LNETCAP_NET_TYPE(net));
  n.num = static_cast<std::uint16_t>(LNETCAP_NET_NUM(net));
  store_be32(n.addr.data(), LNETCAP_NID4_ADDR(nid4));
  return n;
}

Nid Nid::from_lnet_nid(const std::uint8_t* raw) {
  const auto* addr = raw + offsetof(struct lnetcap_nid, nid_addr);
  if (raw[offsetof(struct lnetcap_nid, nid_type)] == LNETCAP_NID_TYPE_ANY) return any();
  Nid n;
  const std::uint8_t size = raw[offsetof(struct lnetcap_nid, nid_size)];
  n.size = size <= LNETCAP_NID_SIZE_MAX ? size : LNETCAP_NID_SIZE_MAX;
  n.type = raw[offsetof(struct lnetcap_nid, nid_type)];
  n.num = load_be16(raw + offsetof(struct lnetcap_nid, nid_num));  // big-endian on the wire
  for (int i = 0; i < n.size + 4; ++i) n.addr[i] = addr[i];
  return n;
}

Nid Nid::any() {
  Nid n;
  n.size = LNETCAP_NID_SIZE_MAX;
  n.type = LNETCAP_NID_TYPE_ANY;
  n.num = 0xffff;
  n.addr.fill(0xff);
  return n;
}

void Nid::to_lnet_nid(std::uint8_t* raw) const {
  if (is_any()) {  // LNET_ANY_NID: every byte 0xff
    std::memset(raw, 0xff, sizeof(struct lnetcap_nid));
    return;
  }
  raw[offsetof(struct lnetcap_nid, nid_size)] = size;
  raw[offsetof(struct lnetcap_nid, nid_type)] = type;
  store_be16(raw + offsetof(struct lnetcap_nid, nid_num), num);
  auto* out = raw + offsetof(struct lnetcap_nid, nid_addr);
  for (std::size_t i = 0; i < sizeof(lnetcap_nid::nid_addr); ++i) out[i] = int(i) < size + 4 ? addr[i] : 0;
}

std::uint64_t Nid::to_nid4() const {
  if (is_any()) return LNETCAP_LNET_NID_ANY;
  return LNETCAP_MKNID4(LNETCAP_MKNET(type, num), addr4());
}

std::string Nid::to_string() const {
  if (is_any()) return "<?>";
  const LndInfo* l = printable_lnd(type);
  const int addr_bytes = size + 4;
  std::string a;
  char buf[INET6_ADDRSTRLEN];
  if (l && l->style == LNETCAP_ADDR_STYLE_IP && (addr_bytes == 4 || addr_bytes == 16)) {
    inet_ntop(addr_bytes == 4 ? AF_INET : AF_INET6, addr.data(), buf, sizeof(buf));
    a = buf;
  } else if (l && l->style == LNETCAP_ADDR_STYLE_NUM && addr_bytes == 4) {
    a = std::to_string(addr4());
  } else {
    // Unknown LND or unusual size: hex words, as libcfs does.
    for (int i = 0; i < addr_bytes; i += 4) {
      std::snprintf(buf, sizeof(buf), "%s%x", i ? ":" : "", load_be32(addr.data() + i));
      a += buf;
    }
  }
  return a + "@" + net().to_string();
}

std::optional<Nid> Nid::parse(std::string_view text) {
  if (text == "<?>") return any();
  auto at = text.rfind('@');
  if (at == std::string_view::npos) return std::nullopt;
  auto net = Net::parse(text.substr(at + 1));
  if (!net) return std::nullopt;
  std::string addr(text.substr(0, at));
  Nid n;
  n.type = net->type;
  n.num = net->num;
  const LndInfo* l = printable_lnd(net->type);
  if (l && l->style == LNETCAP_ADDR_STYLE_IP) {
    if (inet_pton(AF_INET, addr.c_str(), n.addr.data()) == 1) return n;
    if (inet_pton(AF_INET6, addr.c_str(), n.addr.data()) == 1) {
      n.size = LNETCAP_NID_SIZE_IPV6;
      return n;
    }
    return std::nullopt;
  }
  if (l && l->style == LNETCAP_ADDR_STYLE_NUM) {
    auto v = parse_number<std::uint32_t>(addr);
    if (!v) return std::nullopt;
    store_be32(n.addr.data(), *v);
    return n;
  }
  // <type:num> nets: address in hex words separated by ':'.
  std::size_t words = 0, pos = 0;
  while (pos <= addr.size() && words < 4) {
    auto end = addr.find(':', pos);
    if (end == std::string::npos) end = addr.size();
    auto v = parse_number<std::uint32_t>(std::string_view(addr).substr(pos, end - pos), 16);
    if (!v) return std::nullopt;
    store_be32(n.addr.data() + 4 * words++, *v);
    pos = end + 1;
    if (end == addr.size()) break;
  }
  if (pos <= addr.size() || (words != 1 && words != 4)) return std::nullopt;
  n.size = static_cast<std::uint8_t>(words * 4 - 4);
  return n;
}

}  // namespace lnetcap
