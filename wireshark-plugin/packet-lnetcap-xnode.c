/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-lnetcap-xnode.c - links the records of one LNet message in a
 * capture merged from several nodes (mergecap of a client's, routers' and a
 * server's lnetcap files): the sender's SEND, each router's FWD (one hop
 * each) and the receiver's RECV (or its DROP in lnet_parse).
 *
 * What identifies a message on every node it crosses is its whole LNet
 * header, which routers forward unchanged: source and destination NID and
 * pid, type, payload length and the type's fields (match bits, offset,
 * hdr_data, MD cookies), plus the payload prefix both records captured.
 * Messages can still repeat all of that (lnet_selftest requests share
 * their match bits, a bulk REPLY has none beyond its MD cookie, pings
 * repeat), so among equal keys the n-th SEND pairs with the n-th FWD at a
 * router and the n-th RECV (first pass, file order), and only within a
 * time window (preference xnode_window) that allows for clock skew but not
 * for pairing a record with a message of another minute.  A record that
 * finds no partner stays unlinked: better no link than a wrong one.
 *
 * Resends: LNet resends a message that failed on the wire (health) with
 * the same message id and a retry count; each attempt is a SEND of its
 * own (maybe from another NI, so with other NIDs in its header) and the
 * attempts are linked to each other.  An attempt resent with the very same
 * header takes over its predecessor's place in the pairing, since only the
 * last attempt can have reached the receiver.
 *
 * tshark needs two passes (-2) to show a link to a later frame.
 */
#include <string.h>

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>

#include "lnetcap/record.h"
#include "lnetcap-tables.h"
#include "lnetcap-vals.h"
#include "packet-lnetcap.h"

#define XN_PROTO_DATA_KEY 3   /* p_add_proto_data key of this file */
#define XN_MAX_HOPS 8         /* LNet allows at most a handful of router hops */
#define XN_MAX_ATTEMPTS 8     /* lnet_retry_count is at most 5 */
#define XN_PREFIX 64          /* payload bytes compared */
#define XN_HDR_REST 56        /* LNet header after the NIDs: pids, type, length, msg */

static int hf_xnode_recv_in = -1;
static int hf_xnode_sent_in = -1;
static int hf_xnode_fwd_in = -1;
static int hf_xnode_hops = -1;
static int hf_xnode_hop = -1;
static int hf_xnode_hop_delay = -1;
static int hf_xnode_delay = -1;
static int hf_xnode_attempt = -1;
static int hf_xnode_attempt_of = -1;
static int hf_xnode_prev_attempt = -1;
static int hf_xnode_next_attempt = -1;
static int hf_xnode_attempt_frame = -1;
static int hf_xnode_attempt_health = -1;
static gint ett_xnode = -1;
static gint ett_xnode_attempts = -1;
static expert_field ei_xnode_skew = EI_INIT;

/* Seconds around a message's first record within which its other records
 * are looked for.  Real routed runs under scarce router buffers (issue 22)
 * had 17 s between a client's SEND and the router's FWD and the server's
 * RECV of it, and LNet never expires a message on a router (lib-move.c:
 * "Routers always attempt delivery"), so the window is generous: on real
 * traffic the whole header identifies a message, and the window only keeps
 * a repeated header (pings of a synthetic capture, NOACK PUTs with equal
 * payload) from pairing across minutes. */
static guint xnode_window_s = 60;

enum xn_role { XN_SEND = 1, XN_FWD, XN_RECV };

/* Every record of one message, as far as the capture has them. */
typedef struct xn_msg {
	struct xn_msg *next;       /* next message with the same key */
	nstime_t first_time;       /* time of the first record seen */
	guint32 send_frame;        /* the (latest) attempt with this header */
	nstime_t send_time;
	guint32 nhops;
	guint32 hop_frame[XN_MAX_HOPS];
	nstime_t hop_time[XN_MAX_HOPS];
	guint8 hop_ni[XN_MAX_HOPS][20];  /* the router's outgoing NI */
	guint32 recv_frame;
	nstime_t recv_time;
	guint8 prefix[XN_PREFIX];
	guint32 prefix_len;
	gboolean failed;           /* its sender recorded that it never left */
	const char *send_ping_kind; /* the SEND's ping kind (LNet ping GETs) */
} xn_msg_t;

