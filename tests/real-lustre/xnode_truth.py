#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""xnode_truth.py [-v] MERGED.pcapng - checks the lnetcap Wireshark plugin's
cross-node links (lnetcap.xnode.*) on a capture merged from several nodes,
against a ground truth that does not use the plugin's linking algorithm.

Usage, on any merged capture (one lnetcap file per node, merged in time
order; the plugin must load, so run unprivileged -- tshark ignores
WIRESHARK_PLUGIN_DIR and personal plugins as root):

  mergecap -w merged.pcapng client.pcapng router.pcapng server.pcapng
  WIRESHARK_PLUGIN_DIR=build/wireshark-plugin/plugins \\
      python3 tests/real-lustre/xnode_truth.py merged.pcapng

An excerpt of a merged capture kept in samples/ (see samples/README.md)
runs the same way.  As root, run it as another user (runuser -u USER --
env WIRESHARK_PLUGIN_DIR=... python3 ...), the file readable by that user.

Environment: TSHARK = the tshark program to run (default: tshark on PATH);
it is run as `$TSHARK -2 -r MERGED.pcapng -T fields ...`.  Every wrong and
missing link is named on its own line; -v also names the ambiguous messages.

Prints one line:
  records N messages M on-several-nodes K links L wrong W missing X
  ambiguous A fwd_hops H/F
exit 0 when W = X = 0 and H = F, 1 otherwise, 2 on bad usage, an unreadable
file or a tshark failure (plugin not loaded).

Ground truth.  The checker reads the records' bytes itself (pcapng blocks,
include/lnetcap/record.h offsets) and groups the records of one message by
their WHOLE LNet header -- both NIDs (nid4 and nid16 forms normalised), both
pids, type, payload length and the 40-byte union (match bits, portal,
offset, hdr_data, the MD handle) -- plus the payload prefix (compared on
the bytes both records have: nodes may capture different lengths).  On real LNet that header is unique per message (Lustre v2_16_1):
 - lnet/lnet/lib-move.c lnet_prep_send() zeroes the header and sets type,
   NIDs, pids and length; LNetPut() then puts the sender's MD handle in
   put.ack_wmd (the_lnet.ln_interface_cookie, md->md_lh.lh_cookie) when an
   ACK is requested, LNetGet() always puts it in get.return_wmd;
 - a response carries the requester's handle: lnet_parse_get() copies
   get.return_wmd into the REPLY's reply.dst_wmd, and lib-msg.c
   lnet_complete_msg_locked() builds the ACK with ack.dst_wmd = the PUT's
   put.ack_wmd (lnet_create_reply_msg() only makes the requester's REPLY
   event of an optimized GET from the GET's own MD: no new header);
 - the handle's object cookie is md->md_lh.lh_cookie (lib-lnet.h
   lnet_md2handle()), set for each new MD by lib-md.c lnet_md_link() ->
   api-ni.c lnet_res_lh_initialize(): lh_cookie = rec_lh_cookie, then
   rec_lh_cookie += 1 << ibits -- a fresh cookie per MD, never reused
   while LNet runs; ln_interface_cookie is ktime_get_real_ns() at LNet
   start, so it differs across restarts;
 - routers forward the header unchanged (lnet_parse_forward_locked()).
