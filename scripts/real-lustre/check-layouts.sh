#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# check-layouts.sh BUILD_DIR LUSTRE_GIT WORK TAG...
#
# For each TAG, builds Lustre's client modules for the rig's kernel
# (build-lustre.sh into WORK/TAG, reused when already built), reads the
# struct offsets lnetcap needs from the real lnet.ko's debuginfo (pahole
# --btf_encode_detached, then layout_dump), and prints them as a section
# of tests/real-lustre/layouts.txt.  It also says whether lnetcap's
# built-in table for that release agrees.  Paste the sections into
# layouts.txt; real_lustre.RealLayouts.* then checks the tables in every
# default test run.  Opt-in: each build takes ~40 min on 2 cores.
set -euo pipefail

BUILD=${1:?usage: check-layouts.sh BUILD_DIR LUSTRE_GIT WORK TAG...}
GIT=${2:?usage: check-layouts.sh BUILD_DIR LUSTRE_GIT WORK TAG...}
WORK=${3:?usage: check-layouts.sh BUILD_DIR LUSTRE_GIT WORK TAG...}
shift 3
[ $# -gt 0 ] || { echo "check-layouts: name at least one tag (v2_15_7 v2_16_1 v2_17_0)" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
DUMP=$BUILD/tests/real-lustre/layout_dump
[ -x "$DUMP" ] || { echo "check-layouts: $DUMP missing; run scripts/build.sh first" >&2; exit 2; }
command -v pahole >/dev/null || { echo "check-layouts: pahole missing (apt-get install pahole)" >&2; exit 2; }

status=0
for tag in "$@"; do
	dir=$WORK/$tag
	# Only lnet.ko matters here: some tags' utilities fail under gcc 12's
	# -Werror (2.15.8's liblnetconfig) after the modules have built.
	"$HERE/build-lustre.sh" "$GIT" "$tag" "$dir" >"$dir.build.log" 2>&1 ||
		echo "check-layouts: $tag did not build completely, see $dir.build.log" >&2
	ko=$(find "$dir/src" -name lnet.ko -not -path '*/.tmp*' 2>/dev/null | head -1)
	[ -n "$ko" ] || { echo "check-layouts: $tag built no lnet.ko" >&2; status=1; continue; }
	pahole --btf_encode_detached="$dir/lnet.btf" "$ko"
	version=${tag#v}; version=${version//_/.}
	echo "# $tag: lnet.ko built by scripts/real-lustre/build-lustre.sh for"
	echo "# Debian's $(dpkg-query -W -f='${Depends}' linux-headers-amd64 | cut -d' ' -f1) (x86_64),"
	echo "# read with $(pahole --version) --btf_encode_detached and layout_dump"
	echo "[$tag]"
	"$DUMP" "$dir/lnet.btf" | tee "$dir/layout.txt"
	if "$DUMP" --builtin "$version" | diff -u - "$dir/layout.txt" >&2; then
		echo "check-layouts: $tag agrees with the built-in table for $version" >&2
	else
		echo "check-layouts: $tag DIFFERS from the built-in table for $version (diff above)" >&2
		status=1
	fi
done
exit $status
