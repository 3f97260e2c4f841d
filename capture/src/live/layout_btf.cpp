// SPDX-License-Identifier: GPL-2.0-or-later
// layout_btf.cpp - struct offsets from BTF with libbpf's btf__ API.
#ifdef LNETCAP_HAVE_BPF

#include <bpf/btf.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "../error.h"
#include "layout.h"

namespace lnetcap::live {
namespace {

struct BtfDeleter {
  void operator()(btf* b) const { btf__free(b); }
};
using BtfPtr = std::unique_ptr<btf, BtfDeleter>;

class Reader {
 public:
  Reader(const btf* b, std::string origin) : btf_(b), origin_(std::move(origin)) {}

  /// Bit offset of member `name` of struct `type`.
  std::uint32_t bit_offset(const char* type, const char* name) const {
    std::int32_t id = btf__find_by_name_kind(btf_, type, BTF_KIND_STRUCT);
    if (id < 0)
      throw Error(origin_ + " has no struct " + type,
                  "the BTF must describe Lustre's lnet module (pahole -J on lnet.ko with "
                  "debuginfo, or the module's own /sys/kernel/btf/lnet)");
    const btf_type* t = btf__type_by_id(btf_, id);
    const btf_member* m = btf_members(t);
    for (std::uint16_t i = 0; i < btf_vlen(t); ++i, ++m) {
      const char* n = btf__name_by_offset(btf_, m->name_off);
      if (n && std::strcmp(n, name) == 0) return btf_member_bit_offset(t, i);
    }
    throw Error(origin_ + ": struct " + type + " has no member " + name,
                "this Lustre version is not supported yet; please report it with the "
                "output of `lnetcap -D -v`");
  }

  std::uint16_t offset(const char* type, const char* name) const {
    std::uint32_t bits = bit_offset(type, name);
    if (bits % 8 != 0 || bits / 8 > 0xffff)
      throw Error(origin_ + ": " + type + "." + name + " is not at a byte offset");
    return static_cast<std::uint16_t>(bits / 8);
  }

  /// Byte holding a bitfield of lnet_msg and the bit within it
  /// (little-endian bit order).
  std::pair<std::uint16_t, std::uint8_t> flag(const char* name) const {
    std::uint32_t bits = bit_offset("lnet_msg", name);
    return {static_cast<std::uint16_t>(bits / 8), static_cast<std::uint8_t>(bits % 8)};
  }

 private:
  const btf* btf_;
  std::string origin_;
};

BtfPtr parse(const std::string& path, const std::string& base_path) {
  // A standalone file (pahole --btf_encode_detached, or an ELF with .BTF)
  // parses alone; split BTF (/sys/kernel/btf/<module>) only with its base.
  btf* b = btf__parse(path.c_str(), nullptr);
  BtfPtr base;
  if (!b) {
    base.reset(btf__parse(base_path.empty() ? "/sys/kernel/btf/vmlinux" : base_path.c_str(),
                          nullptr));
    if (base) b = btf__parse_split(path.c_str(), base.get());
  }
  if (!b)
    throw Error("cannot read BTF from " + path + ": " + std::strerror(errno),
                "give a BTF file made with `pahole --btf_encode_detached=FILE lnet.ko` "
                "from Lustre's debuginfo, or an ELF file with a .BTF section");
  // The split BTF keeps a pointer to its base: keep the base alive with it
  // by leaking it into the process lifetime (one per capture).
  (void)base.release();
  return BtfPtr(b);
}

}  // namespace

Layout layout_from_btf_file(const std::string& path, const std::string& base_path,
                            const std::string& origin) {
  BtfPtr b = parse(path, base_path);
  Reader r(b.get(), origin);
  Layout out;
  out.origin = origin;
  lnetcap_layout& lo = out.lo;
  lo.msg_type = r.offset("lnet_msg", "msg_type");
  lo.msg_from = r.offset("lnet_msg", "msg_from");
  lo.msg_health_status = r.offset("lnet_msg", "msg_health_status");
  lo.msg_retry_count = r.offset("lnet_msg", "msg_retry_count");
  lo.msg_txpeer = r.offset("lnet_msg", "msg_txpeer");
  lo.msg_md = r.offset("lnet_msg", "msg_md");
  lo.msg_txni = r.offset("lnet_msg", "msg_txni");
  lo.msg_rxni = r.offset("lnet_msg", "msg_rxni");
  lo.msg_len = r.offset("lnet_msg", "msg_len");
  lo.msg_wanted = r.offset("lnet_msg", "msg_wanted");
  lo.msg_offset = r.offset("lnet_msg", "msg_offset");
  lo.msg_niov = r.offset("lnet_msg", "msg_niov");
  lo.msg_kiov = r.offset("lnet_msg", "msg_kiov");
  lo.msg_hdr = r.offset("lnet_msg", "msg_hdr");
  auto [txb, txbit] = r.flag("msg_tx_committed");
  auto [rxb, rxbit] = r.flag("msg_rx_committed");
  auto [rtb, rtbit] = r.flag("msg_routing");
  lo.msg_tx_committed_byte = txb;
  lo.msg_tx_committed_bit = txbit;
  lo.msg_rx_committed_byte = rxb;
  lo.msg_rx_committed_bit = rxbit;
  lo.msg_routing_byte = rtb;
  lo.msg_routing_bit = rtbit;
  lo.md_start = r.offset("lnet_libmd", "md_start");
  lo.md_options = r.offset("lnet_libmd", "md_options");
  lo.md_flags = r.offset("lnet_libmd", "md_flags");
  lo.md_handler = r.offset("lnet_libmd", "md_handler");
  lo.ni_nid = r.offset("lnet_ni", "ni_nid");
  lo.lpni_nid = r.offset("lnet_peer_ni", "lpni_nid");
  lo.md_niov = r.offset("lnet_libmd", "md_niov");
  lo.md_kiov = r.offset("lnet_libmd", "md_kiov");
  // lnet_drop_rule_match(hdr, local_nid, hstatus): local_nid is a 64-bit
  // lnet_nid_t up to 2.15.50, a struct lnet_nid * from 2.15.51 (LU-10391).
  // Only the fentry program reads it; a BTF without the function (it is
  // never missing from a module's BTF) keeps the pointer form.
  std::int32_t fn = btf__find_by_name_kind(b.get(), "lnet_drop_rule_match", BTF_KIND_FUNC);
  if (fn > 0) {
    const btf_type* proto = btf__type_by_id(b.get(), btf__type_by_id(b.get(), fn)->type);
    if (proto && btf_is_func_proto(proto) && btf_vlen(proto) >= 2) {
      std::int32_t arg = btf__resolve_type(b.get(), btf_params(proto)[1].type);
      const btf_type* at = arg > 0 ? btf__type_by_id(b.get(), arg) : nullptr;
      out.drop_rule_nid4 = at && btf_is_int(at) && at->size == 8;
    }
  }
  return out;
}

}  // namespace lnetcap::live

#endif  // LNETCAP_HAVE_BPF
