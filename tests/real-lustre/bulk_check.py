#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bulk_check.py LNETCAP CAPTURE [PREFIX]: bulk belongs to its RPC, checked
from lnetcap's own text against its --summary (the real-Lustre harness's
file-system report; issue "where the time and the bytes go").

From `lnetcap -r CAPTURE` (one line per message):
  - every PUT or GET on a bulk portal (*_BULK) names its RPC ("bulk of");
  - every REPLY and ACK names what it belongs to ("bulk of", "reply ACK
    of"), except the replies to LNet's own pings and the ACKs of its pushes
    (reserved portal, ping match bits), which are counted against the ping
    GETs and pushes of the opposite direction;
  - per opcode, the bytes of its requests, replies and bulk lines (LNet
    payload lengths, "len N") equal --summary=json's bytes for the opcode,
    and its bulk lines' bytes its bulk_bytes.
Resends, outcomes and drops are no messages of their own (docs/REPORTS.md)
and are left out of both sides.  Prints key=value lines ending in
verdict=PASS|FAIL; exit 1 on FAIL, 2 when lnetcap fails.
"""
import collections
import json
import re
import subprocess
import sys

LINE = re.compile(r"^\S+ (SEND|RECV|FWD|WIRE) (PUT|GET|ACK|REPLY|HELLO) (\S+) > (\S+)(.*)$")
LEN = re.compile(r" len (\d+)")
BULK_OF = re.compile(r": bulk of ([A-Z0-9_]+) xid")
RPC = re.compile(r": ([A-Z0-9_]+) (request|reply|error|early reply)\b")
PING_GET = re.compile(r": LNet (\w+ )?ping$| : LNet (\w+ )?ping ")
PING_MB = "xid 0x8000000000000000"
# A ping GET received is answered by a REPLY sent, and the reverse; a
# forwarded or wire GET by a forwarded or wire REPLY.
FLIP = {"SEND": "RECV", "RECV": "SEND", "FWD": "FWD", "WIRE": "WIRE"}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    lnetcap, capture = sys.argv[1], sys.argv[2]
    p = sys.argv[3] + " " if len(sys.argv) > 3 else ""
    try:
        text = subprocess.run([lnetcap, "-r", capture], capture_output=True, text=True, check=True).stdout
        summary = json.loads(subprocess.run([lnetcap, "-r", capture, "--summary=json", "-q"],
                                            capture_output=True, text=True, check=True).stdout)
    except (OSError, subprocess.CalledProcessError, ValueError) as e:
        print(f"{p}bulk: lnetcap failed on {capture}: {e}", file=sys.stderr)
        return 2
    bytes_by_op = collections.Counter()
    bulk_by_op = collections.Counter()
    unnamed_bulk, unnamed_replies, unnamed_acks = [], collections.Counter(), []
    pings = collections.Counter()   # (direction) of ping GETs
    bulk_lines = 0
    for line in text.splitlines():
        m = LINE.match(line)
        if not m or "[resend" in line or "[outcome" in line:
            continue
        direction, typ, _src, _dst, rest = m.groups()
        # "{...}" holds -v's hook details; lnetcap -r without -v prints none
        n = LEN.search(rest)
        length = int(n.group(1)) if n else 0
        bulk = BULK_OF.search(rest)
        rpc = RPC.search(rest)
        if bulk:
            bulk_lines += 1
            bytes_by_op[bulk.group(1)] += length
            bulk_by_op[bulk.group(1)] += length
        elif rpc:
            bytes_by_op[rpc.group(1)] += length
        if typ in ("PUT", "GET") and re.search(r" [A-Z0-9]+_BULK ", rest) and not bulk:
            unnamed_bulk.append(line)
        if typ == "GET" and PING_GET.search(rest):
            pings[direction] += 1
        if typ == "REPLY" and not bulk:
            unnamed_replies[direction] += 1
        if typ == "ACK" and not bulk and "reply ACK of" not in rest and PING_MB not in rest:
            unnamed_acks.append(line)
    bad = []
    for d in FLIP:
        if unnamed_replies[d] != pings[FLIP[d]]:
            bad.append(f"{unnamed_replies[d]} {d} REPLYs name no RPC, against {pings[FLIP[d]]} "
                       f"{FLIP[d]} ping GETs")
    if unnamed_bulk:
        bad.append(f"{len(unnamed_bulk)} bulk-portal messages name no RPC, e.g. {unnamed_bulk[0]}")
    if unnamed_acks:
        bad.append(f"{len(unnamed_acks)} ACKs name nothing, e.g. {unnamed_acks[0]}")
    ops = {g["opcode"]: g for g in summary.get("by_opcode", [])}
    wrong = []
    for op in sorted(set(ops) | set(bytes_by_op)):
        if op not in ops:
            continue  # an opcode the text names but the summary groups otherwise
        g = ops[op]
        if g["bytes"] != bytes_by_op[op] or g["bulk_bytes"] != bulk_by_op[op]:
            wrong.append(f"{op}: summary bytes {g['bytes']} bulk {g['bulk_bytes']}, "
                         f"text {bytes_by_op[op]} bulk {bulk_by_op[op]}")
    bad += wrong
    total_bulk = sum(bulk_by_op.values())
    print(f"{p}bulk {capture.rsplit('/', 1)[-1]}: bulk messages {bulk_lines} naming their RPC, "
          f"bulk bytes {total_bulk}, unnamed bulk {len(unnamed_bulk)}, unnamed REPLY "
          f"{sum(unnamed_replies.values())} (ping GETs {sum(pings.values())}), "
          f"opcodes {len(ops)} with bytes = messages + bulk: {len(ops) - len(wrong)}/{len(ops)} "
          f"verdict={'FAIL' if bad else 'PASS'}")
    for b in bad[:5]:
        print(f"{p}  {b}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
