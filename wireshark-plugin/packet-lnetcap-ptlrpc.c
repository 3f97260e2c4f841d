/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-lnetcap-ptlrpc.c - PtlRPC framing (include/lnetcap/ptlrpc.h):
 * lustre_msg_v2 in either byte order, ptlrpc_body v2/v3, request/reply
 * matching (response_in/response_to/time), early replies, status and
 * resend expert info, and the dispatch to the body dissectors.
 *
 * Matching: a request PUT carries the XID as match bits; the reply PUT
 * comes back with the same match bits, or with the request's pb_mbits when
 * OBD_CONNECT2_REP_MBITS was negotiated (docs/protocol.md 3.5).  Both are
 * indexed per (client NID, server NID).  The first pass fills the table;
 * later passes only read what each frame remembered.
 */
#include <string.h>

#include <epan/packet.h>
#include <epan/expert.h>
#include <wsutil/utf8_entities.h>
#include <epan/proto_data.h>
#include <epan/unit_strings.h>

#include "lnetcap-fields.h"
#include "lnetcap-tables.h"
#include "packet-lnetcap.h"
#include "lnetcap-vals.h"
#include "lnetcap/lnet.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/bodies.h"
#include "lnetcap/rpc_predicates.h"

#define PB(f) LNETCAP_OFF(struct lnetcap_ptlrpc_body, f), LNETCAP_LEN(struct lnetcap_ptlrpc_body, f)
#define LM(f) LNETCAP_OFF(struct lnetcap_lustre_msg_v2, f), LNETCAP_LEN(struct lnetcap_lustre_msg_v2, f)

static int proto_ptlrpc = -1;
static dissector_table_t opc_table;
static int hf_msg_bufcount = -1;
static int hf_msg_secflvr = -1;
static int hf_msg_magic = -1;
static int hf_msg_repsize = -1;
static int hf_msg_cksum = -1;
static int hf_msg_flags = -1;
static int hf_msg_opc = -1;
static int hf_msg_padding = -1;
static int hf_msg_buflen = -1;
static int hf_msg_byte_order = -1;
static int hf_body = -1;
static int hf_pb_handle = -1;
static int hf_pb_type = -1;
static int hf_pb_version = -1;
static int hf_pb_target = -1;
static int hf_pb_opc = -1;
static int hf_srt_row = -1;
static int hf_pb_status = -1;
static int hf_pb_io_bytes = -1;
static int hf_pb_sender_pid = -1;
static int hf_pb_last_xid = -1;
static int hf_pb_tag = -1;
static int hf_pb_padding0 = -1;
static int hf_pb_padding1 = -1;
static int hf_pb_last_committed = -1;
static int hf_pb_transno = -1;
static int hf_pb_op_flags = -1;
static int hf_pb_conn_cnt = -1;
static int hf_pb_timeout = -1;
static int hf_pb_service_time = -1;
static int hf_pb_pre_version = -1;
static int hf_pb_mbits = -1;
static int hf_pb_padding64 = -1;
static int hf_pb_jobid = -1;
static int hf_pb_body_version = -1;
static int hf_xid = -1;
static int hf_early = -1;
static int hf_response_in = -1;
static int hf_response_to = -1;
static int hf_time = -1;
static int hf_resends = -1;
static int hf_bulk_of = -1;

static gint ett_msg = -1;
static gint ett_buflens = -1;
static gint ett_body = -1;

static expert_field ei_bufcount = EI_INIT;
static expert_field ei_buflen = EI_INIT;
static expert_field ei_body_len = EI_INIT;
static expert_field ei_status = EI_INIT;
static expert_field ei_err_msg = EI_INIT;
static expert_field ei_resent = EI_INIT;
static expert_field ei_dup_request = EI_INIT;
static expert_field ei_no_reply = EI_INIT;
static expert_field ei_no_request = EI_INIT;
static expert_field ei_early = EI_INIT;
static expert_field ei_secflvr = EI_INIT;
static expert_field ei_body_unknown = EI_INIT;

static lnetcap_flagset_t fs_pb_flags = LNETCAP_FLAGSET(
	"lnetcap.ptlrpc.flags", "Flags", 32, lnetcap_msg_flag_defs, lnetcap_msg_flag_count);
static lnetcap_flagset_t fs_connect_op = LNETCAP_FLAGSET(
	"lnetcap.ptlrpc.op_flags.connect", "Connect flags", 32, lnetcap_connect_op_defs,
	lnetcap_connect_op_count);

static const value_string byte_order_vals[] = {
	{ 0, "little-endian" },
	{ 1, "big-endian" },
	{ 0, NULL }
};

/* --- Request/reply table --------------------------------------------------- */
typedef lnetcap_rpc_key_t trans_key_t;

static wmem_map_t *trans_map;
/* The hidden, generated SRT row field (lnetcap_opcode_row()), which the SRT
 * tables' row filters test. */
static void lnetcap_add_srt_row(proto_tree *tree, tvbuff_t *tvb, guint32 opc)
{
	proto_item *it = proto_tree_add_uint(tree, hf_srt_row, tvb, 0, 0, lnetcap_opcode_row(opc));
	proto_item_set_generated(it);
	proto_item_set_hidden(it);
}

static void make_key(trans_key_t *key, const lnetcap_nid_t *client, const lnetcap_nid_t *server,
		     guint64 mbits);
/* Bulk match bits -> the RPC whose bulk they carry (docs/protocol.md 3.5). */
static wmem_map_t *bulk_map;
/* What the last PUT with these match bits was, so its ACK (which carries
 * only the match bits) can be told apart: a reply or a bulk transfer. */
static wmem_map_t *put_kind_map;
/* Bulk GET return MD -> RPC, for the REPLY that answers the GET. */
static wmem_map_t *wmd_map;
/* A PUT's ack MD -> what its ACK acknowledges, the RPC's reply or one of
 * its bulk PUTs.  The ACK names the MD (dst_wmd = the PUT's ack_wmd): in a
 * capture merged from both ends that tells a bulk PUT's ACK from the
 * reply's when both have the same match bits, which the last PUT with those
 * match bits does not (the client's RECV of the reply can come before the
 * server's RECV of the bulk ACK).  As the summary's bulk linker does. */
