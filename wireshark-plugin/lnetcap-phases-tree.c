/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-phases-tree.c - the RPC phases in the GUI: Statistics > LNetCap >
 * RPC phases, a stats_tree of count, average, min and max of each phase per
 * opcode, in ms (lnetcap-phases.h).  Percentiles are -z lnetcap,phases'
 * (tshark only: Wireshark 4.0 has no dialog a plugin can fill at the end).
 *
 * A stats_tree counts as the packets go by, so each RPC's phases are taken
 * with its pair's offset at that moment: final when Wireshark fills the
 * dialog (it reads the file again after loading it) and in tshark -2, not in
 * one-pass tshark, where the tree says so and counts nothing.
 */
#include <epan/packet.h>
#include <epan/stats_tree.h>

#include "lnetcap-phases.h"
#include "lnetcap-vals.h"
#include "packet-lnetcap.h"

static int st_root = -1;

static void phases_tree_init(stats_tree *st)
{
	st_root = stats_tree_create_node(st, "RPC phases by opcode (ms)", 0, STAT_DT_INT, TRUE);
}

static void add_ms(stats_tree *st, const char *name, int parent, guint64 ns)
{
	avg_stat_node_add_value_float(st, name, parent, FALSE, (gfloat)((double)ns / 1e6));
}

static tap_packet_status phases_tree_packet(stats_tree *st, packet_info *pinfo,
					    epan_dissect_t *edt _U_, const void *p,
					    tap_flags_t flags _U_)
{
	const lnetcap_tap_info_t *ti = (const lnetcap_tap_info_t *)p;
	lnetcap_phases_t ph;
	int op;

	if (!ti->phase_done)
		return TAP_PACKET_DONT_REDRAW;
	if (!ti->phase_final) {
		tick_stat_node(st, "not counted: the clock offsets are final only after the "
			       "first pass (tshark -2)", st_root, FALSE);
		return TAP_PACKET_REDRAW;
	}
	lnetcap_phase_split(ti->phase_done, &ph);
	op = tick_stat_node(st, lnetcap_opcode_name(pinfo->pool, ti->phase_done->opc), st_root, TRUE);
	if (ph.has_queue)
		add_ms(st, "client queue", op, ph.client_queue);
	add_ms(st, "request transit", op, ph.request_transit);
	add_ms(st, "server", op, ph.server);
	if (ph.has_bulk)
		add_ms(st, "bulk", op, ph.bulk);
	add_ms(st, "reply transit", op, ph.reply_transit);
	return TAP_PACKET_REDRAW;
}

void lnetcap_register_phases_tree(void)
{
	stats_tree_register_plugin("lnetcap", "lnetcap.phases", "LNetCap/RPC phases", 0,
				   phases_tree_packet, phases_tree_init, NULL);
}
