#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""xnode_check.py FIELDS.tsv - counts the cross-node links of a merged
capture against the ground truth gen_routed.cpp stamps on every record
(pid = the message's serial number, comm = xn-alone on records that must
stand alone, anything else on records that must be linked).

Input: tshark -2 -T fields -E occurrence=a -E aggregator=, -e frame.number
-e lnetcap.rec.pid -e lnetcap.rec.comm -e lnetcap.xnode.sent_in
-e lnetcap.xnode.forwarded_in -e lnetcap.xnode.received_in.

A link is wrong when it points at a record of another message or when a
record that must stand alone has one; a record marked xn-linked must link
to every other xn-linked record of its message.  Prints the counts; exits
1 on any wrong or missing link."""
import sys
from collections import defaultdict

rows = {}
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    f += [""] * (6 - len(f))
    links = set()
    for col in f[3:6]:
        links.update(int(x) for x in col.split(",") if x)
    tag = "xn-alone" if f[2] == "xn-alone" else "xn-linked"
    rows[int(f[0])] = (f[1], tag, links)

members = defaultdict(set)
for frame, (pid, tag, _) in rows.items():
    if tag == "xn-linked":
        members[pid].add(frame)

links = wrong = missing = 0
for frame, (pid, tag, linked) in sorted(rows.items()):
    for other in linked:
        links += 1
        if tag != "xn-linked" or other not in members[pid]:
            wrong += 1
            print(f"wrong link: frame {frame} (message {pid}, {tag}) -> frame {other} "
                  f"(message {rows.get(other, ('?',))[0]})")
    if tag == "xn-linked":
        for other in members[pid] - {frame} - linked:
            missing += 1
            print(f"missing link: frame {frame} (message {pid}) -> frame {other}")
print(f"records {len(rows)} messages {len(members)} links {links} wrong {wrong} missing {missing}")
sys.exit(1 if wrong or missing else 0)