typedef struct xn_list {
	xn_msg_t *head, *tail;
} xn_list_t;

/* The attempts of one resent message (sender's msg_id). */
typedef struct xn_attempts {
	guint32 n;
	guint32 frame[XN_MAX_ATTEMPTS];
	guint32 health[XN_MAX_ATTEMPTS];     /* as recorded (see outcome) */
	/* The attempt's failure from its outcome record: a resend's own
	 * health field still holds the previous attempt's failure (LNet
	 * resets msg_health_status only when the LND completes it), so
	 * whether an attempt failed is told by the DROP that follows it. */
	guint32 outcome_frame[XN_MAX_ATTEMPTS];
	guint32 outcome_health[XN_MAX_ATTEMPTS];
	char ni[XN_MAX_ATTEMPTS][LNETCAP_NID_STRLEN];
	xn_msg_t *last_msg;
	struct xn_frame *last_frame;
	guint32 last_frame_num;
	guint8 last_key[40];       /* NIDs of the last attempt's header */
} xn_attempts_t;

/* What the first pass decided for one frame. */
typedef struct xn_frame {
	xn_msg_t *msg;
	guint32 role;
	guint32 attempt;           /* 1-based index in attempts, 0 = none */
	gboolean not_indexed;      /* the cross-node table was full */
	xn_attempts_t *attempts;
} xn_frame_t;

/* The key: both NIDs (normalised, so nid4 and nid16 headers agree) and
 * the rest of the header as it was on the wire. */
typedef struct xn_key {
	guint8 nids[40];
	guint8 rest[XN_HDR_REST];
} xn_key_t;

/* msg_id and the NID-free header: what the attempts of one message share. */
typedef struct xn_attempt_key {
	guint64 msg_id;
	guint8 rest[XN_HDR_REST];
} xn_attempt_key_t;

static wmem_map_t *xnode_map;
static wmem_map_t *attempt_map;

static guint key_hash(gconstpointer k)
{
	return wmem_strong_hash((const guint8 *)k, sizeof(xn_key_t));
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(xn_key_t)) == 0;
}

static guint akey_hash(gconstpointer k)
{
	return wmem_strong_hash((const guint8 *)k, sizeof(xn_attempt_key_t));
}

static gboolean akey_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(xn_attempt_key_t)) == 0;
}

/* Which end of the message a record is, 0 when it is none: a DROP is the
 * receiver's end only when lnet_parse had it (it came off the wire); an
 * outcome record belongs to its SEND on the same node (outcome_of). */
static guint32 record_role(tvbuff_t *tvb, const lnetcap_pkt_t *pkt, guint32 rec_hdr_len,
			   guint32 flags)
{
	guint32 reason;

	if (flags & LNETCAP_REC_F_OUTCOME)
		return 0;
	switch (pkt->direction) {
	case LNETCAP_DIR_SEND:
		return XN_SEND;
	case LNETCAP_DIR_FORWARD:
		return XN_FWD;
	case LNETCAP_DIR_RECV:
		return XN_RECV;
	case LNETCAP_DIR_DROP:
		if (rec_hdr_len < LNETCAP_REC_HDR_LEN)
			return 0;
		reason = tvb_get_guint8(tvb, LNETCAP_OFF(struct lnetcap_rec_hdr, drop_reason));
		return reason >= LNETCAP_DROP_RECV_NO_MATCH ? XN_RECV : 0;
	default:
		return 0;
	}
}

static gint64 abs_diff_s(const nstime_t *a, const nstime_t *b)
{
	gint64 d = (gint64)a->secs - (gint64)b->secs;
	return d < 0 ? -d : d;
}

static gboolean prefix_agrees(const xn_msg_t *m, const guint8 *p, guint32 len)
{
	guint32 n = MIN(len, m->prefix_len);
	return memcmp(m->prefix, p, n) == 0;
}

static gboolean has_hop(const xn_msg_t *m, const guint8 *ni)
{
	for (guint32 i = 0; i < m->nhops; i++)
		if (memcmp(m->hop_ni[i], ni, 20) == 0)
			return TRUE;
	return FALSE;
}

/* The oldest message of the list, within the window, that lacks this
 * record's role; NULL when there is none. */
