#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fuzzes one target for longer than CI does (docs/FUZZING.md):
#   scripts/fuzz.sh TARGET [SECONDS] [extra libFuzzer options...]
# TARGET is pcapng, record, socklnd, filter, format or plugin; SECONDS
# defaults to 600.  Builds build-asan/ (clang, -DLNETCAP_FUZZ=ON) when
# needed, keeps what it learns in build-asan/tests/fuzz/corpus/TARGET (so
# the next run starts from there) and a failing input in
# build-asan/tests/fuzz/work/artifacts/TARGET/.  Runs at nice 10.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh TARGET [SECONDS] [libFuzzer options...]}
secs=${2:-600}
shift $(($# < 2 ? $# : 2))
build=build-asan
if ! grep -q '^LNETCAP_FUZZ:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DLNETCAP_FUZZ=ON >/dev/null
fi
cmake --build "$build" -j 2 --target "fuzz_$target" make_seeds lnetcap_ws_vectors
export LNETCAP_SOURCE_DIR=$PWD
export LNETCAP_MAKE_SEEDS=$PWD/$build/tests/fuzz/make_seeds
export LNETCAP_VECTORS=$PWD/$build/tests/wireshark/lnetcap_ws_vectors
export LNETCAP_FUZZ_WORK=$PWD/$build/tests/fuzz/work
export LNETCAP_FUZZ_ENGINE=libfuzzer
export LNETCAP_FUZZ_SECONDS=$secs
export LNETCAP_FUZZ_RUNS=${LNETCAP_FUZZ_RUNS:--1}   # no bound but the clock
export LNETCAP_FUZZ_SEED=${LNETCAP_FUZZ_SEED:-0}    # 0: a new seed each run
export LNETCAP_FUZZ_CORPUS=$PWD/$build/tests/fuzz/corpus/$target
export LNETCAP_FUZZ_EXTRA="$*"
[ -d "$LNETCAP_FUZZ_WORK/seeds/record" ] || tests/fuzz/run.sh seeds
exec nice -n 10 tests/fuzz/run.sh check "$target" "$PWD/$build/tests/fuzz/fuzz_$target"
