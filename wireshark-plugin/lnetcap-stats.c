/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-stats.c - statistics fed by the "lnetcap" tap:
 *  - a Service Response Time table per PtlRPC opcode
 *    (tshark -z lnetcap,srt; GUI: Statistics > Service Response Time);
 *  - a stats_tree of LNet message types, portals, opcodes, statuses and
 *    NIDs (tshark -z lnetcap,tree; GUI: Statistics > LNetCap).
 */
#include <epan/packet.h>
#include <epan/srt_table.h>
#include <epan/stats_tree.h>
#include <epan/tap.h>

#include "packet-lnetcap.h"
#include "lnetcap-vals.h"

/* Opcodes are sparse (0..1102); the SRT rows are indexed by opcode so the
 * table's filter "lnetcap.ptlrpc.opc==%d" names the right rows. */
#define SRT_ROWS 1103

static void srt_init(struct register_srt *srt, GArray *srt_array)
{
	srt_stat_table *t = init_srt_table("PtlRPC", NULL, srt_array, SRT_ROWS, "Opcode",
					   "lnetcap.ptlrpc.opc", NULL);
	for (int i = 0; i < SRT_ROWS; i++) {
		const char *name = try_val_to_str_ext((guint32)i, &lnetcap_opcode_vals_ext);
		char buf[32];
		if (!name) {
			g_snprintf(buf, sizeof(buf), "opcode %d", i);
			name = buf;
		}
		init_srt_table_row(t, i, name);
	}
}

static tap_packet_status srt_packet(void *pss, packet_info *pinfo, epan_dissect_t *edt,
				    const void *prv, tap_flags_t flags)
{
	srt_data_t *data = (srt_data_t *)pss;
	const lnetcap_tap_info_t *ti = (const lnetcap_tap_info_t *)prv;
	srt_stat_table *t;

	if (!ti->is_rpc || !ti->matched_reply || ti->opc >= SRT_ROWS)
		return TAP_PACKET_DONT_REDRAW;
	t = g_array_index(data->srt_array, srt_stat_table *, 0);
	add_srt_table_data(t, (int)ti->opc, &ti->req_time, pinfo);
	return TAP_PACKET_REDRAW;
}

void lnetcap_register_stats(int proto)
{
	register_srt_table(proto, "lnetcap", 1, srt_packet, srt_init, NULL);
}

/* --- stats_tree --------------------------------------------------------------- */
static int st_types = -1, st_portals = -1, st_opcodes = -1, st_status = -1;
static int st_src = -1, st_dst = -1, st_jobid = -1, st_health = -1;

static void tree_init(stats_tree *st)
{
	st_types = stats_tree_create_node(st, "LNet message types", 0, STAT_DT_INT, TRUE);
	st_portals = stats_tree_create_node(st, "Portals (PUT and GET)", 0, STAT_DT_INT, TRUE);
	st_opcodes = stats_tree_create_node(st, "PtlRPC opcodes", 0, STAT_DT_INT, TRUE);
	st_status = stats_tree_create_node(st, "PtlRPC reply status", 0, STAT_DT_INT, TRUE);
	st_jobid = stats_tree_create_node(st, "PtlRPC job ids", 0, STAT_DT_INT, TRUE);
	st_src = stats_tree_create_node(st, "Source NIDs", 0, STAT_DT_INT, TRUE);
	st_dst = stats_tree_create_node(st, "Destination NIDs", 0, STAT_DT_INT, TRUE);
	st_health = stats_tree_create_node(st, "LNet health", 0, STAT_DT_INT, TRUE);
}

static tap_packet_status tree_packet(stats_tree *st, packet_info *pinfo, epan_dissect_t *edt,
				     const void *p, tap_flags_t flags)
{
	const lnetcap_tap_info_t *ti = (const lnetcap_tap_info_t *)p;

	tick_stat_node(st, val_to_str_const(ti->health, lnetcap_health_vals, "unknown"),
		       st_health, FALSE);
	if (!ti->src_str)
		return TAP_PACKET_REDRAW;
	tick_stat_node(st, val_to_str(ti->msg_type, lnetcap_msg_type_vals, "type %u"),
		       st_types, FALSE);
	if (ti->have_portal)
		tick_stat_node(st, val_to_str(ti->portal, lnetcap_portal_vals, "portal %u"),
			       st_portals, FALSE);
	tick_stat_node(st, ti->src_str, st_src, FALSE);
	tick_stat_node(st, ti->dst_str, st_dst, FALSE);
	if (ti->is_rpc) {
		int n = tick_stat_node(st, lnetcap_opcode_name(pinfo->pool, ti->opc), st_opcodes, TRUE);
		tick_stat_node(st, ti->early_reply ? "early reply" :
			       val_to_str_const(ti->pb_type, lnetcap_pb_type_vals, "other"), n, FALSE);
		if (ti->pb_type != 4711 /* request */)
			tick_stat_node(st, val_to_str((guint32)ti->status, lnetcap_status_vals, "%d"),
				       st_status, FALSE);
		if (ti->jobid)
			tick_stat_node(st, ti->jobid, st_jobid, FALSE);
	}
	return TAP_PACKET_REDRAW;
}

void lnetcap_register_stats_tree(void)
{
	stats_tree_register_plugin("lnetcap", "lnetcap", "LNetCap/Messages", 0,
				   tree_packet, tree_init, NULL);
}
