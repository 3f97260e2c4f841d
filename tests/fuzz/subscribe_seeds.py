#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# subscribe_seeds.py OUTDIR - writes the seeds of fuzz_subscribe
# (run.sh seeds: into the fuzz work directory, not the source tree): one message of each kind the ring added
# and a SHARED_BATCH, in the target's framing (u16 LE length + bytes per
# frame), each field spelled out here as protocol.h lays it out.
import os, struct, sys

def preamble(msg_type):
    return b"LNSB" + bytes([1, msg_type, 0, 0])

def counters(matched, dropped=0, received=0, source_dropped=0, watermark=0):
    return struct.pack("<5Q", matched, dropped, received, source_dropped, watermark)

def framed(*frames):
    return b"".join(struct.pack("<H", len(f)) + f for f in frames)

def shared_entry(record):
    # ts_ns, interface_id, orig_len, epb_flags, has_drops, drops_before, record, comments
    return struct.pack("<QIIIIQ", 1700000000000000000, 0, len(record), 0, 0, 0) + \
        struct.pack("<I", len(record)) + record + struct.pack("<I", 0)

seeds = {
    "ring-offer": framed(preamble(25) + bytes(range(16)) + struct.pack("<II", 4, 64 + 256)),
    # Generation 6 of the fuzz target's 4-slot ring is in slot 2, 60 bytes long.
    "ring-batch": framed(preamble(26) + struct.pack("<IQ", 1, 5) + counters(5) + struct.pack("<QII", 6, 2, 60)),
    "ring-batch-hostile-slot": framed(preamble(26) + struct.pack("<IQ", 1, 1) + counters(1) +
                                      struct.pack("<QII", 6, 0xffffffff, 0xffffffff)),
    "shared-batch": framed(preamble(24) + struct.pack("<IQ", 2, 1) + counters(2),
                           shared_entry(b"\x01\x02\x03") + shared_entry(b"")),
    "subscribe-maps-ring": framed(preamble(1) + struct.pack("<II", 0xffffffff, 7), b"", b"lnetcap seed"),
}
os.makedirs(sys.argv[1], exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(sys.argv[1], name), "wb") as f:
        f.write(data)