static wmem_map_t *ack_map;
typedef struct {
	lnetcap_trans_t *trans;
	gboolean reply_ack;
} ack_target_t;
#define PUT_KIND_BULK 1
#define PUT_KIND_REPLY 2

/* The ACK that a PUT asks for names its ack MD; FALSE when the table is full. */
static gboolean remember_ack(const lnetcap_pkt_t *pkt, lnetcap_trans_t *t, gboolean reply_ack)
{
	trans_key_t k;
	ack_target_t *a = wmem_new(wmem_file_scope(), ack_target_t);
	a->trans = t;
	a->reply_ack = reply_ack;
	make_key(&k, &pkt->dst, &pkt->src, pkt->wmd_if ^ (pkt->wmd_obj * 31));
	return lnetcap_table_insert(ack_map, &k, sizeof(k), a);
}

static gboolean remember_put(const lnetcap_pkt_t *pkt, guint kind)
{
	trans_key_t k;
	make_key(&k, &pkt->dst, &pkt->src, pkt->match_bits);
	return lnetcap_table_insert(put_kind_map, &k, sizeof(k), GUINT_TO_POINTER(kind));
}


static void make_key(trans_key_t *key, const lnetcap_nid_t *client, const lnetcap_nid_t *server,
		     guint64 mbits)
{
	memset(key, 0, sizeof(*key));
	lnetcap_nid_to_raw(client, key->client);
	lnetcap_nid_to_raw(server, key->server);
	key->mbits = mbits;
}

typedef struct {
	lnetcap_trans_t *trans;
	guint64 xid;
	gboolean resend;       /* this request frame repeats an earlier XID */
	const char *full;      /* the table that had no room for this frame */
} frame_rpc_t;

/* Adds key -> t unless the key is known; NULL, or the name of the table
 * that is full. */
static const char *index_new(wmem_map_t *map, const trans_key_t *key, lnetcap_trans_t *t,
			     const char *what)
{
	if (wmem_map_lookup(map, key) || lnetcap_table_insert(map, key, sizeof(*key), t))
		return NULL;
	return what;
}

/* A request's bulk transfers use match bits from its XID up to pb_mbits
 * (at most 128 per RPC: XIDs step by PTLRPC_BULK_OPS_COUNT), or just
 * pb_mbits when the XID itself was bumped to it.  The walk counts entries,
 * not match bits: a range ending at 2^64-1 must not wrap to 0. */
#define BULK_RANGE_MAX 128
static const char *index_bulk(const lnetcap_pkt_t *pkt, lnetcap_trans_t *t)
{
	guint64 lo = pkt->match_bits, hi = pkt->rpc.pb_mbits;
	const char *full = NULL;
	if (!hi)
		return NULL;
	if (hi < lo || hi - lo >= BULK_RANGE_MAX)
		lo = hi;
	for (guint n = 0; n <= (guint)(hi - lo); n++) {
		trans_key_t key;
		make_key(&key, &pkt->src, &pkt->dst, lo + n);
		if (!full)
			full = index_new(bulk_map, &key, t, "bulk");
	}
	return full;
}

/* First pass: find or create the transaction of this message. */
static frame_rpc_t *match(packet_info *pinfo, lnetcap_pkt_t *pkt)
{
	frame_rpc_t *fr = (frame_rpc_t *)p_get_proto_data(wmem_file_scope(), pinfo, proto_lnetcap, 1);
	trans_key_t key;
	lnetcap_rpc_t *rpc = &pkt->rpc;

	if (fr || PINFO_FD_VISITED(pinfo))
		return fr;
	fr = wmem_new0(wmem_file_scope(), frame_rpc_t);
	fr->xid = pkt->match_bits;
	if (rpc->pb_type == LNETCAP_PTL_RPC_MSG_REQUEST) {
		lnetcap_trans_t *t;
		make_key(&key, &pkt->src, &pkt->dst, pkt->match_bits);
		t = (lnetcap_trans_t *)wmem_map_lookup(trans_map, &key);
		if (t) {
			/* Same XID again: a resend, or the same request seen twice. */
			t->resends++;
			fr->resend = TRUE;
		} else {
			const char *full;
			t = wmem_new0(wmem_file_scope(), lnetcap_trans_t);
			t->req_frame = pinfo->num;
			t->req_time = pinfo->abs_ts;
			t->opc = rpc->opc;
			t->req_flags = rpc->lm_flags;
			t->xid = pkt->match_bits;
			full = index_new(trans_map, &key, t, "request/reply");
			if (!full)
				full = index_bulk(pkt, t);
			if (!full && rpc->pb_mbits && rpc->pb_mbits != pkt->match_bits) {
				make_key(&key, &pkt->src, &pkt->dst, rpc->pb_mbits);
				full = index_new(trans_map, &key, t, "request/reply");
			}
			fr->full = full;
		}
		fr->trans = t;
	} else {
		lnetcap_trans_t *t;
		make_key(&key, &pkt->dst, &pkt->src, pkt->match_bits);
		t = (lnetcap_trans_t *)wmem_map_lookup(trans_map, &key);
		if (!remember_put(pkt, PUT_KIND_REPLY))
			fr->full = "ACK kind";
		if (t && pkt->ack_wanted && !remember_ack(pkt, t, TRUE))
			fr->full = "ACK kind";
		if (t) {
			fr->trans = t;
			/* The XID is the request's match bits, which differ from
			 * ours when the reply used pb_mbits. */
			if (!rpc->early_reply && t->rep_frame == 0)
				t->rep_frame = pinfo->num;
		}
	}
	p_add_proto_data(wmem_file_scope(), pinfo, proto_lnetcap, 1, fr);
	return fr;
}

/* --- lustre_msg_v2 ----------------------------------------------------------- */
static gboolean looks_like_lustre_msg(tvbuff_t *tvb)
{
	guint32 magic;
	if (tvb_captured_length(tvb) < sizeof(struct lnetcap_lustre_msg_v2))
		return FALSE;
	magic = tvb_get_letohl(tvb, LNETCAP_OFF(struct lnetcap_lustre_msg_v2, lm_magic));
	return magic == LNETCAP_LUSTRE_MSG_MAGIC_V2 || magic == LNETCAP_LUSTRE_MSG_MAGIC_V2_SWABBED;
}

