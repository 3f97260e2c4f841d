#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh TEST.sh - runs one tshark test of the lnetcap plugin.
#
# Sets up what every test needs and then sources TEST.sh:
#  - skips (exit 77, said loudly) without tshark or a built plugin;
#  - tshark loads plugins from WIRESHARK_PLUGIN_DIR only when it is NOT
#    privileged (root ignores it), so as root we run it as the system user
#    lnetcap-test (created if missing);
#  - a private work dir that user can read, a private config dir, TZ=UTC
#    and WIRESHARK_ABORT_ON_DISSECTOR_BUG=1 (a dissector bug aborts tshark).
# Tests call `ts ARGS...` for tshark, `fail MSG` and `pass MSG`, and the
# assertions of tests/support/testlib.sh (whose fail survives a pipeline's
# subshell, as in `... | golden FILE`).
set -u -o pipefail

test_script=$1
name=$(basename "$test_script" .sh)
TEST_CASE=wireshark.${name#test-}
. "$LNETCAP_SOURCE_DIR/tests/support/testlib.sh"
# pass MSG: the checks before it held.  It counts as an assertion, so the
# self-check (LNETCAP_TEST_SELFCHECK=1) proves a failure there is not lost.
pass() { _assert "$*" 0 && echo "ok: $*"; }

command -v tshark >/dev/null 2>&1 || skip "tshark is not installed (apt-get install tshark)"
plugin_so=$(ls "${LNETCAP_PLUGIN_DIR:-/nonexistent}"/*/epan/lnetcap.so 2>/dev/null | head -1)
[ -n "$plugin_so" ] || skip "plugin not built (LNETCAP_PLUGIN_DIR=${LNETCAP_PLUGIN_DIR:-unset}); install wireshark-dev"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/lnetcap-ws-$name.XXXXXX")
on_exit 'rm -rf "$WORK"'
chmod 755 "$WORK"
mkdir -p "$WORK/plugins" "$WORK/config"
cp -r "$(dirname "$(dirname "$(dirname "$plugin_so")")")"/. "$WORK/plugins/"

. "$LNETCAP_SOURCE_DIR/tests/support/tshark-user.sh"
lnetcap_tshark_user
[ ${#RUNAS[@]} -eq 0 ] || chown -R lnetcap-test "$WORK/config"
chmod -R a+rX "$WORK"

# Copy a file where the tshark user can read it; prints the new path.
stage() {
	local dest="$WORK/$(basename "$1")"
	cp "$1" "$dest" && chmod a+r "$dest" && echo "$dest"
}

ts_raw() {
	(cd "$WORK" && "${RUNAS[@]}" env -i PATH="$PATH" HOME="$WORK" TZ=UTC LC_ALL=C.UTF-8 \
		WIRESHARK_PLUGIN_DIR="$WORK/plugins" WIRESHARK_CONFIG_DIR="$WORK/config" \
		WIRESHARK_ABORT_ON_DISSECTOR_BUG=1 tshark "$@")
}
# tshark 4.2 and later print a boolean field as True/False with -T fields,
# 4.0 as 1/0 (the form the golden files and expectations hold): a display
# difference, not the plugin's, so it is mapped back here.
ts_bool_words=0
case $(tshark --version 2>/dev/null | sed -n '1s/.*(Wireshark) \([0-9]*\.[0-9]*\).*/\1/p') in
4.[0-1] | 3.*) ;;
*) ts_bool_words=1 ;;
esac
ts() {
	if [ "$ts_bool_words" = 1 ] && [[ " $* " == *" fields "* ]]; then
		ts_raw "$@" | sed -E ':a; s/(^|[\t|,])True([\t|,]|$)/\11\2/g; s/(^|[\t|,])False([\t|,]|$)/\10\2/g; ta'
	else
		ts_raw "$@"
	fi
}

# Compares stdin with a golden file; LNETCAP_UPDATE_GOLDEN=1 rewrites it.
golden() {
	local file="$LNETCAP_TEST_DIR/golden/$1"
	local got="$WORK/got-$1"
	cat > "$got"
	if [ "${LNETCAP_UPDATE_GOLDEN:-0}" = 1 ]; then
		{ sed -n '/^#/p' "$file" 2>/dev/null; grep -v '^#' "$got"; } > "$file.new"
		mv "$file.new" "$file"
		echo "updated $file"
		return 0
	fi
	[ -f "$file" ] || fail "golden file $file is missing"
	check "output equals golden/$1 (LNETCAP_UPDATE_GOLDEN=1 to accept)" diff -u <(grep -v '^#' "$file") "$got"
	pass "golden/$1"
}

# Number of frames matching a display filter in a file.
count() {
	ts -r "$1" -Y "$2" -T fields -e frame.number | wc -l
}

expect_count() {
	local n
	n=$(count "$1" "$2") || fail "tshark failed on filter '$2'"
	expect_eq "frames matching filter '$2'" "$n" "$3"
	pass "'$2' matches $3"
}

# expect_row N WANT WHAT: the test's own row() (its -T fields of frame N)
# must print WANT.
expect_row() {
	local got
	got=$(row "$1")
	expect_eq "frame $1 ($3)" "$got" "$2"
	pass "frame $1: $3"
}

vectors() {
	"$LNETCAP_VECTORS" "$WORK/vectors.pcapng" || fail "vector generator failed"
	chmod a+r "$WORK/vectors.pcapng"
	echo "$WORK/vectors.pcapng"
}

source "$test_script"
