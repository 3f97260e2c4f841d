#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# report_seeds.py DIR - writes the fuzz_report seeds (tests/fuzz/seeds/report/)
# in the input language of report_input.h, one step per message.  Kept so a
# seed can be read and changed; the files it writes are committed.
# None holds a resent bulk RPC (a request reusing a pending XID with other
# pb_mbits): that the fuzzer finds on its own (docs/FUZZING.md).
import os
import sys

KIND = dict(request=0, reply=1, early=2, error=3, bulk_get=4, bulk_put=5, ack=6, forward=7,
            drop=8, duplicate=9, other_end=10, resend=11, outcome=12, ping=13, tick=14, nobody=15)
OPC = dict(ping=0, enqueue=1, getattr=2, write=3, read=4, close=5, cancel=6, unknown=7)
MBITS = dict(none=0, xid=1, bulk=2, other=3)
TIME = dict(equal=0, us=1, back_us=2, s=3)


def step(kind, mod=0, client=0, server=1, at_server=0, nid16=0, jobid=0, xid=0, mbits='none',
         opc='ping', time='us', amount=10):
    return bytes([KIND[kind] | mod << 4,
                  client | server << 2 | at_server << 4 | nid16 << 5 | jobid << 6,
                  xid | MBITS[mbits] << 3 | OPC[opc] << 5,
                  TIME[time] << 6 | amount])


def bounds(max_pending, arrows, labels):
    return bytes([(max_pending - 1) | (arrows // 4) << 3 | (labels - 1) << 6])


# tests/unit/report_messages.h rpc_scenario(): enqueue with an early reply,
# a second enqueue, an ENOENT error, an unanswered ping, an OST_WRITE whose
# reply comes back on pb_mbits after the bulk GET.
scenario = bounds(8, 28, 4) + b''.join([
    step('request', opc='enqueue', xid=0, jobid=1, time='us', amount=1),
    step('early', opc='enqueue', xid=0, amount=1),
    step('reply', opc='enqueue', xid=0, amount=1),
    step('request', opc='enqueue', xid=2, jobid=1, amount=10),
    step('reply', opc='enqueue', xid=2, amount=4),
    step('request', opc='getattr', xid=3, amount=6),
    step('error', mod=1, opc='getattr', xid=3, amount=1),
    step('request', opc='ping', xid=6, amount=9),
    step('request', opc='write', xid=7, mbits='bulk', amount=10),
    step('bulk_get', xid=7, mbits='bulk', amount=1),
    step('reply', mod=4, opc='write', xid=7, mbits='bulk', amount=7),
    step('tick'),
])

# Two nodes' captures merged, a router, LNet health: the other end of a
# request (one without pb_mbits: see above), duplicates, a forwarded reply, drops, a resend and its outcome,
# a multi-rail ping reply, a bulk PUT and its ACK, out-of-order and equal
# times, jobids that need escaping, a body cut by the snap length.
merged = bounds(2, 8, 1) + b''.join([
    step('request', mod=2, opc='close', client=2, server=3, xid=4, jobid=3),
    step('other_end', client=0),
    step('request', mod=6, opc='read', xid=1, mbits='bulk', jobid=2, nid16=1),
    step('bulk_put', mod=1, xid=1, mbits='bulk', time='equal'),
    step('ack', xid=1, mbits='bulk', at_server=1, time='back_us', amount=3),
    step('duplicate', client=0),
    step('forward', mod=3, opc='read', xid=1, mbits='bulk'),
    step('reply', opc='read', mod=4, xid=1, mbits='bulk', time='equal'),
    step('ping', mod=1, client=0, server=1),
    step('ping', mod=6, client=0, server=1, xid=5, time='s', amount=2),
    step('resend', mod=5, client=1),
    step('outcome', mod=3, client=1),
    step('drop', mod=10, client=0, xid=3),
    step('nobody', mod=3, opc='cancel', xid=5, client=1, server=0),
    step('tick'),
    step('request', opc='unknown', xid=6, jobid=2, time='back_us', amount=63),
    step('error', mod=6, opc='unknown', xid=6),
    step('tick'),
])

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'seeds', 'report')
for name, data in (('rpc-scenario', scenario), ('merged-nodes-router-health', merged)):
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data)
