#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A leak test that does not need to know what leaks.

    leak_check.py ALLOWLIST INPUT OUTPUT [TEXT...] [-- OUTPUT [TEXT...]]...

Every printable run of 4 or more bytes anywhere in INPUT (its packets and
its metadata alike: pcapng options, interface names, comments, socklnd TCP
payloads) must be absent from OUTPUT (the anonymized file) and from each
TEXT (what `lnetcap -v` / `-x` print of it; there as a word of its own,
see in_words), unless the run is on ALLOWLIST: protocol constants, each
with the reason it may stay.  Exit 1
listing every run that leaked and where.

Groups after `--` are the same input anonymized with other keys.  A run
counts as leaked only when every group holds it: bytes copied from the
input are in all of them, while a keyed pseudonym that happens to spell a
short run of the input (a token "77f6..." printed in hex, against the
random bytes of a 1 MiB bulk write) is in one group only.

What counts as the input's payloads and metadata: of a pcapng, every
packet's bytes and every option value of every block (section, interface,
packet, statistics; unknown blocks whole); of a classic pcap (a tcpdump of
socklnd), every TCP payload.  No decoder of lnetcap's decides what is data:
the bytes are searched raw, so a field nobody thought of is checked too.
"""
import re
import struct
import sys

MIN_RUN = 4
RUN = re.compile(rb"[\x20-\x7e]{%d,}" % MIN_RUN)


def runs(data):
    return {m.group(0) for m in RUN.finditer(data)}


def pcapng_parts(data, options=None):
    """Packet data and option values of every block, as byte strings; with
    a list OPTIONS, the option values go there instead."""
    parts, pos, e = [], 0, "<"
    opts = parts if options is None else options
    while pos + 12 <= len(data):
        btype = struct.unpack_from(e + "I", data, pos)[0]
        if btype == 0x0A0D0D0A:
            e = "<" if struct.unpack_from("<I", data, pos + 8)[0] == 0x1A2B3C4D else ">"
        blen = struct.unpack_from(e + "I", data, pos + 4)[0]
        if blen < 12 or pos + blen > len(data):
            parts.append(data[pos:])  # cut: search the rest whole
            break
        body = data[pos + 8:pos + blen - 4]
        fixed = {0x0A0D0D0A: 16, 1: 8, 5: 12}.get(btype)
        if btype == 6:  # EPB: the packet, then options
            caplen = struct.unpack_from(e + "I", body, 12)[0]
            parts.append(body[20:20 + caplen])
            fixed = 20 + (caplen + 3) // 4 * 4
        elif btype == 3:  # SPB: the packet only
            parts.append(body[4:])
            fixed = None
        if fixed is None:
            if btype != 3:
                parts.append(body)  # a block lnetcap does not write: all of it
        else:
            opos = fixed
            while opos + 4 <= len(body):
                code, olen = struct.unpack_from(e + "HH", body, opos)
                if code == 0:
                    break
                opts.append(body[opos + 4:opos + 4 + olen])
                opos += 4 + (olen + 3) // 4 * 4
        pos += blen
    return parts


def tcp_payload(frame):
    """The TCP payload of an Ethernet/IPv4 or IPv6 frame; the whole frame otherwise."""
    if len(frame) < 14:
        return frame
    etype, off = struct.unpack_from(">H", frame, 12)[0], 14
    if etype == 0x8100 and len(frame) >= 18:
        etype, off = struct.unpack_from(">H", frame, 16)[0], 18
    if etype == 0x0800 and len(frame) >= off + 20:
        proto, ihl = frame[off + 9], (frame[off] & 0x0F) * 4
        total = struct.unpack_from(">H", frame, off + 2)[0]
        end, off = off + total, off + ihl
    elif etype == 0x86DD and len(frame) >= off + 40:
        proto, end = frame[off + 6], off + 40 + struct.unpack_from(">H", frame, off + 4)[0]
        off += 40
    else:
        return frame
    if proto != 6 or len(frame) < off + 20:
        return frame
    return frame[off + (frame[off + 12] >> 4) * 4:end]


def pcap_parts(data):
    e = "<" if struct.unpack_from("<I", data, 0)[0] in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    linktype = struct.unpack_from(e + "I", data, 20)[0]
    parts, pos = [], 24
    while pos + 16 <= len(data):
        caplen = struct.unpack_from(e + "I", data, pos + 8)[0]
        frame = data[pos + 16:pos + 16 + caplen]
        parts.append(tcp_payload(frame) if linktype == 1 else frame)
        pos += 16 + caplen
    return parts


# lnetcap's record header (docs/record-format.md, include/lnetcap/record.h):
# the numbers lnetcap measured itself and keeps (cpu, pid, seq, lengths,
# status, NI index, queue time, message id), as (offset, length).  Their
# bytes are not the capture's content and a kept queue time of 0.89 s
# spells "4]H5" under every key, so an input run is not taken from them;
# the task name (comm) and the NIDs between them are searched as before.
RECORD_MAGIC = b"LNCR"
RECORD_NUMBERS = ((16, 8), (40, 16), (96, 24))


def without_record_numbers(packet):
    if not packet.startswith(RECORD_MAGIC) or len(packet) < 8:
        return packet
    hdr_len = struct.unpack_from("<H", packet, 6)[0]
    out = bytearray(packet)
    for off, n in RECORD_NUMBERS:
        if off + n <= hdr_len:
            out[off:off + n] = bytes(n)
    return bytes(out)


def input_runs(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data, 0)[0] if len(data) >= 4 else 0
    if magic == 0x0A0D0D0A:
        parts = [without_record_numbers(p) for p in pcapng_parts(data)]
    elif magic in (0xA1B2C3D4, 0xD4C3B2A1, 0xA1B23C4D, 0x4D3CB2A1):
        parts = pcap_parts(data)
    else:
        parts = [data]
    found = set()
    for p in parts:
        found |= runs(p)
    return found


def read_allowlist(path):
    """Lines `STRING<TAB>reason` (a run equal to STRING may stay) or
    `re:REGEX<TAB>reason` (a run REGEX matches whole); # starts a comment."""
    allowed = {}
    with open(path, "rb") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip(b"\n")
            if not line or line.startswith(b"#"):
                continue
            if b"\t" not in line:
                sys.exit(f"{path}:{n}: an entry needs a TAB and a reason")
            s, reason = line.split(b"\t", 1)
            if not reason.strip():
                sys.exit(f"{path}:{n}: {s!r} has no reason")
            allowed[s] = reason.decode()
    return allowed


