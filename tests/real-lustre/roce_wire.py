#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""roce_wire.py WIRE.pcap OUT.pcapng - the LNet messages on a soft-RoCE link.

The real-Lustre harness records the o2iblnd link between its two guests
with QEMU's filter-dump: Ethernet frames carrying RoCEv2 (UDP 4791).  This
decodes them on its own, without any of lnetcap's code: the InfiniBand
base transport header (BTH) and its extensions, RC SENDs reassembled into
o2iblnd messages (lnet/klnds/o2iblnd/o2iblnd-idl.h: struct kib_msg), and
the RDMA WRITEs that carry the bulk data.  Every LNet message that crossed
is written as one lnetcap WIRE record (docs/record-format.md, the container
tests/real-lustre/lustre_compare reads), so a node's capture can be paired
with the link as it is for socklnd:

  IMMEDIATE   the LNet header and the payload that follows it
  PUT_REQ     the PUT's header; its payload is the RDMA WRITE into the
              sink the peer's PUT_ACK described (rd_key)
  GET_REQ     the GET's header; and when the peer answers GET_DONE with a
              length >= 0, the REPLY it stands for: the header a REPLY
              message would carry (NIDs and pids swapped, dst_wmd = the
              GET's return_wmd, payload_length = GET_DONE's length) with
              the data the peer RDMA-wrote into the GET's sink

NOOP, PUT_ACK/NAK/DONE, GET_DONE and connection messages carry no LNet
message of their own.  Summary counts go to stderr.
"""
import struct
import sys

import capture_files

SNAP = 4096  # payload bytes kept per message
LINKTYPE = 147 + 7  # include/lnetcap/record.h: LNETCAP_LINKTYPE
REC_MAGIC = 0x52434E4C
DIR_WIRE = 5
HOOK_SYNTHETIC = 6
LND_O2IB = 5
MSG_PUT, MSG_GET, MSG_REPLY = 1, 2, 3

IBLND_MAGIC = 0x0BE91B91
IMMEDIATE, PUT_REQ, PUT_NAK, PUT_ACK, PUT_DONE, GET_REQ, GET_DONE = range(0xD1, 0xD8)
KIB_HDR = 48  # struct kib_msg up to ibm_u
LNET_HDR4 = 72

# RC opcodes (IBTA vol. 1, 9.2): which carry RETH, ImmDt, IETH.
SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_LAST_IMM, SEND_ONLY, SEND_ONLY_IMM = range(0, 6)
WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM, WRITE_ONLY, WRITE_ONLY_IMM = range(6, 12)
SEND_LAST_INV, SEND_ONLY_INV = 0x16, 0x17
SENDS = {SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_LAST_IMM, SEND_ONLY, SEND_ONLY_IMM,
         SEND_LAST_INV, SEND_ONLY_INV}
WRITES = {WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM, WRITE_ONLY, WRITE_ONLY_IMM}


def ib_payload(op, bth_rest):
    """(RETH or None, payload) of a packet after the BTH."""
    off, reth = 0, None
    if op in (WRITE_FIRST, WRITE_ONLY, WRITE_ONLY_IMM):
        reth = struct.unpack_from(">QII", bth_rest, 0)
        off += 16
    if op in (SEND_LAST_IMM, SEND_ONLY_IMM, WRITE_LAST_IMM, WRITE_ONLY_IMM,
              SEND_LAST_INV, SEND_ONLY_INV):
        off += 4
    return reth, bth_rest[off:]


def read_pcap(path):
    """(seconds, microseconds, frame) of every frame of a classic pcap."""
    try:
        for ts, frame in capture_files.pcap_frames(path):
            sec, usec = divmod(ts // 1000, 1000000)
            yield sec, usec, frame
    except OSError as e:
        raise SystemExit(f"roce_wire: cannot read {path}: {e.strerror}")
    except capture_files.BadFile as e:
        raise SystemExit(f"roce_wire: {e}")


def nid4(nid):
    """struct lnet_hdr_nid4 NID (u64: net << 32 | addr) -> 'a.b.c.d@o2ibN'."""
    addr, net = nid & 0xFFFFFFFF, nid >> 32
    num = net & 0xFFFF
    return f"{addr >> 24}.{(addr >> 16) & 255}.{(addr >> 8) & 255}.{addr & 255}@o2ib{num or ''}"


def reply_header(get_hdr, length):
    """The 72-byte REPLY header a GET's REPLY message would carry."""
    dst, src, dpid, spid, _t, _l = struct.unpack_from("<QQIIII", get_hdr, 0)
    return_wmd = get_hdr[32:48]
    return struct.pack("<QQIIII", src, dst, spid, dpid, MSG_REPLY, length) + return_wmd + bytes(24)