static gboolean is_connect(guint32 opc)
{
	return opc == LNETCAP_OPC_OST_CONNECT || opc == LNETCAP_OPC_MDS_CONNECT ||
	       opc == LNETCAP_OPC_MGS_CONNECT;
}

/* Returns FALSE when the body is too short to hold the fixed fields. */
static gboolean dissect_body(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			     lnetcap_pkt_t *pkt)
{
	lnetcap_rpc_t *rpc = &pkt->rpc;
	guint enc = rpc->encoding;
	guint32 off = rpc->buf_off[0], len = rpc->buf_len[0];
	guint32 cap = (guint32)tvb_captured_length_remaining(tvb, (gint)off);
	guint32 version, target;
	proto_item *ti, *it;
	proto_tree *bt;
	guint32 status_u;

	if (len < LNETCAP_PTLRPC_BODY_V2_LEN) {
		proto_tree_add_expert_format(tree, pinfo, &ei_body_len, tvb, lnetcap_clamp(tvb, off), 0,
			"ptlrpc_body buffer is %u bytes, shorter than v2 (%u)", len,
			LNETCAP_PTLRPC_BODY_V2_LEN);
		return FALSE;
	}
	/* A snapped body still names its type and opcode when the first
	 * 24 bytes are there; decode those and stop. */
	if (cap < LNETCAP_OFF(struct lnetcap_ptlrpc_body, pb_last_xid)) {
		proto_tree_add_expert_format(tree, pinfo, &lnetcap_ei_truncated, tvb, lnetcap_clamp(tvb, off), 0,
			"ptlrpc_body cut by the snap length (%u bytes captured)", cap);
		return FALSE;
	}
	ti = proto_tree_add_item(tree, hf_body, tvb, (gint)off,
				 (gint)MIN(len, MIN(cap, LNETCAP_PTLRPC_BODY_V3_LEN)), ENC_NA);
	bt = proto_item_add_subtree(ti, ett_body);
	it = proto_tree_add_uint(bt, hf_pb_body_version, tvb, (gint)off, 0,
				 len >= LNETCAP_PTLRPC_BODY_V3_LEN ? 3 : 2);
	proto_item_set_generated(it);
#define B(f) (gint)off + LNETCAP_OFF(struct lnetcap_ptlrpc_body, f), LNETCAP_LEN(struct lnetcap_ptlrpc_body, f)
	proto_tree_add_item(bt, hf_pb_handle, tvb, B(pb_handle), enc);
	proto_tree_add_item_ret_uint(bt, hf_pb_type, tvb, B(pb_type), enc, &rpc->pb_type);
	proto_tree_add_item_ret_uint(bt, hf_pb_version, tvb, B(pb_version), enc, &version);
	target = version & LNETCAP_LUSTRE_VERSION_MASK;
	it = proto_tree_add_uint(bt, hf_pb_target, tvb, B(pb_version), target);
	proto_item_set_generated(it);
	proto_tree_add_item_ret_uint(bt, hf_pb_opc, tvb, B(pb_opc), enc, &rpc->opc);
	lnetcap_add_srt_row(bt, tvb, rpc->opc);
	status_u = tvb_get_guint32(tvb, (gint)off + LNETCAP_OFF(struct lnetcap_ptlrpc_body, pb_status), enc);
	rpc->status = (gint32)status_u;
	/* In a request pb_status carries the sender's pid, not an error. */
	if (rpc->pb_type == LNETCAP_PTL_RPC_MSG_REQUEST) {
		proto_tree_add_item(bt, hf_pb_sender_pid, tvb, B(pb_status), enc);
		rpc->status = 0;
	} else if (lnetcap_rpc_status_is_byte_count(rpc->opc, rpc->pb_type, rpc->status)) {
		/* A bulk I/O reply returns the bytes it moved on success
		 * (ost_brw_read/write set rq_status to the transfer size):
		 * not an error, and no status of its own. */
		rpc->io_bytes = status_u;
		rpc->status = 0;
		proto_tree_add_item(bt, hf_pb_io_bytes, tvb, B(pb_status), enc);
	} else {
		it = proto_tree_add_item(bt, hf_pb_status, tvb, B(pb_status), enc);
		if (lnetcap_rpc_is_error(rpc->pb_type, rpc->status))
			expert_add_info_format(pinfo, it, rpc->pb_type == LNETCAP_PTL_RPC_MSG_ERR ?
					       &ei_err_msg : &ei_status,
				"%s failed: %s (%d)", lnetcap_opcode_name(pinfo->pool, rpc->opc),
				val_to_str_const(status_u, lnetcap_status_vals, "error"), rpc->status);
	}
	if (cap < LNETCAP_PTLRPC_BODY_V2_LEN) {
		proto_tree_add_expert_format(bt, pinfo, &lnetcap_ei_truncated, tvb, lnetcap_clamp(tvb, off), 0,
			"ptlrpc_body cut by the snap length (%u bytes captured)", cap);
		rpc->have_body = TRUE;
		rpc->partial = TRUE;
		return TRUE;
	}
	proto_tree_add_item(bt, hf_pb_last_xid, tvb, B(pb_last_xid), enc);
	proto_tree_add_item(bt, hf_pb_tag, tvb, B(pb_tag), enc);
	proto_tree_add_item(bt, hf_pb_padding0, tvb, B(pb_padding0), enc);
	proto_tree_add_item(bt, hf_pb_padding1, tvb, B(pb_projid), enc);
	proto_tree_add_item(bt, hf_pb_last_committed, tvb, B(pb_last_committed), enc);
	proto_tree_add_item(bt, hf_pb_transno, tvb, B(pb_transno), enc);
	rpc->pb_flags = tvb_get_guint32(tvb, (gint)off + LNETCAP_OFF(struct lnetcap_ptlrpc_body, pb_flags), enc);
	it = lnetcap_flagset_add(bt, tvb, (gint)off + LNETCAP_OFF(struct lnetcap_ptlrpc_body, pb_flags),
				 enc, &fs_pb_flags);
	if (rpc->pb_flags & 0x2 /* MSG_RESENT */)
		expert_add_info(pinfo, it, &ei_resent);
	if (is_connect(rpc->opc))
		lnetcap_flagset_add(bt, tvb, (gint)off + LNETCAP_OFF(struct lnetcap_ptlrpc_body, pb_op_flags),
				    enc, &fs_connect_op);
	else
		proto_tree_add_item(bt, hf_pb_op_flags, tvb, B(pb_op_flags), enc);
	proto_tree_add_item(bt, hf_pb_conn_cnt, tvb, B(pb_conn_cnt), enc);
	proto_tree_add_item(bt, hf_pb_timeout, tvb, B(pb_timeout), enc);
	proto_tree_add_item(bt, hf_pb_service_time, tvb, B(pb_service_time), enc);
	proto_tree_add_item(bt, lnetcap_bf_hf[LNETCAP_BF_PB_LIMIT], tvb, B(pb_limit), enc);
	proto_tree_add_item(bt, lnetcap_bf_hf[LNETCAP_BF_PB_SLV], tvb, B(pb_slv), enc);
	for (int i = 0; i < 4; i++)
		proto_tree_add_item(bt, hf_pb_pre_version, tvb,
			(gint)off + LNETCAP_OFF(struct lnetcap_ptlrpc_body, pb_pre_versions) + 8 * i, 8, enc);
	proto_tree_add_item_ret_uint64(bt, hf_pb_mbits, tvb, B(pb_mbits), enc, &rpc->pb_mbits);
	proto_tree_add_item(bt, hf_pb_padding64, tvb, B(pb_padding64_0), enc);
	proto_tree_add_item(bt, hf_pb_padding64, tvb, B(pb_padding64_1), enc);
	proto_tree_add_item(bt, lnetcap_bf_hf[LNETCAP_BF_PB_UID], tvb, B(pb_uid), enc);
	proto_tree_add_item(bt, lnetcap_bf_hf[LNETCAP_BF_PB_GID], tvb, B(pb_gid), enc);
	if (len >= LNETCAP_PTLRPC_BODY_V3_LEN) {
		if (cap >= LNETCAP_PTLRPC_BODY_V3_LEN) {
			const guint8 *jobid;
			proto_tree_add_item_ret_string(bt, hf_pb_jobid, tvb, B(pb_jobid),
						       ENC_ASCII | ENC_NA, pinfo->pool, &jobid);
			if (jobid && jobid[0])
				rpc->jobid = (const char *)jobid;
		} else {
			proto_tree_add_expert_format(bt, pinfo, &lnetcap_ei_truncated, tvb, lnetcap_clamp(tvb, off), 0,
				"pb_jobid cut by the snap length");
		}
	}
#undef B
	rpc->have_body = TRUE;
	return TRUE;
}

