#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# selfcheck.sh BUILD_DIR JOBS CTEST-ARGS... - proves that every shell test
# case can fail (issue 23).
#
# Runs the selected cases (label "shell", narrowed by CTEST-ARGS) with
# LNETCAP_TEST_SELFCHECK=1, which makes tests/support/testlib.sh invert the
# first assertion of each case.  Each case must then fail, and fail *there*
# (its output names the inverted assertion): a case that passes has a
# failure path that is lost (a fail in a subshell, no counted assertion),
# and one that fails before its first assertion proved nothing.  Cases that
# skip for a missing prerequisite are listed, not counted.
set -uo pipefail
build=$1 jobs=$2
shift 2
src=$(cd "$(dirname "$0")/../.." && pwd)
TEST_CASE=meta.selfcheck
. "$src/tests/support/testlib.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/lnetcap-selfcheck.XXXXXX")
on_exit 'rm -rf "$work"'

# ctest's exit status is non-zero whenever a case failed, which is the
# point; the JUnit file says how each one ended and what it printed.
LNETCAP_TEST_SELFCHECK=1 ctest --test-dir "$build" -L shell -E '^meta\.' -j "$jobs" \
	--no-tests=error --output-junit "$work/run1.xml" "$@" >"$work/run1.log" 2>&1
# A case whose fixture's setup failed (as it must here: fuzz.seeds) is not
# run; run those again without their setup (-FS), on what the last normal
# run left.
python3 - "$work/run1.xml" >"$work/notrun.txt" <<'PY'
import sys, xml.etree.ElementTree as ET
for t in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    sk = t.find("skipped")
    if t.get("status") == "notrun" and (sk is None or "dependency" in (sk.get("message") or "")):
        print(t.get("name"))
PY
files=("$work/run1.xml")
if [ -s "$work/notrun.txt" ]; then
	regex="^($(sed 's/\./\\./g' "$work/notrun.txt" | paste -sd '|'))\$"
	LNETCAP_TEST_SELFCHECK=1 ctest --test-dir "$build" -R "$regex" -FS '.*' -FC '.*' -j "$jobs" \
		--output-junit "$work/run2.xml" >"$work/run2.log" 2>&1
	files+=("$work/run2.xml")
fi

# One line per case: proven, passed, early (failed before its first
# assertion), skipped or notrun; the last verdict of a case wins.
mkdir "$work/out"
python3 - "$work/out" "${files[@]}" >"$work/verdicts.txt" <<'PY'
import os, sys, xml.etree.ElementTree as ET
verdict = {}
for f in sys.argv[2:]:
    for t in ET.parse(f).getroot().iter("testcase"):
        out = (t.findtext("system-out") or "")
        status = t.get("status")
        if status == "run":
            v = "passed"
        elif status == "fail":
            v = "proven" if "(self-check: inverted)" in out else "early"
        elif t.find("skipped") is not None and "dependency" not in (t.find("skipped").get("message") or ""):
            v = "skipped"
        else:
            v = "notrun"
        verdict[t.get("name")] = v
        with open(os.path.join(sys.argv[1], t.get("name")), "w") as o:
            o.write(out)
for name in sorted(verdict):
    print(verdict[name], name)
PY
list() { sed -n "s/^$1 //p" "$work/verdicts.txt"; }
n() { list "$1" | grep -c .; }
echo "self-check: $(n proven) cases failed at their inverted assertion, $(n passed) passed," \
	"$(n early) failed before it, $(n skipped) skipped, $(n notrun) not run"
for v in skipped notrun; do
	[ "$(n $v)" = 0 ] || { echo "$v here (prerequisite missing, not proven):"; list $v | sed 's/^/  /'; }
done
check "some shell cases ran ($(tail -3 "$work/run1.log" | tr '\n' ' '))" [ -s "$work/verdicts.txt" ]
for v in passed early; do
	[ "$(n $v)" = 0 ] && continue
	case $v in
	passed) echo "passed with their first assertion inverted, so they cannot fail:" ;;
	early) echo "failed before their first assertion (broken here, or an assertion missing):" ;;
	esac
	list $v | sed 's/^/  /'
	for t in $(list $v); do
		echo "---- $t (its output in this run, last lines)"
		tail -12 "$work/out/$t"
	done
done
expect_eq "shell cases that passed in self-check mode" "$(n passed)" 0
expect_eq "shell cases that failed before their first assertion" "$(n early)" 0