class Decoder:
    def __init__(self):
        self.msgs = []       # [ts_us, hdr72, payload bytearray | None, pending-key]
        self.sends = {}      # (src ip, dst qp) -> bytearray of the SEND under way
        self.writes = {}     # (src ip, dst qp) -> (adv key, va) of the WRITE under way
        self.psn = {}        # (src ip, dst qp) -> PSNs seen (a retransmission is skipped)
        self.sinks = {}      # (advertiser ip, rkey) -> {va: bytearray}
        self.sink_start = {}  # (advertiser ip, rkey) -> first fragment's address
        self.put_of = {}     # (PUT sender ip, its cookie) -> message index
        self.done_of = {}    # (sink ip, sink's cookie) -> message index
        self.get_of = {}     # (GET sender ip, cookie) -> (hdr72, rkey)
        self.n = {"frames": 0, "roce": 0, "retrans": 0, "kib": {}, "bad": 0}

    def sink_bytes(self, key):
        segs, start = self.sinks.get(key, {}), self.sink_start.get(key)
        out = bytearray()
        if start is None:
            return out
        while len(out) < SNAP and (start + len(out)) in segs and segs[start + len(out)]:
            out += segs[start + len(out)]
        return out[:SNAP]

    def advertise(self, ip, rd, off):
        key_, nfrags = struct.unpack_from("<II", rd, off)
        addr = struct.unpack_from("<Q", rd, off + 12)[0] if nfrags else None
        self.sinks[(ip, key_)] = {}
        self.sink_start[(ip, key_)] = addr
        return key_

    def frame(self, ts, fr):
        self.n["frames"] += 1
        if len(fr) < 14 + 20 + 8 + 12:
            return
        eth = struct.unpack_from(">H", fr, 12)[0]
        off = 14
        if eth == 0x8100:
            eth = struct.unpack_from(">H", fr, 16)[0]
            off = 18
        if eth != 0x0800:
            return
        ihl = (fr[off] & 15) * 4
        if fr[off + 9] != 17:
            return
        src_ip = fr[off + 12:off + 16]
        tot = struct.unpack_from(">H", fr, off + 2)[0]
        ip_end = off + tot
        udp = off + ihl
        if struct.unpack_from(">H", fr, udp + 2)[0] != 4791:
            return
        self.n["roce"] += 1
        bth = udp + 8
        op = fr[bth]
        pad = (fr[bth + 1] >> 4) & 3
        qp = struct.unpack_from(">I", fr, bth + 4)[0] & 0xFFFFFF
        psn = struct.unpack_from(">I", fr, bth + 8)[0] & 0xFFFFFF
        body = fr[bth + 12:ip_end - 4]  # without the ICRC
        if pad:
            body = body[:-pad]
        if op not in SENDS and op not in WRITES:
            return
        sk = (src_ip, qp)
        seen = self.psn.setdefault(sk, set())
        if psn in seen:
            self.n["retrans"] += 1
            return
        seen.add(psn)
        if len(seen) > 1 << 20:
            seen.clear()
        reth, data = ib_payload(op, body)
        if op in SENDS:
            if op in (SEND_FIRST, SEND_ONLY, SEND_ONLY_IMM, SEND_ONLY_INV):
                self.sends[sk] = bytearray()
            buf = self.sends.get(sk)
            if buf is None:
                return
            buf += data
            if op not in (SEND_FIRST, SEND_MIDDLE):
                del self.sends[sk]
                self.kib(ts, src_ip, fr[off + 16:off + 20], bytes(buf))
            return
        # RDMA WRITE into a sink someone advertised: keep its first bytes.
        if reth:
            va, rkey, _dlen = reth
            dst_ip = fr[off + 16:off + 20]
            self.writes[sk] = ((dst_ip, rkey), va)
        cur = self.writes.get(sk)
        if cur is None:
            return
        (akey, va) = cur
        segs = self.sinks.get(akey)
        if segs is None:
            return
        seg = segs.setdefault(va, bytearray())
        if len(seg) < SNAP:
            seg += data[:SNAP - len(seg)]
        if op in (WRITE_LAST, WRITE_LAST_IMM, WRITE_ONLY, WRITE_ONLY_IMM):
            del self.writes[sk]

    def kib(self, ts, ip, dst, m):
        """One o2iblnd message, sent by ip to dst."""
        if len(m) < KIB_HDR:
            self.n["bad"] += 1
            return
        magic, _ver, typ, _cr, nob = struct.unpack_from("<IHBBI", m, 0)
        if magic != IBLND_MAGIC:
            self.n["bad"] += 1
            return
        name = {IMMEDIATE: "IMMEDIATE", PUT_REQ: "PUT_REQ", PUT_NAK: "PUT_NAK",
                PUT_ACK: "PUT_ACK", PUT_DONE: "PUT_DONE", GET_REQ: "GET_REQ",
                GET_DONE: "GET_DONE", 0xD0: "NOOP"}.get(typ, f"{typ:#x}")
        self.n["kib"][name] = self.n["kib"].get(name, 0) + 1
        u = KIB_HDR
        if typ == IMMEDIATE:
            hdr = m[u:u + LNET_HDR4]
            self.msgs.append([ts, hdr, bytearray(m[u + LNET_HDR4:nob][:SNAP]), None])
        elif typ == PUT_REQ:
            hdr = m[u:u + LNET_HDR4]
            cookie = struct.unpack_from("<Q", m, u + LNET_HDR4)[0]
            self.put_of[(ip, cookie)] = len(self.msgs)
            self.msgs.append([ts, hdr, bytearray(), None])
        elif typ == PUT_ACK:
            # The sink (ip) describes where the PUT's sender (dst) writes.
            src_cookie, dst_cookie = struct.unpack_from("<QQ", m, u)
            rkey = self.advertise(ip, m, u + 16)
            i = self.put_of.pop((dst, src_cookie), None)
            if i is not None:
                self.msgs[i][3] = (ip, rkey)
                self.done_of[(ip, dst_cookie)] = i
        elif typ == PUT_NAK:
            cookie = struct.unpack_from("<Q", m, u)[0]
            self.put_of.pop((dst, cookie), None)
        elif typ == PUT_DONE:
            # Carries the sink's cookie: sent by the PUT's sender to the sink.
            cookie = struct.unpack_from("<Q", m, u)[0]
            i = self.done_of.pop((dst, cookie), None)
            if i is not None:
                self.msgs[i][2] = self.sink_bytes(self.msgs[i][3])
                self.msgs[i][3] = None
        elif typ == GET_REQ:
            hdr = m[u:u + LNET_HDR4]
            cookie = struct.unpack_from("<Q", m, u + LNET_HDR4)[0]
            rkey = self.advertise(ip, m, u + LNET_HDR4 + 8)
            self.get_of[(ip, cookie)] = (hdr, rkey)
            self.msgs.append([ts, hdr, bytearray(), None])
        elif typ == GET_DONE:
            # The GET's peer wrote the sink and says how much (or < 0: no
            # REPLY, LNet dropped the GET on that side).
            cookie, status = struct.unpack_from("<Qi", m, u)
            got = self.get_of.pop((dst, cookie), None)
            if got is not None and status >= 0:
                hdr, rkey = got
                data = self.sink_bytes((dst, rkey))[:status]
                self.msgs.append([ts, reply_header(hdr, status), data, None])
                self.n["rdma_replies"] = self.n.get("rdma_replies", 0) + 1

    def finish(self):
        # PUTs whose DONE never came: whatever was written so far.
        for i in self.done_of.values():
            if self.msgs[i][3] is not None:
                self.msgs[i][2] = self.sink_bytes(self.msgs[i][3])