def is_allowed(run, allowed):
    if run in allowed:
        return True
    return any(k.startswith(b"re:") and re.fullmatch(k[3:], run) for k in allowed)


WORD = rb"[A-Za-z0-9_]"


def in_words(s, haystack):
    """s in a text output as a word of its own: not inside a longer run of
    letters, digits and underscores.  lnetcap's text is its own vocabulary
    (ELDLM_LOCK_ABORTED, "status") and numbers (a timestamp 08.706379)
    around the anonymized file's values, and an input run as short as a
    task name "stat" or a jobid's stale bytes ".706" turns up inside those
    by chance; a value the text copies from the file stands apart (name
    "stat", jobid .706).  The file itself (OUTPUT) is searched for any
    occurrence."""
    if s not in haystack:
        return False
    pat = (b"" if not re.match(WORD, s[:1]) else rb"(?<!" + WORD + rb")") + re.escape(s) + \
        (b"" if not re.match(WORD, s[-1:]) else rb"(?!" + WORD + rb")")
    return re.search(pat, haystack) is not None


# A run with no letter but hex digits (and the "x" of 0x): in a text, a
# number.  lnetcap's text prints the numbers the file keeps (timestamps,
# lengths, sequence numbers, XIDs and FIDs in hex), and a wire capture's
# bulk data holds every short number by chance; such a run is searched in
# the anonymized file, where a copy of it would be, not in the text.
NUMBER = re.compile(rb"[^G-WYZg-wyz]*")


def haystacks(path, first):
    """(bytes, words, text) of an output: bytes searched for any occurrence
    of a run, words and text for a word of its own (in_words), text not
    for numbers (NUMBER).  The anonymized file (FIRST): its packets are
    bytes, its option values (comments, interface names and descriptions:
    lnetcap's sentences around the values it keeps, "anonymized by
    lnetcap: NIDs, ...") words.  Another output is text printed by
    lnetcap."""
    with open(path, "rb") as f:
        data = f.read()
    if not first:
        return b"", b"", data
    if data[:4] != b"\x0a\x0d\x0d\x0a":
        return data, b"", b""
    options = []
    packets = pcapng_parts(data, options)
    return b"\x00".join(packets), b"\n".join(options), b""


def found_in(secrets, paths, allowed):
    """{run: first path holding it} for the runs of `secrets` in `paths`:
    the first is the anonymized file, the others text printed from it."""
    where = {}
    for i, path in enumerate(paths):
        # Any occurrence of a printable input run lies inside one printable
        # run of the output: search those only.
        raw, words, text = (b"\n".join(sorted(runs(h))) for h in haystacks(path, i == 0))
        # Every first 4 bytes of the haystacks: a secret whose first 4 are
        # not among them is not in them (a wire capture's bulk data holds
        # millions of runs; the substring search is for the few left).
        heads = {h[j:j + MIN_RUN] for h in (raw, words, text) for j in range(len(h) - MIN_RUN + 1)}
        for s in secrets:
            if s[:MIN_RUN] not in heads or s in where or is_allowed(s, allowed):
                continue
            if s in raw or in_words(s, words) or (not NUMBER.fullmatch(s) and in_words(s, text)):
                where[s] = path
    return where


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    allowed = read_allowlist(sys.argv[1])
    secrets = input_runs(sys.argv[2])
    groups, group = [], []
    for arg in sys.argv[3:] + ["--"]:
        if arg == "--":
            if group:
                groups.append(group)
            group = []
        else:
            group.append(arg)
    found = [found_in(secrets, g, allowed) for g in groups]
    leaks = sorted(s for s in found[0] if all(s in f for f in found[1:]))
    for s in leaks:
        print(f"LEAK {' and '.join(f[s] for f in found)}: {s.decode('ascii')!r}")
    print(f"{len(secrets)} printable runs of >= {MIN_RUN} bytes in the payloads and metadata of "
          f"{sys.argv[2]}; {len(leaks)} found in the anonymized output "
          f"({len(groups)} keys)", file=sys.stderr)
    sys.exit(1 if leaks else 0)


if __name__ == "__main__":
    main()