static xn_msg_t *find_partner(xn_list_t *l, guint32 role, const nstime_t *t, const guint8 *ni,
			      const guint8 *prefix, guint32 prefix_len)
{
	/* Messages far older than the window can never be linked again. */
	while (l->head && (gint64)t->secs - (gint64)l->head->first_time.secs >
				  2 * (gint64)xnode_window_s)
		l->head = l->head->next;
	if (!l->head)
		l->tail = NULL;
	for (xn_msg_t *m = l->head; m; m = m->next) {
		if (abs_diff_s(t, &m->first_time) > (gint64)xnode_window_s)
			continue;
		if (!prefix_agrees(m, prefix, prefix_len))
			continue;
		if (m->failed && role != XN_SEND)
			continue;
		if ((role == XN_SEND && !m->send_frame) || (role == XN_RECV && !m->recv_frame) ||
		    (role == XN_FWD && m->nhops < XN_MAX_HOPS && !has_hop(m, ni)))
			return m;
	}
	return NULL;
}

static void place(xn_msg_t *m, guint32 role, guint32 frame, const nstime_t *t, const guint8 *ni)
{
	switch (role) {
	case XN_SEND:
		m->send_frame = frame;
		m->send_time = *t;
		break;
	case XN_RECV:
		m->recv_frame = frame;
		m->recv_time = *t;
		break;
	case XN_FWD: {
		/* Hops in time order. */
		guint32 i = m->nhops++;
		while (i > 0 && nstime_cmp(&m->hop_time[i - 1], t) > 0) {
			m->hop_frame[i] = m->hop_frame[i - 1];
			m->hop_time[i] = m->hop_time[i - 1];
			memcpy(m->hop_ni[i], m->hop_ni[i - 1], 20);
			i--;
		}
		m->hop_frame[i] = frame;
		m->hop_time[i] = *t;
		memcpy(m->hop_ni[i], ni, 20);
		break;
	}
	}
	if (nstime_cmp(t, &m->first_time) < 0)
		m->first_time = *t;
}

/* Attempt bookkeeping of a SEND: returns the message its header pairs with
 * when this is a resend with the same header as the attempt before. */
static xn_msg_t *note_attempt(xn_frame_t *fr, packet_info *pinfo, const lnetcap_pkt_t *pkt,
			      guint64 msg_id, const xn_key_t *key, const char *ni)
{
	xn_attempt_key_t ak;
	xn_attempts_t *a;
	xn_msg_t *same = NULL;

	memset(&ak, 0, sizeof(ak));
	ak.msg_id = msg_id;
	memcpy(ak.rest, key->rest, sizeof(ak.rest));
	if (!msg_id)
		return NULL;
	a = (xn_attempts_t *)wmem_map_lookup(attempt_map, &ak);
	/* A first attempt starts a new chain even if another node happened to
	 * use the same message id. */
	if (!a || pkt->retries == 0) {
		a = wmem_new0(wmem_file_scope(), xn_attempts_t);
		if (!lnetcap_table_insert(attempt_map, &ak, sizeof(ak), a))
			return NULL;
	} else if (memcmp(a->last_key, key->nids, sizeof(a->last_key)) == 0 && a->last_msg &&
		   !a->last_msg->failed) {
		/* No outcome record said the attempt before failed, so nothing
		 * tells which one arrived: the later one does, as LNet resends
		 * only what did not. */
		same = a->last_msg;
	}
	if (a->n < XN_MAX_ATTEMPTS) {
		a->frame[a->n] = pinfo->num;
		a->health[a->n] = pkt->health;
		g_strlcpy(a->ni[a->n], ni, sizeof(a->ni[a->n]));
		a->n++;
		fr->attempt = a->n;
	}
	fr->attempts = a;
	memcpy(a->last_key, key->nids, sizeof(a->last_key));
	return same;
}

