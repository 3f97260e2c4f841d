// SPDX-License-Identifier: GPL-2.0-or-later
// capture_compare.h - one node's live lnetcap capture against the recording
// of its link converted by lnetcap (`lnetcap -r wire.pcap -w wire.pcapng`,
// WIRE records): the real-Lustre harness's verdict (scripts/real-lustre).
//
// Messages are paired by their whole LNet header: source and destination
// NID plus the 56 bytes that follow them, which are laid out the same in the
// 72-byte wire form and the 96-byte in-memory form (pids, type, payload
// length, and the PUT/GET/ACK/REPLY union with its wmd cookies).  Several
// messages can share a header; then the one whose payload prefix agrees is
// taken.  The wire holds the whole boot while the capture covers a window:
// wire messages before the first or after the last paired one are outside
// the window and do not count.  Messages that stay on the node (0@lo, a NID
// talking to itself) and DROP records never reach the wire and are counted
// apart.  A received message that LNet itself dropped (RECV with an error
// status, or a DROP record) is paired with the wire but owes no payload: its
// bytes never landed in memory.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "message.h"

namespace lnetcap::real_lustre {

/// What the comparison needs of one record, copied out of the reader's buffer.
struct Captured {
  std::uint64_t frame = 0;  // 1-based packet number in its file
  std::uint8_t direction = 0;
  std::uint16_t flags = 0;
  std::uint32_t payload_len = 0;  // record's payload_len
  std::optional<std::int32_t> status;  // LNet's completion status, when recorded
  bool outcome = false;           // an OUTCOME record: not a message of its own
  std::uint8_t drop_reason = 0;
  std::string src, dst;           // NIDs as text
  std::vector<std::uint8_t> tail;  // the 56 header bytes after the NIDs
  std::vector<std::uint8_t> payload;
  LnetFields lnet;
  PtlrpcFields rpc;
  std::optional<std::uint64_t> xid;
};

/// Copies a decoded message (frame numbers are the caller's).
Captured capture_of(const Message& m, std::uint64_t frame);

/// Reads every lnetcap record of a pcapng file.  Throws lnetcap::Error.
std::vector<Captured> read_capture(const std::string& path);

struct Verdict {
  // the capture
  std::size_t records = 0, on_node = 0, drop_records = 0;
  std::size_t recv_error = 0;  // RECV records whose completion status is an error
  std::size_t outcomes = 0;    // outcome records (a failed send's or a GET/ACK's drop)
  std::map<std::string, std::size_t> by_direction;  // "SEND" -> n, all records
  // against the wire
  std::size_t wire = 0, hello = 0, in_window = 0, outside_window = 0;
  std::size_t matched = 0, only_capture = 0, missing = 0;
  std::size_t dropped_by_lnet = 0;  // paired, but LNet dropped it: no payload owed
  std::size_t wrong_field_pairs = 0;
  std::map<std::string, std::size_t> wrong_fields;  // field name -> pairs
  // payload bytes of paired messages that carry some
  std::size_t payload_expected = 0, payload_equal = 0, payload_different = 0;
  std::size_t payload_unreadable = 0, payload_short = 0;
  // PtlRPC of paired messages whose wire copy decodes as PtlRPC
  std::size_t rpc_wire = 0, rpc_equal = 0, rpc_missing = 0, rpc_different = 0;
  std::map<std::string, std::size_t> rpc_fields;  // "opc" -> pairs differing
  std::vector<std::string> examples;              // first few problems, one line each

  bool passed() const {
    return only_capture == 0 && missing == 0 && wrong_field_pairs == 0 &&
           payload_different == 0 && payload_unreadable == 0 && payload_short == 0 &&
           rpc_missing == 0 && rpc_different == 0 && matched > 0;
  }
};

/// local: the node's NID as text.  snaplen: the capture's -s (payload
/// bytes a record must carry: min(snaplen, what the wire carries)).
Verdict compare(const std::vector<Captured>& capture, const std::vector<Captured>& wire,
                const std::string& local, std::uint32_t snaplen);

/// The verdict as short key=value lines (the harness's report format).
std::string format_verdict(const Verdict& v);

}  // namespace lnetcap::real_lustre