/* lustre_msg_v2's fixed fields.  FALSE when lm_bufcount is out of range. */
static gboolean dissect_msg_fields(tvbuff_t *tvb, packet_info *pinfo, proto_tree *mt, guint enc,
				   lnetcap_rpc_t *rpc, guint32 *bufcount, guint32 *secflvr)
{
	proto_item *it;

	it = proto_tree_add_uint(mt, hf_msg_byte_order, tvb, LM(lm_magic), enc == ENC_BIG_ENDIAN);
	proto_item_set_generated(it);
	it = proto_tree_add_item_ret_uint(mt, hf_msg_bufcount, tvb, LM(lm_bufcount), enc, bufcount);
	if (*bufcount < 1 || *bufcount > LNETCAP_PTLRPC_MAX_BUFCOUNT) {
		expert_add_info_format(pinfo, it, &ei_bufcount,
			"lm_bufcount %u is outside 1..%u", *bufcount, LNETCAP_PTLRPC_MAX_BUFCOUNT);
		return FALSE;
	}
	proto_tree_add_item_ret_uint(mt, hf_msg_secflvr, tvb, LM(lm_secflvr), enc, secflvr);
	proto_tree_add_item(mt, hf_msg_magic, tvb, LM(lm_magic), enc);
	proto_tree_add_item(mt, hf_msg_repsize, tvb, LM(lm_repsize), enc);
	proto_tree_add_item_ret_uint(mt, hf_msg_cksum, tvb, LM(lm_cksum), enc, &rpc->lm_cksum);
	proto_tree_add_item_ret_uint(mt, hf_msg_flags, tvb, LM(lm_flags), enc, &rpc->lm_flags);
	proto_tree_add_item(mt, hf_msg_opc, tvb, LM(lm_opc), enc);
	proto_tree_add_item(mt, hf_msg_padding, tvb, LM(lm_padding_3), enc);
	return TRUE;
}

/* lm_buflens: where each buffer starts (rpc->buf_off/buf_len; bufcount cut
 * at the first impossible length).  Returns the end of the last buffer, or
 * 0 when the lengths are cut by the snap length. */
static guint32 dissect_buflens(tvbuff_t *tvb, packet_info *pinfo, proto_tree *mt, guint enc,
			       lnetcap_rpc_t *rpc, guint32 bufcount)
{
	proto_item *it;
	proto_tree *lt;
	guint32 off = LNETCAP_LUSTRE_MSG_HDR_SIZE(bufcount);

	if (tvb_captured_length(tvb) < sizeof(struct lnetcap_lustre_msg_v2) + 4 * bufcount) {
		proto_tree_add_expert_format(mt, pinfo, &lnetcap_ei_truncated, tvb, 0, 0,
			"lm_buflens cut by the snap length");
		return 0;
	}
	it = proto_tree_add_none_format(mt, lnetcap_hf_buffer, tvb, sizeof(struct lnetcap_lustre_msg_v2),
					(gint)(4 * bufcount), "Buffer lengths (%u)", bufcount);
	lt = proto_item_add_subtree(it, ett_buflens);
	rpc->bufcount = bufcount;
	for (guint32 i = 0; i < bufcount; i++) {
		guint32 len;
		proto_item *bi = proto_tree_add_item_ret_uint(lt, hf_msg_buflen, tvb,
			(gint)(sizeof(struct lnetcap_lustre_msg_v2) + 4 * i), 4, enc, &len);
		proto_item_append_text(bi, " (buffer %u at offset %u)", i, off);
		/* PTLRPC_MAX_BUFLEN is 1 MiB + a little; anything larger is junk. */
		if (len > LNETCAP_LNET_MTU) {
			expert_add_info_format(pinfo, bi, &ei_buflen,
				"Buffer %u length %u exceeds the LNet MTU", i, len);
			rpc->bufcount = i;
			break;
		}
		rpc->buf_off[i] = off;
		rpc->buf_len[i] = len;
		off += LNETCAP_LUSTRE_MSG_ROUND8(len);
	}
	return off;
}

