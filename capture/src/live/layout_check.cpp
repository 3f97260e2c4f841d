// SPDX-License-Identifier: GPL-2.0-or-later
#include "layout_check.h"
#include "codec/wire_reader.h"
#include "lnetcap/lnet.h"
#include "lnetcap/record.h"

#include "lnetcap/lnet.h"

#include "../bytes.h"

namespace lnetcap::live {
namespace {

// nid_size counts address bytes beyond 4: 0 (IPv4, numeric) or 12 (IPv6).
bool sane_nid(const Nid& n) { return n.size == 0 || n.size == 12; }

bool zero(const Nid& n) {
  if (n.size || n.type || n.num) return false;
  for (auto b : n.addr)
    if (b) return false;
  return true;
}

}  // namespace

LayoutCheck::LayoutCheck(const std::vector<std::string>& local_nids) {
  for (const auto& s : local_nids)
    if (auto n = Nid::parse(s)) nis_.push_back(*n);
}

std::optional<std::string> LayoutCheck::problem(const RecordView& rec) {
  if (done()) return std::nullopt;
  ++checked_;
  const RecordHeader& h = rec.hdr;
  if (h.payload_len > LNETCAP_LNET_MTU)
    return "its payload length " + std::to_string(h.payload_len) + " exceeds LNet's 1 MiB";
  if (!sane_nid(h.local_nid) || !sane_nid(h.peer_nid))
    return "its local or peer NID has an impossible address size";
  if (!nis_.empty() && !zero(h.local_nid)) {
    bool ours = false;
    for (const auto& n : nis_) ours = ours || n == h.local_nid;
    if (!ours)
      return "its local NI " + h.local_nid.to_string() + " is not one of this node's NIs";
  }
  // LNet sends to a peer NI on the sending NI's own net (the next hop;
  // msg_txpeer->lpni_nid): a peer elsewhere means lpni_nid, which the
  // self-check's loopback ping cannot exercise, is not where it is read.
  if (h.hook == LNETCAP_HOOK_LNET_NI_SEND && !zero(h.local_nid) && !zero(h.peer_nid) &&
      (h.peer_nid.type != h.local_nid.type || h.peer_nid.num != h.local_nid.num))
    return "its peer NI " + h.peer_nid.to_string() + " is not on the net of its local NI " +
           h.local_nid.to_string();
  if (rec.lnet_header.size() == LNETCAP_HDR_NID16_LEN) {
    const WireReader lh(rec.lnet_header);
    std::uint32_t type = lh.u32(LNETCAP_FIELD(struct lnetcap_hdr_nid16, type));
    if (type > LNETCAP_MSG_HELLO)
      return "its LNet message type " + std::to_string(type) + " does not exist";
    if (!sane_nid(Nid::from_lnet_nid(lh.span(LNETCAP_FIELD(struct lnetcap_hdr_nid16, dest_nid)).data())) ||
        !sane_nid(Nid::from_lnet_nid(lh.span(LNETCAP_FIELD(struct lnetcap_hdr_nid16, src_nid)).data())))
      return "its LNet header has a NID with an impossible address size";
  }
  return std::nullopt;
}

}  // namespace lnetcap::live
