// SPDX-License-Identifier: GPL-2.0-or-later
#include "ping_detail.h"

#include <cinttypes>
#include <cstdio>

#include "../codec/ping_info.h"
#include "lnetcap/lnet.h"

namespace lnetcap::text {
namespace {

void appendf(std::string& out, const char* fmt, auto... args) {
  char b[64];
  const int n = std::snprintf(b, sizeof(b), fmt, args...);
  if (n > 0) out.append(b, static_cast<std::size_t>(n) < sizeof(b) ? n : sizeof(b) - 1);
}

// Status words as lnetctl prints them; 0@lo's status is the sequence of
// the sender's ping target (lnet-idl.h LNET_PING_INFO_SEQNO).
void ni_status(const PingNi& ni, std::string& out) {
  if (ni.nid.type == LNETCAP_LND_LOLND) appendf(out, " seq %" PRIu32, ni.status);
  else if (ni.status == LNETCAP_LNET_NI_STATUS_UP) out += " up";
  else if (ni.status == LNETCAP_LNET_NI_STATUS_DOWN) out += " down";
  else appendf(out, " status 0x%08" PRIx32, ni.status);
}

void cut_note(PingCut cut, const char* what, std::string& out) {
  if (cut == PingCut::kSnapLength) out += std::string(" [") + what + " cut by the snap length]";
  else if (cut == PingCut::kMessageLength) out += std::string(" [") + what + " runs past the message]";
}

}  // namespace

void format_ping_detail(const Message& m, std::string& out) {
  const LnetFields& l = m.lnet;
  const bool push = l.type == LNETCAP_MSG_PUT && l.portal && *l.portal == 0;
  if (!l.present || (l.type != LNETCAP_MSG_REPLY && !push)) return;
  const auto info = parse_ping_info(m.rec.payload, l.payload_length);
  if (!info) return;
  appendf(out, "\n\tping pid %" PRIu32 " features 0x%" PRIx32 ":", info->pid, info->features);
  for (std::size_t i = 0; i < info->nis.size(); ++i) {
    out += i ? ", " : " ";
    out += info->nis[i].nid.to_string();
    ni_status(info->nis[i], out);
  }
  if (info->nis.empty()) out += " no NIs";
  cut_note(info->nis_cut, "NI list", out);
  if (!info->has_feature(LNETCAP_PING_FEAT_METADATA) || info->nis_cut != PingCut::kNone) return;
  if (!info->md_count) {
    out += "\n\tmetadata";
    cut_note(info->md_cut, "count", out);
    return;
  }
  appendf(out, "\n\tmetadata %" PRIu32 " %s:", *info->md_count, *info->md_count == 1 ? "entry" : "entries");
  for (std::size_t i = 0; i < info->metadata.size(); ++i) {
    const PingMetadataEntry& e = info->metadata[i];
    out += i ? ", " : " ";
    out += e.nid.to_string();
    out += " [";
    for (const std::uint8_t b : e.buffer) appendf(out, "%02x", b);
    out += ']';
  }
  if (info->md_cut != PingCut::kNone)
    appendf(out, " [%zu of %" PRIu32 "%s]", info->metadata.size(), *info->md_count,
            info->md_cut == PingCut::kSnapLength ? " captured" : " fit in the message");
}

}  // namespace lnetcap::text
