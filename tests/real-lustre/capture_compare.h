// SPDX-License-Identifier: GPL-2.0-or-later
// capture_compare.h - one node's live lnetcap capture against the recording
// of its link converted by lnetcap (`lnetcap -r wire.pcap -w wire.pcapng`,
// WIRE records): the real-Lustre harness's verdict (scripts/real-lustre).
// A router has a link per net: their recordings, made by the router's QEMU
// (one clock: QEMU's filter-dump stamps packets with its own virtual clock
// from the whole second its file was opened, so two QEMUs' recordings are
// off by a constant), are merged in time order into one wire, each message
// remembering its link.
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
//
// A router's FORWARD record stands for a message that crossed it unchanged
// (LNet keeps the originator's header; lnet_handle_send would rewrite
// dest_nid only to pick another NID of a multi-rail destination, which the
// harness's router topology has not): it pairs with two wire copies of
// its header, one on each link (copies whose payload prefix agrees are
// preferred), and its payload must agree with both.  A FORWARD found on one
// link or none is missing from the wire; it is neither from nor to the
// router's own NIDs, which the direction check of SEND and RECV accepts all
// of (one per net).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "message.h"

namespace lnetcap::real_lustre {

/// What the comparison needs of one record, copied out of the reader's buffer.
struct Captured {
  std::uint64_t frame = 0;  // 1-based packet number in its file
  std::uint64_t ts_ns = 0;  // the record's timestamp (wire: the recording QEMU's clock)
  std::size_t link = 0;     // 1-based wire file it came from when several were merged, else 0
  std::uint8_t direction = 0;
  std::uint16_t flags = 0;
  std::uint32_t payload_len = 0;  // record's payload_len
  std::optional<std::int32_t> status;  // LNet's completion status, when recorded
  bool outcome = false;           // an OUTCOME record: not a message of its own
  std::uint8_t drop_reason = 0;
  std::uint64_t msg_id = 0;  // the message (its first SEND), shared by its attempts and outcomes
  std::string src, dst;           // NIDs as text
  std::vector<std::uint8_t> tail;  // the 56 header bytes after the NIDs
  std::vector<std::uint8_t> payload;
  LnetFields lnet;
  PtlrpcFields rpc;
  std::optional<std::uint64_t> xid;
  std::optional<std::uint64_t> queue_ns;  // when the record's queue time is valid
};

/// What TCP did with socklnd's bytes on the recorded links
/// (tests/real-lustre/tcp_fate.py, read with read_tcp_fate).  A wire
/// record is known by (its 1-based link, its frame in that link's file).
struct TcpFate {
  using WireRecord = std::pair<std::size_t, std::uint64_t>;
  // the receiving end's TCP acknowledged none of it, or only in the RST
  // that ended its connection
  std::set<WireRecord> unacked;
  // the connection it travelled on, which a reset ended before the
  // receiver's FIN
  std::map<WireRecord, std::string> unread;
  struct Reset {
    std::string from, to;  // IP addresses: the end that lost its unsent bytes, its peer
    std::uint64_t ts_ns = 0;  // the RST, on the recordings' clock
  };
  std::vector<Reset> resets;
};

/// Reads tcp_fate.py's output.  Throws lnetcap::Error on a line it does not know.
TcpFate read_tcp_fate(const std::string& path);

/// Copies a decoded message (frame numbers are the caller's).
Captured capture_of(const Message& m, std::uint64_t frame);

/// Reads every lnetcap record of a pcapng file.  Throws lnetcap::Error.
std::vector<Captured> read_capture(const std::string& path);

/// One wire out of the recordings of several links: each record's link set
/// to its file's number (1-based), all in timestamp order (stable: equal
/// times keep file order).  One file is returned as it is (link 0).
std::vector<Captured> merge_wires(std::vector<std::vector<Captured>> links);

struct Verdict {
  // the capture
  std::size_t records = 0, on_node = 0, drop_records = 0;
  std::size_t recv_error = 0;  // RECV records whose completion status is an error
  std::size_t outcomes = 0;    // outcome records (a failed send's or a GET/ACK's drop)
  std::map<std::string, std::size_t> by_direction;  // "SEND" -> n, all records
  // against the wire
  std::size_t wire = 0, hello = 0, in_window = 0, outside_window = 0;
  std::size_t matched = 0, only_capture = 0, missing = 0;
  std::size_t failed_attempts = 0;  // SENDs off the wire whose attempt an outcome says failed
  // Wire messages to the node that its capture lacks, which the node's TCP
  // never acknowledged (TcpFate::unacked): no evidence they reached LNet.
  std::size_t unacked_by_receiver = 0;
  // Wire messages to the node that its capture lacks, at the tail of a
  // connection a reset ended (TcpFate::unread): no later message of that
  // connection is in the capture, so socklnd never read them.
  std::size_t unread_at_reset = 0;
  // SENDs off the wire, with no failure, into a connection that was reset
  // before the sender's FIN within kResetWindowNs (TcpFate::resets): the
  // socket's unsent bytes were discarded.
  std::size_t sent_into_reset = 0;
  static constexpr std::uint64_t kResetWindowNs = 60000000000ull;  // 60 s
  static constexpr std::uint64_t kClockToleranceNs = 2000000000ull;  // guest vs recording clock
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
  // a router's FORWARD records; those paired with a wire copy on two links
  // (a FORWARD on fewer links also counts in missing)
  std::size_t forwarded = 0, forwarded_both_links = 0;
  // How long a router held what it forwarded, by the router buffer pool the
  // message needs (tiny: no payload, small: one page, large: more): its
  // FORWARD's queue time (from its arrival in lnet_parse to lnet_ni_send,
  // buffer and credit waits included) against the time between its header
  // on the incoming link and on the outgoing one.  The wire time is never
  // shorter: it also holds the TCP stream's head-of-line waits before LNet
  // reads the header and after it hands it to the LND, which no hook sees.
  struct ForwardTiming {
    std::size_t n = 0;
    std::uint64_t queue_total_ns = 0, wire_total_ns = 0, queue_max_ns = 0, wire_max_ns = 0;
    std::size_t queue_over_wire = 0;  // queue time longer than the wire's (by > kClockSlackNs)
  };
  static constexpr std::uint64_t kClockSlackNs = 20000000;  // guest vs host clock, 20 ms
  std::map<std::string, ForwardTiming> forward_timing;  // "tiny", "small", "large"
  std::size_t forward_not_timed = 0;  // header not unique on the wire: not timed

  bool passed() const {
    return only_capture == 0 && missing == 0 && wrong_field_pairs == 0 &&
           payload_different == 0 && payload_unreadable == 0 && payload_short == 0 &&
           rpc_missing == 0 && rpc_different == 0 && matched > 0 && !queue_over_wire();
  }
  bool queue_over_wire() const {
    for (const auto& [pool, t] : forward_timing)
      if (t.queue_over_wire) return true;
    return false;
  }
};

/// locals: the node's NIDs as text (a router has one per net).  snaplen:
/// the capture's -s (payload bytes a record must carry: min(snaplen, what
/// the wire carries)).  wire: one link's records, or merge_wires' result.
Verdict compare(const std::vector<Captured>& capture, const std::vector<Captured>& wire,
                const std::vector<std::string>& locals, std::uint32_t snaplen,
                const TcpFate& fate = {});

/// A node with one NID.
Verdict compare(const std::vector<Captured>& capture, const std::vector<Captured>& wire,
                const std::string& local, std::uint32_t snaplen);

/// The verdict as short key=value lines (the harness's report format).
std::string format_verdict(const Verdict& v);

}  // namespace lnetcap::real_lustre
