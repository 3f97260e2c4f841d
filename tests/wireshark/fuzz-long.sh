#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Longer fuzz run of the Wireshark plugin (not part of ctest).
#   tests/wireshark/fuzz-long.sh BUILD_DIR [ROUNDS] [ITER_PER_ROUND]
# Each round uses new editcap/random seeds; a failing input is kept as
# ./fuzz-failure.pcapng.
set -u
build=${1:?usage: fuzz-long.sh BUILD_DIR [ROUNDS] [ITER]}
rounds=${2:-20}
iter=${3:-1000}
here=$(cd "$(dirname "$0")" && pwd)
export LNETCAP_PLUGIN_DIR=$build/wireshark-plugin/plugins
export LNETCAP_VECTORS=$build/tests/wireshark/lnetcap_ws_vectors
export LNETCAP_SOURCE_DIR=$(cd "$here/../.." && pwd)
export LNETCAP_TEST_DIR=$here
export LNETCAP_FUZZ_ITER=$iter
export LNETCAP_FUZZ_KEEP=$PWD
for ((r = 0; r < rounds; r++)); do
	export LNETCAP_FUZZ_SEED=$((1000 + r * iter))
	echo "round $r (seed $LNETCAP_FUZZ_SEED)"
	"$here/run.sh" "$here/test-fuzz.sh" || exit 1
done
