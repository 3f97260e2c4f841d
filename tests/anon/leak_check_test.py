#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""leak_check.py must fail on a leak: a run of the input copied into the
anonymized file anywhere, or into its text as a word of its own, under
every key; and must not count a run that only turns up inside a longer
word or number of lnetcap's text (a task named "stat" against "status")."""
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def check(files, allow=""):
    """Exit status of leak_check.py on {name: bytes}; INPUT, then groups."""
    with tempfile.TemporaryDirectory() as d:
        def put(name, data):
            p = os.path.join(d, name)
            with open(p, "wb") as f:
                f.write(data)
            return p
        args = [put("allow", allow.encode()), put("in", files["in"])]
        for g, group in enumerate(files["groups"]):
            if g:
                args.append("--")
            args += [put(f"g{g}-{i}", data) for i, data in enumerate(group)]
        return subprocess.run([sys.executable, os.path.join(HERE, "leak_check.py")] + args,
                              capture_output=True).returncode


failed = 0


def expect(what, rc, files, allow=""):
    global failed
    got = check(files, allow)
    if got != rc:
        print(f"FAIL: {what}: leak_check.py exited {got}, expected {rc}")
        failed = 1
    else:
        print(f"ok: {what}")


IN = b"\x00\x01stat\x00\x02secretname\x00"
expect("a name copied into the file under both keys", 1,
       {"in": IN, "groups": [[b"\x07secretname\x07"], [b"xxsecretnamexx"]]})
expect("a name copied under one key only (a pseudonym spelling it by chance)", 0,
       {"in": IN, "groups": [[b"secretname"], [b"pseudonym"]]})
expect("a name printed as a word of the text", 1,
       {"in": IN, "groups": [[b"", b'op name "stat" done'], [b"", b"name stat\n"]]})
expect("a run inside a word of lnetcap's text", 0,
       {"in": IN, "groups": [[b"", b"status 0 and statfs"], [b"", b"status 1"]]})
expect("a run inside a word of the file itself", 1,
       {"in": IN, "groups": [[b"status"], [b"statfs"]]})
expect("a number of the input (bulk data) among the text's numbers", 0,
       {"in": b"\x00c702\x00 1012\x00", "groups": [[b"", b"c702 1a00 len 1012"], [b"", b"c702 len 1012"]]})
expect("the same number copied into the file", 1,
       {"in": b"\x00c702\x00", "groups": [[b"\x01c702"], [b"c702\x01"]]})
def pcapng(comment, packet):
    """A section header with COMMENT, an interface, one packet."""
    def block(btype, body):
        body += b"\x00" * (-len(body) % 4)
        return struct.pack("<II", btype, len(body) + 12) + body + struct.pack("<I", len(body) + 12)
    opt = struct.pack("<HH", 1, len(comment)) + comment + b"\x00" * (-len(comment) % 4) + b"\x00" * 4
    shb = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1) + opt)
    idb = block(1, struct.pack("<HHI", 147, 0, 0))
    epb = block(6, struct.pack("<IIIII", 0, 0, 0, len(packet), len(packet)) + packet)
    return shb + idb + epb


SAYS = b"anonymized by lnetcap: NIDs, jobids"
expect("lnetcap's own sentence in the file's comment", 0,
       {"in": b"\x00 NID\x00", "groups": [[pcapng(SAYS, b"\x01")], [pcapng(SAYS, b"\x02")]]})
expect("a name in the file's comment", 1,
       {"in": IN, "groups": [[pcapng(b"host secretname", b"\x01")], [pcapng(b"secretname", b"")]]})
expect("a name in the file's packet", 1,
       {"in": IN, "groups": [[pcapng(SAYS, b"xsecretnamex")], [pcapng(SAYS, b"\x00secretname")]]})
def record(comm, queue):
    """An lnetcap record header (128 bytes) with COMM and the bytes QUEUE as
    its queue time."""
    h = bytearray(128)
    h[0:4] = b"LNCR"
    struct.pack_into("<HH", h, 4, 1, 128)
    h[24:24 + len(comm)] = comm
    h[104:112] = queue
    return bytes(h)


IN_RECORD = pcapng(b"", record(b"secretcomm", b"4]H5\x00\x00\x00\x00"))
expect("a queue time lnetcap measured, kept under every key", 0,
       {"in": IN_RECORD, "groups": [[pcapng(SAYS, record(b"x", b"4]H5\x00\x00\x00\x00"))],
                                     [pcapng(SAYS, record(b"y", b"4]H5\x00\x00\x00\x00"))]]},
       allow="LNCR\tthe record magic\n")
expect("a task name copied into the record header", 1,
       {"in": IN_RECORD, "groups": [[pcapng(SAYS, record(b"secretcomm", b""))],
                                     [pcapng(SAYS, record(b"secretcomm", b""))]]},
       allow="LNCR\tthe record magic\n")
expect("an allowed protocol constant", 0,
       {"in": IN, "groups": [[b"stat"], [b"stat"]]}, allow="stat\ta reviewed constant\n")
sys.exit(failed)
