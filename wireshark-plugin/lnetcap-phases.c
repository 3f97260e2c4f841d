/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lnetcap-phases.c - each RPC's phases in a capture merged from its client
 * and its server (lnetcap-phases.h): the lnetcap.phase.* fields on the
 * client's RECV of the reply, and the per-pair clock offset.
 *
 * The first pass follows the summary's LatencySplit::add() record by record
 * in file order (capture/src/report/latency_split.cpp; keep the two alike):
 * only SEND and RECV records that are neither outcomes nor resends take
 * part; a request is indexed per (client, server, match bits), and under
 * its pb_mbits too (replies on REP_MBITS); the same end seeing a request
 * again (a resend) starts the RPC afresh; the client's SEND gives c_send and
 * its queue time, the server's RECV s_recv, the server's SEND of the final
 * reply s_send, the client's RECV c_recv; the server's own bulk records give
 * its bulk phase, from its first GET/PUT sent to its last REPLY/ACK
 * received.  An RPC with all four times is complete, and its times bound
 * its pair's clock offset.  As in the summary, at most 65536 RPCs wait for
 * their other end (the oldest is forgotten) and 262144 complete ones count.
 *
 * The offset needs every RPC of the pair, so the fields appear only once
 * the first pass is over: in Wireshark, and in tshark with -2.  One-pass
 * tshark shows none rather than figures that later RPCs would change.
 */
#include <string.h>

#include <epan/packet.h>
#include <epan/proto_data.h>

#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/record.h"
#include "lnetcap-phases.h"
#include "lnetcap-tables.h"
#include "packet-lnetcap.h"

#define PHASE_PROTO_DATA_KEY 4          /* p_add_proto_data key of this file */
#define PHASE_MAX_PENDING (1u << 16)    /* LatencySplit::kMaxPending */
#define PHASE_MAX_SAMPLES (1u << 18)    /* LatencySplit::kMaxSamples */
#define NS_PER_S G_GUINT64_CONSTANT(1000000000)

static int hf_phase = -1;
static int hf_phase_offset = -1;
static int hf_phase_queue = -1;
static int hf_phase_request = -1;
static int hf_phase_server = -1;
static int hf_phase_bulk = -1;
static int hf_phase_reply = -1;
static int hf_phase_in = -1;
static gint ett_phase = -1;

typedef lnetcap_rpc_key_t phase_key_t;

typedef struct {
	guint8 client[20];
	guint8 server[20];
} pair_key_t;

/* What the first pass decided for one record. */
typedef struct {
	lnetcap_phase_rpc_t *rpc;
	gboolean done_here;   /* this record completed the RPC */
} phase_frame_t;

static wmem_map_t *by_key;     /* phase_key_t -> lnetcap_phase_rpc_t */
static wmem_map_t *pairs;      /* pair_key_t -> lnetcap_phase_pair_t */
static guint64 created;        /* RPCs created in this file */
static guint32 samples;        /* complete RPCs counted */


static guint pair_hash(gconstpointer k)
{
	const pair_key_t *key = (const pair_key_t *)k;
	guint h = 0;
	for (size_t i = 0; i < 20; i++)
		h = h * 31 + key->client[i] * 7 + key->server[i];
	return h;
}

static gboolean pair_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(pair_key_t)) == 0;
}

static void phases_init(void)
{
	created = 0;
	samples = 0;
}

static void make_key(phase_key_t *k, const guint8 *client, const guint8 *server, guint64 mbits)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->client, client, 20);
	memcpy(k->server, server, 20);
	k->mbits = mbits;
}

/* Removes the RPC's keys; only those still naming it unless all. */
static void forget(lnetcap_phase_rpc_t *r, gboolean all)
{
	for (guint32 i = 0; i < r->nkeys; i++) {
		phase_key_t k;
		make_key(&k, r->client, r->server, r->keys[i]);
		if (all || wmem_map_lookup(by_key, &k) == r)
			wmem_map_remove(by_key, &k);
	}
}

