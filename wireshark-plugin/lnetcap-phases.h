/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-phases.h - where the time of an RPC went, in a capture merged
 * from its client and its server: the client's LNet queue, the request's
 * transit, the server's time without its bulk phase, the bulk phase and the
 * reply's transit, with the definitions of `lnetcap --summary`'s "Latency
 * split" (capture/src/report/latency_split.cpp, docs/REPORTS.md), so that
 * the plugin and the summary agree on the same file.
 *
 * The clocks of the two nodes differ.  Per (client, server) pair the offset
 * theta = server clock - client clock must keep every transit of the RPCs
 * both ends saw non-negative:
 *   theta <= min(s_recv - c_send)  and  theta >= max(s_send - c_recv);
 * theta is the middle of that interval.  It takes every RPC of the pair, so
 * it is final only once the whole file has been read (first pass).
 */
#ifndef LNETCAP_PHASES_H
#define LNETCAP_PHASES_H

#include <glib.h>
#include <epan/wmem_scopes.h>

#include "lnetcap-nid.h"

/* One (client, server) pair: the interval theta must lie in, over the
 * pair's complete RPCs. */
typedef struct lnetcap_phase_pair {
	char label[2 * LNETCAP_NID_STRLEN + 8];  /* "CLIENT -> SERVER" */
	gint64 lo, hi;
	guint32 rpcs;
	gboolean one_clock;  /* client and server are one node (0@lo): offset 0 */
} lnetcap_phase_pair_t;

/* The four records' times (ns) of one RPC, as the summary keeps them. */
typedef struct lnetcap_phase_rpc {
	guint32 opc;
	guint8 client[20], server[20];   /* raw NIDs (lnetcap_nid_to_raw) */
	guint64 c_send, s_recv, s_send, c_recv;
	guint64 queue;                   /* the client SEND's LNet queue time */
	gboolean has_queue;
	guint64 bulk_first, bulk_last;   /* the server's bulk phase, its clock */
	guint32 c_recv_frame;            /* where the phases are shown */
	guint64 serial;                  /* creation order, for the pending bound */
	guint64 keys[2];                 /* match bits it is indexed under */
	guint32 nkeys;
	gboolean done;                   /* complete, and one of the samples */
	lnetcap_phase_pair_t *pair;      /* set once done */
} lnetcap_phase_rpc_t;

/* An RPC's phases (ns) for the final offset of its pair. */
typedef struct {
	gint64 clock_offset;
	guint64 client_queue, request_transit, server, bulk, reply_transit;
	gboolean has_queue, has_bulk;
} lnetcap_phases_t;

/* The middle of the pair's interval (the summary's "Clock offset"). */
gint64 lnetcap_phase_offset(const lnetcap_phase_pair_t *pair);
/* The phases of a complete RPC; a negative transit (clocks that drifted
 * so that the interval is empty) counts as 0, as in the summary. */
void lnetcap_phase_split(const lnetcap_phase_rpc_t *r, lnetcap_phases_t *out);
/* Every pair with a complete RPC: raw client+server NIDs -> pair (valid
 * until the file is closed). */
wmem_map_t *lnetcap_phase_pairs(void);

#endif /* LNETCAP_PHASES_H */
