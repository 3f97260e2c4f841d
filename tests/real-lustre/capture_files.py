# SPDX-License-Identifier: GPL-2.0-or-later
"""Capture files read from their bytes, for the real-Lustre harness's
independent checkers (xnode_truth.py, tcp_fate.py, roce_wire.py): they
must not share the lnetcap reader whose output they check.  pcapng packets
(lnetcap's files) and classic pcap frames (QEMU's link recordings)."""
import struct


class BadFile(Exception):
    """The file is not of its kind, or a block is cut or corrupt."""


def pcap_frames(path):
    """Yields (time in ns, frame bytes) of every frame of a classic
    Ethernet pcap file (microsecond or nanosecond magic, either byte
    order); a last frame cut short (a recording its guest ended) is left
    out.  Raises OSError when the file cannot be read, BadFile when it is
    not such a file."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise BadFile(f"{path}: not a pcap file (too short)")
    order, unit = {b"\xd4\xc3\xb2\xa1": ("<", 1000), b"\xa1\xb2\xc3\xd4": (">", 1000),
                   b"\x4d\x3c\xb2\xa1": ("<", 1), b"\xa1\xb2\x3c\x4d": (">", 1)}.get(
                       data[:4], (None, None))
    if order is None:
        raise BadFile(f"{path}: not a classic pcap file (magic {data[:4].hex()})")
    linktype = struct.unpack_from(order + "I", data, 20)[0]
    if linktype != 1:
        raise BadFile(f"{path}: link type {linktype}, expected Ethernet (1)")
    pos = 24
    while pos + 16 <= len(data):
        sec, frac, caplen, _ = struct.unpack_from(order + "IIII", data, pos)
        if pos + 16 + caplen > len(data):
            break
        yield sec * 1000000000 + frac * unit, data[pos + 16:pos + 16 + caplen]
        pos += 16 + caplen


def packets(path):
    """Yields (frame, interface, linktype, time in ns, bytes) of every
    packet block, numbered as tshark numbers frames (simple packet blocks
    carry no time: None).  if_tsresol is honoured.  Raises OSError when the
    file cannot be read, BadFile when it is not sound pcapng."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x0a\x0d\x0d\x0a":
        raise BadFile(f"{path} is not a pcapng file")
    pos, frame, bo, links, per_second = 0, 0, "<", [], []
    while pos + 12 <= len(data):
        btype = struct.unpack_from(bo + "I", data, pos)[0]
        if btype == 0x0A0D0D0A:
            bo = "<" if data[pos + 8:pos + 12] == b"\x4d\x3c\x2b\x1a" else ">"
            links, per_second = [], []
        blen = struct.unpack_from(bo + "I", data, pos + 4)[0]
        if blen < 12 or blen % 4 or pos + blen > len(data):
            raise BadFile(f"{path}: truncated or corrupt pcapng block at byte {pos}")
        body = data[pos + 8:pos + blen - 4]
        if btype == 1:
            links.append(struct.unpack_from(bo + "H", body, 0)[0])
            per_second.append(_tsresol(body, bo))
        elif btype == 6:
            iface, hi, lo, caplen = struct.unpack_from(bo + "IIII", body, 0)
            frame += 1
            unit = per_second[iface] if iface < len(per_second) else 10 ** 6
            yield (frame, iface, links[iface] if iface < len(links) else None,
                   (hi << 32 | lo) * 1000000000 // unit, body[20:20 + caplen])
        elif btype == 3:
            frame += 1
            yield frame, 0, links[0] if links else None, None, body[4:]
        elif btype == 2:
            iface, _, hi, lo, caplen = struct.unpack_from(bo + "HHIII", body, 0)
            frame += 1
            unit = per_second[iface] if iface < len(per_second) else 10 ** 6
            yield (frame, iface, links[iface] if iface < len(links) else None,
                   (hi << 32 | lo) * 1000000000 // unit, body[20:20 + caplen])
        pos += blen


def _tsresol(idb_body, bo):
    """Timestamp units per second of an interface description block."""
    opt = 8
    while opt + 4 <= len(idb_body):
        code, olen = struct.unpack_from(bo + "HH", idb_body, opt)
        if code == 0:
            break
        if code == 9 and olen >= 1:
            r = idb_body[opt + 4]
            return 2 ** (r & 0x7F) if r & 0x80 else 10 ** r
        opt += 4 + (olen + 3) // 4 * 4
    return 10 ** 6
