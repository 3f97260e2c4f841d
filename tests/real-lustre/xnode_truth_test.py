#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Unit tests of xnode_truth.py's ground truth (grouping by header and
payload prefix, ambiguity, the link counts) on records built byte by byte
(include/lnetcap/record.h, lnet.h); no tshark.  The tshark run on a merged
capture is tests/wireshark/test-xnode-truth.sh."""
import importlib.util
import os
import struct
import unittest

spec = importlib.util.spec_from_file_location(
    "xnode_truth", os.path.join(os.path.dirname(os.path.abspath(__file__)), "xnode_truth.py"))
xt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(xt)

TCP, LO = 2, 9
SEND, RECV, FWD, DROP = 1, 2, 3, 4
PUT = 1


def nid16(lnd, addr, num=0):
    return struct.pack(">BBHI12x", 0, lnd, num, addr)


def nid4(lnd, addr, num=0):
    return (((lnd << 16) | num) << 32) | addr


CLIENT, ROUTER, SERVER = 0x0A000101, 0x0A0001FE, 0x0A000201


def record(direction, local, src=CLIENT, dst=SERVER, mbits=7, cookie=0xFFFFFFFFFFFFFFFF,
           payload=b"", msg_id=0, retry=0, flags=0, drop_reason=0, form=72, lnd=TCP):
    """One lnetcap record: a 128-byte record header, an LNet PUT header in
    the nid4 (72) or nid16 (96) form, the payload prefix."""
    rest = struct.pack("<IIII", 12345, 12345, PUT, 4096)          # pids, type, length
    # put: ack_wmd (interface, object cookie), match bits, hdr_data, portal, offset
    rest += struct.pack("<QQQQII", cookie, cookie, mbits, 0, 50, 0)
    if form == 72:
        lnet = struct.pack("<QQ", nid4(lnd, dst), nid4(lnd, src)) + rest
    else:
        lnet = nid16(lnd, dst) + nid16(lnd, src) + rest
    assert len(lnet) == form
    hdr = struct.pack("<IHHBBBBHBBII16sQII", 0x52434E4C, 1, 128, direction, 2, 2, form,
                      flags, 0, retry, 0, 0, b"test", 0, 4096, len(payload))
    hdr += nid16(lnd, local) + nid16(lnd, 0) + struct.pack("<iIQQB7x", 0, 0, 0, msg_id,
                                                            drop_reason)
    assert len(hdr) == 128
    return hdr + lnet + payload


def run(raws, links=None, hops=None, attempts=None):
    """check() on frames 1..n built from raws; links: {frame: {frames}}."""
    recs = {i + 1: xt.Record(i + 1, 0, raw) for i, raw in enumerate(raws)}
    line, ok = xt.check(recs, links or {}, hops or {}, attempts or {})
    counts = line.split()
    return dict(zip(counts[0::2], counts[1::2])), ok


class Truth(unittest.TestCase):
    def test_nid4_and_nid16_forms_are_one_message(self):
        c, ok = run([record(SEND, CLIENT, form=72), record(RECV, SERVER, form=96)],
                    {1: {2}, 2: {1}})
        self.assertTrue(ok, c)
        self.assertEqual((c["messages"], c["on-several-nodes"], c["wrong"]), ("1", "1", "0"))

    def test_noack_puts_sharing_a_header_told_apart_by_payload(self):
        raws = [record(SEND, CLIENT, payload=b"aaaa"), record(SEND, CLIENT, payload=b"bbbb"),
                record(RECV, SERVER, payload=b"aaaa"), record(RECV, SERVER, payload=b"bbbb")]
        c, ok = run(raws, {1: {3}, 3: {1}, 2: {4}, 4: {2}})
        self.assertTrue(ok, c)
        self.assertEqual((c["messages"], c["on-several-nodes"], c["ambiguous"]), ("2", "2", "0"))
        c, ok = run(raws, {1: {4}, 4: {1}, 2: {3}, 3: {2}})
        self.assertFalse(ok)
        self.assertEqual((c["wrong"], c["missing"]), ("4", "4"))

    def test_shorter_prefix_joins_its_message(self):
        c, ok = run([record(SEND, CLIENT, payload=b"aaaa"), record(SEND, CLIENT, payload=b"bbbb"),
                     record(RECV, SERVER, payload=b"aa")], {1: {3}, 3: {1}})
        self.assertTrue(ok, c)
        self.assertEqual((c["messages"], c["ambiguous"]), ("2", "0"))

    def test_prefix_fitting_two_messages_is_unresolved_not_wrong(self):
        c, ok = run([record(SEND, CLIENT, payload=b"aaaa"), record(SEND, CLIENT, payload=b"bbbb"),
                     record(RECV, SERVER, payload=b"aaaa"), record(RECV, SERVER, payload=b"")],
                    {1: {3}, 3: {1}, 2: {4}, 4: {2}})
        self.assertTrue(ok, c)
        self.assertEqual((c["ambiguous"], c["on-several-nodes"], c["wrong"]), ("1", "1", "0"))

    def test_resend_attempts_are_one_message(self):
        raws = [record(SEND, CLIENT, msg_id=5), record(SEND, CLIENT, msg_id=5, retry=1),
                record(RECV, SERVER)]
        c, ok = run(raws, {2: {3}, 3: {2}}, attempts={2: {1}, 1: {2}})
        self.assertTrue(ok, c)
        self.assertEqual((c["ambiguous"], c["on-several-nodes"]), ("0", "1"))
        # An attempt link to a SEND of another message id is wrong.
        c, ok = run(raws[:1] + [record(SEND, CLIENT, msg_id=6, retry=1)] + raws[2:],
                    {2: {3}, 3: {2}}, attempts={2: {1}})
        self.assertFalse(ok)
        self.assertEqual((c["ambiguous"], c["wrong"]), ("1", "1"))

    def test_same_header_twice_on_a_node_is_ambiguous(self):
        c, ok = run([record(SEND, CLIENT), record(SEND, CLIENT), record(FWD, ROUTER),
                     record(FWD, ROUTER), record(RECV, SERVER)],
                    {1: {3, 5}, 3: {1, 5}, 5: {1, 3}, 2: {4}, 4: {2}})
        self.assertTrue(ok, c)
        self.assertEqual((c["ambiguous"], c["on-several-nodes"], c["fwd_hops"]), ("1", "0", "0/0"))

    def test_loopback_send_and_recv_on_one_node_are_not_ambiguous(self):
        c, ok = run([record(SEND, 0, src=0, dst=0, lnd=LO), record(RECV, 0, src=0, dst=0, lnd=LO)],
                    {1: {2}, 2: {1}})
        self.assertTrue(ok, c)
        self.assertEqual((c["ambiguous"], c["wrong"]), ("0", "0"))

    def test_outcome_and_headerless_records_link_to_nothing(self):
        outcome = record(DROP, CLIENT, msg_id=5, flags=0x200, drop_reason=2)
        c, ok = run([record(SEND, CLIENT, msg_id=5), outcome, record(RECV, SERVER)],
                    {1: {3}, 3: {1}, 2: {3}})
        self.assertFalse(ok)
        self.assertEqual((c["messages"], c["wrong"]), ("1", "1"))

    def test_unlinked_message_on_two_nodes_is_missing_both_ways(self):
        c, ok = run([record(SEND, CLIENT), record(RECV, SERVER)])
        self.assertFalse(ok)
        self.assertEqual(c["missing"], "2")

    def test_forwarded_record_needs_its_hop(self):
        raws = [record(SEND, CLIENT), record(FWD, ROUTER), record(RECV, SERVER)]
        full = {1: {2, 3}, 2: {1, 3}, 3: {1, 2}}
        c, ok = run(raws, full, {2: "1"})
        self.assertTrue(ok, c)
        self.assertEqual(c["fwd_hops"], "1/1")
        for hop in ("", "2"):
            c, ok = run(raws, full, {2: hop})
            self.assertFalse(ok, hop)
            self.assertEqual(c["fwd_hops"], "0/1")


if __name__ == "__main__":
    unittest.main()
