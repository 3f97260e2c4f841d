// SPDX-License-Identifier: GPL-2.0-or-later
#include "file_source.h"

#include <sys/stat.h>

#include "error.h"
#include "lnetcap/record.h"
#include "record.h"

namespace lnetcap {

LnetcapFileSource::LnetcapFileSource(const std::string& path) : reader_(path) {
  struct stat st;
  if (path != "-" && ::stat(path.c_str(), &st) == 0) size_ = static_cast<std::uint64_t>(st.st_size);
}

bool LnetcapFileSource::is_lnetcap_capture(const std::string& path) {
  if (!pcapng::Reader::looks_like_pcapng(path)) return false;
  try {
    pcapng::Reader r(path);
    pcapng::Packet p;
    if (r.next(p)) return r.interfaces()[p.interface_id].linktype == LNETCAP_LINKTYPE;
    for (const auto& i : r.interfaces())
      if (i.linktype != LNETCAP_LINKTYPE) return false;
    return true;
  } catch (const Error&) {
    return true;  // damaged: let the real reader report where
  }
}

void LnetcapFileSource::sync_interfaces() {
  const auto& in = reader_.interfaces();
  while (interfaces_.size() < in.size()) {
    const pcapng::Interface& i = in[interfaces_.size()];
    CaptureInterface c;
    c.name = i.name;
    c.description = i.description;
    c.os = i.os;
    c.hardware = i.hardware;
    c.comments = i.comments;
    c.snaplen = i.snaplen;
    interfaces_.push_back(std::move(c));
  }
}

std::uint64_t LnetcapFileSource::position() const { return offset_; }

bool LnetcapFileSource::next(CapturedRecord& out) {
  if (stopped_ || !reader_.next(packet_)) return false;
  offset_ = packet_.offset;
  sync_interfaces();
  const pcapng::Interface& iface = reader_.interfaces()[packet_.interface_id];
  // Named only when something is wrong: built per record, the name cost
  // an allocation per record.
  auto where = [&] { return reader_.path() + ": offset " + std::to_string(packet_.offset); };
  if (iface.linktype != LNETCAP_LINKTYPE)
    throw Error(where() + ": packet on interface '" + iface.name + "' has link type " +
                    std::to_string(iface.linktype) + ", not lnetcap's " +
                    std::to_string(LNETCAP_LINKTYPE),
                "to read socklnd TCP traffic, give a file that holds only TCP/IP packets");
  std::string why;
  auto rec = parse_record(packet_.data, &why);
  if (!rec) throw Error(where() + ": bad lnetcap record: " + why);
  out = CapturedRecord{};
  out.ts_ns = packet_.ts_ns;
  out.interface_id = packet_.interface_id;
  out.bytes = packet_.data;
  out.orig_len = packet_.orig_len;
  out.epb_flags = packet_.flags;
  if (packet_.drop_count) {
    out.has_drops_before = true;
    out.drops_before = *packet_.drop_count;
    stats_.dropped += *packet_.drop_count;
  }
  out.comments = packet_.comments;
  ++stats_.received;
  return true;
}

}  // namespace lnetcap
