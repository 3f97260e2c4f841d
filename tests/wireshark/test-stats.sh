# SPDX-License-Identifier: GPL-2.0-or-later
# Statistics over the generated vectors: the Service Response Time table
# per opcode (request time to final reply; early replies excluded), the
# stats_tree and the NID conversations/endpoints (custom address type).
v=$(vectors)
ts -q -r "$v" -z lnetcap,srt | golden vectors-srt.txt
ts -q -r "$v" -z lnetcap,tree | golden vectors-tree.txt
ts -q -r "$v" -z conv,lnetcap -z endpoints,lnetcap | golden vectors-conv.txt
# The Source/Destination columns carry NIDs.
out=$(ts -r "$v" -Y "frame.number == 37" -T fields -e _ws.col.Source -e _ws.col.Destination)
[ "$out" = "$(printf 'fe80::1@tcp\tfe80::2@tcp1')" ] || fail "address columns: '$out'"
pass "NID address type in the Source/Destination columns"
