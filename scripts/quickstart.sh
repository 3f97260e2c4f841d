#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Quick start: install what building lnetcap and its Wireshark plugin needs
# (the build and plugin tiers of scripts/apt-packages.txt, not the test
# tools), build just those two, then run lnetcap's main job on a bundled
# sample: print every message and write them to a pcapng file.
# scripts/build.sh and scripts/test.sh install and build everything.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build plugin
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF \
  -DLNETCAP_BUILD_PLUGIN=ON "$@" >/dev/null
cmake --build build -j "$(nproc)" --target lnetcap lnetcap_plugin
sample=samples/synthetic-rpcs.pcapng
[ -f samples/lustre-fs-part1.pcapng ] && sample=samples/lustre-fs-part1.pcapng
echo "== lnetcap -r $sample --print -w quickstart.pcapng"
build/capture/lnetcap -r "$sample" --print -w quickstart.pcapng
echo "== wrote quickstart.pcapng; open it with: wireshark quickstart.pcapng (plugin: docs/PLUGIN.md)"
