#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Unit tests of tcp_fate.py (what TCP did with socklnd's bytes on the
real-Lustre harness's recorded links) on links built packet by packet: a
classic pcap of Ethernet/IPv4/TCP frames and, beside it, a pcapng whose
packets stand for lnetcap's WIRE records (only their times matter)."""
import importlib.util
import os
import struct
import tempfile
import unittest

spec = importlib.util.spec_from_file_location(
    "tcp_fate", os.path.join(os.path.dirname(os.path.abspath(__file__)), "tcp_fate.py"))
tf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tf)

FIN, SYN, RST, PSH, ACK = 0x01, 0x02, 0x04, 0x08, 0x10
A, B = (10, 77, 0, 1), (10, 77, 0, 2)


def frame(src, dst, sport, dport, seq, ack, flags, payload=b""):
    tcp = struct.pack(">HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0) + payload
    ip = struct.pack(">BBHHHBBH4B4B", 0x45, 0, 20 + len(tcp), 0, 0, 64, 6, 0, *src, *dst) + tcp
    return b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip


def write_pcap(path, frames):
    """frames: [(time in us, bytes)]"""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for us, b in frames:
            f.write(struct.pack("<IIII", us // 1000000, us % 1000000, len(b), len(b)) + b)


def write_pcapng(path, times_us):
    """One packet per time, nanosecond resolution (as lnetcap writes)."""
    def block(btype, body):
        body += b"\0" * (-len(body) % 4)
        n = 12 + len(body)
        return struct.pack("<II", btype, n) + body + struct.pack("<I", n)
    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += block(1, struct.pack("<HHI", 147, 0, 0) + struct.pack("<HHB3x", 9, 1, 9) + b"\0" * 4)
    for us in times_us:
        ns = us * 1000
        out += block(6, struct.pack("<IIIII", 0, ns >> 32, ns & 0xFFFFFFFF, 4, 4) + b"data")
    with open(path, "wb") as f:
        f.write(out)


class TcpFate(unittest.TestCase):
    def run_links(self, links):
        """links: [(frames, record times)] -> the tool's lines."""
        d = tempfile.mkdtemp()
        pairs = []
        for n, (frames, times) in enumerate(links, 1):
            raw, conv = os.path.join(d, f"w{n}.pcap"), os.path.join(d, f"w{n}.pcapng")
            write_pcap(raw, frames)
            write_pcapng(conv, times)
            pairs.append((raw, conv))
        return tf.analyse(pairs)

    def test_acknowledged_data_is_not_named_and_unacknowledged_is(self):
        lines = self.run_links([([
            (1000, frame(A, B, 1023, 988, 100, 500, ACK | PSH, b"x" * 50)),
            (2000, frame(B, A, 988, 1023, 500, 150, ACK)),
            (3000, frame(A, B, 1023, 988, 150, 500, ACK | PSH, b"y" * 50)),
        ], [1000, 3000])])
        self.assertEqual(lines, ["unacked 1 2"])

    def test_the_ack_of_a_reset_proves_nothing(self):
        lines = self.run_links([([
            (1000, frame(A, B, 1023, 988, 100, 500, ACK | PSH, b"x" * 50)),
            (2000, frame(B, A, 988, 1023, 500, 150, RST | ACK)),
        ], [1000])])
        self.assertIn("unacked 1 1", lines)

    def test_acks_on_another_link_count(self):
        lines = self.run_links([
            ([(1000, frame(A, B, 1023, 988, 100, 500, ACK | PSH, b"x" * 50))], [1000]),
            ([(2000, frame(B, A, 988, 1023, 500, 150, ACK))], []),
        ])
        self.assertEqual(lines, [])

    def test_an_earlier_connection_on_the_same_ports_acknowledges_nothing(self):
        # socklnd reuses ports 1021-1023: the first connection's ACK of a
        # higher sequence number must not count for the second's data.
        lines = self.run_links([([
            (1000, frame(A, B, 1023, 988, 99, 0, SYN)),
            (1100, frame(B, A, 988, 1023, 499, 100, SYN | ACK)),
            (2000, frame(B, A, 988, 1023, 500, 9000, ACK)),
            (3000, frame(A, B, 1023, 988, 5000, 0, SYN)),
            (4000, frame(A, B, 1023, 988, 5001, 1, ACK | PSH, b"x" * 50)),
        ], [4000])])
        self.assertEqual(lines, ["unacked 1 1"])

    def test_every_segment_at_the_records_time_must_be_unacknowledged(self):
        lines = self.run_links([([
            (1000, frame(A, B, 1023, 988, 100, 500, ACK | PSH, b"x" * 50)),
            (1000, frame(A, B, 1022, 988, 700, 900, ACK | PSH, b"y" * 50)),
            (2000, frame(B, A, 988, 1022, 900, 750, ACK)),
        ], [1000])])
        self.assertEqual(lines, [])

    def test_a_reset_before_the_senders_fin_is_named_once(self):
        lines = self.run_links([([
            (1000, frame(A, B, 1023, 988, 100, 500, ACK | PSH, b"x" * 50)),
            (2000, frame(B, A, 988, 1023, 500, 150, ACK | FIN)),
            (3000, frame(B, A, 988, 1023, 501, 0, RST)),
            (3100, frame(B, A, 988, 1023, 501, 0, RST)),
        ], [])])
        # B sent its FIN before the reset: only A may have lost bytes.
        self.assertEqual(lines, ["reset 10.77.0.1 10.77.0.2 3000000"])

    def test_records_of_a_connection_reset_before_the_receivers_fin(self):
        data = [
            (1000, frame(A, B, 1023, 988, 100, 500, ACK | PSH, b"x" * 50)),
            (1500, frame(B, A, 988, 1023, 500, 150, ACK)),
            (2000, frame(A, B, 1023, 988, 150, 500, ACK | PSH, b"y" * 50)),
            (2500, frame(B, A, 988, 1023, 500, 200, ACK)),
        ]
        # the sender resets: both records are on a connection a reset ended
        lines = self.run_links([(data + [(3000, frame(A, B, 1023, 988, 200, 0, RST))], [1000, 2000])])
        self.assertEqual([l for l in lines if l.startswith("unread")],
                         ["unread 1 1 10.77.0.1:1023>10.77.0.2:988@0",
                          "unread 1 2 10.77.0.1:1023>10.77.0.2:988@0"])
        # the receiver closed with a FIN first: it had read everything
        lines = self.run_links([(data + [(2700, frame(B, A, 988, 1023, 500, 200, ACK | FIN)),
                                         (3000, frame(A, B, 1023, 988, 200, 0, RST))], [1000, 2000])])
        self.assertEqual([l for l in lines if l.startswith("unread")], [])
        # a reset before the data concerns another stretch of the stream
        lines = self.run_links([([(500, frame(A, B, 1023, 988, 99, 0, RST))] + data, [1000, 2000])])
        self.assertEqual([l for l in lines if l.startswith("unread")], [])

    def test_bad_input_is_one_clear_message(self):
        d = tempfile.mkdtemp()
        junk = os.path.join(d, "junk.pcap")
        with open(junk, "wb") as f:
            f.write(b"not a capture at all, not at all")
        with self.assertRaises(SystemExit) as e:
            list(tf.pcap_frames(junk))
        self.assertEqual(e.exception.code, 2)


if __name__ == "__main__":
    unittest.main()
