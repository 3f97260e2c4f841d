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
    for (;;) {
      try {
        if (r.next(p)) return r.interfaces()[p.interface_id].linktype == LNETCAP_LINKTYPE;
        break;
      } catch (const pcapng::DamagedBlock&) {
        continue;  // a damaged first packet says nothing about the others
      }
    }
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

// Built only when something is wrong: built for every record, the name
// cost an allocation per record.
std::string LnetcapFileSource::where(std::uint64_t offset) const {
  return reader_.path() + ": offset " + std::to_string(offset);
}

std::string LnetcapFileSource::read_so_far() const {
  std::string s = std::to_string(stats_.received) + (stats_.received == 1 ? " record" : " records") +
                  " read before it";
  if (stats_.damaged)
    s += ", " + std::to_string(stats_.damaged) + " damaged " + (stats_.damaged == 1 ? "record" : "records") +
         " skipped";
  return s;
}

// A damaged record is stepped over only when someone will say so (a
// handler); otherwise it ends the read like any other error.
void LnetcapFileSource::damaged(std::uint64_t offset, std::uint64_t number, const std::string& why) {
  if (!on_damaged_)
    throw Error(where(offset) + ": record " + std::to_string(number) + ": " + why,
                "the record is damaged; the records before it were processed");
  ++stats_.damaged;
  on_damaged_(DamagedRecord{reader_.path(), offset, number, why});
}

// The next packet block, stepping over damaged ones.  A broken framing
// leaves no next block to find, so it ends the file; its message then
// also says how far the reading got.
bool LnetcapFileSource::read_packet() {
  for (;;) {
    try {
      if (!reader_.next(packet_)) return false;
      offset_ = packet_.offset;
      return true;
    } catch (const pcapng::DamagedBlock& d) {
      offset_ = d.offset();
      damaged(d.offset(), d.number(), d.reason());
    } catch (const Error& e) {
      throw Error(std::string(e.what()) + "; " + read_so_far(), e.hint());
    }
  }
}

// The records lost before a packet (its epb_dropcount) were lost whether
// or not its own record is readable: counted when the packet is read, and
// handed to the next record delivered, so that -w keeps them.
void LnetcapFileSource::count_drops() {
  if (!packet_.drop_count) return;
  drops_pending_ = drops_pending_.value_or(0) + *packet_.drop_count;
  stats_.dropped += *packet_.drop_count;
}

void LnetcapFileSource::hand_over_drops(CapturedRecord& out) {
  if (!drops_pending_) return;
  out.has_drops_before = true;
  out.drops_before = *drops_pending_;
  drops_pending_.reset();
}

bool LnetcapFileSource::next(CapturedRecord& out) {
  while (!stopped_ && read_packet()) {
    sync_interfaces();
    const pcapng::Interface& iface = reader_.interfaces()[packet_.interface_id];
    // Not damage: a file holding other packets is not an lnetcap capture.
    if (iface.linktype != LNETCAP_LINKTYPE)
      throw Error(where(packet_.offset) + ": packet on interface '" + iface.name + "' has link type " +
                      std::to_string(iface.linktype) + ", not lnetcap's " +
                      std::to_string(LNETCAP_LINKTYPE),
                  "to read socklnd TCP traffic, give a file that holds only TCP/IP packets");
    count_drops();
    std::string why;
    if (!parse_record(packet_.data, &why)) {
      damaged(packet_.offset, packet_.number, "bad lnetcap record: " + why);
      continue;
    }
    out = CapturedRecord{};
    out.ts_ns = packet_.ts_ns;
    out.interface_id = packet_.interface_id;
    out.bytes = packet_.data;
    out.orig_len = packet_.orig_len;
    out.epb_flags = packet_.flags;
    hand_over_drops(out);
    out.comments = packet_.comments;
    ++stats_.received;
    return true;
  }
  return false;
}

}  // namespace lnetcap
