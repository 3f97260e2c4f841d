#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs what is needed, builds, and runs the whole test suite with ctest.
# Extra arguments go to ctest (e.g. -L unit, -R cli).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir build --output-on-failure --timeout 1800 "$@"
