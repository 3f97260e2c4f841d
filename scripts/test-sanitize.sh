#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The sanitizer and fuzz stages of scripts/test.sh, in build-asan/:
#   scripts/test-sanitize.sh sanitize   configure, build, run the suite
#   scripts/test-sanitize.sh fuzz       the fuzz targets' short runs
# build-asan is a clang build with -DLNETCAP_FUZZ=ON, which implies
# -DLNETCAP_SANITIZE=ON: every program, library and test is built with
# ASan + UBSan (the first error aborts), and the libFuzzer targets too.
# Not run under the sanitizers:
#  - rig: the QEMU kernel rig tests the BPF programs and the kernel double
#    in a guest; the user-space code they run is tested here already, and
#    under TCG emulation an ASan binary is several times slower again;
#  - packaging: it builds .deb/.rpm packages from the sources with the
#    distribution's flags, not this build.
# Among what it runs: the label report-modes (tests/reports/report_modes_test.sh),
# every report mode of lnetcap -r and lnetcapd's metrics over every capture in
# samples/ and tests/data/corpus/ and the fuzz_report inputs, failing on any
# sanitizer report (docs/FUZZING.md).
# The Wireshark plugin is loaded by tshark, which is not built with ASan,
# so in this build it keeps normal flags; fuzz_plugin checks it instead.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-asan
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:halt_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/sanitize/lsan.supp}
case ${1:-} in
  sanitize)
    scripts/install-deps.sh
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DLNETCAP_FUZZ=ON >/dev/null
    cmake --build "$build" -j "$(nproc)"
    ctest --test-dir "$build" --output-on-failure --timeout 1800 -j "$(($(nproc) * 2))" -LE '^(rig|packaging|fuzz|system|meta)$'
    ;;
  fuzz)
    ctest --test-dir "$build" --output-on-failure --timeout 600 -L '^fuzz$'
    ;;
  *) echo "usage: scripts/test-sanitize.sh sanitize|fuzz" >&2; exit 2 ;;
esac
