#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# leak_test.sh BUILD SRC INPUT [daemon] - anonymize INPUT (a real capture:
# pcapng or a socklnd tcpdump) with `lnetcap --anonymize` (or, with
# "daemon", have lnetcapd replay it to a subscriber its config forces
# through the anonymizer), print the result with -v and -x, and let
# leak_check.py look for every printable run of the input in all three
# (tests/anon/leak-allowlist.txt: the reviewed exceptions).
set -uo pipefail
build=$1 src=$2 input=$3 how=${4:-lnetcap}
TEST_CASE="anon.leak $how $(basename "$input")"
. "$src/tests/support/testlib.sh"
lnetcap=$build/capture/lnetcap
[ -x "$lnetcap" ] || { echo "SKIP: $lnetcap not built"; exit 77; }
[ -f "$input" ] || { echo "SKIP: $input missing"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lnetcap-leak.XXXXXX")
on_exit "rm -rf '$tmp'"

if [ "$how" = daemon ]; then
	lnetcapd=$build/capture/lnetcapd
	[ -x "$lnetcapd" ] || { echo "SKIP: $lnetcapd not built"; exit 77; }
fi
forced_user=${LNETCAP_LEAK_FORCED_USER:-$(id -un)}  # another user: the daemon test must fail

# anonymize K: INPUT anonymized with key file K.key into K.pcapng, printed
# into K.v.txt and K.x.txt.  Fixed keys keep the test the same on every run.
anonymize() {
	local k=$1
	printf 'lnetcap leak test key %s, fixed\n' "$k" >"$tmp/$k.key"
	if [ "$how" = daemon ]; then
		printf '[subscribers]\nanonymize-users = %s\nanonymize-key = %s\n' "$forced_user" "$tmp/$k.key" >"$tmp/$k.conf"
		"$lnetcapd" --listen "ipc://$tmp/$k.sock" --group "$(id -gn)" -r "$input" --config "$tmp/$k.conf" \
			--wait-subscribers 1 2>"$tmp/$k.log" &
		local daemon=$!
		on_exit "kill $daemon"
		on_fail "cat '$tmp/$k.log'"
		wait_for_socket "$tmp/$k.sock" 10
		timeout 60 "$lnetcap" --from "ipc://$tmp/$k.sock" -w "$tmp/$k.pcapng" 2>"$tmp/err" ||
			fail "subscription failed: $(cat "$tmp/err")"
		wait "$daemon" || fail "lnetcapd exited $?"
	else
		"$lnetcap" -r "$input" -w "$tmp/$k.pcapng" --anon-key "$tmp/$k.key" 2>"$tmp/err" ||
			fail "lnetcap --anon-key failed: $(cat "$tmp/err")"
	fi
	"$lnetcap" -r "$tmp/$k.pcapng" -v >"$tmp/$k.v.txt" 2>"$tmp/err" || fail "lnetcap -v failed: $(cat "$tmp/err")"
	"$lnetcap" -r "$tmp/$k.pcapng" -x >"$tmp/$k.x.txt" 2>"$tmp/err" || fail "lnetcap -x failed: $(cat "$tmp/err")"
}
# Two keys: a run counts as leaked only when both outputs hold it (a keyed
# pseudonym spelling a short input run by chance does so under one key).
anonymize a
anonymize b
rc=0
python3 "$src/tests/anon/leak_check.py" "$src/tests/anon/leak-allowlist.txt" "$input" \
	"$tmp/a.pcapng" "$tmp/a.v.txt" "$tmp/a.x.txt" -- "$tmp/b.pcapng" "$tmp/b.v.txt" "$tmp/b.x.txt" || rc=$?
check "no printable run of $(basename "$input") survives anonymization" test "$rc" = 0
# What the caller knows was in the capture without being a printable run of
# it (LEAK_KNOWN, words: the nodes' addresses, which a socklnd capture holds
# only in binary IP headers, the file system's target names): absent from
# every output in any spelling lnetcap prints.
for known in ${LEAK_KNOWN:-}; do
	for out in "$tmp"/a.pcapng "$tmp"/a.v.txt "$tmp"/a.x.txt; do
		! grep -qaF -- "$known" "$out" || fail "'$known' is in $(basename "$out")"
	done
done
[ "$how" != daemon ] || contains "$tmp/a.log" "anonymized by anonymize-users"
