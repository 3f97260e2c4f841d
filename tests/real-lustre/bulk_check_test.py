#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bulk_check.py (the file-system report's "bulk belongs to its RPC") passes
on the project's real file-system sample with the real lnetcap, and fails
on each kind of fault, shown with a stand-in lnetcap printing text and a
summary of our choosing.

    bulk_check_test.py LNETCAP SAMPLE"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "bulk_check.py")
failed = 0


def run(lnetcap, capture):
    return subprocess.run([sys.executable, CHECK, lnetcap, capture], capture_output=True, text=True)


def expect(what, rc, got):
    global failed
    if got.returncode != rc:
        print(f"FAIL: {what}: exit {got.returncode}, expected {rc}\n{got.stdout}{got.stderr}")
        failed = 1
    else:
        print(f"ok: {what}")


GOOD = """\
10:00:00.000001 SEND PUT 10.0.0.1@tcp > 10.0.0.2@tcp OST_REQUEST xid 0x40 len 520: OST_WRITE request jobid dd.0
10:00:00.000002 RECV GET 10.0.0.2@tcp > 10.0.0.1@tcp OST_BULK xid 0x40 sink 4096 len 0: bulk of OST_WRITE xid 0x40 jobid dd.0
10:00:00.000003 SEND REPLY 10.0.0.1@tcp > 10.0.0.2@tcp len 4096: bulk of OST_WRITE xid 0x40 jobid dd.0
10:00:00.000004 RECV PUT 10.0.0.2@tcp > 10.0.0.1@tcp OSC_REPLY xid 0x40 len 400: OST_WRITE reply
10:00:00.000005 RECV GET 10.0.0.2@tcp > 10.0.0.1@tcp LNET_RESERVED mb 0x8000000000000000 sink 272 len 0: LNet ping
10:00:00.000006 SEND REPLY 10.0.0.1@tcp > 10.0.0.2@tcp len 48
"""
SUMMARY = {"by_opcode": [{"opcode": "OST_WRITE", "bytes": 520 + 4096 + 400, "bulk_bytes": 4096}]}


def fake(d, text, summary):
    """A stand-in lnetcap: -r prints TEXT, --summary=json SUMMARY."""
    with open(os.path.join(d, "text"), "w") as f:
        f.write(text)
    with open(os.path.join(d, "json"), "w") as f:
        json.dump(summary, f)
    exe = os.path.join(d, "lnetcap")
    with open(exe, "w") as f:
        f.write(f"#!/bin/sh\ncase \"$*\" in *--summary*) cat {d}/json ;; *) cat {d}/text ;; esac\n")
    os.chmod(exe, 0o755)
    return exe


def main():
    lnetcap, sample = sys.argv[1], sys.argv[2]
    expect("the real file-system sample", 0, run(lnetcap, sample))
    with tempfile.TemporaryDirectory() as d:
        expect("a consistent stand-in", 0, run(fake(d, GOOD, SUMMARY), "x"))
        expect("a bulk GET that names no RPC", 1,
               run(fake(d, GOOD.replace(": bulk of OST_WRITE xid 0x40 jobid dd.0\n10:00:00.000003", "\n10:00:00.000003", 1), SUMMARY), "x"))
        expect("a bulk REPLY that names no RPC", 1,
               run(fake(d, GOOD.replace("len 4096: bulk of OST_WRITE xid 0x40 jobid dd.0", "len 4096"), SUMMARY), "x"))
        expect("an opcode's bytes without its bulk", 1,
               run(fake(d, GOOD, {"by_opcode": [{"opcode": "OST_WRITE", "bytes": 920, "bulk_bytes": 0}]}), "x"))
        expect("a ping REPLY without its ping", 1,
               run(fake(d, GOOD.replace("LNET_RESERVED mb 0x8000000000000000 sink 272 len 0: LNet ping", "LNET_RESERVED mb 0x8000000000000000 sink 272 len 0"), SUMMARY), "x"))
        expect("lnetcap failing", 2, run(os.path.join(d, "missing"), "x"))
    return failed


if __name__ == "__main__":
    sys.exit(main())