def record(seq, hdr, payload):
    plen = struct.unpack_from("<I", hdr, 28)[0]
    cap = bytes(payload[:min(plen, SNAP)])
    rh = struct.pack("<IHHBBBBHBBII16sQII20s20siIQQB7s",
                     REC_MAGIC, 1, 128, DIR_WIRE, HOOK_SYNTHETIC, LND_O2IB, LNET_HDR4,
                     0, 0, 0, 0xFFFFFFFF, 0, bytes(16), seq, plen, len(cap),
                     bytes(20), bytes(20), 0, 0, 0, 0, 0, bytes(7))
    assert len(rh) == 128
    return rh + bytes(hdr) + cap


def block(btype, body):
    body += bytes((4 - len(body) % 4) % 4)
    n = len(body) + 12
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: roce_wire.py WIRE.pcap OUT.pcapng")
    d = Decoder()
    for sec, usec, fr in read_pcap(sys.argv[1]):
        d.frame(sec * 1000000 + usec, fr)
    d.finish()
    with open(sys.argv[2], "wb") as out:
        out.write(block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)))
        out.write(block(1, struct.pack("<HHI", LINKTYPE, 0, 0)))
        for seq, (ts, hdr, payload, _k) in enumerate(d.msgs):
            rec = record(seq, hdr, payload)
            out.write(block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF,
                                           len(rec), len(rec)) + rec))
    types = {}
    for _ts, hdr, _p, _k in d.msgs:
        t = {0: "ACK", 1: "PUT", 2: "GET", 3: "REPLY"}.get(struct.unpack_from("<I", hdr, 24)[0], "?")
        types[t] = types.get(t, 0) + 1
    kib = " ".join(f"{k}={v}" for k, v in sorted(d.n["kib"].items()))
    print(f"roce_wire: {d.n['frames']} frames, {d.n['roce']} RoCEv2, "
          f"{d.n['retrans']} retransmitted, {d.n['bad']} not o2iblnd; o2iblnd: {kib}; "
          f"LNet messages {len(d.msgs)}: " + " ".join(f"{k}={v}" for k, v in sorted(types.items())) +
          f" (REPLYs by RDMA {d.n.get('rdma_replies', 0)})", file=sys.stderr)


if __name__ == "__main__":
    main()
