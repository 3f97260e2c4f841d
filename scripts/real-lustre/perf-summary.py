#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""perf-summary.py MODE PERF_DIR: one line per transfer size from the
throughput boot (guest/perf.sh): lnet_selftest brw write MiB/s of the
sender, mean over the samples of each condition, and the ratio with a
capture to without (the only figure that means something under TCG)."""
import collections
import pathlib
import re
import statistics
import sys

SAMPLE = re.compile(r"\[W\] Avg: ([\d.]+)\s+MiB/s")


def samples(path):
    """[W] MiB/s samples of group ga's bandwidth sections."""
    out, in_bw = [], False
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("[LNet "):
            in_bw = line.startswith("[LNet Bandwidth of ga]")
            continue
        m = SAMPLE.search(line)
        if m and in_bw:
            out.append(float(m.group(1)))
    return out


def main():
    mode, d = sys.argv[1], pathlib.Path(sys.argv[2])
    got = collections.defaultdict(list)  # (size, cond) -> samples
    for f in sorted(d.glob("*-*-*.txt")):
        m = re.fullmatch(r"\d+-(none|capture)-(\w+)\.txt", f.name)
        if m:
            got[(m.group(2), m.group(1))] += samples(f)
    for size in ("1M", "4k"):
        base, cap = got.get((size, "none")), got.get((size, "capture"))
        if not base or not cap:
            print(f"{mode} perf brw write {size}: no samples")
            continue
        b, c = statistics.mean(base), statistics.mean(cap)
        print(f"{mode} perf brw write {size}: none {b:.1f} MiB/s (n={len(base)}), "
              f"capture {c:.1f} MiB/s (n={len(cap)}), ratio {c / b:.2f}")


main()
