#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh - the fuzz tests' driver (tests/fuzz/CMakeLists.txt sets the
# environment; scripts/fuzz.sh uses it for long runs).
#
#   run.sh seeds               build the seed corpora in $LNETCAP_FUZZ_WORK/seeds
#   run.sh check TARGET BINARY replay the seeds and every regression input;
#                              with libFuzzer, then fuzz for a bounded time
#
# Fuzzing is bounded by LNETCAP_FUZZ_SECONDS (default 20) and
# LNETCAP_FUZZ_RUNS (default 500000) with a fixed -seed (LNETCAP_FUZZ_SEED,
# default 1), so CI replays the same mutations each time, up to the clock.
# New inputs go to LNETCAP_FUZZ_CORPUS (default a scratch dir, emptied
# first); a failing input is written to $LNETCAP_FUZZ_WORK/artifacts/TARGET/.
set -u -o pipefail
src=${LNETCAP_SOURCE_DIR:?}
work=${LNETCAP_FUZZ_WORK:?}
here=$src/tests/fuzz

TEST_CASE="fuzz ${2:-${1:-}}"
. "$src/tests/support/testlib.sh"

make_seeds() {
	mkdir -p "$work/seeds" || fail "cannot create $work/seeds"
	local inputs=("$src"/samples/*.pcapng)
	check "plugin test vectors" "$LNETCAP_VECTORS" "$work/seeds/vectors.pcapng" >/dev/null
	inputs+=("$work/seeds/vectors.pcapng")
	# FLD, quota and OUT_UPDATE/MDS_BATCH bodies and 2.17 ping NID
	# metadata, which the above lack.
	for m in fld quota out ping-md; do
		"$LNETCAP_VECTORS" "$work/seeds/vectors-$m.pcapng" "$m" >/dev/null || fail "plugin test vectors ($m)"
		inputs+=("$work/seeds/vectors-$m.pcapng")
	done
	local corpus=$src/tests/data/corpus
	if ls "$corpus"/*.pcap >/dev/null 2>&1; then
		inputs+=("$corpus"/*.pcap)
	else
		echo "note: no $corpus/*.pcap: socklnd seeds come from no real capture" >&2
	fi
	"$LNETCAP_MAKE_SEEDS" "$work/seeds" "${inputs[@]}" || fail "make_seeds"
	# Every target needs at least one seed, even without the shared corpus.
	[ -n "$(ls "$work/seeds/socklnd")" ] || printf '\0' > "$work/seeds/socklnd/empty"
	# The subscription protocol's seeds, spelled out field by field.
	python3 "$here/subscribe_seeds.py" "$work/seeds/subscribe" || fail "subscribe_seeds.py"
}

# Seed and regression directories of a target.
inputs_of() {
	local t=$1
	case $t in
	pcapng|record|socklnd|subscribe) echo "$work/seeds/$t" ;;
	plugin) echo "$work/seeds/record" ;;
	esac
	[ -d "$here/seeds/$t" ] && echo "$here/seeds/$t"
	echo "$here/regressions/$t"
}

check_target() {
	local t=$1 bin=$2 dirs n rc=0
	mapfile -t dirs < <(inputs_of "$t")
	for d in "${dirs[@]}"; do [ -d "$d" ] || fail "$d is missing (did fuzz.seeds run?)"; done
	n=$(find "${dirs[@]}" -type f | wc -l)
	export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:halt_on_error=1}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
	if [ "${LNETCAP_FUZZ_ENGINE:-replay}" != libfuzzer ]; then
		check "fuzz_$t on its $n inputs (run it on each of ${dirs[*]})" "$bin" "${dirs[@]}"
		echo "ok: fuzz_$t replayed $n seed and regression inputs (no libFuzzer in this build)"
		return
	fi
	local secs=${LNETCAP_FUZZ_SECONDS:-20} runs=${LNETCAP_FUZZ_RUNS:-500000}
	local corpus=${LNETCAP_FUZZ_CORPUS:-$work/scratch/$t}
	local artifacts=$work/artifacts/$t/
	[ -n "${LNETCAP_FUZZ_CORPUS:-}" ] || rm -rf "$corpus"
	mkdir -p "$corpus" "$artifacts"
	local opts=(-seed="${LNETCAP_FUZZ_SEED:-1}" -max_total_time="$secs" -runs="$runs"
		-timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifacts" -print_final_stats=1)
	# shellcheck disable=SC2206 # scripts/fuzz.sh passes extra options as words
	opts+=(${LNETCAP_FUZZ_EXTRA:-})
	case $t in
	filter|format) opts+=(-max_len=512) ;;
	# 4 bytes a message: up to 1024 messages, as report_input.h allows 4096.
	report) opts+=(-max_len=4096) ;;
	# Wireshark keeps per-capture state (wmem file scope) on purpose and
	# frees nothing at exit.
	plugin) opts+=(-detect_leaks=0); ASAN_OPTIONS+=:detect_leaks=0 ;;
	esac
	# The first directory receives the inputs that add coverage; the others
	# (seeds, regressions) are only read, and each of their files is run once
	# before fuzzing starts.
	local log=$work/fuzz-$t.log
	"$bin" "${opts[@]}" "$corpus" "${dirs[@]}" > "$log" 2>&1 || rc=$?
	[ "$rc" = 0 ] || tail -60 "$log" >&2
	local failing
	failing=$(ls -t "$artifacts" | head -1)
	expect_eq "exit status of fuzz_$t (a failing input: ${failing:+$artifacts$failing} - keep it in tests/fuzz/regressions/$t/ with the fix, docs/FUZZING.md)" \
		"$rc" 0
	grep -E '^(INITED|Done|stat::number_of_executed_units)' "$log" || true
	echo "ok: fuzz_$t replayed $n seed and regression inputs and fuzzed ${secs}s: no failure"
}

case ${1:-} in
seeds) make_seeds ;;
check) check_target "${2:?target}" "${3:?binary}" ;;
*) echo "usage: run.sh seeds | check TARGET BINARY" >&2; exit 2 ;;
esac
