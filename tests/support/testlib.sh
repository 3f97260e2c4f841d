# SPDX-License-Identifier: GPL-2.0-or-later
# tests/support/testlib.sh - the one shell test library.  Source it first:
#   . "$src/tests/support/testlib.sh"   (TEST_CASE names the case in messages)
#
# Why a library: a failure must never be lost.  `fail` called on the right
# of a pipe, inside `$( )`, `( )` or a `while read` fed by a pipe runs in a
# subshell, where `exit 1` ends only that subshell.  So `fail` also writes
# its message to a file that the top-level shell's EXIT handler reads: if
# anything failed anywhere, the test exits 1, whatever its last command did.
# Cleanups go through `on_exit CMD` (the library owns the EXIT trap; a
# script's own `trap ... EXIT` would replace it - don't).
#
# on_fail CMD shows diagnostics (daemon logs) only when the test fails;
# fail_later MSG records a failure and goes on (to report every row of a
# table); no_failures_yet tells whether anything failed so far.
#
# Assertions (check, contains, lacks, expect_eq) count themselves; with
# LNETCAP_TEST_SELFCHECK=1 the first one is inverted, so every case must
# fail - tests/selfcheck (ctest meta.selfcheck) proves that each case can:
# a case with no counted assertion, or whose failure is lost, passes there.
#
# Waiting: wait_for SECS DESCRIPTION CMD... polls CMD every 0.1 s; the
# specialised waits below wrap it.  Never `sleep N` for an event.

: "${TEST_CASE:=$(basename "$0" .sh)}"
_testlib_top=$BASHPID
_testlib_fails=$(mktemp "${TMPDIR:-/tmp}/lnetcap-testlib.XXXXXX")
_testlib_cleanups=()
_testlib_on_fail=()
_testlib_asserts=0

_testlib_exit() {
	local rc=$? c
	[ "$BASHPID" = "$_testlib_top" ] || return "$rc"
	if [ -s "$_testlib_fails" ] || { [ "$rc" != 0 ] && [ "$rc" != 77 ]; }; then
		for c in "${_testlib_on_fail[@]}"; do eval "$c" >&2 2>/dev/null || true; done
	fi
	for c in "${_testlib_cleanups[@]}"; do eval "$c" >/dev/null 2>&1 || true; done
	if [ -s "$_testlib_fails" ]; then
		# A failure in a subshell: report it even if the script went on.
		[ "$rc" = 0 ] || [ "$rc" = 77 ] && {
			echo "FAIL [$TEST_CASE]: failures recorded on the way (fail_later, or fail in a pipe, \$( ) or ( )) count:" >&2
			sed 's/^/  /' "$_testlib_fails" >&2
		}
		rc=1
	fi
	rm -f "$_testlib_fails"
	exit "$rc"
}
trap _testlib_exit EXIT

# on_exit CMD: run CMD (a string, eval'd) when the test ends, in order.
on_exit() { _testlib_cleanups+=("$*"); }
# on_fail CMD: when the test fails, run CMD (before the cleanups) with its
# output on stderr - e.g. show the logs of the daemons it started.
on_fail() { _testlib_on_fail+=("$*"); }

# fail MSG: the test fails, even when called in a subshell.
fail() {
	echo "FAIL [$TEST_CASE]: $*" >&2
	echo "$*" >>"$_testlib_fails"
	exit 1
}
# fail_later MSG: the test fails when it ends, but goes on now (to report
# every difference of a table, say).
fail_later() {
	echo "FAIL [$TEST_CASE]: $*" >&2
	echo "$*" >>"$_testlib_fails"
}
# no_failures_yet: true while nothing has failed (fail_later included).
no_failures_yet() { [ ! -s "$_testlib_fails" ]; }
# skip MSG: the case cannot run here (ctest's SKIP_RETURN_CODE 77).
skip() {
	echo "SKIP [$TEST_CASE]: $*" >&2
	exit 77
}
need_cmd() { local c; for c; do command -v "$c" >/dev/null || skip "$c not installed"; done; }
need_file() { local f; for f; do [ -e "$f" ] || skip "$f missing"; done; }

# _assert DESCRIPTION RESULT: RESULT 0 = holds.  Self-check mode inverts the
# first assertion of the case.
_assert() {
	local what=$1 ok=$2
	_testlib_asserts=$((_testlib_asserts + 1))
	if [ "${LNETCAP_TEST_SELFCHECK:-0}" = 1 ] && [ "$_testlib_asserts" = 1 ]; then
		if [ "$ok" = 0 ]; then ok=1; else ok=0; fi
		what="(self-check: inverted) $what"
	fi
	[ "$ok" = 0 ] || fail "$what"
}
# check DESCRIPTION CMD...: CMD must succeed.
check() {
	local what=$1 rc=0
	shift
	"$@" || rc=1
	_assert "$what" "$rc"
}
# contains FILE TEXT / lacks FILE TEXT: fixed-string search in FILE.
contains() {
	local rc=0
	grep -qF -- "$2" "$1" 2>/dev/null || rc=1
	[ "$rc" = 0 ] || { echo "--- $1:" >&2; head -50 "$1" >&2 2>/dev/null; }
	_assert "'$2' not in $1" "$rc"
}
lacks() {
	local rc=0
	! grep -qF -- "$2" "$1" 2>/dev/null || rc=1
	_assert "'$2' unexpectedly in $1" "$rc"
}
# expect_eq WHAT GOT WANT
expect_eq() {
	local rc=0
	[ "$2" = "$3" ] || rc=1
	_assert "$1: got '$2', want '$3'" "$rc"
}

# wait_for SECS DESCRIPTION CMD...: poll CMD every 0.1 s until it succeeds;
# fail naming DESCRIPTION after SECS (scaled by LNETCAP_TEST_TIME_SCALE on
# slow or loaded machines).
wait_for() {
	local secs=$1 what=$2 deadline
	shift 2
	deadline=$(awk -v s="$secs" -v k="${LNETCAP_TEST_TIME_SCALE:-1}" \
		-v now="$(date +%s.%N)" 'BEGIN { printf "%.1f", now + s * k }')
	until "$@"; do
		awk -v d="$deadline" -v now="$(date +%s.%N)" 'BEGIN { exit !(now > d) }' &&
			fail "timed out after ${secs}s waiting for $what"
		sleep 0.1
	done
}
wait_for_file() { wait_for "${2:-30}" "file $1" test -e "$1"; }
wait_for_socket() { wait_for "${2:-30}" "socket $1" test -S "$1"; }
# wait_for_log FILE TEXT [SECS]: until FILE contains TEXT.
wait_for_log() { wait_for "${3:-30}" "'$2' in $1" grep -qF -- "$2" "$1"; }
# wait_for_exit PID [SECS]: until process PID (not necessarily our child) is gone.
wait_for_exit() { wait_for "${2:-30}" "process $1 to exit" _testlib_gone "$1"; }
_testlib_gone() { ! kill -0 "$1" 2>/dev/null; }
