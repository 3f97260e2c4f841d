#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Quick start: install, build, then run lnetcap's main job on a bundled
# sample: print every message and write them to a pcapng file.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
sample=samples/synthetic-rpcs.pcapng
[ -f samples/lustre-fs-part1.pcapng ] && sample=samples/lustre-fs-part1.pcapng
echo "== lnetcap -r $sample --print -w quickstart.pcapng"
build/capture/lnetcap -r "$sample" --print -w quickstart.pcapng
echo "== wrote quickstart.pcapng; open it with: wireshark quickstart.pcapng (plugin: docs/PLUGIN.md)"