The claim does NOT hold for a PUT sent with LNET_NOACK_REQ (put.ack_wmd is
LNET_WIRE_HANDLE_COOKIE_NONE: only match bits, hdr_data and the payload tell
such PUTs apart: in samples/lnet-socklnd.pcapng, real 2.16.1 traffic, 961
lnet_selftest PUTs share 4 headers, while all 2910 messages differ in header
plus 160-byte payload prefix), for several messages from one MD (threshold > 1), for
synthetic captures, and for resends (LNet resends the same lnet_msg: same
header, several SEND attempts on the sender, the record's msg_id kept).
So: records with equal header and compatible payload prefix are one
message; when one node (local NID) has two of them at the same end (two
sends that are not attempts of one message -- same msg_id --, two
forwards, two receives) the message is AMBIGUOUS: its
links are counted neither right nor wrong, and nothing is missing.
Outcome records (OUTCOME flag: they complete an earlier record) and records
without an LNet header (response-timeout DROPs, socklnd wire records) are
not records of a message and must link to nothing.

A node is a local NID (record header local_nid): a router's FWD records
are its outgoing NI's.  A link (sent_in, forwarded_in, received_in, and
the resend fields attempt_of, prev_attempt, resent_in) is WRONG when it
points at a record of another message (another header, a conflicting
payload, an attempt with another msg_id, or a record that belongs to no
message); a record of a message seen on >= 2 nodes is MISSING a link when
it does not link to that message's record on each other node (a node with
several attempts of the message needs only one of them linked: the plugin
links the attempt that arrived).  Every FWD record of such a message must
carry lnetcap.xnode.hop (H of F).
"""
import os
import shlex
import struct
import subprocess
import sys
from collections import defaultdict

import capture_files

REC_MAGIC = 0x52434E4C
LINKTYPE = 147 + 7  # include/lnetcap/record.h LNETCAP_LINKTYPE
DIR_SEND, DIR_RECV, DIR_FWD, DIR_DROP = 1, 2, 3, 4
F_OUTCOME = 0x200
DROP_SEND_SIDE = (1, 2)  # SEND_BEFORE_LND, SEND_FAILED: the sender's end
LINK_FIELDS = ["lnetcap.xnode.sent_in", "lnetcap.xnode.forwarded_in",
               "lnetcap.xnode.received_in"]
ATTEMPT_FIELDS = ["lnetcap.xnode.attempt_of", "lnetcap.xnode.prev_attempt",
                  "lnetcap.xnode.resent_in"]
LNDS = {2: "tcp", 5: "o2ib", 9: "lo", 13: "gni", 16: "kfi", 18: "efa"}


def usage_text():
    """The docstring up to its ground-truth section."""
    return __doc__[:__doc__.index("Ground truth.")].rstrip()


def usage(msg):
    print(f"xnode_truth.py: {msg}", file=sys.stderr)
    print(usage_text(), file=sys.stderr)
    sys.exit(2)


def die(msg):
    print(f"xnode_truth.py: {msg}", file=sys.stderr)
    sys.exit(2)


def packet_blocks(path):
    """Yields (frame number, pcapng interface, linktype, bytes) of every
    packet block, numbered as tshark numbers frames."""
    try:
        for frame, iface, linktype, _, raw in capture_files.packets(path):
            yield frame, iface, linktype, raw
    except OSError as e:
        die(f"cannot read {path}: {e.strerror}")
    except capture_files.BadFile as e:
        die(f"{e} (merge the nodes' files with mergecap)" if "not a pcapng" in str(e) else str(e))


def nid16(b):
    """struct lnet_nid (20 bytes) -> (type, net number, address bytes)."""
    size, ntype = b[0], b[1]
    num = struct.unpack_from(">H", b, 2)[0]
    return (ntype, num, bytes(b[4:4 + min(size, 12) + 4]))


def nid4(v):
    return ((v >> 48) & 0xFFFF, (v >> 32) & 0xFFFF, struct.pack(">I", v & 0xFFFFFFFF))


def nid_str(n):
    ntype, num, addr = n
    a = ".".join(str(x) for x in addr) if len(addr) == 4 else addr.hex()
    return f"{a}@{LNDS.get(ntype, 'lnd' + str(ntype))}{num if num else ''}"


class Record:
    """One lnetcap record as the file holds it."""

    def __init__(self, frame, iface, raw):
        self.frame, self.iface = frame, iface
        hdr_len = struct.unpack_from("<H", raw, 6)[0]
        self.direction, lhl = raw[8], raw[11]
        self.flags = struct.unpack_from("<H", raw, 12)[0]
        self.local = nid16(raw[56:76])
        long_hdr = hdr_len >= 128 and len(raw) >= 128
        self.msg_id = struct.unpack_from("<Q", raw, 112)[0] if long_hdr else 0
        self.drop_reason = raw[120] if long_hdr else 0
        caplen = struct.unpack_from("<I", raw, 52)[0]
        self.header = None
        if lhl in (72, 96) and len(raw) >= hdr_len + lhl:
            h = raw[hdr_len:hdr_len + lhl]
            if lhl == 72:
                dst, src = struct.unpack_from("<QQ", h, 0)
                nids = (nid4(src), nid4(dst))
            else:
                nids = (nid16(h[20:40]), nid16(h[0:20]))
            self.src, self.dst = nids
            # pids, type, payload length and the union: as on the wire.
            self.header = (nids, bytes(h[lhl - 56:]))
        self.prefix = bytes(raw[hdr_len + lhl:hdr_len + lhl + caplen])

    def is_message_record(self):
        return (self.header is not None and not self.flags & F_OUTCOME
                and self.direction in (DIR_SEND, DIR_RECV, DIR_FWD, DIR_DROP))

    def end(self):
        """Which end of the message the record is on its node."""
        if self.direction == DIR_SEND or (self.direction == DIR_DROP and
                                          self.drop_reason in DROP_SEND_SIDE):
            return "send"
        if self.direction == DIR_FWD:
            return "forward"
        if self.direction == DIR_RECV or self.drop_reason > max(DROP_SEND_SIDE):
            return "receive"
        return "drop"  # a DROP of a 104-byte header: no reason recorded

    def describe(self):
        d = {1: "SEND", 2: "RECV", 3: "FWD", 4: "DROP"}.get(self.direction, "?")
        return f"frame {self.frame} {d} on {nid_str(self.local)}"


def read_records(path):
    recs = {}
    for frame, iface, linktype, raw in packet_blocks(path):
        if linktype == LINKTYPE and len(raw) >= 104 and \
                struct.unpack_from("<I", raw, 0)[0] == REC_MAGIC:
            recs[frame] = Record(frame, iface, raw)
        else:
            recs[frame] = None
    return recs


def read_links(path, nframes):
    fields = ["frame.number"] + LINK_FIELDS + ["lnetcap.xnode.hop"] + ATTEMPT_FIELDS
    cmd = shlex.split(os.environ.get("TSHARK", "tshark")) + [
        "-2", "-n", "-r", path, "-T", "fields", "-E", "occurrence=a",
        "-E", "aggregator=,", "-E", "separator=/t"]
    for f in fields:
        cmd += ["-e", f]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    except (OSError, subprocess.TimeoutExpired) as e:
        die(f"cannot run tshark ({' '.join(cmd[:1])}): {e}")
    if p.returncode != 0:
        err = p.stderr.strip().splitlines()
        hint = ""
        if "lnetcap." in p.stderr:
            hint = (" -- the lnetcap plugin did not load: set WIRESHARK_PLUGIN_DIR"
                    " to the built plugins directory and run unprivileged")
        die(f"tshark failed (exit {p.returncode}): {err[0] if err else ''}{hint}")
    links, hops, attempts = {}, {}, {}
    for line in p.stdout.splitlines():
        col = line.split("\t")
        col += [""] * (len(fields) - len(col))
        frame = int(col[0])
        links[frame] = {int(x) for c in col[1:4] for x in c.split(",") if x}
        hops[frame] = col[4]
        attempts[frame] = {int(x) for c in col[5:8] for x in c.split(",") if x}
    if len(links) != nframes:
        die(f"tshark read {len(links)} frames, the file has {nframes} packet blocks")
    return links, hops, attempts


def group_messages(recs):
    """Message key of every message record: its header, then its payload
    prefix.  Nodes may capture different prefix lengths, so a record joins
    the message whose longest prefix starts with its own; a record whose
    prefix fits several messages of its header (a short or empty prefix)
    is a message of its own, unresolved, returned in the second set."""
    by_header = defaultdict(list)
    for r in recs.values():
        if r is not None and r.is_message_record():
            by_header[r.header].append(r)
    msg_of, members, unresolved = {}, {}, set()
    for header, rs in by_header.items():
        longest = []  # per message of this header: its longest prefix
        for r in sorted(rs, key=lambda r: (-len(r.prefix), r.frame)):
            fits = [i for i, p in enumerate(longest) if p.startswith(r.prefix)]
            if len(fits) == 1:
                key = (header, fits[0])
            elif not fits:
                longest.append(r.prefix)
                key = (header, len(longest) - 1)
            else:
                key = (header, "unresolved", r.frame)
                unresolved.add(key)
            msg_of[r.frame] = key
            members.setdefault(key, []).append(r)
    return msg_of, members, unresolved


def is_ambiguous(rs):
    """Two records of the message at one end of it on one node (two sends,
    two receives, two forwards) that are not attempts of it: the header did
    not identify a message.  A SEND and a RECV on one node are one message
    sent to the node itself (0@lo, its own NID)."""
    per_end = defaultdict(list)
    for r in rs:
        per_end[(r.local, r.end())].append(r)
    for (_, end), end_recs in per_end.items():
        if len(end_recs) < 2:
            continue
        ids = {r.msg_id for r in end_recs}
        if end != "send" or len(ids) != 1 or 0 in ids:
            return True
    return False


def prefixes_conflict(a, b):
    n = min(len(a.prefix), len(b.prefix))
    return a.prefix[:n] != b.prefix[:n]


def check(recs, links, hops, attempt_links, verbose=False):
    """Counts the links against the headers; returns the summary line and
    whether the links are right (exit 0)."""
    msg_of, members, unresolved = group_messages(recs)
    ambiguous = unresolved | {k for k, rs in members.items() if is_ambiguous(rs)}
    say = print if verbose else (lambda *a: None)

    nlinks = wrong = missing = 0
    for frame, targets in sorted(links.items()):
        r = recs.get(frame)
        for t in sorted(targets):
            nlinks += 1
            tr = recs.get(t)
            mine, theirs = msg_of.get(frame), msg_of.get(t)
            if mine is not None and mine == theirs:
                continue
            if mine is not None and theirs is not None and mine[0] == theirs[0] and \
                    not prefixes_conflict(r, tr) and (mine in ambiguous or theirs in ambiguous):
                continue  # same header, ambiguous: neither right nor wrong
            wrong += 1
            print(f"wrong link: {r.describe() if r else f'frame {frame}'} -> "
                  f"{tr.describe() if tr else f'frame {t}'} (another message)")
    for frame, targets in sorted(attempt_links.items()):
        r = recs.get(frame)
        for t in sorted(targets):
            tr = recs.get(t)
            if r is None or tr is None or not r.msg_id or tr.msg_id != r.msg_id or \
                    r.header is None or tr.header is None or r.header[1] != tr.header[1]:
                wrong += 1
                print(f"wrong attempt link: frame {frame} -> frame {t} "
                      "(not a resend of one message)")

    several = fwd = fwd_hops = 0
    for key, rs in members.items():
        per_node = defaultdict(list)
        for r in rs:
            per_node[r.local].append(r)
        if len(per_node) < 2:
            continue
        if key in ambiguous:
            say(f"ambiguous: {len(rs)} records with one header "
                f"({', '.join(r.describe() for r in rs)})")
            continue
        several += 1
        for node, node_recs in per_node.items():
            for other, other_recs in per_node.items():
                if other == node:
                    continue
                want = {o.frame for o in other_recs}
                if not any(links.get(r.frame, set()) & want for r in node_recs):
                    missing += 1
                    print(f"missing link: {node_recs[0].describe()} -> "
                          f"{other_recs[0].describe()}")
        nfwd = sum(1 for r in rs if r.direction == DIR_FWD)
        for r in rs:
            if r.direction == DIR_FWD:
                fwd += 1
                hop = hops.get(r.frame, "")
                if hop.isdigit() and 1 <= int(hop) <= nfwd:
                    fwd_hops += 1
                else:
                    print(f"FWD without a hop number in 1..{nfwd}: {r.describe()} "
                          f"hop '{hop}'")
    line = (f"records {sum(1 for r in recs.values() if r is not None)} messages {len(members)} "
            f"on-several-nodes {several} links {nlinks} wrong {wrong} missing {missing} "
            f"ambiguous {len(ambiguous)} fwd_hops {fwd_hops}/{fwd}")
    return line, not (wrong or missing or fwd_hops != fwd)


def main(argv):
    if argv in (["-h"], ["--help"]):
        print(usage_text())
        return 0
    verbose = "-v" in argv
    args = [a for a in argv if a != "-v"]
    if len(args) != 1 or args[0].startswith("-"):
        usage("expected one merged capture file")
    path = args[0]
    recs = read_records(path)
    links, hops, attempt_links = read_links(path, len(recs))
    line, ok = check(recs, links, hops, attempt_links, verbose)
    print(line)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
