// SPDX-License-Identifier: GPL-2.0-or-later
#include "capture_config.h"

#include <bit>
#include <cstring>

#include "../error.h"
#include "../nid.h"

namespace lnetcap::live {
namespace {

void put_nid(lnetcap_nid& out, const Nid& nid) {
  std::uint8_t raw[sizeof(lnetcap_nid)];
  nid.to_lnet_nid(raw);
  std::memcpy(&out, raw, sizeof(raw));
}

// nid_num as it sits in memory: big-endian.
std::uint16_t net_num_be(std::uint16_t num) {
  std::uint8_t b[2];
  store_be16(b, num);
  std::uint16_t v;
  std::memcpy(&v, b, 2);
  return v;
}

}  // namespace

std::uint32_t effective_snaplen(const Options& opts) {
  std::uint32_t s = opts.snaplen.value_or(LNETCAP_DEFAULT_SNAPLEN);
  return s > LNETCAP_MAX_SNAPLEN ? LNETCAP_MAX_SNAPLEN : s;
}

std::uint32_t ring_bytes(const Options& opts, std::uint32_t snaplen, std::uint32_t page_size) {
  std::uint64_t want = opts.buffer_kib ? std::uint64_t{*opts.buffer_kib} * 1024 : kDefaultRingBytes;
  std::uint64_t min = 8 * (std::uint64_t{LNETCAP_RING_FIXED} + snaplen + 8);
  if (want < min) want = min;
  if (want < page_size) want = page_size;
  if (want > (1ull << 30)) want = 1ull << 30;
  return static_cast<std::uint32_t>(std::bit_ceil(want));
}

lnetcap_cfg make_cfg(const Options& opts, const std::optional<filter::KernelTerms>& terms,
                     const lnetcap_layout& layout, std::uint32_t snaplen) {
  lnetcap_cfg c{};
  c.lo = layout;
  c.snaplen = snaplen;
  c.wakeup_batch = opts.packet_buffered ? 1 : kWakeupBatch;

  // -Q counts messages: a received message LNet dropped is "in", a send
  // it dropped (or a failed send's outcome) "out".
  const std::uint32_t in = (1u << LNETCAP_DIR_RECV) | LNETCAP_DIRMASK_DROP_RX;
  const std::uint32_t out = (1u << LNETCAP_DIR_SEND) | (1u << LNETCAP_DIR_FORWARD) |
                            LNETCAP_DIRMASK_DROP_TX;
  const std::uint32_t drops = (1u << LNETCAP_DIR_DROP) | LNETCAP_DIRMASK_DROP_RX |
                              LNETCAP_DIRMASK_DROP_TX;
  switch (opts.direction) {
    case Direction::kIn: c.dir_mask = in; break;
    case Direction::kOut: c.dir_mask = out; break;
    case Direction::kBoth: c.dir_mask = in | out | (1u << LNETCAP_DIR_DROP); break;
  }

  if (!opts.interface.empty() && opts.interface != "any" && opts.interface != "all") {
    if (auto nid = Nid::parse(opts.interface); nid && opts.interface.find('@') != std::string::npos) {
      c.filter_ni = 1;
      put_nid(c.targ_ni, *nid);
    } else if (auto net = Net::parse(opts.interface)) {
      c.filter_ni_net = 1;
      c.targ_ni_net_type = net->type;
      c.targ_ni_net_num = net_num_be(net->num);
    } else {
      throw Error("-i " + opts.interface + ": not an LNet NID or net",
                  "use a local NID such as 10.0.0.1@tcp, a net such as o2ib1, or any; "
                  "lnetcap -D lists the local NIs");
    }
  }

  if (terms) {
    if (terms->msg_type) { c.filter_type = 1; c.targ_type = *terms->msg_type; }
    if (terms->portal) { c.filter_portal = 1; c.targ_portal = *terms->portal; }
    if (terms->src_nid) { c.filter_src = 1; put_nid(c.targ_src, *terms->src_nid); }
    if (terms->dst_nid) { c.filter_dst = 1; put_nid(c.targ_dst, *terms->dst_nid); }
    if (terms->any_nid) { c.filter_any = 1; put_nid(c.targ_any, *terms->any_nid); }
    if (terms->net) {
      c.filter_net = 1;
      c.targ_net_type = terms->net->type;
      c.targ_net_num = net_num_be(terms->net->num);
    }
    if (terms->direction) {
      std::uint32_t d = *terms->direction;
      c.dir_mask &= d == LNETCAP_DIR_DROP ? drops : d < 8 ? (1u << d) : 0;
    }
  }
  return c;
}

}  // namespace lnetcap::live