static void first_pass(tvbuff_t *tvb, packet_info *pinfo, const lnetcap_pkt_t *pkt, xn_frame_t *fr,
		       guint32 role, guint32 rec_hdr_len, guint32 lnet_hdr_len)
{
	xn_key_t key;
	xn_list_t *l;
	xn_msg_t *m = NULL;
	guint8 prefix[XN_PREFIX], ni[20];
	guint32 prefix_len, rest_off;
	guint64 msg_id = 0;
	lnetcap_nid_t local;
	char local_str[LNETCAP_NID_STRLEN];

	memset(&key, 0, sizeof(key));
	lnetcap_nid_to_raw(&pkt->src, key.nids);
	lnetcap_nid_to_raw(&pkt->dst, key.nids + 20);
	rest_off = rec_hdr_len + lnet_hdr_len - XN_HDR_REST;
	tvb_memcpy(tvb, key.rest, (gint)rest_off, XN_HDR_REST);
	prefix_len = (guint32)MIN((guint)XN_PREFIX, MIN(pkt->payload_caplen,
		(guint)tvb_captured_length_remaining(tvb, (gint)(rec_hdr_len + lnet_hdr_len))));
	if (prefix_len)
		tvb_memcpy(tvb, prefix, (gint)(rec_hdr_len + lnet_hdr_len), prefix_len);
	memset(ni, 0, sizeof(ni));
	lnetcap_nid_from_raw(&local, (const guint8 *)tvb_get_ptr(tvb,
		LNETCAP_OFF(struct lnetcap_rec_hdr, local_nid), 20));
	lnetcap_nid_to_raw(&local, ni);
	lnetcap_nid_to_str(&local, local_str, sizeof(local_str));
	if (rec_hdr_len >= LNETCAP_REC_HDR_LEN)
		msg_id = tvb_get_letoh64(tvb, LNETCAP_OFF(struct lnetcap_rec_hdr, msg_id));

	fr->role = role;
	if (role == XN_SEND)
		m = note_attempt(fr, pinfo, pkt, msg_id, &key, local_str);
	l = (xn_list_t *)wmem_map_lookup(xnode_map, &key);
	if (!l) {
		l = wmem_new0(wmem_file_scope(), xn_list_t);
		if (!lnetcap_table_insert(xnode_map, &key, sizeof(key), l))
			return;
	}
	if (!m)
		m = find_partner(l, role, &pinfo->abs_ts, ni, prefix, prefix_len);
	if (!m) {
		m = wmem_new0(wmem_file_scope(), xn_msg_t);
		m->first_time = pinfo->abs_ts;
		if (l->tail)
			l->tail->next = m;
		else
			l->head = m;
		l->tail = m;
	}
	if (prefix_len > m->prefix_len) {
		memcpy(m->prefix, prefix, prefix_len);
		m->prefix_len = prefix_len;
	}
	place(m, role, pinfo->num, &pinfo->abs_ts, ni);
	if (role == XN_SEND) {
		m->failed = FALSE;  /* a new attempt of it is on its way */
		m->send_ping_kind = pkt->ping_get ? pkt->ping_kind : NULL;
	}
	fr->msg = m;
	if (fr->attempts) {
		fr->attempts->last_msg = m;
		fr->attempts->last_frame = fr;
		fr->attempts->last_frame_num = pinfo->num;
	}
}

/* An outcome record saying the send failed (record.h: OUTCOME, a DROP with
 * a send-side reason): the attempt it completes reached no receiver that
 * the capture could link, so a later RECV with the same header must not be
 * paired with it. */
static void note_outcome(tvbuff_t *tvb, packet_info *pinfo, const lnetcap_pkt_t *pkt,
			 guint32 rec_hdr_len, guint32 lnet_hdr_len)
{
	xn_attempt_key_t ak;
	xn_attempts_t *a;
	guint32 reason;

	if (pkt->direction != LNETCAP_DIR_DROP || rec_hdr_len < LNETCAP_REC_HDR_LEN)
		return;
	reason = tvb_get_guint8(tvb, LNETCAP_OFF(struct lnetcap_rec_hdr, drop_reason));
	if (reason != LNETCAP_DROP_SEND_BEFORE_LND && reason != LNETCAP_DROP_SEND_FAILED)
		return;
	memset(&ak, 0, sizeof(ak));
	ak.msg_id = tvb_get_letoh64(tvb, LNETCAP_OFF(struct lnetcap_rec_hdr, msg_id));
	tvb_memcpy(tvb, ak.rest, (gint)(rec_hdr_len + lnet_hdr_len - XN_HDR_REST), XN_HDR_REST);
	a = (xn_attempts_t *)wmem_map_lookup(attempt_map, &ak);
	if (a && a->n > 0 && !a->outcome_frame[a->n - 1]) {
		a->outcome_frame[a->n - 1] = pinfo->num;
		a->outcome_health[a->n - 1] = pkt->health;
	}
	if (!a || !a->last_msg || !a->last_frame || a->last_msg->send_frame != a->last_frame_num)
		return;
	if (a->last_msg->recv_frame || a->last_msg->nhops) {
		/* Clock skew let the receiver's record come first and pair with
		 * this attempt: it belongs to a later SEND with the same header.
		 * The failed attempt keeps a message of its own. */
		xn_msg_t *alone = wmem_new0(wmem_file_scope(), xn_msg_t);
		alone->send_frame = a->last_msg->send_frame;
		alone->send_time = a->last_msg->send_time;
		alone->first_time = alone->send_time;
		alone->failed = TRUE;
		a->last_msg->send_frame = 0;
		a->last_frame->msg = alone;
		a->last_msg = alone;
		return;
	}
	a->last_msg->failed = TRUE;
}