/* The request/reply pairing: the XID, early replies, and links between a
 * request, its reply and its resends.  Returns the XID. */
static guint64 add_transaction(tvbuff_t *tvb, packet_info *pinfo, proto_item *ti, proto_tree *mt,
			       lnetcap_pkt_t *pkt)
{
	lnetcap_rpc_t *rpc = &pkt->rpc;
	frame_rpc_t *fr = match(pinfo, pkt);
	proto_item *it;
	guint64 xid;

	pkt->trans = fr ? fr->trans : NULL;
	if (fr && fr->full)
		lnetcap_table_full_note(tvb, pinfo, mt, fr->full);
	xid = pkt->match_bits;
	/* The request's match bits are the XID, even when the reply came
	 * back on the request's pb_mbits. */
	if (pkt->trans)
		xid = pkt->trans->xid;
	it = proto_tree_add_uint64(mt, hf_xid, tvb, 0, 0, xid);
	proto_item_set_generated(it);
	if (rpc->early_reply) {
		it = proto_tree_add_boolean(mt, hf_early, tvb, 0, 0, TRUE);
		proto_item_set_generated(it);
		expert_add_info(pinfo, it, &ei_early);
	}
	if (rpc->pb_type == LNETCAP_PTL_RPC_MSG_REQUEST) {
		if (pkt->trans && pkt->trans->rep_frame) {
			it = proto_tree_add_uint(mt, hf_response_in, tvb, 0, 0, pkt->trans->rep_frame);
			proto_item_set_generated(it);
		} else if (PINFO_FD_VISITED(pinfo) && pkt->trans) {
			expert_add_info(pinfo, ti, &ei_no_reply);
		}
		if (fr && fr->resend && pkt->trans && pkt->trans->req_frame != pinfo->num) {
			it = proto_tree_add_uint(mt, hf_resends, tvb, 0, 0, pkt->trans->req_frame);
			proto_item_set_generated(it);
			expert_add_info_format(pinfo, it, &ei_dup_request,
				"XID already sent in frame %u (resend or duplicate)",
				pkt->trans->req_frame);
		}
	} else if (pkt->trans) {
		nstime_t delta;
		it = proto_tree_add_uint(mt, hf_response_to, tvb, 0, 0, pkt->trans->req_frame);
		proto_item_set_generated(it);
		nstime_delta(&delta, &pinfo->abs_ts, &pkt->trans->req_time);
		it = proto_tree_add_time(mt, hf_time, tvb, 0, 0, &delta);
		proto_item_set_generated(it);
	} else {
		expert_add_info(pinfo, ti, &ei_no_request);
	}
	return xid;
}

/* The Protocol and Info columns, and the summary on PtlRPC's tree item. */
static void set_columns(packet_info *pinfo, proto_item *ti, const lnetcap_pkt_t *pkt,
			const char *opname, guint64 xid)
{
	const lnetcap_rpc_t *rpc = &pkt->rpc;

	proto_item_append_text(ti, ": %s %s", opname,
			       val_to_str_const(rpc->pb_type, lnetcap_pb_type_vals, "message"));
	col_set_str(pinfo->cinfo, COL_PROTOCOL, "PtlRPC");
	col_add_fstr(pinfo->cinfo, COL_INFO, "%s %s%s xid 0x%" G_GINT64_MODIFIER "x %s "
		     UTF8_RIGHTWARDS_ARROW " %s", opname,
		     rpc->early_reply ? "early " : "",
		     val_to_str(rpc->pb_type, lnetcap_pb_type_vals, "type %u"), xid,
		     pkt->src_str, pkt->dst_str);
	if (lnetcap_rpc_has_status(rpc->pb_type) && rpc->status != 0)
		col_append_fstr(pinfo->cinfo, COL_INFO, " status %s",
				val_to_str((guint32)rpc->status, lnetcap_status_vals, "%d"));
	if (rpc->io_bytes)
		col_append_fstr(pinfo->cinfo, COL_INFO, " %u bytes", rpc->io_bytes);
	if (rpc->jobid)
		col_append_fstr(pinfo->cinfo, COL_INFO, " jobid=%s", rpc->jobid);
}

/* Bodies: whichever protocol registered this opcode in the table (OBD,
 * OST, MDT, LDLM, MGS...), at the top of the tree beside us. */
static void dissect_opcode_body(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
				proto_item *ti, lnetcap_pkt_t *pkt, const char *opname)
{
	lnetcap_rpc_t *rpc = &pkt->rpc;

	rpc->body_known = dissector_try_uint_new(opc_table, rpc->opc, tvb, pinfo, tree, TRUE, pkt) != 0;
	if (!rpc->body_known && rpc->bufcount > 1) {
		dissector_handle_t h = dissector_get_uint_handle(opc_table, rpc->opc);
		if (h)
			expert_add_info_format(pinfo, ti, &ei_body_unknown,
				"%s body not decoded: protocol %s is disabled", opname,
				dissector_handle_get_protocol_short_name(h));
		else
			expert_add_info_format(pinfo, ti, &ei_body_unknown,
				"%s bodies are not decoded by this plugin", opname);
	}
	if (!rpc->body_known && rpc->bufcount <= 1)
		rpc->body_known = TRUE;
}

/* The PtlRPC dissector: data is the record's lnetcap_pkt_t, tree the root
 * (PtlRPC is a protocol of its own beside LNetCap, and its bodies beside it). */
