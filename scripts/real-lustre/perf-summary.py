#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""perf-summary.py MODE PERF_DIR: one line per transfer size from the
throughput boot (guest/perf.sh): lnet_selftest brw write of the sender
(group ga), MiB/s and LNet messages/s sent, mean over the samples of each
condition, and the ratio with a capture to without (the only figure that
means something under TCG)."""
import collections
import pathlib
import re
import statistics
import sys

SAMPLE = re.compile(r"\[W\] Avg: ([\d.]+)\s+(MiB/s|RPC/s)")


def samples(path):
    """{"MiB/s": [...], "RPC/s": [...]}: [W] samples of group ga."""
    out, in_ga = collections.defaultdict(list), False
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("[LNet "):
            in_ga = line.endswith(" of ga]")
            continue
        m = SAMPLE.search(line)
        if m and in_ga:
            out[m.group(2)].append(float(m.group(1)))
    return out


def main():
    mode, d = sys.argv[1], pathlib.Path(sys.argv[2])
    got = collections.defaultdict(lambda: collections.defaultdict(list))  # (size, cond) -> unit -> samples
    for f in sorted(d.glob("*-*-*.txt")):
        m = re.fullmatch(r"\d+-(none|capture)-(\w+)\.txt", f.name)
        if m:
            for unit, v in samples(f).items():
                got[(m.group(2), m.group(1))][unit] += v
    for size in ("1M", "4k"):
        parts = []
        for unit in ("MiB/s", "RPC/s"):
            base, cap = got[(size, "none")][unit], got[(size, "capture")][unit]
            if not base or not cap:
                continue
            b, c = statistics.mean(base), statistics.mean(cap)
            name = "msg/s" if unit == "RPC/s" else unit  # lst prints LNet message rates as "RPC/s"
            parts.append(f"{name} none {b:.4g} capture {c:.4g} ratio {c / b:.2f} (n={len(base)}/{len(cap)})")
        print(f"{mode} perf brw write {size}: " + ("; ".join(parts) if parts else "no samples"))


main()
