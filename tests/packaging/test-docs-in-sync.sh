#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# packaging.docs-in-sync: every long option `lnetcap -h` prints is documented
# in lnetcap(8) and completed by the bash completion, and the portal and
# opcode names the completion offers are ones lnetcap's filter accepts.
source "$(dirname "$0")/common.sh"
AGENT=${LNETCAP_AGENT:?}
MAN=$SRC/docs/lnetcap.8
COMP=$SRC/completion/lnetcap.bash

# Options are the ones -h defines at the start of a line ("  -r, --read FILE",
# "      --from URI"); an option of another program named in a description
# ("lnetcapd --gen-key") is not one of lnetcap's.
opts=$("$AGENT" -h 2>&1 | grep -oE -- '^ +(-[a-zA-Z], )?--[a-z][a-z-]+' | grep -oE -- '--[a-z][a-z-]+' | sort -u)
[ "$(echo "$opts" | wc -l)" -gt 20 ] || fail "lnetcap -h lists too few options: $opts"
missing_man="" missing_comp=""
for o in $opts; do
	# roff escapes the dashes: --read is written \-\-read.
	grep -qF -- "${o//-/\\-}" "$MAN" || missing_man+=" $o"
	grep -qE -- "(^|[[:space:]'|])$o([[:space:]'|=)]|$)" "$COMP" || missing_comp+=" $o"
done
[ -z "$missing_man" ] || fail "docs/lnetcap.8 does not document:$missing_man"
[ -z "$missing_comp" ] || fail "completion/lnetcap.bash does not complete:$missing_comp"
pass "$(echo "$opts" | wc -l) long options in the man page and the completion"

bash -n "$COMP" || fail "completion/lnetcap.bash: syntax error"
# Each name list the completion offers must be accepted by the filter.
words() { sed -n "/^        $1)/,/return ;;/p" "$COMP" | grep -oE '\b[A-Z][A-Z0-9_]+\b' | grep -vx COMPREPLY; }
for kind in portal opcode; do
	n=0
	for w in $(words $kind); do
		"$AGENT" -r "$SAMPLE" -c 1 "$kind $w" >/dev/null 2>"$LNETCAP_WORK_DIR.err" ||
			fail "completion offers '$kind $w', which lnetcap rejects: $(cat "$LNETCAP_WORK_DIR.err")"
		n=$((n + 1))
	done
	[ "$n" -gt 5 ] || fail "found only $n $kind names in the completion"
	pass "$n $kind names of the completion accepted by the filter"
done
rm -f "$LNETCAP_WORK_DIR.err"

# The completion works in bash: complete "lnetcap --wri" to --write.
if [ -r /usr/share/bash-completion/bash_completion ]; then
	got=$(bash -c 'source /usr/share/bash-completion/bash_completion; source "$1";
		COMP_WORDS=(lnetcap --wri); COMP_CWORD=1; COMP_LINE="lnetcap --wri"; COMP_POINT=${#COMP_LINE};
		_lnetcap lnetcap --wri lnetcap; echo "${COMPREPLY[*]}"' _ "$COMP")
	[ "$got" = "--write" ] || fail "completing 'lnetcap --wri' gave '$got'"
	pass "bash completes 'lnetcap --wri' to --write"
else
	echo "note: bash-completion is not installed; the completion was syntax-checked only"
fi
