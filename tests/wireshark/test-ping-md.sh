# SPDX-License-Identifier: GPL-2.0-or-later
# Lustre 2.17's NID metadata trailer of ping infos (lnetcap.ping.md), on the
# records of gen_vectors.cpp ping_md_records():
#  1 LARGE_ADDR + METADATA (the trailer after the large list); 2 nid4 +
#  METADATA, 0x5a buffers; 3 the same cut by the snap length inside the
#  second entry; 4 a count of 0xffffffff behind one entry.
"$LNETCAP_VECTORS" "$WORK/ping-md.pcapng" ping-md || fail "vector generator failed"
chmod a+r "$WORK/ping-md.pcapng"
v="$WORK/ping-md.pcapng"

ts -r "$v" -T fields -E separator='|' -E occurrence=a -E aggregator=, \
	-e frame.number -e lnetcap.ping.nnis -e lnetcap.ping.ni.nid -e lnetcap.ping.ni.status \
	-e lnetcap.ping.md.count -e lnetcap.ping.md.nid -e lnetcap.ping.md.buffer \
	-e lnetcap.rec.truncated -e _ws.col.Info -e _ws.expert.message \
	| golden ping-md.txt
expect_count "$v" "lnetcap.ping.md" 4
expect_count "$v" "lnetcap.ping.md.count.bad" 1
# 10.0.0.6@efa's entry is whole in frame 2 only (3 cut it).
expect_count "$v" 'lnetcap.ping.md.nid == "10.0.0.6@efa"' 1
expect_count "$v" 'lnetcap.ping.ni.nid == "fe80::5@tcp1"' 1
# Frame 4 is malformed by our warning, never by an exception.
expect_count "$v" "_ws.malformed" 1
expect_count "$v" "_ws.malformed && !lnetcap.ping.md.count.bad" 0