static void add_delay(proto_tree *t, packet_info *pinfo, tvbuff_t *tvb, int hf,
		      const nstime_t *to, const nstime_t *from)
{
	nstime_t d;
	proto_item *it;

	nstime_delta(&d, to, from);
	it = proto_tree_add_time(t, hf, tvb, 0, 0, &d);
	proto_item_set_generated(it);
	if (d.secs < 0 || d.nsecs < 0)
		expert_add_info(pinfo, it, &ei_xnode_skew);
}

static void add_frame(proto_tree *t, tvbuff_t *tvb, int hf, guint32 frame)
{
	proto_item_set_generated(proto_tree_add_uint(t, hf, tvb, 0, 0, frame));
}

static void show_attempts(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const xn_frame_t *fr)
{
	const xn_attempts_t *a = fr->attempts;
	proto_tree *at;
	proto_item *it;

	if (!a || a->n < 2 || !fr->attempt)
		return;
	at = proto_tree_add_subtree_format(tree, tvb, 0, 0, ett_xnode_attempts, NULL,
		"Attempt %u of %u of this message", fr->attempt, a->n);
	it = proto_tree_add_uint(at, hf_xnode_attempt, tvb, 0, 0, fr->attempt);
	proto_item_set_generated(it);
	if (fr->attempt > 1) {
		add_frame(at, tvb, hf_xnode_attempt_of, a->frame[0]);
		add_frame(at, tvb, hf_xnode_prev_attempt, a->frame[fr->attempt - 2]);
	}
	if (fr->attempt < a->n)
		add_frame(at, tvb, hf_xnode_next_attempt, a->frame[fr->attempt]);
	it = proto_tree_add_string(at, hf_xnode_attempt_health, tvb, 0, 0,
		a->outcome_frame[fr->attempt - 1]
			? val_to_str_const(a->outcome_health[fr->attempt - 1], lnetcap_health_vals,
					   "unknown")
			: "OK");
	proto_item_set_generated(it);
	for (guint32 i = 0; i < a->n; i++) {
		if (a->outcome_frame[i])
			it = proto_tree_add_uint_format(at, hf_xnode_attempt_frame, tvb, 0, 0,
				a->frame[i], "Attempt %u: frame %u from %s, failed %s (frame %u)%s",
				i + 1, a->frame[i], a->ni[i],
				val_to_str_const(a->outcome_health[i], lnetcap_health_vals, "unknown"),
				a->outcome_frame[i], i + 1 == fr->attempt ? " (this one)" : "");
		else
			it = proto_tree_add_uint_format(at, hf_xnode_attempt_frame, tvb, 0, 0,
				a->frame[i], "Attempt %u: frame %u from %s, no failure recorded%s%s%s",
				i + 1, a->frame[i], a->ni[i],
				a->health[i] ? " (its health field " : "",
				a->health[i] ? val_to_str_const(a->health[i], lnetcap_health_vals,
					"unknown") : "",
				a->health[i] ? " is the previous attempt's)" : "");
		proto_item_set_generated(it);
	}
	(void)pinfo;
}

const char *lnetcap_xnode_send_ping_kind(packet_info *pinfo, const lnetcap_pkt_t *pkt)
{
	const xn_frame_t *fr = (const xn_frame_t *)p_get_proto_data(wmem_file_scope(), pinfo,
		proto_lnetcap, XN_PROTO_DATA_KEY);

	if (!fr || !fr->msg || !fr->msg->send_frame || fr->msg->send_frame == pinfo->num)
		return NULL;
	return fr->msg->send_ping_kind;
}

