#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""roce_wire_test.py LNETCAP - roce_wire.py on a soft-RoCE link built here.

The link carries, between 10.77.0.1 (a) and 10.77.0.2 (b): an IMMEDIATE
PUT a -> b; an RDMA GET by b (GET_REQ b -> a, a's RDMA WRITE of 5000 bytes
into b's sink in two packets, GET_DONE a -> b saying 5000); a GET whose
peer found nothing (GET_DONE -61); a PUT by RDMA (PUT_REQ a -> b, PUT_ACK
b -> a, WRITE a -> b, PUT_DONE a -> b); a NOOP; and a retransmitted copy
of the IMMEDIATE.  Expected: PUT, GET, REPLY, GET, PUT - the REPLY with
the header a REPLY message would carry and the written bytes, the second
PUT with its RDMA payload - checked in the output file itself and through
`lnetcap -r`, the project's reader.
"""
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
A, B = bytes([10, 77, 0, 1]), bytes([10, 77, 0, 2])
QP = {A: 0x11, B: 0x22}  # destination QP of packets sent to that node
psn = {}


def nid(ip):
    return (5 << 48) | struct.unpack(">I", ip)[0]  # o2ib0


def lnet_hdr(src, dst, typ, plen, union):
    return struct.pack("<QQIIII", nid(dst), nid(src), 12345, 12345, typ, plen) + union.ljust(40, b"\0")


def roce(src, dst, op, body, reth=None):
    p = psn.setdefault((src, dst), 100)
    psn[(src, dst)] = p + 1
    return roce_psn(src, dst, op, body, reth, p)


def roce_psn(src, dst, op, body, reth, p):
    pad = (4 - len(body) % 4) % 4
    bth = struct.pack(">BBHII", op, pad << 4, 0xFFFF, QP[dst], p)
    ext = struct.pack(">QII", *reth) if reth else b""
    udp_payload = bth + ext + body + bytes(pad) + bytes(4)  # + ICRC
    udp = struct.pack(">HHHH", 49152, 4791, 8 + len(udp_payload), 0) + udp_payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0, src, dst) + udp
    return bytes(6) + bytes(6) + b"\x08\x00" + ip


def kib(src, dst, typ, body):
    nob = 48 + len(body)
    return struct.pack("<IHBBIIQQQQ", 0x0BE91B91, 0x12, typ, 0, nob, 0, nid(src), 1, nid(dst), 1) + body


def send(src, dst, m):
    return [roce(src, dst, 0x04, m)]  # SEND_ONLY


def rd(key, addr, nob):
    return struct.pack("<II", key, 1) + struct.pack("<IQ", nob, addr)


def main():
    lnetcap = sys.argv[1]
    frames = []
    # IMMEDIATE PUT a -> b, 100 bytes, and its retransmission (same PSN).
    imm_payload = bytes(range(100))
    put1 = lnet_hdr(A, B, 1, 100, struct.pack("<QQQQII", 0, 0, 0x77, 0, 4, 0))
    f = roce(A, B, 0x04, kib(A, B, 0xD1, put1 + imm_payload))
    frames += [f, f]
    # GET by b: sink key 0x99 at 0x1000; a writes 5000 bytes in 2 packets.
    get1 = lnet_hdr(B, A, 2, 0, struct.pack("<QQQIII", 0xAAAA, 0xBBBB, 0x1234, 8, 0, 8192))
    frames += send(B, A, kib(B, A, 0xD6, get1 + struct.pack("<Q", 0xC1) + rd(0x99, 0x1000, 8192)))
    data = bytes((i * 7) & 255 for i in range(5000))
    frames.append(roce(A, B, 0x06, data[:4096], (0x1000, 0x99, 5000)))  # WRITE_FIRST
    frames.append(roce(A, B, 0x08, data[4096:]))                        # WRITE_LAST
    frames += send(A, B, kib(A, B, 0xD7, struct.pack("<Qi", 0xC1, 5000)))
    # A GET the peer could not match: GET_DONE -61, no REPLY.
    get2 = lnet_hdr(B, A, 2, 0, struct.pack("<QQQIII", 0xCCCC, 0xDDDD, 0x5678, 8, 0, 8192))
    frames += send(B, A, kib(B, A, 0xD6, get2 + struct.pack("<Q", 0xC2) + rd(0x9A, 0x3000, 8192)))
    frames += send(A, B, kib(A, B, 0xD7, struct.pack("<Qi", 0xC2, -61)))
    # PUT by RDMA a -> b: 3000 bytes into b's sink key 0x55.
    put2 = lnet_hdr(A, B, 1, 3000, struct.pack("<QQQQII", 0, 0, 0x88, 0, 8, 0))
    frames += send(A, B, kib(A, B, 0xD2, put2 + struct.pack("<Q", 0xE1)))
    frames += send(B, A, kib(B, A, 0xD4, struct.pack("<QQ", 0xE1, 0xF1) + rd(0x55, 0x8000, 3000)))
    pdata = bytes((i * 3 + 1) & 255 for i in range(3000))
    frames.append(roce(A, B, 0x0A, pdata, (0x8000, 0x55, 3000)))  # WRITE_ONLY
    frames += send(A, B, kib(A, B, 0xD5, struct.pack("<Qi", 0xF1, 0)))
    frames += send(B, A, kib(B, A, 0xD0, b""))  # NOOP

    with tempfile.TemporaryDirectory() as d:
        pcap = os.path.join(d, "wire.pcap")
        out = os.path.join(d, "wire.pcapng")
        with open(pcap, "wb") as fh:
            fh.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
            for i, fr in enumerate(frames):
                fh.write(struct.pack("<IIII", 1000 + i, 0, len(fr), len(fr)) + fr)
        r = subprocess.run([sys.executable, os.path.join(HERE, "roce_wire.py"), pcap, out],
                           capture_output=True, text=True)
        print(r.stderr.strip())
        if r.returncode != 0:
            sys.exit("FAIL: roce_wire.py failed")
        recs = read_records(out)
        got = [(struct.unpack_from("<I", h, 24)[0], p) for h, p in recs]
        want_types = [1, 2, 3, 2, 1]
        if [t for t, _ in got] != want_types:
            sys.exit(f"FAIL: message types {[t for t, _ in got]}, expected {want_types}")
        if got[0][1] != imm_payload:
            sys.exit("FAIL: the IMMEDIATE PUT's payload")
        rh = recs[2][0]
        want = lnet_hdr(A, B, 3, 5000, struct.pack("<QQ", 0xAAAA, 0xBBBB))
        if rh != want:
            sys.exit(f"FAIL: REPLY header {rh.hex()}, expected {want.hex()}")
        if got[2][1] != data[:4096]:
            sys.exit("FAIL: the REPLY's payload is not the RDMA-written bytes")
        if got[4][1] != pdata:
            sys.exit("FAIL: the RDMA PUT's payload")
        text = subprocess.run([lnetcap, "-r", out], capture_output=True, text=True)
        lines = text.stdout.strip().splitlines()
        if text.returncode != 0 or len(lines) != 5 or " REPLY " not in lines[2] or "@o2ib" not in lines[2]:
            sys.exit(f"FAIL: lnetcap -r says (rc {text.returncode}):\n{text.stdout}{text.stderr}")
    print("PASS")


def read_records(path):
    """(72-byte LNet header, payload) of each record of a pcapng file."""
    data = open(path, "rb").read()
    off, out = 0, []
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from("<II", data, off)
        if btype == 6:
            caplen = struct.unpack_from("<I", data, off + 20)[0]
            rec = data[off + 28:off + 28 + caplen]
            hl = struct.unpack_from("<H", rec, 6)[0]
            pcap_len = struct.unpack_from("<I", rec, 52)[0]
            out.append((rec[hl:hl + 72], rec[hl + 72:hl + 72 + pcap_len]))
        off += blen
    return out


if __name__ == "__main__":
    main()
