#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# checkout-tag.sh GIT_DIR TAG DEST
#
# Checks TAG of GIT_DIR (bare or not) out into DEST, tolerating a partial
# mirror: blobs the mirror lacks (a few test tarballs and images) are
# skipped instead of failing the checkout, and left as empty placeholders so
# that `make dist`-style file lists still find them.  DEST/.checkout-missing
# lists them.  Used by build-lustre.sh and build-zfs.sh.
set -euo pipefail
GIT_DIR_IN=${1:?usage: checkout-tag.sh GIT_DIR TAG DEST}
TAG=${2:?usage: checkout-tag.sh GIT_DIR TAG DEST}
DEST=${3:?usage: checkout-tag.sh GIT_DIR TAG DEST}
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A private index, so that nothing of the mirror's own state changes.
export GIT_INDEX_FILE=$tmp/index
git --git-dir="$GIT_DIR_IN" read-tree "$TAG"
git --git-dir="$GIT_DIR_IN" ls-files -s |
	while read -r _mode obj _stage path; do printf '%s %s\n' "$obj" "$path"; done >"$tmp/all"
cut -d' ' -f1 "$tmp/all" |
	git --git-dir="$GIT_DIR_IN" cat-file --batch-check='%(objectname) %(objecttype)' |
	paste -d' ' - "$tmp/all" |
	awk '$2 != "missing" { sub(/^[^ ]+ [^ ]+ [^ ]+ /, ""); print }' >"$tmp/present"
git --git-dir="$GIT_DIR_IN" --work-tree="$DEST" checkout-index --stdin <"$tmp/present"
comm -23 <(cut -d' ' -f2- "$tmp/all" | sort) <(sort "$tmp/present") >"$DEST/.checkout-missing"
while read -r path; do
	[ -n "$path" ] && [ ! -e "$DEST/$path" ] && mkdir -p "$DEST/$(dirname "$path")" && : >"$DEST/$path"
done <"$DEST/.checkout-missing"
exit 0
