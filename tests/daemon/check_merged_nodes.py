#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check_merged_nodes.py MERGED NODE=DIRECT... - which node each record of a
merged `lnetcap --from ... --from ...` file came from.

Every record's interface description must end in ", on NODE" (or be
"on NODE"), and, taken node by node, the merged records must be that node's
direct conversion in order: the same bytes, timestamp, epb_flags (inbound or
outbound) and interface description (without the node).  This is what
pcap_dump cannot see (it prints no interface or flags); the order across
nodes is checked against mergecap separately.  Prints how often the merged
stream switches from one node to another (a merge that never interleaves
tests little).  Exit 1 with the first difference.
"""
import re
import struct
import sys


def records(path):
    """(interface description, epb_flags, timestamp, bytes) of every EPB."""
    data = open(path, "rb").read()
    out, descs, off = [], [], 0
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from("<II", data, off)
        if blen < 12 or off + blen > len(data):
            sys.exit(f"{path}: truncated block at offset {off}")
        body = data[off + 8:off + blen - 4]
        if btype == 0x0A0D0D0A:  # a section: interface ids start again
            if struct.unpack_from("<I", body, 0)[0] != 0x1A2B3C4D:
                sys.exit(f"{path}: not a little-endian pcapng section")
            descs = []
        elif btype == 1:  # IDB: link type, reserved, snaplen, options
            descs.append(option(body, 8, 3) or b"")  # if_description
        elif btype == 6:  # EPB
            iface, hi, lo, caplen, _ = struct.unpack_from("<IIIII", body, 0)
            opts = 20 + (caplen + 3) // 4 * 4
            flags = option(body, opts, 2)  # epb_flags
            out.append((descs[iface].decode(), struct.unpack("<I", flags)[0] if flags else 0,
                        (hi << 32) | lo, body[20:20 + caplen]))
        off += blen
    return out


def option(body, off, code):
    while off + 4 <= len(body):
        c, n = struct.unpack_from("<HH", body, off)
        if c == 0:
            break
        if c == code:
            return body[off + 4:off + 4 + n]
        off += 4 + (n + 3) // 4 * 4
    return None


def main():
    merged = records(sys.argv[1])
    direct = {}
    for arg in sys.argv[2:]:
        node, path = arg.split("=", 1)
        direct[node] = records(path)
    taken = {node: 0 for node in direct}
    switches, previous = 0, None
    for i, (desc, flags, ts, data) in enumerate(merged):
        m = re.search(r"(?:^|, )on ([^,]+)$", desc)
        if not m or m.group(1) not in direct:
            sys.exit(f"merged record {i}: interface '{desc}' names none of the nodes {sorted(direct)}")
        node, base = m.group(1), desc[:m.start()]
        if taken[node] >= len(direct[node]):
            sys.exit(f"merged record {i}: more records from {node} than its direct conversion holds")
        want = direct[node][taken[node]]
        got = (base, flags, ts, data)
        for what, g, w in zip(("interface description", "epb_flags", "timestamp", "bytes"), got, want):
            if g != w:
                sys.exit(f"merged record {i} (record {taken[node]} of {node}): {what} "
                         f"{g if what != 'bytes' else g.hex()[:80]!r} != direct {w if what != 'bytes' else w.hex()[:80]!r}")
        taken[node] += 1
        switches += previous is not None and node != previous
        previous = node
    for node, n in taken.items():
        if n != len(direct[node]):
            sys.exit(f"{node}: {n} of its {len(direct[node])} records are in the merged file")
    print(f"{len(merged)} records, " + ", ".join(f"{n} from {node}" for node, n in taken.items()) +
          f"; {switches} switches between nodes")


if __name__ == "__main__":
    main()
