# SPDX-License-Identifier: GPL-2.0-or-later
# Names for NIDs in the plugin: lnet_nids in the personal configuration
# directory (or the preference lnetcap.nid_names_file), the lnetcap names
# file format, shown as lnetcap.lnet.src_name/dest_name only when network
# name resolution is on (tshark -N n), never with -n.
"$LNETCAP_VECTORS" routed "$WORK" || fail "routed vector generator failed"
chmod a+r "$WORK"/*.pcapng
c="$WORK/client.pcapng"
printf '# names\n10.0.1.1@tcp client1\n192.168.2.1 oss1 # any net\n10.0.1.254@tcp* rtr1\n' \
	> "$WORK/config/lnet_nids"
chmod a+r "$WORK/config/lnet_nids"

got=$(ts -r "$c" -N n -c 2 -T fields -e lnetcap.lnet.src_name -e lnetcap.lnet.dest_name | tr '\t\n' ' |')
[ "$got" = "client1@tcp oss1@o2ib|oss1@o2ib client1@tcp|" ] || fail "names with -N n: '$got'"
ts -r "$c" -N n -c 1 -V > "$WORK/v.txt" || fail "tshark failed"
grep -q "\[Source name: client1@tcp\]" "$WORK/v.txt" || fail "no source name in the tree"
pass "NIDs named from lnet_nids with network name resolution"

got=$(ts -r "$c" -n -c 2 -T fields -e lnetcap.lnet.src_name -e lnetcap.lnet.dest_name | tr -d '\t\n')
[ -z "$got" ] || fail "names shown with -n: '$got'"
got=$(ts -r "$c" -c 2 -T fields -e lnetcap.lnet.src_name | tr -d '\t\n')
[ -z "$got" ] || fail "names shown without network name resolution: '$got'"
pass "no names without network name resolution"

printf '10.0.1.1@tcp cli-other\n' > "$WORK/other"
chmod a+r "$WORK/other"
got=$(ts -r "$c" -N n -o "lnetcap.nid_names_file:$WORK/other" -c 1 -T fields -e lnetcap.lnet.src_name)
[ "$got" = "cli-other@tcp" ] || fail "preference nid_names_file not used: '$got'"
pass "preference lnetcap.nid_names_file"

# IP NIDs the names file does not name: Wireshark's own resolver (here the
# "hosts" file of the private configuration directory); the file still wins,
# and kfi/lo NIDs never go to it.
printf '10.0.1.1 client-hosts\n192.168.2.1 oss-hosts\n' > "$WORK/config/hosts"
chmod a+r "$WORK/config/hosts"
got=$(ts -r "$c" -N n -o "lnetcap.nid_names_file:$WORK/other" -c 2 -T fields \
	-e lnetcap.lnet.src_name -e lnetcap.lnet.dest_name | tr '\t\n' ' |')
[ "$got" = "cli-other@tcp oss-hosts@o2ib|oss-hosts@o2ib cli-other@tcp|" ] ||
	fail "names file then Wireshark's hosts file: '$got'"
got=$(ts -r "$c" -n -o "lnetcap.nid_names_file:$WORK/other" -c 2 -T fields -e lnetcap.lnet.dest_name | tr -d '\t\n')
[ -z "$got" ] || fail "hosts names shown with -n: '$got'"
pass "IP NIDs named by Wireshark's resolver (hosts file) after the names file"
rm -f "$WORK/config/hosts"
