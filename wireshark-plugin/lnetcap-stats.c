/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-stats.c - statistics fed by the "lnetcap" tap:
 *  - Service Response Time tables per Lustre service (OST, MDS, LDLM, MGS,
 *    ...), then one per target (the server NID a request went to), a row
 *    per PtlRPC opcode
 *    (tshark -z lnetcap,srt; GUI: Statistics > Service Response Time);
 *  - a stats_tree of LNet message types, portals, opcodes, statuses and
 *    NIDs (tshark -z lnetcap,tree; GUI: Statistics > LNetCap).
 */
#include <string.h>

#include <epan/packet.h>
#include <epan/srt_table.h>
#include <epan/stats_tree.h>
#include <epan/tap.h>

#include "packet-lnetcap.h"
#include "lnetcap-vals.h"

/* One SRT table per Lustre service, as NFS/SMB tables are per program or
 * version, then one per target.  Every table has the same rows, one per
 * known opcode and a last one for any other (lnetcap_opcode_row()), and
 * a service table only fills its own opcodes' rows; the row filter is
 * "lnetcap.ptlrpc.srt_row==<row>", the hidden field that row number is in.
 * (Rows indexed by the opcode value itself would make the row filter the
 * opcode, but a table of 1103 rows per service and target hung the 4.0 Qt
 * dialog, which hides and re-sorts every empty row one at a time.) */
typedef struct {
	const char *name;
	guint32 first, last;
} srt_service_t;

static const srt_service_t srt_services[] = {
	{ "OST", 0, 23 },
	{ "MDS", 33, 64 },
	{ "LDLM", 101, 112 },
	{ "MGS", 250, 256 },
	{ "OBD", 400, 403 },
	{ "LLOG", 501, 513 },
	{ "Quota", 600, 610 },
	{ "SEQ", 700, 700 },
	{ "SEC", 801, 803 },
	{ "FLD", 900, 902 },
	{ "OUT", 1000, 1000 },
	{ "LFSCK", 1101, 1102 },
};
#define SRT_OTHER G_N_ELEMENTS(srt_services)
#define SRT_ROW_FIELD "lnetcap.ptlrpc.srt_row"

/* A table with a row per known opcode and one for the others. */
static srt_stat_table *srt_new_table(GArray *srt_array, const char *name, const char *filter)
{
	const guint rows = lnetcap_opcode_row_count();
	srt_stat_table *t = init_srt_table(name, NULL, srt_array, (int)rows, "Opcode", filter, NULL);
	for (guint i = 0; i < rows; i++)
		init_srt_table_row(t, (int)i, lnetcap_opcode_row_name(i));
	return t;
}

static void srt_init(struct register_srt *srt, GArray *srt_array)
{
	for (guint k = 0; k < SRT_OTHER; k++)
		srt_new_table(srt_array, srt_services[k].name, SRT_ROW_FIELD);
	srt_new_table(srt_array, "Other", SRT_ROW_FIELD);
}

/* Per-target tables, added as targets appear, after the service tables.
 * A target is the NID the request went to, i.e. the reply's source: LNet
 * and PtlRPC name no MDT/OST index (only the connection knows it), so a
 * server NID stands for every target that server hosts.  tshark prints a
 * table's filter, not its name, so the filter names the target too; it is
 * a valid filter prefix, so the GUI's "Apply as Filter" on a row gives
 * lnetcap.nid=="10.0.3.1@tcp" && lnetcap.ptlrpc.srt_row==8, the requests
 * and replies of that opcode to and from that server.  A capture, however
 * crafted, gets at most SRT_MAX_TARGETS of them; later targets share
 * "Other targets". */
#define SRT_TARGET_NAME "Target "
#define SRT_OTHER_TARGETS "Other targets"
#define SRT_MAX_TARGETS 256

static srt_stat_table *srt_target_table(GArray *srt_array, const char *nid)
{
	srt_stat_table *t, *others = NULL;
	char *name, *filter;
	for (guint k = SRT_OTHER + 1; k < srt_array->len; k++) {
		t = g_array_index(srt_array, srt_stat_table *, k);
		if (g_str_has_prefix(t->name, SRT_TARGET_NAME) &&
		    strcmp(t->name + strlen(SRT_TARGET_NAME), nid) == 0)
			return t;
		if (strcmp(t->name, SRT_OTHER_TARGETS) == 0)
			others = t;
	}
	if (others)
		return others;
	if (srt_array->len - (SRT_OTHER + 1) >= SRT_MAX_TARGETS)
		return srt_new_table(srt_array, SRT_OTHER_TARGETS, SRT_ROW_FIELD);
	/* init_srt_table() copies the filter but keeps the name's pointer. */
	name = g_strdup_printf(SRT_TARGET_NAME "%s", nid);
	filter = g_strdup_printf("lnetcap.nid==\"%s\" && " SRT_ROW_FIELD, nid);
	t = srt_new_table(srt_array, g_intern_string(name), filter);
	g_free(name);
	g_free(filter);
	return t;
}

static guint srt_table_of(guint32 opc)
{
	for (guint k = 0; k < SRT_OTHER; k++)
		if (opc >= srt_services[k].first && opc <= srt_services[k].last)
			return k;
	return SRT_OTHER;
}

static tap_packet_status srt_packet(void *pss, packet_info *pinfo, epan_dissect_t *edt,
				    const void *prv, tap_flags_t flags)
{
	srt_data_t *data = (srt_data_t *)pss;
	const lnetcap_tap_info_t *ti = (const lnetcap_tap_info_t *)prv;
	const int row = (int)lnetcap_opcode_row(ti->opc);
	srt_stat_table *t;

	if (!ti->is_rpc || !ti->matched_reply)
		return TAP_PACKET_DONT_REDRAW;
	t = g_array_index(data->srt_array, srt_stat_table *, srt_table_of(ti->opc));
	add_srt_table_data(t, row, &ti->req_time, pinfo);
	if (ti->src_str) {
		t = srt_target_table(data->srt_array, ti->src_str);
		add_srt_table_data(t, row, &ti->req_time, pinfo);
	}
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
