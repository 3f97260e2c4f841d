#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# install-deps.sh [TIER...] - installs the Debian 12 packages of the tiers
# named (build, plugin, test; see scripts/apt-packages.txt), or of every
# tier without arguments.  Safe to run repeatedly; skips apt when everything
# is already installed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
list=$here/apt-packages.txt
known=$(sed -n 's/^\[\([a-z-]*\)\]\s*$/\1/p' "$list")
tiers=("$@")
((${#tiers[@]})) || mapfile -t tiers <<<"$known"
for t in "${tiers[@]}"; do
  grep -qx -- "$t" <<<"$known" || {
    echo "install-deps: unknown tier '$t' (tiers: $(echo $known))" >&2
    exit 2
  }
done
# The packages of the requested tiers: lines under a matching [tier] header.
mapfile -t pkgs < <(awk -v want=" ${tiers[*]} " '
  /^\s*#/ || /^\s*$/ { next }
  /^\[/ { tier = substr($0, 2, index($0, "]") - 2); next }
  index(want, " " tier " ") { print $1 }' "$list")
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#pkgs[@]} packages of ${tiers[*]} present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps (${tiers[*]}): installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer for it.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo debconf-set-selections
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
