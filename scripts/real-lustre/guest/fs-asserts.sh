#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The --assert worked examples of docs/REPORTS.md on a real file system
# (guest/fs.sh, node a, mount M1): each everyday command runs twice under
#   lnetcap --only-command --assert ... --summary -- COMMAND
# from the same starting state (its files made anew, the client's unused
# locks cancelled, the OST connection kept up: idle_timeout=0, else an
# idle import is torn down after 20 s and the next command starts with
# OST_CONNECT; no statahead, whose thread races the command for the
# lookups of ls -l), and both runs must cause exactly the RPCs of EXPECT:
# the requests by opcode, nothing else.  --only-command gives the
# command's session a jobid of its own (Lustre's jobid_var=session, set
# here for the examples and restored after), so pings, statfs and other
# processes cannot make the assertion flaky.
# Prints "example ok|FAIL LABEL run N: observed" lines; exits 1 on a FAIL.
set -u
M1=${M1:?} LNETCAP=${LNETCAP:?}
D=$M1/asserts
RUNS=${ASSERT_RUNS:-2}

# Requests each command causes on Lustre 2.16.1 (one MDT, one OST, a
# fresh lock state): opcode=count.  docs/REPORTS.md shows these runs.
declare -A EXPECT=(
	[touch]="LDLM_ENQUEUE=4 MDS_CLOSE=1 MDS_REINT=1 OST_SETATTR=1"
	[stat]="LDLM_ENQUEUE=4"
	[ls-l]="LDLM_ENQUEUE=11 MDS_CLOSE=1 MDS_READPAGE=1"
	[cat]="LDLM_ENQUEUE=4 MDS_CLOSE=1 OST_READ=1"
	[rm]="LDLM_ENQUEUE=4 MDS_REINT=1"
)
# What differs on Lustre 2.15.8 (measured the same way, run 20261129T113743,
# both attach modes, both runs): touch takes one LDLM_ENQUEUE fewer, cat one
# more (its OST extent lock).  Other releases are held to 2.16.1's.
case ${LUSTRE_VERSION:-} in
2.15.8)
	EXPECT[touch]="LDLM_ENQUEUE=3 MDS_CLOSE=1 MDS_REINT=1 OST_SETATTR=1"
	EXPECT[cat]="LDLM_ENQUEUE=5 MDS_CLOSE=1 OST_READ=1"
	;;
esac
declare -A COMMAND=(
	[touch]="touch $D/t"
	[stat]="stat $D/s"
	[ls-l]="ls -l $D/l"
	[cat]="cat $D/c"
	[rm]="rm $D/r"
)

# setup LABEL: the state each run of LABEL starts from.
setup() {
	case $1 in
	touch) rm -f "$D/t" ;;
	stat) touch "$D/s" ;;
	ls-l) mkdir -p "$D/l" && touch "$D/l/1" "$D/l/2" "$D/l/3" ;;
	cat) echo hello >"$D/c" ;;
	rm) touch "$D/r" ;;
	esac
	sync
	echo 3 >/proc/sys/vm/drop_caches
	lctl set_param -n 'ldlm.namespaces.*.lru_size=clear' >/dev/null
	sleep 1
}

# assertions LABEL: one --assert per expected opcode, and one on the total
# (so that an opcode not listed fails too).
assertions() {
	local kv total=0
	for kv in ${EXPECT[$1]}; do
		printf -- "--assert\ncount(rpc request and opcode %s) == %s\n" "${kv%=*}" "${kv#*=}"
		total=$((total + ${kv#*=}))
	done
	printf -- "--assert\ncount(rpc request) == %s\n" "$total"
}

# observed FILE: the requests by opcode from --summary's table (its
# "reqs" column found by name, one left of its header: "By opcode" is two
# words; the table gains columns).
observed() {
	sed -n '/^By opcode/,/^$/p' "$1" | awk '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == "reqs") c = i - 1; next }
		c && $c > 0 { printf "%s=%s ", $1, $c }'
}

old_var=$(lctl get_param -n jobid_var)
lctl set_param jobid_var=session >/dev/null
lctl set_param 'osc.*.idle_timeout=0' 'llite.*.statahead_max=0' >/dev/null
mkdir -p "$D"
# a write reconnects an OST import that went idle before idle_timeout=0
dd if=/dev/zero of="$D/warm" bs=4k count=1 conv=fsync status=none && rm -f "$D/warm"
bad=0
for label in touch stat ls-l cat rm; do
	mapfile -t args < <(assertions "$label")
	for run in $(seq 1 "$RUNS"); do
		setup "$label"
		out=/tmp/assert-$label-$run.txt
		# shellcheck disable=SC2086 # COMMAND is words on purpose
		"$LNETCAP" --only-command -q --summary "${args[@]}" -- ${COMMAND[$label]} >"$out" 2>&1
		rc=$?
		verdict=ok
		[ "$rc" = 0 ] || { verdict=FAIL; bad=1; }
		echo "example $verdict $label run $run (rc $rc): $(observed "$out")"
		grep -E '^lnetcap: (assert|--only-command|command)' "$out" | sed 's/^/  /'
	done
done
lctl set_param jobid_var="$old_var" >/dev/null
rm -rf "$D"
exit $bad
