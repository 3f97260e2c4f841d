#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs what is needed, builds, and runs the test suite with ctest, in
# three stages (docs/FUZZING.md):
#   normal    build/ (RelWithDebInfo) and the whole suite
#   sanitize  build-asan/ (clang, ASan + UBSan, libFuzzer targets) and the
#             userland suite under the sanitizers: everything but the QEMU
#             kernel rig and packaging (see scripts/test-sanitize.sh)
#   fuzz      each fuzz target replays its seeds and regression inputs,
#             then fuzzes for 20 s (bounded runs, fixed seed)
# LNETCAP_TEST_STAGES picks stages ("normal sanitize fuzz" by default; only
# "normal" when arguments are given).  Extra arguments go to the normal
# stage's ctest (e.g. -L unit, -R cli; -LE system for the fast tier only:
# no kernel rig, packaging or GUI).
# The cases run in parallel: most of their time is spent waiting (on
# daemons, tshark, QEMU), so twice the cores keeps the machine busy; cases
# that share something (the QEMU rig) hold a RESOURCE_LOCK.  LNETCAP_TEST_JOBS
# overrides the number.
set -euo pipefail
cd "$(dirname "$0")/.."
if (($# > 0)); then stages=${LNETCAP_TEST_STAGES:-normal}; else stages=${LNETCAP_TEST_STAGES:-normal sanitize fuzz}; fi
for stage in $stages; do
  start=$SECONDS
  case $stage in
    normal)
      scripts/build.sh
      ctest --test-dir build --output-on-failure --timeout 1800 \
        -j "${LNETCAP_TEST_JOBS:-$(($(nproc) * 2))}" "$@"
      ;;
    sanitize|fuzz) scripts/test-sanitize.sh "$stage" ;;
    *) echo "test.sh: unknown stage '$stage' (normal, sanitize, fuzz)" >&2; exit 2 ;;
  esac
  echo "test.sh: stage $stage passed in $((SECONDS - start)) s"
done