/* The waiting RPC under this key, or NULL.  One with PHASE_MAX_PENDING or
 * more RPCs created after it is forgotten, as the summary's queue of the
 * last kMaxPending RPCs created has dropped it. */
static lnetcap_phase_rpc_t *find(const phase_key_t *k)
{
	lnetcap_phase_rpc_t *r = (lnetcap_phase_rpc_t *)wmem_map_lookup(by_key, k);
	if (r && created - r->serial > PHASE_MAX_PENDING) {
		forget(r, FALSE);
		r = NULL;
	}
	return r;
}

static lnetcap_phase_rpc_t *create(const lnetcap_pkt_t *pkt, const guint8 *client,
				   const guint8 *server)
{
	lnetcap_phase_rpc_t *r = wmem_new0(wmem_file_scope(), lnetcap_phase_rpc_t);
	r->opc = pkt->rpc.opc;
	memcpy(r->client, client, 20);
	memcpy(r->server, server, 20);
	r->serial = created++;
	r->keys[r->nkeys++] = pkt->match_bits;
	if (pkt->rpc.pb_mbits && pkt->rpc.pb_mbits != pkt->match_bits)
		r->keys[r->nkeys++] = pkt->rpc.pb_mbits;
	for (guint32 i = 0; i < r->nkeys; i++) {
		phase_key_t k;
		make_key(&k, client, server, r->keys[i]);
		lnetcap_table_insert(by_key, &k, sizeof(k), r);
	}
	return r;
}

static lnetcap_phase_pair_t *pair_of(const lnetcap_phase_rpc_t *r)
{
	pair_key_t k;
	lnetcap_phase_pair_t *p;
	lnetcap_nid_t nid;
	char c[LNETCAP_NID_STRLEN], s[LNETCAP_NID_STRLEN];

	memcpy(k.client, r->client, 20);
	memcpy(k.server, r->server, 20);
	p = (lnetcap_phase_pair_t *)wmem_map_lookup(pairs, &k);
	if (p)
		return p;
	p = wmem_new0(wmem_file_scope(), lnetcap_phase_pair_t);
	p->lo = G_MININT64;
	p->hi = G_MAXINT64;
	p->one_clock = memcmp(r->client, r->server, sizeof(r->client)) == 0;
	lnetcap_nid_from_raw(&nid, r->client);
	lnetcap_nid_to_str(&nid, c, sizeof(c));
	lnetcap_nid_from_raw(&nid, r->server);
	lnetcap_nid_to_str(&nid, s, sizeof(s));
	g_snprintf(p->label, sizeof(p->label), "%s -> %s", c, s);
	wmem_map_insert(pairs, wmem_memdup(wmem_file_scope(), &k, sizeof(k)), p);
	return p;
}

/* All four times known: one of the samples (LatencySplit::finish), whose
 * times bound its pair's offset. */
static gboolean finish(lnetcap_phase_rpc_t *r)
{
	lnetcap_phase_pair_t *p;
	forget(r, FALSE);
	if (samples >= PHASE_MAX_SAMPLES)
		return FALSE;
	samples++;
	r->done = TRUE;
	p = r->pair = pair_of(r);
	p->lo = MAX(p->lo, (gint64)(r->s_send - r->c_recv));
	p->hi = MIN(p->hi, (gint64)(r->s_recv - r->c_send));
	p->rpcs++;
	return TRUE;
}

static guint64 ts_ns(const packet_info *pinfo)
{
	return (guint64)pinfo->abs_ts.secs * NS_PER_S + (guint64)pinfo->abs_ts.nsecs;
}

