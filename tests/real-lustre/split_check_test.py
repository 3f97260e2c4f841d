#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""split_check.py (the file-system report's latency split of the merged
captures) passes on the project's real merged client+server sample with the
real lnetcap, and fails when a transit fell below 0 after the clock
estimate or no RPC was seen by both ends, shown with a stand-in lnetcap
printing a summary of our choosing.

    split_check_test.py LNETCAP MERGED_SAMPLE"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "split_check.py")
failed = 0


def expect(what, rc, lnetcap, capture):
    global failed
    got = subprocess.run([sys.executable, CHECK, lnetcap, capture], capture_output=True, text=True)
    if got.returncode != rc:
        print(f"FAIL: {what}: exit {got.returncode}, expected {rc}\n{got.stdout}{got.stderr}")
        failed = 1
    else:
        print(f"ok: {what}: {got.stdout.strip()}")


def stand_in(tmp, summary):
    """An executable that prints summary as lnetcap --summary=json would."""
    data = os.path.join(tmp, "summary.json")
    with open(data, "w") as f:
        json.dump(summary, f)
    exe = os.path.join(tmp, "lnetcap")
    with open(exe, "w") as f:
        f.write(f"#!/bin/sh\ncat '{data}'\n")
    os.chmod(exe, 0o755)
    return exe


def main():
    lnetcap, sample = sys.argv[1:3]
    expect("the real merged sample", 0, lnetcap, sample)
    split = {"clock_offset_ns": {"10.0.0.1@tcp -> 10.0.0.2@tcp": 5000000}, "rpcs_not_split": 0,
             "negative_transits": 0, "total": {"request_transit_ns": {"count": 3}}}
    with tempfile.TemporaryDirectory() as tmp:
        expect("a clean split", 0, stand_in(tmp, {"latency_split": split}), sample)
        expect("transits below 0 after the estimate", 1,
               stand_in(tmp, {"latency_split": dict(split, negative_transits=2)}), sample)
        expect("no RPC seen by both ends", 1, stand_in(tmp, {"total": {}}), sample)
        expect("lnetcap failing", 2, os.path.join(tmp, "no-such-lnetcap"), sample)
    return failed


if __name__ == "__main__":
    sys.exit(main())
