#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""split_check.py LNETCAP MERGED [PREFIX]: the latency split of a capture
merged from a client's and a server's (the real-Lustre harness's file-system
report; issue "where the time and the bytes go"): lnetcap splits the RPCs
both ends saw into queue, transits, server and bulk, with a clock offset per
client/server pair estimated from the RPCs themselves.  After that estimate
no transit may be below 0 (JSON latency_split.negative_transits), and there
must be RPCs to split.  Prints one line ending in verdict=PASS|FAIL; exit 1
on FAIL, 2 when lnetcap fails.
"""
import json
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    lnetcap, merged = sys.argv[1], sys.argv[2]
    p = sys.argv[3] + " " if len(sys.argv) > 3 else ""
    try:
        out = subprocess.run([lnetcap, "-r", merged, "--summary=json", "-q"], capture_output=True,
                             text=True, check=True).stdout
        summary = json.loads(out)
    except (OSError, subprocess.CalledProcessError, ValueError) as e:
        print(f"{p}split: lnetcap failed on {merged}: {e}", file=sys.stderr)
        return 2
    split = summary.get("latency_split")
    if not split:
        print(f"{p}split {merged}: no RPC seen by both ends verdict=FAIL")
        return 1
    rpcs = split["total"]["request_transit_ns"]["count"]
    negative = split["negative_transits"]
    offsets = ", ".join(f"{pair} {ns / 1e6:+.3f} ms" for pair, ns in sorted(split["clock_offset_ns"].items()))
    ok = rpcs > 0 and negative == 0
    print(f"{p}split {merged.rsplit('/', 1)[-1]}: rpcs split {rpcs}, not split {split['rpcs_not_split']}, "
          f"transits below 0 after the clock estimate {negative}; clock offsets: {offsets} "
          f"verdict={'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