/* The first pass: what this record tells of its RPC (NULL: nothing). */
static phase_frame_t *observe(packet_info *pinfo, const lnetcap_pkt_t *pkt)
{
	const gboolean send = pkt->direction == LNETCAP_DIR_SEND;
	const gboolean recv = pkt->direction == LNETCAP_DIR_RECV;
	const gboolean body = pkt->is_rpc && pkt->rpc.have_body && pkt->msg_type == LNETCAP_MSG_PUT;
	const guint64 ts = ts_ns(pinfo);
	guint8 local[20], src[20], dst[20];
	phase_frame_t *pf;
	lnetcap_phase_rpc_t *r;
	phase_key_t k;

	/* A router's, a wire's or a dropped record has no end's clock; an
	 * outcome or a resend is not a message of its own. */
	if (!pkt->have_lnet || (!send && !recv) || (pkt->rec_flags & LNETCAP_REC_F_OUTCOME))
		return NULL;
	if (send && (pkt->rec_flags & LNETCAP_REC_F_HEALTH_VALID) && pkt->retries > 0)
		return NULL;
	lnetcap_nid_to_raw(&pkt->local, local);
	lnetcap_nid_to_raw(&pkt->src, src);
	lnetcap_nid_to_raw(&pkt->dst, dst);
	/* Only records that take part get a phase_frame_t. */
	pf = wmem_new0(pinfo->pool, phase_frame_t);

	if (body && pkt->rpc.pb_type == LNETCAP_PTL_RPC_MSG_REQUEST) {
		make_key(&k, src, dst, pkt->match_bits);
		r = find(&k);
		/* The same end seeing the request again: a resend, timed afresh. */
		if (r && ((send && r->c_send) || (recv && r->s_recv))) {
			forget(r, TRUE);
			r = NULL;
		}
		if (!r)
			r = create(pkt, src, dst);
		if (send && memcmp(local, r->client, 20) == 0) {
			r->c_send = ts;
			r->has_queue = (pkt->rec_flags & LNETCAP_REC_F_QUEUE_VALID) != 0;
			r->queue = pkt->queue_ns;
		} else if (recv && memcmp(local, r->server, 20) == 0) {
			r->s_recv = ts;
		}
		pf->rpc = r;
		return pf;
	}
	if (body && (pkt->rpc.pb_type == LNETCAP_PTL_RPC_MSG_REPLY ||
		     pkt->rpc.pb_type == LNETCAP_PTL_RPC_MSG_ERR) && !pkt->rpc.early_reply) {
		make_key(&k, dst, src, pkt->match_bits);
		r = find(&k);
		if (!r)
			return NULL;
		if (send && memcmp(local, r->server, 20) == 0) {
			r->s_send = ts;
		} else if (recv && memcmp(local, r->client, 20) == 0) {
			r->c_recv = ts;
			r->c_recv_frame = pinfo->num;
		}
		pf->rpc = r;
		if (r->c_send && r->s_recv && r->s_send && r->c_recv)
			pf->done_here = finish(r);
		return pf;
	}
	if (pkt->is_rpc || !pkt->bulk_trans || pkt->bulk_reply_ack)
		return NULL;
	/* A bulk GET or PUT goes from the server to the client; the REPLY to
	 * a GET and the ACK of a PUT come back. */
	if (pkt->msg_type == LNETCAP_MSG_GET || pkt->msg_type == LNETCAP_MSG_PUT)
		make_key(&k, dst, src, pkt->bulk_trans->xid);
	else
		make_key(&k, src, dst, pkt->bulk_trans->xid);
	r = find(&k);
	if (!r || memcmp(local, r->server, 20) != 0)
		return NULL;  /* only the server's bulk phase */
	if (send && (pkt->msg_type == LNETCAP_MSG_GET || pkt->msg_type == LNETCAP_MSG_PUT))
		r->bulk_first = r->bulk_first ? MIN(r->bulk_first, ts) : ts;
	if (recv && (pkt->msg_type == LNETCAP_MSG_REPLY || pkt->msg_type == LNETCAP_MSG_ACK))
		r->bulk_last = MAX(r->bulk_last, ts);
	pf->rpc = r;
	return pf;
}

