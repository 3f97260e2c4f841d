// SPDX-License-Identifier: GPL-2.0-or-later
// layout_text.cpp - a layout as "struct.member offset" lines, the form in
// which layouts of real Lustre builds are recorded and compared
// (tests/real-lustre/layouts.txt, scripts/real-lustre/check-layouts.sh).
#include <string>

#include "layout.h"

namespace lnetcap::live {

std::string layout_text(const lnetcap_layout& lo) {
  std::string out;
  auto line = [&out](const char* member, unsigned byte) {
    out += member;
    out += ' ';
    out += std::to_string(byte);
    out += '\n';
  };
  // Bitfields as byte:bit (little-endian bit order within the byte).
  auto flag = [&out](const char* member, unsigned byte, unsigned bit) {
    out += member;
    out += ' ';
    out += std::to_string(byte) + ":" + std::to_string(bit);
    out += '\n';
  };
  line("lnet_msg.msg_type", lo.msg_type);
  line("lnet_msg.msg_from", lo.msg_from);
  line("lnet_msg.msg_health_status", lo.msg_health_status);
  line("lnet_msg.msg_retry_count", lo.msg_retry_count);
  line("lnet_msg.msg_txpeer", lo.msg_txpeer);
  line("lnet_msg.msg_md", lo.msg_md);
  line("lnet_msg.msg_txni", lo.msg_txni);
  line("lnet_msg.msg_rxni", lo.msg_rxni);
  line("lnet_msg.msg_len", lo.msg_len);
  line("lnet_msg.msg_wanted", lo.msg_wanted);
  line("lnet_msg.msg_offset", lo.msg_offset);
  line("lnet_msg.msg_niov", lo.msg_niov);
  line("lnet_msg.msg_kiov", lo.msg_kiov);
  line("lnet_msg.msg_hdr", lo.msg_hdr);
  flag("lnet_msg.msg_tx_committed", lo.msg_tx_committed_byte, lo.msg_tx_committed_bit);
  flag("lnet_msg.msg_rx_committed", lo.msg_rx_committed_byte, lo.msg_rx_committed_bit);
  flag("lnet_msg.msg_routing", lo.msg_routing_byte, lo.msg_routing_bit);
  line("lnet_libmd.md_start", lo.md_start);
  line("lnet_libmd.md_options", lo.md_options);
  line("lnet_libmd.md_flags", lo.md_flags);
  line("lnet_libmd.md_handler", lo.md_handler);
  line("lnet_ni.ni_nid", lo.ni_nid);
  line("lnet_peer_ni.lpni_nid", lo.lpni_nid);
  line("lnet_libmd.md_niov", lo.md_niov);
  line("lnet_libmd.md_kiov", lo.md_kiov);
  return out;
}

}  // namespace lnetcap::live
