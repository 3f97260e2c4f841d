/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-phases-table.c - tshark -z lnetcap,phases[,FILTER]: per PtlRPC
 * opcode, the count and min/p50/avg/p99/max of each phase of the RPCs both
 * ends saw (lnetcap-phases.h), then the clock offset of each client and
 * server, as `lnetcap --summary`'s "Latency split".
 *
 * The tap keeps the complete RPCs it is given (the record that completed
 * each; at most 262144 per file, the dissector's bound) and computes every
 * figure when tshark draws the table, after the whole file has been read:
 * each pair's clock offset is final then, so the table is exact with or
 * without -2.  Percentiles are nearest-rank (sorted[ceil(p/100*n)-1]), as
 * the summary's (capture/src/report/percentile.h).  A filter selects the
 * RPCs by their completing record; the offsets stay those of every RPC.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <epan/packet.h>
#include <epan/stat_tap_ui.h>
#include <epan/tap.h>

#include "lnetcap-phases.h"
#include "lnetcap-vals.h"
#include "packet-lnetcap.h"

#define CLI "lnetcap,phases"

enum { PH_QUEUE, PH_REQUEST, PH_SERVER, PH_BULK, PH_REPLY, PH_N };
static const char *const phase_names[PH_N] = { "queue", "request", "server", "bulk", "reply" };

typedef struct {
	GPtrArray *rpcs;   /* const lnetcap_phase_rpc_t *, file scope */
	char *filter;
} phases_tap_t;

/* One opcode's samples of each phase, in ns. */
typedef struct {
	guint32 opc;
	guint32 rpcs;
	GArray *v[PH_N];   /* guint64 */
} opcode_row_t;

static void phases_reset(void *p)
{
	g_ptr_array_set_size(((phases_tap_t *)p)->rpcs, 0);
}

static tap_packet_status phases_packet(void *p, packet_info *pinfo _U_, epan_dissect_t *edt _U_,
				       const void *data, tap_flags_t flags _U_)
{
	const lnetcap_tap_info_t *ti = (const lnetcap_tap_info_t *)data;
	if (!ti->phase_done)
		return TAP_PACKET_DONT_REDRAW;
	g_ptr_array_add(((phases_tap_t *)p)->rpcs, (gpointer)ti->phase_done);
	return TAP_PACKET_REDRAW;
}

static gint cmp_u64(gconstpointer a, gconstpointer b)
{
	const guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
	return x < y ? -1 : x > y;
}

static gint cmp_row(gconstpointer a, gconstpointer b)
{
	const opcode_row_t *x = *(opcode_row_t *const *)a, *y = *(opcode_row_t *const *)b;
	return x->opc < y->opc ? -1 : x->opc > y->opc;
}

/* Nearest rank: the smallest sample with at least p% of all at or below it. */
static guint64 nearest_rank(const GArray *sorted, guint p)
{
	guint64 n = sorted->len, rank = (p * n + 99) / 100;
	return g_array_index(sorted, guint64, rank ? rank - 1 : 0);
}

static void print_ms(guint64 ns)
{
	printf(" %12.6f", (double)ns / 1e6);
}

static void print_row(const char *opname, guint32 rpcs, const char *phase, GArray *v)
{
	guint64 sum = 0;
	printf("%-30s %7u  %-8s %7u", opname, rpcs, phase, v->len);
	if (v->len == 0) {
		printf("\n");
		return;
	}
	g_array_sort(v, cmp_u64);
	for (guint i = 0; i < v->len; i++)
		sum += g_array_index(v, guint64, i);
	print_ms(g_array_index(v, guint64, 0));
	print_ms(nearest_rank(v, 50));
	print_ms(sum / v->len);
	print_ms(nearest_rank(v, 99));
	print_ms(g_array_index(v, guint64, v->len - 1));
	printf("\n");
}

static gint cmp_pair(gconstpointer a, gconstpointer b)
{
	return strcmp((*(lnetcap_phase_pair_t *const *)a)->label,
		      (*(lnetcap_phase_pair_t *const *)b)->label);
}

static void collect_pair(gpointer key _U_, gpointer value, gpointer user)
{
	g_ptr_array_add((GPtrArray *)user, value);
}

static void print_offsets(void)
{
	GPtrArray *pairs = g_ptr_array_new();
	wmem_map_foreach(lnetcap_phase_pairs(), collect_pair, pairs);
	g_ptr_array_sort(pairs, cmp_pair);
	printf("Clock offsets (server clock minus client clock, ms; estimated so that no transit "
	       "is negative)\n");
	for (guint i = 0; i < pairs->len; i++) {
		const lnetcap_phase_pair_t *p = (const lnetcap_phase_pair_t *)g_ptr_array_index(pairs, i);
		printf("%-45s %+14.6f  from %u RPCs, within [%.6f, %.6f]%s\n", p->label,
		       (double)lnetcap_phase_offset(p) / 1e6, p->rpcs, (double)p->lo / 1e6,
		       (double)p->hi / 1e6,
		       p->one_clock ? " (one node, one clock)" : p->lo > p->hi ? " (empty: the clocks drifted)" : "");
	}
	g_ptr_array_free(pairs, TRUE);
}

static void phases_draw(void *p)
{
	phases_tap_t *t = (phases_tap_t *)p;
	GHashTable *by_opc = g_hash_table_new(g_direct_hash, g_direct_equal);
	GPtrArray *rows = g_ptr_array_new();

	for (guint i = 0; i < t->rpcs->len; i++) {
		const lnetcap_phase_rpc_t *r = (const lnetcap_phase_rpc_t *)g_ptr_array_index(t->rpcs, i);
		opcode_row_t *row = (opcode_row_t *)g_hash_table_lookup(by_opc, GUINT_TO_POINTER(r->opc));
		lnetcap_phases_t ph;
		if (!row) {
			row = g_new0(opcode_row_t, 1);
			row->opc = r->opc;
			for (int k = 0; k < PH_N; k++)
				row->v[k] = g_array_new(FALSE, FALSE, sizeof(guint64));
			g_hash_table_insert(by_opc, GUINT_TO_POINTER(r->opc), row);
			g_ptr_array_add(rows, row);
		}
		lnetcap_phase_split(r, &ph);
		row->rpcs++;
		if (ph.has_queue)
			g_array_append_val(row->v[PH_QUEUE], ph.client_queue);
		g_array_append_val(row->v[PH_REQUEST], ph.request_transit);
		g_array_append_val(row->v[PH_SERVER], ph.server);
		if (ph.has_bulk)
			g_array_append_val(row->v[PH_BULK], ph.bulk);
		g_array_append_val(row->v[PH_REPLY], ph.reply_transit);
	}
	g_ptr_array_sort(rows, cmp_row);

	printf("\n===================================================================================================================\n");
	printf("LNetCap RPC phases (RPCs seen by their client and their server; times in ms)\n");
	printf("Filter: %s\n", t->filter ? t->filter : "");
	printf("%-30s %7s  %-8s %7s %12s %12s %12s %12s %12s\n", "Opcode", "RPCs", "Phase", "Count",
	       "Min", "p50", "Avg", "p99", "Max");
	for (guint i = 0; i < rows->len; i++) {
		opcode_row_t *row = (opcode_row_t *)g_ptr_array_index(rows, i);
		/* Named as the summary names it: an unknown opcode is opc_N. */
		const char *known = try_val_to_str_ext(row->opc, &lnetcap_opcode_vals_ext);
		char name[64];
		g_snprintf(name, sizeof(name), "%s", known ? known : "");
		if (!known)
			g_snprintf(name, sizeof(name), "opc_%u", row->opc);
		for (int k = 0; k < PH_N; k++) {
			print_row(name, row->rpcs, phase_names[k], row->v[k]);
			g_array_free(row->v[k], TRUE);
		}
		g_free(row);
	}
	print_offsets();
	printf("===================================================================================================================\n");
	g_ptr_array_free(rows, TRUE);
	g_hash_table_destroy(by_opc);
}

static void phases_init(const char *opt_arg, void *userdata _U_)
{
	phases_tap_t *t = g_new0(phases_tap_t, 1);
	GString *err;

	if (strncmp(opt_arg, CLI ",", strlen(CLI ",")) == 0) {
		t->filter = g_strdup(opt_arg + strlen(CLI ","));
	} else if (strcmp(opt_arg, CLI) != 0) {  /* tshark matched a prefix only */
		fprintf(stderr, "tshark: -z %s: expected -z " CLI " or -z " CLI ",FILTER\n", opt_arg);
		exit(1);
	}
	t->rpcs = g_ptr_array_new();
	err = register_tap_listener("lnetcap", t, t->filter, TL_REQUIRES_NOTHING, phases_reset,
				    phases_packet, phases_draw, NULL);
	if (err) {
		fprintf(stderr, "tshark: -z " CLI ": %s\n", err->str);
		g_string_free(err, TRUE);
		exit(1);
	}
}

static stat_tap_ui phases_ui = {
	REGISTER_STAT_GROUP_GENERIC, NULL, CLI, phases_init, 0, NULL
};

void lnetcap_register_phases_table(void)
{
	register_stat_tap_ui(&phases_ui, NULL);
}