gint64 lnetcap_phase_offset(const lnetcap_phase_pair_t *pair)
{
	if (pair->one_clock)  /* as the summary: one node's RPC over 0@lo */
		return 0;
	return pair->lo + (pair->hi - pair->lo) / 2;
}

static guint64 nonneg(gint64 v)
{
	return v < 0 ? 0 : (guint64)v;
}

void lnetcap_phase_split(const lnetcap_phase_rpc_t *r, lnetcap_phases_t *out)
{
	const gint64 t = lnetcap_phase_offset(r->pair);
	guint64 bulk = 0;

	memset(out, 0, sizeof(*out));
	out->clock_offset = t;
	out->has_queue = r->has_queue;
	out->client_queue = r->queue;
	out->request_transit = nonneg((gint64)(r->s_recv - r->c_send) - t);
	out->reply_transit = nonneg((gint64)(r->c_recv - r->s_send) + t);
	if (r->bulk_first && r->bulk_last > r->bulk_first) {
		bulk = r->bulk_last - r->bulk_first;
		out->has_bulk = TRUE;
	}
	out->bulk = bulk;
	out->server = nonneg((gint64)(r->s_send - r->s_recv) - (gint64)bulk);
}

wmem_map_t *lnetcap_phase_pairs(void)
{
	return pairs;
}

static nstime_t ns_time(gint64 ns)
{
	nstime_t t;
	t.secs = (time_t)(ns / (gint64)NS_PER_S);
	t.nsecs = (int)(ns % (gint64)NS_PER_S);
	return t;
}

static void add_time(proto_tree *tree, int hf, tvbuff_t *tvb, gint64 ns)
{
	nstime_t t = ns_time(ns);
	proto_item_set_generated(proto_tree_add_time(tree, hf, tvb, 0, 0, &t));
}

/* The phases, on the client's RECV of the reply. */
static void show(tvbuff_t *tvb, proto_tree *tree, const lnetcap_phase_rpc_t *r)
{
	const lnetcap_phase_pair_t *p = r->pair;
	lnetcap_phases_t ph;
	proto_item *ti, *it;
	proto_tree *pt;
	nstime_t t;

	lnetcap_phase_split(r, &ph);
	ti = proto_tree_add_item(tree, hf_phase, tvb, 0, 0, ENC_NA);
	proto_item_set_generated(ti);
	pt = proto_item_add_subtree(ti, ett_phase);
	t = ns_time(ph.clock_offset);
	it = proto_tree_add_time_format_value(pt, hf_phase_offset, tvb, 0, 0, &t,
		"server %s%.6f ms (%s: the %u RPCs both saw bound it to [%.6f, %.6f] ms%s)",
		ph.clock_offset < 0 ? "" : "+", (double)ph.clock_offset / 1e6, p->label, p->rpcs,
		(double)p->lo / 1e6, (double)p->hi / 1e6,
		p->one_clock ? "; one node, one clock: 0" :
		p->lo > p->hi ? "; no offset fits them all: the clocks drifted, a negative "
				"transit counts as 0" : "");
	proto_item_set_generated(it);
	if (ph.has_queue)
		add_time(pt, hf_phase_queue, tvb, (gint64)ph.client_queue);
	add_time(pt, hf_phase_request, tvb, (gint64)ph.request_transit);
	add_time(pt, hf_phase_server, tvb, (gint64)ph.server);
	if (ph.has_bulk)
		add_time(pt, hf_phase_bulk, tvb, (gint64)ph.bulk);
	add_time(pt, hf_phase_reply, tvb, (gint64)ph.reply_transit);
	proto_item_append_text(ti, ": request %.3f ms, server %.3f ms, bulk %.3f ms, reply %.3f ms",
			       (double)ph.request_transit / 1e6, (double)ph.server / 1e6,
			       (double)ph.bulk / 1e6, (double)ph.reply_transit / 1e6);
}

