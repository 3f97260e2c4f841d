# SPDX-License-Identifier: GPL-2.0-or-later
# Bounded fuzz run (well under a minute): tshark with the plugin over
# mutated copies of the vectors and samples (editcap -E), over records cut
# short (editcap -s), and over random records behind valid record headers,
# in two passes with the full tree (-2 -V).  It must never crash, abort
# (WIRESHARK_ABORT_ON_DISSECTOR_BUG) or hang.  tests/wireshark/fuzz-long.sh
# runs the same for longer.
ITER=${LNETCAP_FUZZ_ITER:-300}
SEED0=${LNETCAP_FUZZ_SEED:-1}
v=$(vectors)
inputs=("$v")
for s in synthetic-rpcs lustre-fs-part1; do
	[ -f "$LNETCAP_SOURCE_DIR/samples/$s.pcapng" ] && inputs+=("$(stage "$LNETCAP_SOURCE_DIR/samples/$s.pcapng")")
done
# The FLD, quota and OUT_UPDATE/MDS_BATCH vectors (lists with counts).
for m in fld quota out; do
	"$LNETCAP_VECTORS" "$WORK/$m.pcapng" "$m" || fail "$m vectors"
	chmod a+r "$WORK/$m.pcapng"
	inputs+=("$WORK/$m.pcapng")
done
command -v editcap >/dev/null && command -v mergecap >/dev/null || skip "editcap/mergecap missing"

"$LNETCAP_VECTORS" "$WORK/random.pcapng" random 2000 "$SEED0" || fail "random vectors"
chmod a+r "$WORK/random.pcapng"

run() {  # run FILE: tshark must exit 0 within 60 s
	local rc
	timeout 60 "${RUNAS[@]}" env -i PATH="$PATH" HOME="$WORK" TZ=UTC \
		WIRESHARK_PLUGIN_DIR="$WORK/plugins" WIRESHARK_CONFIG_DIR="$WORK/config" \
		WIRESHARK_ABORT_ON_DISSECTOR_BUG=1 tshark -2 -V -r "$1" > "$WORK/out.txt" 2> "$WORK/err.txt"
	rc=$?
	if [ $rc -ne 0 ]; then
		cp "$1" "${LNETCAP_FUZZ_KEEP:-$WORK}/fuzz-failure.pcapng" 2>/dev/null
		fail "tshark exited $rc on $(basename "$1") (seed $2): $(tail -3 "$WORK/err.txt")"
	fi
	# Exceptions inside our dissector show as "[Malformed Packet: LNetCap]":
	# the plugin checks lengths itself, so count them and require none.
	n=$(grep -c "Malformed Packet" "$WORK/out.txt" || true)
	malformed=$((malformed + n))
}

malformed=0
frames=0
batch=()
for ((i = 0; i < ITER; i++)); do
	in=${inputs[$((i % ${#inputs[@]}))]}
	out="$WORK/m$i.pcapng"
	if ((i % 4 == 3)); then
		editcap -s $((60 + (i * 37) % 400)) "$in" "$out" >/dev/null 2>&1 || fail "editcap -s"
	else
		editcap -E 0.05 --seed $((SEED0 + i)) "$in" "$out" >/dev/null 2>&1 || fail "editcap -E"
	fi
	batch+=("$out")
	if ((${#batch[@]} == 50 || i == ITER - 1)); then
		mergecap -a -w "$WORK/batch.pcapng" "${batch[@]}" || fail "mergecap"
		chmod a+r "$WORK/batch.pcapng"
		run "$WORK/batch.pcapng" "$SEED0+$i"
		frames=$((frames + $(capinfos -c -M "$WORK/batch.pcapng" | awk '/Number of packets/ {print $NF}')))
		rm -f "${batch[@]}"
		batch=()
	fi
done
run "$WORK/random.pcapng" "$SEED0"
frames=$((frames + 2000))
[ "$malformed" = 0 ] || fail "$malformed frames ended in an exception (Malformed Packet)"
pass "$ITER mutated inputs + 2000 random records ($frames frames): no crash, abort, hang or exception"
