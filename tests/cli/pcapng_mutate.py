#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""pcapng_mutate.py IN OUT MODE N[,N...] - damage chosen packets of a pcapng
file, deterministically, for the damaged-file tests (issue 33).

Packets are counted from 1 as Wireshark numbers its frames.  Prints the file
offset of each damaged packet block, one a line, in the order given.

Modes (the block framing stays whole unless the mode says otherwise):
  record-magic    invert the first byte of the lnetcap record magic ("LNCR")
  record-version  set the lnetcap record version to 9
  record-length   announce 4 more payload bytes in the record than it holds
  epb-interface   make the Enhanced Packet Block name interface 99
  block-length    FRAMING: the block's leading length 4 more than its trailer
  cut             FRAMING: end the file 20 bytes into the block
"""
import struct
import sys

EPB, SPB, SHB = 0x00000006, 0x00000003, 0x0A0D0D0A
EPB_DATA = 28  # type, length, interface, 2 timestamp words, caplen, orig_len
# Offsets in struct lnetcap_rec_hdr, pinned by LNETCAP_ASSERT_OFFSET in
# include/lnetcap/record.h; records are little-endian in every file.
REC_VERSION, REC_PAYLOAD_LEN, REC_PAYLOAD_CAPLEN = 4, 48, 52


def packet_blocks(data):
    """Yields (number, offset, length, endian) of each EPB/SPB."""
    pos, number, endian = 0, 0, "<"
    while pos + 12 <= len(data):
        btype = struct.unpack_from("<I", data, pos)[0]
        if btype == SHB:
            endian = "<" if struct.unpack_from("<I", data, pos + 8)[0] == 0x1A2B3C4D else ">"
        btype, length = struct.unpack_from(endian + "II", data, pos)
        if btype in (EPB, SPB):
            number += 1
            yield number, pos, length, endian
        pos += length


def main():
    src, dst, mode, which = sys.argv[1:5]
    wanted = [int(n) for n in which.split(",")]
    data = bytearray(open(src, "rb").read())
    blocks = {n: (off, length, endian) for n, off, length, endian in packet_blocks(data)}
    cut = None
    for n in wanted:
        off, length, endian = blocks[n]  # KeyError: no such packet
        rec = off + EPB_DATA
        if mode == "record-magic":
            data[rec] ^= 0xFF
        elif mode == "record-version":
            struct.pack_into("<H", data, rec + REC_VERSION, 9)
        elif mode == "record-length":
            plen, caplen = struct.unpack_from("<II", data, rec + REC_PAYLOAD_LEN)
            struct.pack_into("<II", data, rec + REC_PAYLOAD_LEN, max(plen, caplen + 4), caplen + 4)
        elif mode == "epb-interface":
            struct.pack_into(endian + "I", data, off + 8, 99)
        elif mode == "block-length":
            struct.pack_into(endian + "I", data, off + 4, length + 4)
        elif mode == "cut":
            cut = off + 20 if cut is None else min(cut, off + 20)
        else:
            sys.exit("pcapng_mutate.py: unknown mode " + mode)
        print(off)
    if cut is not None:
        del data[cut:]
    open(dst, "wb").write(data)


if __name__ == "__main__":
    main()