/* What the layers after the link (ping kind, flow graph) need of it. */
static void note_links(lnetcap_pkt_t *pkt, const xn_frame_t *fr)
{
	const xn_msg_t *m = fr->msg;

	if (!m)
		return;
	pkt->xnode_send_frame = m->send_frame;
	/* The hop a RECV ends is shown by the record that began it: the
	 * last router's FWD, or the sender's SEND on a direct hop. */
	pkt->xnode_prev_hop_seen = fr->role == XN_RECV && (m->nhops > 0 || m->send_frame);
}

void lnetcap_xnode_link(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			lnetcap_pkt_t *pkt)
{
	guint32 rec_hdr_len, lnet_hdr_len, flags, role;
	xn_frame_t *fr;
	const xn_msg_t *m;
	proto_tree *xt;
	proto_item *it;
	const nstime_t *prev;

	if (!pkt->have_lnet)
		return;
	rec_hdr_len = tvb_get_letohs(tvb, LNETCAP_OFF(struct lnetcap_rec_hdr, rec_hdr_len));
	lnet_hdr_len = tvb_get_guint8(tvb, LNETCAP_OFF(struct lnetcap_rec_hdr, lnet_hdr_len));
	flags = tvb_get_letohs(tvb, LNETCAP_OFF(struct lnetcap_rec_hdr, rec_flags));
	role = record_role(tvb, pkt, rec_hdr_len, flags);
	if (!role) {
		if ((flags & LNETCAP_REC_F_OUTCOME) && !PINFO_FD_VISITED(pinfo))
			note_outcome(tvb, pinfo, pkt, rec_hdr_len, lnet_hdr_len);
		return;
	}
	fr = (xn_frame_t *)p_get_proto_data(wmem_file_scope(), pinfo, proto_lnetcap,
					    XN_PROTO_DATA_KEY);
	if (!fr) {
		if (PINFO_FD_VISITED(pinfo))
			return;
		fr = wmem_new0(wmem_file_scope(), xn_frame_t);
		p_add_proto_data(wmem_file_scope(), pinfo, proto_lnetcap, XN_PROTO_DATA_KEY, fr);
		first_pass(tvb, pinfo, pkt, fr, role, rec_hdr_len, lnet_hdr_len);
		fr->not_indexed = !fr->msg && lnetcap_table_is_full(xnode_map);
	}
	if (fr->not_indexed)
		lnetcap_table_full_note(tvb, pinfo, tree, "cross-node");
	m = fr->msg;
	if (!m)
		return;
	note_links(pkt, fr);
	/* A message seen by one node only has nothing to link (an attempt
	 * chain is still worth showing). */
	if (!!m->send_frame + !!m->recv_frame + (m->nhops > 0) < 2 ||
	    (fr->role == XN_SEND && m->send_frame != pinfo->num)) {
		show_attempts(tree, tvb, pinfo, fr);
		return;
	}
	xt = proto_tree_add_subtree(tree, tvb, 0, 0, ett_xnode, NULL,
				    "This message on the other nodes");
	it = proto_tree_add_uint(xt, hf_xnode_hops, tvb, 0, 0, m->nhops);
	proto_item_set_generated(it);
	if (m->send_frame && fr->role != XN_SEND)
		add_frame(xt, tvb, hf_xnode_sent_in, m->send_frame);
	prev = m->send_frame ? &m->send_time : NULL;
	for (guint32 i = 0; i < m->nhops; i++) {
		if (m->hop_frame[i] == pinfo->num) {
			it = proto_tree_add_uint(xt, hf_xnode_hop, tvb, 0, 0, i + 1);
			proto_item_set_generated(it);
			if (prev)
				add_delay(xt, pinfo, tvb, hf_xnode_hop_delay, &m->hop_time[i], prev);
		} else {
			add_frame(xt, tvb, hf_xnode_fwd_in, m->hop_frame[i]);
		}
		prev = &m->hop_time[i];
	}
	if (m->recv_frame && fr->role != XN_RECV)
		add_frame(xt, tvb, hf_xnode_recv_in, m->recv_frame);
	if (fr->role == XN_RECV && prev && m->nhops)
		add_delay(xt, pinfo, tvb, hf_xnode_hop_delay, &m->recv_time, prev);
	if (m->send_frame && m->recv_frame)
		add_delay(xt, pinfo, tvb, hf_xnode_delay, &m->recv_time, &m->send_time);
	show_attempts(tree, tvb, pinfo, fr);
}