void lnetcap_phases(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt)
{
	phase_frame_t *pf = (phase_frame_t *)p_get_proto_data(wmem_file_scope(), pinfo, proto_lnetcap,
							      PHASE_PROTO_DATA_KEY);
	proto_item *it;

	if (!pf && !PINFO_FD_VISITED(pinfo)) {
		pf = observe(pinfo, pkt);
		if (pf) {
			pf = (phase_frame_t *)wmem_memdup(wmem_file_scope(), pf, sizeof(*pf));
			p_add_proto_data(wmem_file_scope(), pinfo, proto_lnetcap, PHASE_PROTO_DATA_KEY, pf);
		}
	}
	if (!pf)
		return;
	if (pf->done_here) {
		pkt->phase_done = pf->rpc;
		/* Taps run after the dissection has marked the frame visited, so
		 * they learn here whether this is the first pass. */
		pkt->phase_final = PINFO_FD_VISITED(pinfo);
	}
	/* Only the final offsets: after the first pass. */
	if (!PINFO_FD_VISITED(pinfo) || !pf->rpc->done)
		return;
	if (pf->rpc->c_recv_frame == pinfo->num) {
		show(tvb, tree, pf->rpc);
		return;
	}
	it = proto_tree_add_uint(tree, hf_phase_in, tvb, 0, 0, pf->rpc->c_recv_frame);
	proto_item_set_generated(it);
}

void lnetcap_register_phases(int proto)
{
	static hf_register_info hf[] = {
		{ &hf_phase, { "RPC phases", "lnetcap.phase", FT_NONE, BASE_NONE, NULL, 0,
		  "Where the RPC's time went, in a capture merged from its client and its server "
		  "(as lnetcap --summary's Latency split)", HFILL } },
		{ &hf_phase_offset, { "Clock offset", "lnetcap.phase.clock_offset", FT_RELATIVE_TIME,
		  BASE_NONE, NULL, 0,
		  "Server clock minus client clock for this client and server: the middle of the "
		  "interval that keeps every transit of the RPCs both saw non-negative", HFILL } },
		{ &hf_phase_queue, { "Client LNet queue", "lnetcap.phase.client_queue",
		  FT_RELATIVE_TIME, BASE_NONE, NULL, 0,
		  "The queue time of the client's SEND of the request (lnetcap.rec.queue_ns)", HFILL } },
		{ &hf_phase_request, { "Request transit", "lnetcap.phase.request_transit",
		  FT_RELATIVE_TIME, BASE_NONE, NULL, 0,
		  "Client's SEND of the request to the server's RECV, less the clock offset", HFILL } },
		{ &hf_phase_server, { "Server", "lnetcap.phase.server", FT_RELATIVE_TIME, BASE_NONE,
		  NULL, 0, "Server's RECV of the request to its SEND of the reply, without the bulk "
		  "phase", HFILL } },
		{ &hf_phase_bulk, { "Bulk", "lnetcap.phase.bulk", FT_RELATIVE_TIME, BASE_NONE, NULL, 0,
		  "The server's first bulk GET or PUT to the last REPLY or ACK that completes one",
		  HFILL } },
		{ &hf_phase_reply, { "Reply transit", "lnetcap.phase.reply_transit", FT_RELATIVE_TIME,
		  BASE_NONE, NULL, 0,
		  "Server's SEND of the reply to the client's RECV, plus the clock offset", HFILL } },
		{ &hf_phase_in, { "RPC phases in", "lnetcap.phase.in", FT_FRAMENUM, BASE_NONE,
		  FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0,
		  "The client's RECV of the reply, which shows this RPC's phases", HFILL } },
	};
	static gint *ett[] = { &ett_phase };

	proto_register_field_array(proto, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	by_key = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), lnetcap_rpc_key_hash,
					lnetcap_rpc_key_equal);
	pairs = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), pair_hash, pair_equal);
	register_init_routine(phases_init);
}
