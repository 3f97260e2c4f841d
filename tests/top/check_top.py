#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# check_top.py TEXT SUMMARY_JSON SUMMARY_TABLE [PANEL...] - checks what
# lnetcap --top showed (a tmux screen, or the last block of its plain-text
# output) against lnetcap --summary for the same records: per row of the
# jobs, clients, opcodes and targets panels, RPCS MSGS BYTES BULK ERRORS
# against --summary=json, P50 and P99 against the table's (the same
# rounding).  PANELs: the panels that must be there (default: every panel
# found, at least one).  Prints what it checked; exit 1 on a difference.
import json
import re
import sys

text_file, json_file, table_file = sys.argv[1:4]
want_panels = sys.argv[4:]
DIMS = {"jobs": "jobid", "clients": "peer", "opcodes": "opcode", "targets": "target"}
FIELDS = {"RPCS": "requests", "MSGS": "messages", "BYTES": "bytes", "BULK": "bulk_bytes",
          "ERRORS": "errors"}


def sections(lines):
    """{panel: {key: {heading: cell}}}: the rows under each '[PANEL by SORT]'.
    Only the key may hold blanks, so cells are taken from the right."""
    out, cur, heads = {}, None, None
    for line in lines:
        m = re.match(r"^\[(\w+) by \w+\]", line)
        if m:
            cur, heads = m.group(1), None
            out[cur] = {}
            continue
        if cur is None:
            continue
        toks = line.split()
        if not toks or line.startswith("---"):
            cur = None
            continue
        if heads is None:
            heads = toks
            continue
        n = len(heads) - 1
        if len(toks) <= n:
            cur = None
            continue
        out[cur][" ".join(toks[:-n])] = dict(zip(heads[1:], toks[-n:]))
    return out


def table_latency(path):
    """{dimension: {key: (p50, p99)}} from --summary's table."""
    out, dim = {}, None
    for line in open(path):
        m = re.match(r"^By (\w+) ", line)
        if m:
            dim = m.group(1)
            out[dim] = {}
            continue
        toks = line.split()
        if dim is None or not toks:
            dim = None
            continue
        out[dim][" ".join(toks[:-11])] = (toks[-4], toks[-2])
    return out


lines = open(text_file).read().splitlines()
# Plain text: the last block ("--- lnetcap top: total ...") only.
starts = [i for i, l in enumerate(lines) if l.startswith("--- lnetcap top:")]
if starts:
    lines = lines[starts[-1]:]
got = sections(lines)
summary = json.load(open(json_file))
lat = table_latency(table_file)
bad, checked = [], 0
panels = want_panels or [p for p in got if p in DIMS]
if not panels:
    bad.append("no panel found in " + text_file)
for panel in panels:
    if panel not in got:
        bad.append("panel %s not shown" % panel)
        continue
    dim = DIMS[panel]
    want = {g[dim]: g for g in summary["by_" + dim]}
    if set(got[panel]) != set(want):
        bad.append("%s rows %s, --summary has %s" % (panel, sorted(got[panel]), sorted(want)))
    for key, g in want.items():
        row = got[panel].get(key)
        if row is None:
            continue
        for head, field in FIELDS.items():
            checked += 1
            if row[head] != str(g[field]):
                bad.append("%s %s %s: top %s, --summary %s" % (panel, key, head, row[head], g[field]))
        p50, p99 = lat[dim][key]
        checked += 2
        if (row["P50"], row["P99"]) != (p50, p99):
            bad.append("%s %s p50/p99: top %s/%s, --summary %s/%s" %
                       (panel, key, row["P50"], row["P99"], p50, p99))
for b in bad:
    print("check_top: " + b)
print("check_top: %d figures of %s checked, %d differ" % (checked, ",".join(panels), len(bad)))
sys.exit(1 if bad else 0)
