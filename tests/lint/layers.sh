#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# layers.sh SRC - capture/src keeps its layer boundaries
# (scripts/check-layers.sh, which the build also runs): the tree passes.
set -uo pipefail
src=${1:?usage: layers.sh SRC}
TEST_CASE=lint.layers
. "$src/tests/support/testlib.sh"
out=$("$src/scripts/check-layers.sh" "$src/capture/src" 2>&1)
rc=$?
[ -z "$out" ] || printf '%s\n' "$out" >&2
expect_eq "scripts/check-layers.sh on capture/src: exit status" "$rc" 0
