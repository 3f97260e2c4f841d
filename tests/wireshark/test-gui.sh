# SPDX-License-Identifier: GPL-2.0-or-later
# GUI smoke test: the real Wireshark (Qt) under Xvfb, as an unprivileged
# user, with the plugin and the Lustre profile, on the converted real corpus
# (samples/lustre-fs-part1.pcapng).  Fails when Wireshark does not come up,
# dies, or prints any plugin/dissector warning or error on stderr, or when
# the profile's colouring rules do not colour the error reply, or when the
# SRT dialog leaves it busy.  Screenshots
# land in $LNETCAP_GUI_SHOTS when set (docs/PLUGIN.md's images came from it).
for c in wireshark Xvfb xdotool import convert; do
	command -v $c >/dev/null || skip "$c missing (apt-get install wireshark-qt xvfb xdotool imagemagick)"
done
fs=$(stage "$LNETCAP_SOURCE_DIR/samples/lustre-fs-part1.pcapng")
mkdir -p "$WORK/config/profiles" "$WORK/run"
cp -r "$LNETCAP_SOURCE_DIR/wireshark-plugin/profile/Lustre" "$WORK/config/profiles/"
chmod -R a+rwX "$WORK/config"
[ ${#RUNAS[@]} -eq 0 ] || chown lnetcap-test "$WORK/run"
chmod 700 "$WORK/run"

# A private X server on a free display.
exec 5> "$WORK/display"
Xvfb -displayfd 5 -screen 0 1280x800x24 -ac -nolisten tcp > "$WORK/xvfb.log" 2>&1 &
xvfb=$!
pids=("$xvfb")
on_exit 'kill "${pids[@]}"'
for _ in $(seq 50); do [ -s "$WORK/display" ] && break; sleep 0.2; done
export DISPLAY=":$(head -1 "$WORK/display")"
[ "$DISPLAY" != ":" ] || fail "Xvfb did not start: $(cat "$WORK/xvfb.log")"

# gui NAME ARGS...: starts Wireshark on the corpus (or on $gui_file), waits
# for its window, sizes it and takes a screenshot $WORK/NAME.png; leaves it
# running.
gui_file=$fs
gui() {
	local name=$1 win
	shift
	(cd "$WORK" && exec "${RUNAS[@]}" env -i PATH="$PATH" HOME="$WORK" TZ=UTC LC_ALL=C.UTF-8 \
		DISPLAY="$DISPLAY" XDG_RUNTIME_DIR="$WORK/run" \
		WIRESHARK_PLUGIN_DIR="$WORK/plugins" WIRESHARK_CONFIG_DIR="$WORK/config" \
		wireshark -C Lustre -r "$gui_file" "$@") > "$WORK/$name.out" 2> "$WORK/$name.err" &
	pids+=("$!")
	win=$(timeout 90 xdotool search --sync --name "^$(basename "$gui_file" .pcapng)" 2>/dev/null | head -1)
	[ -n "$win" ] || fail "Wireshark ($name) opened no window: $(tail -5 "$WORK/$name.err")"
	xdotool windowsize "$win" 1280 800 windowmove "$win" 0 0 2>/dev/null
	sleep 3
	# Select an item in the details pane, go to the last protocol (LDLM,
	# above LNetCap and PtlRPC), expand its subtrees (Shift+Right) and go
	# to its end (the layout of the open reply).
	[ "$name" = tree ] && xdotool mousemove 100 462 click 1 sleep 1 key End sleep 1 \
		key shift+Right sleep 1 key End 2>/dev/null && sleep 2
	# The merged capture: expand the LNetCap tree one level (the capturing
	# node, what it saw, the record and the links to the other nodes).
	[ "$name" = merged ] && xdotool mousemove 100 462 click 1 sleep 1 key Right 2>/dev/null &&
		sleep 2
	# The flow graph of the displayed frames: Statistics (menu at x 325)
	# > Flow Graph (its 17th item, y 436 on this 1280x800 screen), then
	# "Limit to display filter" and the flow type LNet (typed into the
	# opened combo box).
	if [ "$name" = flow ]; then
		xdotool mousemove 325 10 click 1 sleep 1.5 mousemove 356 436 click 1 2>/dev/null
		win=$(timeout 30 xdotool search --sync --name 'Wireshark · Flow · ' 2>/dev/null | head -1)
		[ -n "$win" ] || fail "Statistics > Flow Graph opened no dialog"
		sleep 3
		xdotool mousemove 18 585 click 1 sleep 1 mousemove 676 585 click 1 sleep 1 \
			type --delay 100 LNet 2>/dev/null
		xdotool key Return 2>/dev/null
		sleep 4
	fi
	import -window root "$WORK/$name.png" || fail "screenshot failed"
	kill -0 "${pids[-1]}" 2>/dev/null || fail "Wireshark ($name) died: $(tail -5 "$WORK/$name.err")"
	kill "${pids[-1]}"
	wait "${pids[-1]}" 2>/dev/null
	# Any warning or error about our plugin, a dissector or a filter is a failure
	# (Qt's own notices about the headless X server are not ours).
	if grep -Ei 'lnetcap|lustre|plugin|dissector|epan|filter|profile|colou?r' "$WORK/$name.err"; then
		fail "Wireshark ($name) warned about the plugin or profile (above)"
	fi
	[ -n "${LNETCAP_GUI_SHOTS:-}" ] && cp "$WORK/$name.png" "$LNETCAP_GUI_SHOTS/"
	return 0
}

# 1. The open reply (frame 69): PtlRPC tree with the DISP bits and the
#    file's LOV layout, expanded; XID/opcode/response-time columns.
gui tree -g 69
pass "Wireshark shows the corpus with the plugin and the Lustre profile"

# 2. Colouring rules in the packet list: the error reply (frame 12, -ENOENT)
#    must be drawn in the profile's pink (65535,40000,40000 = #FF9C9C); frame
#    1 is kept in the list so the selection highlight is not on frame 12.
gui colours -Y 'lnetcap.ptlrpc.status < 0 || frame.number == 1 || lnetcap.ptlrpc.bulk_of'
convert "$WORK/colours.png" -format %c histogram:info:- > "$WORK/colours.hist"
# Pixels of a colour: a row's background is about 1280 x 17 pixels (text
# in that colour would be a few hundred).
pixels() { awk -v c="$1" 'toupper($0) ~ c {sub(":", "", $1); n += $1} END {print n + 0}' "$WORK/colours.hist"; }
[ "$(pixels '#FF9C9C')" -gt 10000 ] || fail "no pink error-reply row in the GUI's packet list ($(pixels '#FF9C9C') pixels)"
[ "$(pixels '#C3EAFF')" -gt 50000 ] || fail "no light-blue bulk rows in the GUI's packet list ($(pixels '#C3EAFF') pixels)"
pass "error reply and bulk rows coloured by the Lustre profile in the GUI"

# 3. A capture merged from three nodes' files (samples/lnet-routed-3node.pcapng:
#    client 10.77.0.1@tcp, router 10.77.0.3@tcp, server 10.78.0.2@tcp1):
#    the profile's "Seen by" column names each record's node and what it saw,
#    the details the capturing node (frame 11, the router's FWD of a ping).
gui_file=$(stage "$LNETCAP_SOURCE_DIR/samples/lnet-routed-3node.pcapng")
gui merged -g 11 -Y 'frame.number <= 24'
pass "Wireshark shows the merged capture with the Seen by column"
#    Statistics > Flow Graph, type LNet, limited to one lctl ping across the
#    router and its reply (frames 7-12): 4 arrows, client -> router ->
#    server and back; the server's RECV and the client's RECV end hops the
#    FWDs drew.  All Flows would draw 6, between the end NIDs.  Each item's
#    row is drawn in its packet's colour (the profile's "LNet only" light
#    green, #EAFFEA): about 21,800 pixels per row (87,074 for the 4).
gui flow -Y 'frame.number >= 7 && frame.number <= 12'
convert "$WORK/flow.png" -format %c histogram:info:- > "$WORK/flow.hist"
hist=$WORK/flow.hist
green=$(awk -v c='#EAFFEA' 'toupper($0) ~ c {sub(":", "", $1); n += $1} END {print n + 0}' "$hist")
[ "$green" -gt 60000 ] && [ "$green" -lt 110000 ] ||
	fail "the LNet flow graph of frames 7-12 is not 4 rows ($green light-green pixels)"
pass "the LNet flow graph draws the routed ping hop by hop (4 items)"
gui_file=$fs

# 4. Statistics > Service Response Time > LNetCap (here through -z
#    lnetcap,srt): the dialog must fill and Wireshark come back to idle.
#    SRT tables of one row per opcode value (1103 rows each) made the 4.0
#    dialog hide and re-sort thousands of empty rows one at a time: it spun
#    for minutes with an empty dialog.  Rows are dense now (srt_row).
(cd "$WORK" && exec "${RUNAS[@]}" env -i PATH="$PATH" HOME="$WORK" TZ=UTC LC_ALL=C.UTF-8 \
	DISPLAY="$DISPLAY" XDG_RUNTIME_DIR="$WORK/run" \
	WIRESHARK_PLUGIN_DIR="$WORK/plugins" WIRESHARK_CONFIG_DIR="$WORK/config" \
	wireshark -C Lustre -r "$fs" -z lnetcap,srt) > "$WORK/srt.out" 2> "$WORK/srt.err" &
srt_job=$!
pids+=("$srt_job")
win=$(timeout 90 xdotool search --sync --name 'LNetCap Service Response Time' 2>/dev/null | head -1)
[ -n "$win" ] || fail "no SRT dialog: $(tail -5 "$WORK/srt.err")"
wpid=$(xdotool getwindowpid "$win")
[ -n "$wpid" ] && [ -r "/proc/$wpid/stat" ] || fail "cannot find Wireshark's process"
pids+=("$wpid")
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }  # user + system CPU, in clock ticks
hz=$(getconf CLK_TCK)
idle=0
# It settles in a few seconds; the old tables kept it busy about 100 s
# here (the dense row numbers themselves are checked by wireshark.srt).
for _ in $(seq 20); do  # up to about 40 s
	t0=$(ticks "$wpid") || fail "Wireshark died with the SRT dialog open: $(tail -5 "$WORK/srt.err")"
	sleep 2
	t1=$(ticks "$wpid") || fail "Wireshark died with the SRT dialog open: $(tail -5 "$WORK/srt.err")"
	# Idle: under a tenth of a CPU over those two seconds.
	if [ $((t1 - t0)) -lt $((hz / 5)) ]; then idle=1; break; fi
done
[ "$idle" = 1 ] || fail "Wireshark was still busy 40 s after opening the SRT dialog"
xdotool windowsize "$win" 900 700 windowmove "$win" 0 0 2>/dev/null
sleep 2
import -window root "$WORK/srt.png" || fail "screenshot failed"
kill "$wpid" 2>/dev/null
wait "$srt_job" 2>/dev/null
if grep -Ei 'lnetcap|lustre|plugin|dissector|epan|filter|profile|srt' "$WORK/srt.err"; then
	fail "Wireshark (SRT dialog) warned about the plugin (above)"
fi
[ -n "${LNETCAP_GUI_SHOTS:-}" ] && cp "$WORK/srt.png" "$LNETCAP_GUI_SHOTS/"
pass "the SRT dialog fills and Wireshark is idle again"