static int dissect_ptlrpc(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	lnetcap_pkt_t *pkt = (lnetcap_pkt_t *)data;
	lnetcap_rpc_t *rpc;
	proto_item *ti;
	proto_tree *mt;
	guint32 magic, bufcount, off, secflvr = 0;
	guint enc;
	guint cap = tvb_captured_length(tvb);
	guint64 xid;
	const char *opname;

	if (!pkt || !looks_like_lustre_msg(tvb))
		return 0;
	rpc = &pkt->rpc;
	magic = tvb_get_letohl(tvb, LNETCAP_OFF(struct lnetcap_lustre_msg_v2, lm_magic));
	enc = magic == LNETCAP_LUSTRE_MSG_MAGIC_V2 ? ENC_LITTLE_ENDIAN : ENC_BIG_ENDIAN;
	rpc->encoding = enc;
	pkt->is_rpc = TRUE;

	ti = proto_tree_add_item(tree, proto_ptlrpc, tvb, 0, (gint)tvb_captured_length(tvb), ENC_NA);
	mt = proto_item_add_subtree(ti, ett_msg);
	if (!dissect_msg_fields(tvb, pinfo, mt, enc, rpc, &bufcount, &secflvr))
		return (int)cap;
	off = dissect_buflens(tvb, pinfo, mt, enc, rpc, bufcount);
	if (off == 0)
		return (int)cap;
	proto_item_set_len(ti, (gint)MIN(off, cap));
	if ((secflvr & 0xf) != 0) {
		/* PLAIN/GSS wrap the real message; not decoded here. */
		expert_add_info_format(pinfo, ti, &ei_secflvr,
			"Security flavour 0x%x: wrapped message not decoded", secflvr);
		return (int)cap;
	}
	if (rpc->bufcount < 1 || !dissect_body(tvb, pinfo, mt, pkt))
		return (int)cap;

	/* Early reply: a 1-buffer reply at offset 0 of the reply buffer with
	 * lm_cksum set, while the final reply lands at offset 224. */
	if (lnetcap_rpc_is_early_reply(rpc->pb_type, rpc->bufcount, rpc->lm_cksum, pkt->put_offset))
		rpc->early_reply = TRUE;
	xid = add_transaction(tvb, pinfo, ti, mt, pkt);
	opname = lnetcap_opcode_name(pinfo->pool, rpc->opc);
	set_columns(pinfo, ti, pkt, opname, xid);
	if (rpc->early_reply || rpc->pb_type == LNETCAP_PTL_RPC_MSG_ERR || rpc->partial)
		return (int)cap;
	dissect_opcode_body(tvb, pinfo, tree, ti, pkt, opname);
	return (int)cap;
}

typedef struct {
	lnetcap_trans_t *trans;
	gboolean reply_ack;    /* an ACK of the RPC's reply, not of its bulk */
	const char *full;      /* the table that had no room for this frame */
} frame_bulk_t;

/* Bulk PUT/GET (server to client, on the client's bulk portal) and ACKs
 * (of bulk PUTs, or of "difficult" replies): name the RPC they belong to. */
void lnetcap_link_bulk(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt)
{
	frame_bulk_t *fb = (frame_bulk_t *)p_get_proto_data(wmem_file_scope(), pinfo, proto_lnetcap, 2);
	proto_item *it;

	if (!fb && !PINFO_FD_VISITED(pinfo)) {
		trans_key_t key;
		fb = wmem_new0(wmem_file_scope(), frame_bulk_t);
		const ack_target_t *acked = NULL;
		if (pkt->msg_type == LNETCAP_MSG_ACK) {
			make_key(&key, &pkt->src, &pkt->dst, pkt->wmd_if ^ (pkt->wmd_obj * 31));
			acked = (const ack_target_t *)wmem_map_lookup(ack_map, &key);
		}
		if (acked) {
			/* The PUT it acknowledges is in the capture. */
			fb->trans = acked->trans;
			fb->reply_ack = acked->reply_ack;
		} else if (pkt->msg_type == LNETCAP_MSG_ACK) {
			/* An ACK goes from the client back to the server and
			 * acknowledges either a reply PUT or a bulk PUT; without
			 * its PUT, the last PUT with its match bits tells which. */
			make_key(&key, &pkt->src, &pkt->dst, pkt->match_bits);
			if (GPOINTER_TO_UINT(wmem_map_lookup(put_kind_map, &key)) == PUT_KIND_REPLY) {
				fb->trans = (lnetcap_trans_t *)wmem_map_lookup(trans_map, &key);
				fb->reply_ack = fb->trans != NULL;
			} else {
				fb->trans = (lnetcap_trans_t *)wmem_map_lookup(bulk_map, &key);
			}
		} else if (pkt->msg_type == LNETCAP_MSG_REPLY) {
			/* The client's REPLY to a bulk GET names the GET's
			 * return MD, not match bits. */
			make_key(&key, &pkt->src, &pkt->dst, pkt->wmd_if ^ (pkt->wmd_obj * 31));
			fb->trans = (lnetcap_trans_t *)wmem_map_lookup(wmd_map, &key);
		} else {
			make_key(&key, &pkt->dst, &pkt->src, pkt->match_bits);
			fb->trans = (lnetcap_trans_t *)wmem_map_lookup(bulk_map, &key);
			if (pkt->msg_type == LNETCAP_MSG_PUT && !remember_put(pkt, PUT_KIND_BULK))
				fb->full = "ACK kind";
			if (pkt->msg_type == LNETCAP_MSG_PUT && fb->trans && pkt->ack_wanted &&
			    !remember_ack(pkt, fb->trans, FALSE))
				fb->full = "ACK kind";
			if (pkt->msg_type == LNETCAP_MSG_GET && fb->trans) {
				make_key(&key, &pkt->dst, &pkt->src, pkt->wmd_if ^ (pkt->wmd_obj * 31));
				if (!lnetcap_table_insert(wmd_map, &key, sizeof(key), fb->trans))
					fb->full = "bulk GET";
			}
		}
		p_add_proto_data(wmem_file_scope(), pinfo, proto_lnetcap, 2, fb);
	}
	if (fb && fb->full)
		lnetcap_table_full_note(tvb, pinfo, tree, fb->full);
	if (!fb || !fb->trans)
		return;
	pkt->bulk_trans = fb->trans;
	pkt->bulk_reply_ack = fb->reply_ack;
	it = proto_tree_add_uint(tree, hf_bulk_of, tvb, 0, 0, fb->trans->req_frame);
	proto_item_set_generated(it);
	/* The RPC's opcode and XID, so that a filter on either keeps its
	 * bulk transfers and ACKs with it. */
	it = proto_tree_add_uint(tree, hf_pb_opc, tvb, 0, 0, fb->trans->opc);
	proto_item_set_generated(it);
	lnetcap_add_srt_row(tree, tvb, fb->trans->opc);
	it = proto_tree_add_uint64(tree, hf_xid, tvb, 0, 0, fb->trans->xid);
	proto_item_set_generated(it);
	col_append_fstr(pinfo->cinfo, COL_INFO, " [%s of %s xid 0x%" G_GINT64_MODIFIER "x]",
			fb->reply_ack ? "reply ACK" : "bulk",
			lnetcap_opcode_name(pinfo->pool, fb->trans->opc), fb->trans->xid);
}

