#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""phases_check.py TABLE FIELDS SUMMARY_JSON - the plugin's RPC phases
against `lnetcap --summary=json`'s latency_split on the same file.

TABLE is `tshark -q -z lnetcap,phases`; FIELDS is `tshark -2 -T fields` of
the frames with lnetcap.phase.server, tab-separated: Info column, the reply's
src and dest NID, clock_offset, client_queue, request_transit, server, bulk,
reply_transit (seconds).  Checks, exactly to the nanosecond (the table prints
ms with 6 decimals, the fields seconds with 9; the summary's percentiles are
exact while an opcode has at most 4096 RPCs, as here):
  - the table's rows: per opcode and phase, the count, p50, p99 and max of
    the summary's by_opcode;
  - the table's clock offsets: the summary's clock_offset_ns;
  - the fields: no transit is negative, one frame per RPC, each frame's
    clock offset is its pair's, and per opcode the fields' own counts, p50
    and max are the summary's.
Prints one line per opcode; exits 1 with the differences.

phases_check.py --tree TREE TABLE - the GUI's stats_tree (`tshark -2 -z
lnetcap.phases,tree`) against the table: per opcode and phase the same
count, and min and max equal within the tree's single-precision floats."""
import json
import math
import re
import sys

PHASES = [("queue", "client_queue_ns"), ("request", "request_transit_ns"),
          ("server", "server_ns"), ("bulk", "bulk_ns"), ("reply", "reply_transit_ns")]


def ms_ns(text):
    return round(float(text) * 1e6)


def s_ns(text):
    return round(float(text) * 1e9)


def nearest_rank(values, p):
    v = sorted(values)
    return v[max(math.ceil(p / 100 * len(v)) - 1, 0)]


def parse_table(path):
    rows, offsets = {}, {}
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^(\S+)\s+(\d+)\s+(queue|request|server|bulk|reply)\s+(\d+)((?:\s+[0-9.]+){5})?\s*$",
                     line)
        if m:
            figs = [ms_ns(x) for x in m.group(5).split()] if m.group(5) else []
            rows[(m.group(1), m.group(3))] = (int(m.group(4)), figs)
            continue
        m = re.match(r"^(\S+ -> \S+)\s+([+-][0-9.]+)\s+from \d+ RPCs", line)
        if m:
            offsets[m.group(1)] = ms_ns(m.group(2))
    return rows, offsets


TREE_NAMES = {"client queue": "queue", "request transit": "request", "server": "server",
              "bulk": "bulk", "reply transit": "reply"}


def check_tree(tree, table):
    rows, _ = parse_table(table)
    errors, opcode, seen = [], None, 0
    for line in open(tree, encoding="utf-8"):
        m = re.match(r"^ (\S+)\s+(\d+)\s", line)
        if m:
            opcode = m.group(1)
            continue
        m = re.match(r"^  (client queue|request transit|server|bulk|reply transit)\s+(\d+)\s+"
                     r"([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)", line)
        if not m or opcode is None:
            continue
        seen += 1
        phase = TREE_NAMES[m.group(1)]
        count, figs = rows.get((opcode, phase), (None, []))
        tmin, tmax = float(m.group(4)) * 1e6, float(m.group(5)) * 1e6
        if count != int(m.group(2)):
            errors.append(f"tree {opcode} {phase}: count {m.group(2)}, table {count}")
        elif abs(tmin - figs[0]) > 1e-6 * figs[0] + 1 or abs(tmax - figs[4]) > 1e-6 * figs[4] + 1:
            errors.append(f"tree {opcode} {phase}: min/max {tmin:.0f}/{tmax:.0f} ns, "
                          f"table {figs[0]}/{figs[4]}")
    want = sum(1 for c, _ in rows.values() if c)
    if seen != want:
        errors.append(f"the tree has {seen} phase rows, the table {want}")
    print(f"tree: {seen} phase rows")
    if errors:
        print("\n".join(errors), file=sys.stderr)
        sys.exit(1)


def main():
    if sys.argv[1] == "--tree":
        check_tree(sys.argv[2], sys.argv[3])
        return
    table, fields, summary = sys.argv[1:4]
    split = json.load(open(summary, encoding="utf-8")).get("latency_split")
    errors = []
    if not split:
        sys.exit("the summary has no latency_split: not a merged client+server capture")
    rows, offsets = parse_table(table)
    want_offsets = split["clock_offset_ns"]
    if offsets != want_offsets:
        errors.append(f"table clock offsets {offsets} != summary {want_offsets}")

    # The fields, per opcode and phase.
    got = {}
    nframes = 0
    for line in open(fields, encoding="utf-8"):
        cols = line.rstrip("\n").split("\t")
        info, src, dst, offset = cols[0:4]
        nframes += 1
        opcode = re.sub(r"^\[[^]]*\] ", "", info).split()[0]
        pair = f"{dst} -> {src}"  # a reply goes from the server to the client
        if s_ns(offset) != want_offsets.get(pair):
            errors.append(f"{info}: clock offset {offset} s, the summary says {want_offsets.get(pair)} ns")
        for (phase, _), text in zip(PHASES, cols[4:9]):
            if text == "":
                continue
            if phase in ("request", "reply") and float(text) < 0:
                errors.append(f"{info}: negative {phase} transit {text}")
            got.setdefault((opcode, phase), []).append(s_ns(text))

    total = 0
    for op in split["by_opcode"]:
        name = op["opcode"]
        for phase, key in PHASES:
            want = op[key] or {"count": 0}
            count, figs = rows.get((name, phase), (None, []))
            if count != want["count"]:
                errors.append(f"{name} {phase}: table count {count}, summary {want['count']}")
            elif count and [figs[1], figs[3], figs[4]] != [want["p50"], want["p99"], want["max"]]:
                errors.append(f"{name} {phase}: table p50/p99/max {figs[1]}/{figs[3]}/{figs[4]}, "
                              f"summary {want['p50']}/{want['p99']}/{want['max']}")
            values = got.get((name, phase), [])
            if len(values) != want["count"]:
                errors.append(f"{name} {phase}: {len(values)} frames with the field, summary {want['count']}")
            elif values and [nearest_rank(values, 50), max(values)] != [want["p50"], want["max"]]:
                errors.append(f"{name} {phase}: fields p50/max {nearest_rank(values, 50)}/{max(values)}, "
                              f"summary {want['p50']}/{want['max']}")
        rpcs = (op["request_transit_ns"] or {"count": 0})["count"]
        total += rpcs
        print(f"{name}: {rpcs} RPCs")
    if nframes != total:
        errors.append(f"{nframes} frames carry the phases, the summary has {total} RPCs")
    extra = {k for k in rows if k[0] not in {o["opcode"] for o in split["by_opcode"]}}
    if extra:
        errors.append(f"table rows the summary lacks: {sorted(extra)}")
    for pair, ns in sorted(offsets.items()):
        print(f"offset {pair}: {ns}")
    if errors:
        print("\n".join(errors), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
