#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# layers_can_fail.sh SRC - scripts/check-layers.sh catches an include across
# a layer: on a copy of capture/src where the filter layer includes the
# agent's app.h (an upward include), and one where the subscription
# protocol includes the daemon (a layer beside it, not below), it exits
# non-zero naming the file, the include and the rule.
set -uo pipefail
src=${1:?usage: layers_can_fail.sh SRC}
TEST_CASE=lint.layers-can-fail
. "$src/tests/support/testlib.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/lnetcap-layers.XXXXXX")
on_exit "rm -rf '$work'"

# break_copy FILE INCLUDE: a fresh copy of the tree with one forbidden include.
break_copy() {
	rm -rf "$work/src"
	cp -r "$src/capture/src" "$work/src" || fail "cannot copy capture/src"
	printf '#include "%s"\n' "$2" >>"$work/src/$1"
	line=$(wc -l <"$work/src/$1")
}

break_copy filter/filter.h ../app.h
"$src/scripts/check-layers.sh" "$work/src" >"$work/out" 2>&1
expect_eq "check-layers exit status with filter/filter.h including ../app.h" "$?" 1
contains "$work/out" "src/filter/filter.h:$line: includes \"../app.h\" (layer agent), but layer filter may include only: codec base"

break_copy subscribe/protocol.h ../daemon/daemon.h
"$src/scripts/check-layers.sh" "$work/src" >"$work/out" 2>&1
expect_eq "check-layers exit status with subscribe/protocol.h including the daemon" "$?" 1
contains "$work/out" "src/subscribe/protocol.h:$line: includes \"../daemon/daemon.h\" (layer daemon), but layer subscribe may include only: codec base"

# A new file must be placed in a layer.
break_copy record.h error.h
: >"$work/src/stray.cpp"
"$src/scripts/check-layers.sh" "$work/src" >"$work/out" 2>&1
expect_eq "check-layers exit status with a file in no layer" "$?" 1
contains "$work/out" 'src/stray.cpp: in no layer'