void lnetcap_xnode_register_prefs(module_t *mod)
{
	prefs_register_uint_preference(mod, "xnode_window", "Cross-node window (s)",
		"How far apart, in seconds, the records of one message may be on different "
		"nodes of a merged capture (clock skew plus time in router queues); records "
		"further apart are never linked", 10, &xnode_window_s);
}

void lnetcap_register_xnode(int proto)
{
	static hf_register_info hf[] = {
		{ &hf_xnode_recv_in, { "Received in", "lnetcap.xnode.received_in", FT_FRAMENUM,
		  BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0,
		  "The receiver's record of this message (merged multi-node capture)", HFILL } },
		{ &hf_xnode_sent_in, { "Sent in", "lnetcap.xnode.sent_in", FT_FRAMENUM,
		  BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0,
		  "The sender's record of this message (merged multi-node capture)", HFILL } },
		{ &hf_xnode_fwd_in, { "Forwarded in", "lnetcap.xnode.forwarded_in", FT_FRAMENUM,
		  BASE_NONE, NULL, 0,
		  "A router's FWD record of this message, one per hop in time order", HFILL } },
		{ &hf_xnode_hops, { "Router hops", "lnetcap.xnode.hops", FT_UINT32, BASE_DEC,
		  NULL, 0, "Routers whose FWD record of this message is in the capture", HFILL } },
		{ &hf_xnode_hop, { "This hop", "lnetcap.xnode.hop", FT_UINT32, BASE_DEC,
		  NULL, 0, "Which router hop this FWD record is (1 = first after the sender)",
		  HFILL } },
		{ &hf_xnode_hop_delay, { "Hop delay", "lnetcap.xnode.hop_delay", FT_RELATIVE_TIME,
		  BASE_NONE, NULL, 0,
		  "Time of this record minus that of the previous hop's record (sender or router)",
		  HFILL } },
		{ &hf_xnode_delay, { "One-way delay", "lnetcap.xnode.delay", FT_RELATIVE_TIME,
		  BASE_NONE, NULL, 0,
		  "Receive time on the receiver minus send time on the sender", HFILL } },
		{ &hf_xnode_attempt, { "Attempt", "lnetcap.xnode.attempt", FT_UINT32, BASE_DEC,
		  NULL, 0, "Which send attempt of a resent message this is (1 = first)", HFILL } },
		{ &hf_xnode_attempt_of, { "First attempt in", "lnetcap.xnode.attempt_of",
		  FT_FRAMENUM, BASE_NONE, NULL, 0,
		  "The first SEND of the message this resend repeats", HFILL } },
		{ &hf_xnode_prev_attempt, { "Previous attempt in", "lnetcap.xnode.prev_attempt",
		  FT_FRAMENUM, BASE_NONE, NULL, 0, "The SEND this resend repeats", HFILL } },
		{ &hf_xnode_next_attempt, { "Resent in", "lnetcap.xnode.resent_in",
		  FT_FRAMENUM, BASE_NONE, NULL, 0, "The next attempt of this message", HFILL } },
		{ &hf_xnode_attempt_health, { "Attempt health", "lnetcap.xnode.attempt_health",
		  FT_STRING, BASE_NONE, NULL, 0,
		  "This attempt's LNet health by its outcome record (OK when none followed); a "
		  "resend's own health field is the previous attempt's failure", HFILL } },
		{ &hf_xnode_attempt_frame, { "Attempt in", "lnetcap.xnode.attempt_in",
		  FT_FRAMENUM, BASE_NONE, NULL, 0,
		  "Every attempt of this message, with its NI and health", HFILL } },
	};
	static gint *ett[] = { &ett_xnode, &ett_xnode_attempts };
	static ei_register_info ei[] = {
		{ &ei_xnode_skew, { "lnetcap.xnode.clock_skew", PI_SEQUENCE, PI_NOTE,
		  "Received before it was sent: the nodes' clocks are not synchronised", EXPFILL } },
	};
	expert_module_t *em;

	proto_register_field_array(proto, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto);
	expert_register_field_array(em, ei, array_length(ei));
	xnode_map = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), key_hash,
					   key_equal);
	attempt_map = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), akey_hash,
					     akey_equal);
}