void lnetcap_register_ptlrpc(void)
{
	static hf_register_info hf[] = {
		{ &hf_msg_byte_order, { "Byte order", "lnetcap.ptlrpc.msg.byte_order", FT_UINT8,
		  BASE_DEC, VALS(byte_order_vals), 0, "Sender's byte order, from lm_magic", HFILL } },
		{ &hf_msg_bufcount, { "Buffer count", "lnetcap.ptlrpc.msg.bufcount", FT_UINT32,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_msg_secflvr, { "Security flavour", "lnetcap.ptlrpc.msg.secflvr", FT_UINT32,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_msg_magic, { "Magic", "lnetcap.ptlrpc.msg.magic", FT_UINT32, BASE_HEX,
		  NULL, 0, NULL, HFILL } },
		{ &hf_msg_repsize, { "Reply size", "lnetcap.ptlrpc.msg.repsize", FT_UINT32, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_msg_cksum, { "Checksum", "lnetcap.ptlrpc.msg.cksum", FT_UINT32, BASE_HEX,
		  NULL, 0, NULL, HFILL } },
		{ &hf_msg_flags, { "Header flags", "lnetcap.ptlrpc.msg.flags", FT_UINT32, BASE_HEX,
		  NULL, 0, "MSGHDR_AT_SUPPORT 0x1, MSGHDR_CKSUM_INCOMPAT18 0x2", HFILL } },
		{ &hf_msg_opc, { "Batch opcode/result", "lnetcap.ptlrpc.msg.opc", FT_UINT32, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_msg_padding, { "Padding", "lnetcap.ptlrpc.msg.padding", FT_UINT32, BASE_HEX,
		  NULL, 0, NULL, HFILL } },
		{ &hf_msg_buflen, { "Buffer length", "lnetcap.ptlrpc.msg.buflen", FT_UINT32, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_body, { "PtlRPC body", "lnetcap.ptlrpc.body", FT_NONE, BASE_NONE,
		  NULL, 0, "ptlrpc_body", HFILL } },
		{ &hf_pb_body_version, { "Body version", "lnetcap.ptlrpc.body_version", FT_UINT8,
		  BASE_DEC, NULL, 0, "ptlrpc_body v2 (152 bytes) or v3 (184, with jobid)", HFILL } },
		{ &hf_pb_handle, { "Handle", "lnetcap.ptlrpc.handle", FT_UINT64, BASE_HEX,
		  NULL, 0, NULL, HFILL } },
		{ &hf_pb_type, { "Type", "lnetcap.ptlrpc.type", FT_UINT32, BASE_DEC,
		  VALS(lnetcap_pb_type_vals), 0, NULL, HFILL } },
		{ &hf_pb_version, { "Version", "lnetcap.ptlrpc.version", FT_UINT32, BASE_HEX,
		  NULL, 0, NULL, HFILL } },
		{ &hf_pb_target, { "Target", "lnetcap.ptlrpc.target", FT_UINT32, BASE_HEX,
		  VALS(lnetcap_target_version_vals), 0, NULL, HFILL } },
		{ &hf_pb_opc, { "Opcode", "lnetcap.ptlrpc.opc", FT_UINT32, BASE_DEC | BASE_EXT_STRING,
		  &lnetcap_opcode_vals_ext, 0, NULL, HFILL } },
		{ &hf_srt_row, { "SRT row", "lnetcap.ptlrpc.srt_row", FT_UINT32, BASE_DEC, NULL, 0,
		  "The opcode's row in the Service Response Time tables (its position among lnetcap's "
		  "known opcodes; the last row is every other opcode): the filter an SRT row applies", HFILL } },
		{ &hf_pb_io_bytes, { "Status: bytes transferred", "lnetcap.ptlrpc.io_bytes", FT_UINT32,
		  BASE_DEC|BASE_UNIT_STRING, &units_byte_bytes, 0,
		  "pb_status of a successful OST_READ/OST_WRITE reply: the bulk transfer size", HFILL } },
		{ &hf_pb_status, { "Status", "lnetcap.ptlrpc.status", FT_INT32, BASE_DEC,
		  VALS(lnetcap_status_vals), 0, "Negative errno, or a positive LDLM result", HFILL } },
		{ &hf_pb_sender_pid, { "Sender PID", "lnetcap.ptlrpc.sender_pid", FT_UINT32, BASE_DEC,
		  NULL, 0, "pb_status of a request: the sending process's pid", HFILL } },
		{ &hf_pb_last_xid, { "Last XID", "lnetcap.ptlrpc.last_xid", FT_UINT64, BASE_HEX,
		  NULL, 0, NULL, HFILL } },
		{ &hf_pb_tag, { "Tag", "lnetcap.ptlrpc.tag", FT_UINT16, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_pb_padding0, { "Padding", "lnetcap.ptlrpc.padding0", FT_UINT16, BASE_HEX,
		  NULL, 0, NULL, HFILL } },
		{ &hf_pb_padding1, { "Padding 1", "lnetcap.ptlrpc.padding1", FT_UINT32, BASE_HEX,
		  NULL, 0, "pb_padding1 in Lustre 2.16 (the layout this plugin follows); "
		  "Lustre 2.17 puts pb_projid here", HFILL } },
		{ &hf_pb_last_committed, { "Last committed", "lnetcap.ptlrpc.last_committed",
		  FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_pb_transno, { "Transno", "lnetcap.ptlrpc.transno", FT_UINT64, BASE_HEX,
		  NULL, 0, NULL, HFILL } },
		{ &hf_pb_op_flags, { "Op flags", "lnetcap.ptlrpc.op_flags", FT_UINT32, BASE_HEX,
		  NULL, 0, NULL, HFILL } },
		{ &hf_pb_conn_cnt, { "Connection count", "lnetcap.ptlrpc.conn_cnt", FT_UINT32,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_pb_timeout, { "Timeout", "lnetcap.ptlrpc.timeout", FT_UINT32, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_pb_service_time, { "Service time", "lnetcap.ptlrpc.service_time", FT_UINT32,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_pb_pre_version, { "Pre-version", "lnetcap.ptlrpc.pre_version", FT_UINT64,
		  BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_pb_mbits, { "Match bits", "lnetcap.ptlrpc.mbits", FT_UINT64, BASE_HEX,
		  NULL, 0, "pb_mbits: last bulk (or reply) match bits", HFILL } },
		{ &hf_pb_padding64, { "Padding", "lnetcap.ptlrpc.padding64", FT_UINT64, BASE_HEX,
		  NULL, 0, NULL, HFILL } },
		{ &hf_pb_jobid, { "Job ID", "lnetcap.ptlrpc.jobid", FT_STRINGZPAD, BASE_NONE,
		  NULL, 0, NULL, HFILL } },
		{ &hf_xid, { "XID", "lnetcap.ptlrpc.xid", FT_UINT64, BASE_HEX,
		  NULL, 0, "Transfer id (the LNet match bits)", HFILL } },
		{ &hf_early, { "Early reply", "lnetcap.ptlrpc.early_reply", FT_BOOLEAN, BASE_NONE,
		  NULL, 0, "Adaptive-timeout progress reply", HFILL } },
		{ &hf_response_in, { "Response in", "lnetcap.response_in", FT_FRAMENUM, BASE_NONE,
		  FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0, NULL, HFILL } },
		{ &hf_response_to, { "Response to", "lnetcap.response_to", FT_FRAMENUM, BASE_NONE,
		  FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0, NULL, HFILL } },
		{ &hf_time, { "Time", "lnetcap.time", FT_RELATIVE_TIME, BASE_NONE,
		  NULL, 0, "Time since the request", HFILL } },
		{ &hf_resends, { "First sent in", "lnetcap.ptlrpc.resend_of", FT_FRAMENUM, BASE_NONE,
		  FRAMENUM_TYPE(FT_FRAMENUM_DUP_ACK), 0, NULL, HFILL } },
		{ &hf_bulk_of, { "Transfer of the RPC in", "lnetcap.ptlrpc.bulk_of", FT_FRAMENUM,
		  BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0,
		  "Request frame of the RPC this bulk transfer or ACK belongs to", HFILL } },
	};
	static gint *ett[] = { &ett_msg, &ett_buflens, &ett_body };
	static ei_register_info ei[] = {
		{ &ei_bufcount, { "lnetcap.ptlrpc.bufcount.bad", PI_MALFORMED, PI_ERROR,
		  "Bad lm_bufcount", EXPFILL } },
		{ &ei_buflen, { "lnetcap.ptlrpc.buflen.bad", PI_MALFORMED, PI_ERROR,
		  "Bad buffer length", EXPFILL } },
		{ &ei_body_len, { "lnetcap.ptlrpc.body.short", PI_MALFORMED, PI_ERROR,
		  "ptlrpc_body too short", EXPFILL } },
		{ &ei_status, { "lnetcap.ptlrpc.status.error", PI_RESPONSE_CODE, PI_WARN,
		  "RPC failed", EXPFILL } },
		{ &ei_err_msg, { "lnetcap.ptlrpc.type.error", PI_RESPONSE_CODE, PI_WARN,
		  "PtlRPC error message", EXPFILL } },
		{ &ei_resent, { "lnetcap.ptlrpc.resent", PI_SEQUENCE, PI_NOTE,
		  "Request resent (MSG_RESENT)", EXPFILL } },
		{ &ei_dup_request, { "lnetcap.ptlrpc.duplicate_xid", PI_SEQUENCE, PI_NOTE,
		  "XID seen before", EXPFILL } },
		{ &ei_no_reply, { "lnetcap.ptlrpc.no_reply", PI_SEQUENCE, PI_NOTE,
		  "No reply to this request in the capture", EXPFILL } },
		{ &ei_no_request, { "lnetcap.ptlrpc.no_request", PI_SEQUENCE, PI_CHAT,
		  "Request of this reply not in the capture", EXPFILL } },
		{ &ei_early, { "lnetcap.ptlrpc.early_reply.more_time", PI_SEQUENCE, PI_CHAT,
		  "Early reply: the server asks for more time", EXPFILL } },
		{ &ei_secflvr, { "lnetcap.ptlrpc.secflvr", PI_UNDECODED, PI_NOTE,
		  "Security flavour not decoded", EXPFILL } },
		{ &ei_body_unknown, { "lnetcap.ptlrpc.body.undecoded", PI_UNDECODED, PI_CHAT,
		  "Body not decoded", EXPFILL } },
	};
	expert_module_t *em;
	int proto;

	proto_ptlrpc = proto_register_protocol("Lustre PtlRPC (lnetcap)", "PtlRPC", "lnetcap.ptlrpc");
	proto = proto_ptlrpc;
	register_dissector("lnetcap.ptlrpc", dissect_ptlrpc, proto);
	/* Body protocols register here by opcode (lnetcap_body_register). */
	opc_table = register_dissector_table(LNETCAP_OPC_TABLE, "PtlRPC opcode", proto, FT_UINT32,
					     BASE_DEC);
	lnetcap_register_body_helpers(proto);
	lnetcap_register_elc(proto);
	proto_register_field_array(proto, hf, array_length(hf));
	/* pb_limit, pb_slv, pb_uid, pb_gid: rows of include/lnetcap/fields.h;
	 * dissect_body() adds them in their places. */
	lnetcap_body_fields_register(proto, LNETCAP_RMF_PTLRPC_BODY);
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto);
	expert_register_field_array(em, ei, array_length(ei));
	lnetcap_flagset_register(proto, &fs_pb_flags);
	lnetcap_flagset_register(proto, &fs_connect_op);
	trans_map = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
					   lnetcap_rpc_key_hash, lnetcap_rpc_key_equal);
	bulk_map = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
					  lnetcap_rpc_key_hash, lnetcap_rpc_key_equal);
	put_kind_map = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
					      lnetcap_rpc_key_hash, lnetcap_rpc_key_equal);
	wmd_map = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
					 lnetcap_rpc_key_hash, lnetcap_rpc_key_equal);
	ack_map = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
					 lnetcap_rpc_key_hash, lnetcap_rpc_key_equal);
}
