#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""srt_check.py SRT.txt SUMMARY.json - checks `tshark -z lnetcap,srt` against
`lnetcap --summary=json` of the same capture (docs/PLUGIN.md, SRT).

tshark prints each table as "Filter: ..." and its rows, not the table's name,
so tables are told apart by order: the service tables first (SERVICES, in
lnetcap-stats.c's order), then one per target, whose filter names it.
Checked: every row of a service table is an opcode of that service; its
calls equal the opcode's latency count in the summary (requests answered by
a final reply); every answered opcode has its row; and the target tables
together count each answered request once.  Prints the per-service and
per-target totals."""
import json
import re
import sys

SERVICES = ["OST", "MDS", "LDLM", "MGS", "OBD", "LLOG", "Quota", "SEQ", "SEC", "FLD", "OUT",
            "LFSCK", "Other"]
PREFIX = {"OST": "OST_", "MDS": "MDS_", "LDLM": "LDLM_", "MGS": "MGS_", "OBD": "OBD_",
          "LLOG": "LLOG_", "Quota": "QUOTA_", "SEQ": "SEQ_", "SEC": "SEC_", "FLD": "FLD_",
          "OUT": "OUT_", "LFSCK": "LFSCK_"}
# The field an SRT row's filter tests: the opcode's dense row number.
ROW_FIELD = "lnetcap.ptlrpc.srt_row"
ROW = re.compile(r"^\s*(\d+)\s+(\S+)\s+(\d+)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+$")


# Row numbers are dense (one per known opcode, then "other opcodes"): a
# table of one row per opcode value made the GUI's SRT dialog hang.
MAX_ROWS = 128
ROW_OF = {}  # procedure -> the row numbers it was printed with


def tables(path):
    out = []
    for line in open(path):
        if line.startswith("Filter: "):
            out.append((line[len("Filter: "):].strip(), {}))
            continue
        m = ROW.match(line)
        if m and out:
            out[-1][1][m.group(2)] = int(m.group(3))
            ROW_OF.setdefault(m.group(2), set()).add(int(m.group(1)))
    return out


def main():
    t = tables(sys.argv[1])
    summary = json.load(open(sys.argv[2]))
    answered = {o["opcode"]: o["latency_ns"]["count"] for o in summary["by_opcode"]
                if o["latency_ns"]["count"]}
    bad = []
    if len(t) < len(SERVICES):
        print("FAIL: %d tables, expected at least the %d service tables" % (len(t), len(SERVICES)))
        return 1
    seen = {}
    for name, (flt, rows) in zip(SERVICES, t):
        if flt != ROW_FIELD:
            bad.append("%s table filter is %r" % (name, flt))
        for op, calls in rows.items():
            if name in PREFIX and not op.startswith(PREFIX[name]):
                bad.append("%s in the %s table" % (op, name))
            if answered.get(op) != calls:
                bad.append("%s: %d calls in the %s table, summary says %s" %
                           (op, calls, name, answered.get(op)))
            seen[op] = seen.get(op, 0) + calls
        print("service %s: %d" % (name, sum(rows.values())))
    for op in answered:
        if op not in seen:
            bad.append("%s answered %d times but in no service table" % (op, answered[op]))
    per_target = {}
    for flt, rows in t[len(SERVICES):]:
        m = re.match(r'^lnetcap\.nid=="([^"]+)" && ' + re.escape(ROW_FIELD) + '$', flt)
        if flt == ROW_FIELD:  # "Other targets", past the 256th
            m = re.match("(.*)", "other targets")
        if not m:
            bad.append("target table filter %r" % flt)
            continue
        print("target %s: %d" % (m.group(1), sum(rows.values())))
        for op, calls in rows.items():
            per_target[op] = per_target.get(op, 0) + calls
    if per_target != seen:
        bad.append("target tables count %s, service tables %s" % (per_target, seen))
    for op, rows in ROW_OF.items():
        if len(rows) != 1 or max(rows) >= MAX_ROWS:
            bad.append("%s is row %s: expected one dense row number below %d" %
                       (op, sorted(rows), MAX_ROWS))
    for b in bad:
        print("FAIL:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
