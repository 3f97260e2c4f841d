#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# selfcheck.sh BUILD_DIR JOBS CTEST-ARGS... - proves that every shell test
# case can fail (issue 23).
#
# Runs the selected cases (label "shell", narrowed by CTEST-ARGS) with
# LNETCAP_TEST_SELFCHECK=1, which makes tests/support/testlib.sh invert the
# first assertion of each case: a case that still passes has a failure
# path that is lost (a fail in a subshell, an assertion that is never
# reached, a check outside the library).  Every case must exit non-zero;
# cases that skip for a missing prerequisite are listed, not counted.
set -uo pipefail
build=$1 jobs=$2
shift 2
src=$(cd "$(dirname "$0")/../.." && pwd)
TEST_CASE=meta.selfcheck
. "$src/tests/support/testlib.sh"
log=$(mktemp "${TMPDIR:-/tmp}/lnetcap-selfcheck.XXXXXX")
on_exit 'rm -f "$log"'

# The cases' own time limits stay: a case that hangs instead of failing is
# reported as a timeout, which counts as a failure of the case (non-zero),
# but is listed so that it can be made to fail fast.
LNETCAP_TEST_SELFCHECK=1 ctest --test-dir "$build" -L shell -E '^meta\.' -j "$jobs" \
	--no-tests=error "$@" >"$log" 2>&1
# ctest's exit status is non-zero whenever a case failed, which is the
# point; what matters is each case's line:
#   12/80 Test  #34: cli.version ..........   Passed    0.05 sec
parse() { sed -n "s/^ *[0-9]*\/[0-9]* Test *#[0-9]*: \([^ ]*\) .*$1.*/\1/p" "$log" | sort; }
# A case whose fixture's setup failed (as it must here: fuzz.seeds) is
# "Not Run"; run those again without their setup (-FS), on what the last
# normal run left.
not_run=$(parse 'Not Run')
if [ -n "$not_run" ]; then
	regex="^($(echo "$not_run" | sed 's/\./\\./g' | paste -sd '|'))\$"
	LNETCAP_TEST_SELFCHECK=1 ctest --test-dir "$build" -R "$regex" -FS '.*' -FC '.*' -j "$jobs" \
		>>"$log" 2>&1
fi
passed=$(parse ' Passed ')
failed=$(parse '\*\*\*Failed')
timeouts=$(parse '\*\*\*Timeout')
skipped=$(parse '\*\*\*Skipped')
not_run=$(comm -23 <(echo "$not_run") <(printf "%s\n" "$passed" "$failed" "$timeouts" "$skipped" | sort))
count() { [ -z "$1" ] && echo 0 || echo "$1" | wc -l; }
echo "self-check: $(count "$failed") cases failed as they must, $(count "$timeouts") timed out," \
	"$(count "$skipped") skipped, $(count "$passed") passed"
[ -z "$skipped" ] || { echo "skipped (prerequisite missing here, not proven):"; echo "$skipped" | sed 's/^/  /'; }
[ -z "$not_run" ] || { echo "not run (not proven):"; echo "$not_run" | sed 's/^/  /'; }
[ -z "$timeouts" ] || { echo "timed out instead of failing at once:"; echo "$timeouts" | sed 's/^/  /'; }
check "some shell cases ran ($(tail -3 "$log" | tr '\n' ' '))" [ -n "$failed$passed$timeouts" ]
if [ -n "$passed" ]; then
	echo "passed with their first assertion inverted, so they cannot fail:"
	echo "$passed" | sed 's/^/  /'
	for t in $passed; do
		echo "---- $t"
		LNETCAP_TEST_SELFCHECK=1 ctest --test-dir "$build" -R "^${t//./\\.}\$" --output-on-failure -V 2>&1 | tail -15
	done
fi
expect_eq "shell cases that passed in self-check mode" "$(count "$passed")" 0
