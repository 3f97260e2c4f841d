// SPDX-License-Identifier: GPL-2.0-or-later
// socklnd_source.h - LNet messages reassembled from socklnd TCP traffic
// (tcpdump captures read through libpcap, or a live network interface).
//
// What the records look like (the pieces: packet_decode -> tcp_reassembly
// -> socklnd_parser -> socklnd_converter):
// - One record per LNet message (KSOCK_MSG_LNET, or a V1 LNet header), hook
//   SOCKLND_STREAM, lnd_type SOCKLND, the 72- or 96-byte LNet header exactly
//   as on the wire, payload_len = the header's payload_length and a payload
//   prefix of min(snaplen, payload_length) bytes.  Acceptor connection
//   requests, HELLOs and NOOPs are socklnd's own traffic, not LNet
//   messages: they are counted (SourceStats::details, shown with -v), not
//   recorded, so every record decodes as an LNet message downstream.
// - Timestamp: the captured segment that completed the LNet header.  A
//   record is emitted once its payload prefix is complete, so records of
//   different connections may leave slightly out of time order.
// - local/peer NID: the two ends of the TCP connection, from the HELLOs
//   (or the connreq), else from the LNet header.  Without --local-nid the
//   direction is WIRE with local = the sending end; with it, SEND when the
//   sending end is that NID (epb_flags outbound) and RECV otherwise (local
//   = the receiving end, epb_flags inbound).
// - Interfaces: one per TCP connection, created with its first record,
//   named "10.0.3.2:1021-10.0.3.1:988" and described
//   "10.0.3.2:1021 -> 10.0.3.1:988 socklnd V3 control, 10.0.3.2@tcp -> 10.0.3.1@tcp"
//   (active side first; the connection type as the active side named it).
// - Lost data: a hole inside a payload keeps framing (a hole in the prefix
//   sets PAYLOAD_UNREADABLE); a hole that reaches a header makes the
//   parser hunt for the next header that passes strict checks, and that
//   record carries GAP_BEFORE.  SourceStats::dropped counts messages known
//   to be lost that way (a lower bound).
#pragma once

#include <cstdio>
#include <memory>

#include "../options.h"
#include "../source.h"

namespace lnetcap {

/// Reads a pcap/pcapng file of TCP traffic (opts.read_file, opts.lnet_port,
/// opts.local_nid).  Throws Error for unreadable files or unsupported link types.
/// With stream set, reads that open stream instead (a pipe or FIFO, which
/// cannot be opened twice; libpcap closes it).
std::unique_ptr<RecordSource> open_socklnd_file(const Options& opts, std::FILE* stream = nullptr);
/// Captures live from the network interface opts.interface with libpcap.
std::unique_ptr<RecordSource> open_socklnd_live(const Options& opts);

}  // namespace lnetcap
