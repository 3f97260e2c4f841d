#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check_kfunc.py KFUNC_OUT DOUBLE_LOG

Checks what bpf_lnetcap_msg_payload() returned at each lnet_finalize()
(kfunc_selftest's output) against the bytes the LNet test double logged:
a sent message's payload as sent, a received one's as received, -ENODATA
for a dropped receive (no buffer), -EFAULT for a bad address, and the
right 8 bytes for a non-zero offset."""
import sys

BUF = 512
ENODATA, EFAULT = 61, 14


def fields(line):
    parts = line.split()
    f = {"hook": parts[0]}
    for p in parts[1:]:
        if "=" in p:
            k, v = p.split("=", 1)
            f[k] = v
    return f


def main():
    out_path, log_path = sys.argv[1], sys.argv[2]
    calls, bad_ret, off_ret, off_hex = {}, None, None, ""
    for line in open(out_path):
        p = line.split()
        if p[0] == "call":
            calls[int(p[1])] = (int(p[3]), p[4] if len(p) > 4 else "")
        elif p[0] == "bad_addr_ret":
            bad_ret = int(p[1])
        elif p[0] == "offset_ret":
            off_ret, off_hex = int(p[1]), (p[2] if len(p) > 2 else "")

    expect = []          # (what, ret, hex)
    state, sent = {}, {}  # msg id -> "rx"/"tx"; msg id -> (plen, payload hex)
    for line in open(log_path):
        f = fields(line)
        hook, msg = f["hook"], f.get("msg")
        if hook == "lnet_parse":
            state[msg] = "rx"
        elif hook == "lnet_ni_send":
            state[msg] = "tx"
            sent[msg] = (int(f["plen"]), f["payload"])
        elif hook == "lnet_finalize":
            what = line[:100].strip()
            if state.get(msg) == "rx":
                if f["rc"] == "0":
                    n = min(int(f["plen"]), BUF)
                    expect.append((what, n, f["payload"][: 2 * n]))
                else:
                    expect.append((what, -ENODATA, ""))
            elif msg in sent:
                plen, pay = sent[msg]
                n = min(plen, BUF)
                expect.append((what, n, pay[: 2 * n]))
            else:
                # Dropped in lnet_send before the LND: its bytes were never
                # logged, so only the call itself is checked.
                expect.append((what, None, None))

    bad = 0
    if len(calls) != len(expect):
        print(f"FAIL: {len(calls)} kfunc calls, {len(expect)} lnet_finalize calls logged")
        bad += 1
    for i, (what, ret, hexs) in enumerate(expect):
        got = calls.get(i)
        if got is None or ret is None:
            continue
        if got[0] != ret or got[1] != hexs:
            print(f"MISMATCH call {i}: got ret {got[0]}, expected {ret}: {what}")
            if got[0] == ret:
                print(f"  got      {got[1][:96]}\n  expected {hexs[:96]}")
            bad += 1
    if bad_ret != -EFAULT:
        print(f"FAIL: bad address gave {bad_ret}, expected {-EFAULT}")
        bad += 1
    first = expect[0][2] if expect else ""
    if off_ret != 8 or off_hex != first[16:32]:
        print(f"FAIL: offset 8 gave {off_ret} {off_hex}, expected 8 {first[16:32]}")
        bad += 1
    kinds = sum(1 for e in expect if e[1] is not None and e[1] > 0)
    print(f"check_kfunc: {len(expect)} finalize calls, {kinds} with payload bytes, "
          f"{bad} problem(s)")
    print("PASS" if bad == 0 else "FAIL")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
