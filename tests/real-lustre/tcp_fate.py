#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tcp_fate.py RAW1.pcap CONV1.pcapng [RAW2.pcap CONV2.pcapng ...] -
what TCP did with socklnd's bytes on the recorded links of the real-Lustre
harness: the facts that let lustre_compare tell a message lnetcap missed
from one the node's LNet never had.

Each pair is one link: QEMU's recording of it (RAW, Ethernet pcap) and
lnetcap's conversion of that recording (CONV, `lnetcap -r RAW -w CONV`,
one WIRE record per LNet message, stamped with the time of the TCP segment
its ksock message starts in).  The links are read together, since one TCP
connection's two directions can take different links: a multi-rail node
routes by destination address, so the data of a connection and its ACKs
need not share a wire.

Prints, for lustre_compare --tcp-fate FILE:

  unacked LINK FRAME
      The WIRE record FRAME of link LINK (1-based, the order of the pairs)
      starts in a TCP segment whose first byte the receiving end's TCP
      never acknowledged in any recording, or only in the RST that ended
      the connection (Linux resets a socket closed with unread bytes, and
      that RST acknowledges what it discards).  The wire then holds no
      evidence that the message reached the receiver's socklnd: the
      receiver's interface was down, or its socklnd had closed the
      connection (it closes every connection to a peer when one times
      out).  Not proof either: bytes acknowledged only by the RST may have
      been read before it, so lustre_compare uses the line only to excuse
      a message the receiver's capture lacks.
      When several data segments share the record's timestamp, every one
      of them must be unacknowledged.

  unread LINK FRAME CONN
      The WIRE record FRAME of link LINK travelled on connection CONN
      (its ends and the time it began), which was later reset (a RST from
      either end) before the receiving end had closed it with a FIN.  A
      receiver resets a socket closed with bytes still unread; a reset
      from the sender makes the receiver's socklnd close the connection at
      once, leaving what it had not read.  Either way the bytes lost are a
      tail of the stream.  Named for every record of such a connection:
      lustre_compare excuses a message the receiver's capture lacks only
      when no later message of CONN is in that capture (socklnd reads a
      connection in order).

  reset SRC_IP DST_IP TS_NS
      A connection between SRC_IP and DST_IP was reset (RST, at TS_NS on
      the recordings' clock) before SRC_IP closed its side with a FIN: any
      bytes SRC_IP's socket still held were discarded, so a message its
      LNet handed to socklnd may never have reached the wire.

Exit 0, or 2 on bad usage or an unreadable file.  Only IPv4 over Ethernet
is read (QEMU's filter-dump of the rig's virtio NICs).
"""
import struct
import sys
from collections import defaultdict

import capture_files

SEQ_HALF = 1 << 31


def die(msg):
    print(f"tcp_fate.py: {msg}", file=sys.stderr)
    sys.exit(2)


def pcap_frames(path):
    """Yields (time in ns, frame bytes) of a link's recording."""
    try:
        yield from capture_files.pcap_frames(path)
    except OSError as e:
        die(f"cannot read {path}: {e.strerror}")
    except capture_files.BadFile as e:
        die(str(e))


def tcp_segment(frame):
    """(src, dst, sport, dport, seq, ack, flags, payload length) of an
    IPv4 TCP frame, or None."""
    if len(frame) < 14 + 20 or frame[12:14] != b"\x08\x00":
        return None
    ip = frame[14:]
    ihl = (ip[0] & 0x0F) * 4
    if ip[0] >> 4 != 4 or ip[9] != 6 or len(ip) < ihl + 20:
        return None
    total = struct.unpack_from(">H", ip, 2)[0]
    src, dst = ".".join(map(str, ip[12:16])), ".".join(map(str, ip[16:20]))
    tcp = ip[ihl:]
    sport, dport, seq, ack = struct.unpack_from(">HHII", tcp, 0)
    doff = (tcp[12] >> 4) * 4
    flags = tcp[13]
    return src, dst, sport, dport, seq, ack, flags, max(0, total - ihl - doff)


FIN, SYN, RST, ACK = 0x01, 0x02, 0x04, 0x10


def seq_after(a, b):
    """a comes after b in TCP sequence space (mod 2^32)."""
    return 0 < ((a - b) & 0xFFFFFFFF) < SEQ_HALF


def pcapng_record_times(path):
    """Yields (frame number, time in ns) of every packet of a pcapng file."""
    try:
        for frame, _, _, ts, _ in capture_files.packets(path):
            if ts is not None:
                yield frame, ts
    except OSError as e:
        die(f"cannot read {path}: {e.strerror}")
    except capture_files.BadFile as e:
        die(str(e))


def analyse(links):
    """links: [(raw path, converted path)].  Returns the output lines."""
    # Every segment of every link.  socklnd reuses its few privileged
    # ports, so one address/port pair carries many connections: a SYN
    # starts a new one, and sequence numbers compare only within it.
    data_at = defaultdict(list)   # (link, ts) -> [(conn, seq)]
    acks = defaultdict(list)      # conn (src, sport, dst, dport) -> [(ts, ack)]
    syns = defaultdict(list)      # the pair of ends -> SYN times
    fin_from = defaultdict(list)  # (pair, src, sport) -> FIN times
    resets = []                   # (ts, conn)
    for n, (raw, _) in enumerate(links, 1):
        for ts, frame in pcap_frames(raw):
            s = tcp_segment(frame)
            if s is None:
                continue
            src, dst, sport, dport, seq, ack, flags, plen = s
            conn = (src, sport, dst, dport)
            pair = frozenset([(src, sport), (dst, dport)])
            if flags & SYN:
                syns[pair].append(ts)
            # The ACK a reset carries may cover bytes its socket discards
            # unread (tcp_close with unread data sends a RST): no evidence
            # that they reached socklnd.
            if flags & ACK and not flags & RST:
                acks[conn].append((ts, ack))
            if plen > 0:
                data_at[(n, ts)].append((conn, seq))
            if flags & FIN:
                fin_from[(pair, src, sport)].append(ts)
            if flags & RST:
                resets.append((ts, conn))

    def lifetime(pair, ts):
        """(start, end) of the connection of pair open at ts: its SYN's time
        and the next SYN's (None: before or after the recording)."""
        times = syns.get(pair, [])
        return (max((t for t in times if t <= ts), default=None),
                min((t for t in times if t > ts), default=None))

    def within(span, t):
        return (span[0] is None or t >= span[0]) and (span[1] is None or t < span[1])

    def unacked(conn, ts, seq):
        src, sport, dst, dport = conn
        span = lifetime(frozenset([(src, sport), (dst, dport)]), ts)
        return not any(within(span, t) and seq_after(a, seq)
                       for t, a in acks.get((dst, dport, src, sport), []))

    def reset_unread(conn, ts):
        """The connection of conn open at ts, as text, when it was reset
        after ts before its receiving end sent a FIN; else None."""
        src, sport, dst, dport = conn
        pair = frozenset([(src, sport), (dst, dport)])
        span = lifetime(pair, ts)
        start = span[0]
        rsts = [t for t, c in resets
                if c in ((dst, dport, src, sport), conn) and t >= ts and within(span, t)]
        if not rsts:
            return None
        fins = [t for t in fin_from.get((pair, dst, dport), []) if within(span, t) and t < min(rsts)]
        if fins:
            return None
        return f"{src}:{sport}>{dst}:{dport}@{start if start is not None else 0}"

    out = []
    for n, (_, conv) in enumerate(links, 1):
        for frame, ts in pcapng_record_times(conv):
            segs = data_at.get((n, ts))
            if not segs:
                continue
            if all(unacked(c, ts, q) for c, q in segs):
                out.append(f"unacked {n} {frame}")
            if len(segs) == 1:
                conn = reset_unread(segs[0][0], ts)
                if conn:
                    out.append(f"unread {n} {frame} {conn}")
    # A reset ends the connection for both ends: each end that had not
    # sent its FIN before it may have lost bytes.
    seen = set()
    for ts, (src, sport, dst, dport) in sorted(resets):
        pair = frozenset([(src, sport), (dst, dport)])
        span = lifetime(pair, ts)
        for me, mport, peer in ((src, sport, dst), (dst, dport, src)):
            if any(within(span, t) and t <= ts for t in fin_from.get((pair, me, mport), [])) \
                    or (pair, span[0], me) in seen:
                continue
            seen.add((pair, span[0], me))
            out.append(f"reset {me} {peer} {ts}")
    return out


def main(argv):
    args = argv[1:]
    if not args or len(args) % 2 or args[0] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        return 2
    links = [(args[i], args[i + 1]) for i in range(0, len(args), 2)]
    for line in analyse(links):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
