/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-lnetcap.c - the lnetcap capture record (include/lnetcap/record.h)
 * and the protocol's registration: fields of the record pseudo-header,
 * preferences, the NID address type, the link-type claim and the
 * conversation/endpoint tables.  The LNet header, PtlRPC and bodies are
 * decoded by the other packet-lnetcap-*.c files.
 */
#include <string.h>

#include <epan/packet.h>
#include <epan/address_types.h>
#include <epan/conversation_table.h>
#include <epan/expert.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/tap.h>
#include <epan/conversation_filter.h>
#include <epan/to_str.h>
#include <wiretap/wtap.h>

#include "packet-lnetcap.h"
#include "lnetcap-names.h"
#include "lnetcap-node.h"
#include "lnetcap-tables.h"
#include "lnetcap-vals.h"
#include "lnetcap/record.h"

void proto_register_lnetcap(void);
void proto_reg_handoff_lnetcap(void);

/* record.h names the wtap encapsulation of LINKTYPE_USER0 for readers
 * that have no wtap.h; it must agree with Wireshark's. */
G_STATIC_ASSERT(WTAP_ENCAP_USER0 == LNETCAP_WTAP_ENCAP_USER0);

#define REC(f) LNETCAP_OFF(struct lnetcap_rec_hdr, f), LNETCAP_LEN(struct lnetcap_rec_hdr, f)

int proto_lnetcap = -1;
int lnetcap_tap = -1;

static int hf_rec = -1;
static int hf_node = -1;
static int hf_node_index = -1;
static int hf_seen_by = -1;
static int hf_rec_magic = -1;
static int hf_rec_version = -1;
static int hf_rec_hdr_len = -1;
static int hf_rec_direction = -1;
static int hf_rec_hook = -1;
static int hf_rec_lnd = -1;
static int hf_rec_lnet_hdr_len = -1;
static int hf_rec_health = -1;
static int hf_rec_retries = -1;
static int hf_rec_cpu = -1;
static int hf_rec_pid = -1;
static int hf_rec_comm = -1;
static int hf_rec_seq = -1;
static int hf_rec_seq_gap = -1;
static int hf_rec_payload_len = -1;
static int hf_rec_payload_caplen = -1;
static int hf_rec_truncated = -1;
static int hf_rec_local_nid = -1;
static int hf_rec_peer_nid = -1;
static int hf_rec_status = -1;
static int hf_rec_ni_id = -1;
static int hf_rec_queue = -1;
static int hf_rec_msg_id = -1;
static int hf_rec_drop_reason = -1;
static int hf_rec_outcome_of = -1;

static gint ett_lnetcap = -1;
static gint ett_rec = -1;

static expert_field ei_rec_version = EI_INIT;
static expert_field ei_rec_short = EI_INIT;
static expert_field ei_rec_seq_gap = EI_INIT;
static expert_field ei_rec_gap_flag = EI_INIT;
static expert_field ei_rec_unreadable = EI_INIT;
static expert_field ei_rec_health = EI_INIT;
static expert_field ei_rec_retries = EI_INIT;
static expert_field ei_rec_status = EI_INIT;
static expert_field ei_rec_drop = EI_INIT;

static lnetcap_flagset_t fs_rec_flags = LNETCAP_FLAGSET(
	"lnetcap.rec.flags", "Record flags", 16, lnetcap_rec_flag_defs, lnetcap_rec_flag_count);

/* Preferences. */
static guint pref_user_slot = LNETCAP_LINKTYPE_USER_SLOT;
static guint claimed_encap;
lnetcap_ws_bool lnetcap_pref_delegate_lustre = FALSE;
lnetcap_ws_bool lnetcap_pref_decode_rpc = TRUE;

static dissector_handle_t lnetcap_handle;
static int at_lnetcap_nid = -1;

/* Last sequence number per sequence domain (node and cpu), first pass only. */
static wmem_map_t *last_seq_by_domain;
/* msg_id -> frame of the message's first record, for OUTCOME links. */
static wmem_map_t *frame_by_msg_id;

typedef struct {
	guint64 seq_gap;   /* records missing just before this one */
	guint32 outcome_of; /* frame of the message an OUTCOME completes, 0 */
	gboolean untracked; /* its sequence domain found the table full */
} lnetcap_frame_t;

/* --- NID address type -------------------------------------------------------
 * Address data is the 20-byte struct lnet_nid form, so nid4 and nid16
 * NIDs of the same node compare equal in conversations. */
static int nid_addr_to_str(const address *addr, gchar *buf, int buf_len)
{
	lnetcap_nid_t nid;
	lnetcap_nid_from_raw(&nid, (const guint8 *)addr->data);
	lnetcap_nid_to_str(&nid, buf, (size_t)buf_len);
	return (int)strlen(buf) + 1;
}

static int nid_addr_str_len(const address *addr)
{
	return LNETCAP_NID_STRLEN;
}

static const char *nid_col_filter(const address *addr, lnetcap_ws_bool src)
{
	return src ? "lnetcap.lnet.src_nid" : "lnetcap.lnet.dest_nid";
}

static int nid_addr_len(void)
{
	return 20;
}

void lnetcap_set_address(packet_info *pinfo, address *a, const lnetcap_nid_t *nid)
{
	guint8 *raw = (guint8 *)wmem_alloc(pinfo->pool, 20);
	lnetcap_nid_to_raw(nid, raw);
	set_address(a, at_lnetcap_nid, 20, raw);
}

/* --- Conversations and endpoints ------------------------------------------ */
static const char *conv_filter_type(conv_item_t *conv, conv_filter_type_e filter)
{
	if (filter == CONV_FT_SRC_ADDRESS)
		return "lnetcap.lnet.src_nid";
	if (filter == CONV_FT_DST_ADDRESS)
		return "lnetcap.lnet.dest_nid";
	if (filter == CONV_FT_ANY_ADDRESS)
		return "lnetcap.nid";
	return CONV_FILTER_INVALID;
}

static ct_dissector_info_t conv_info = { &conv_filter_type };

static const char *endpoint_filter_type(endpoint_item_t *item, conv_filter_type_e filter)
{
	if (filter == CONV_FT_ANY_ADDRESS)
		return "lnetcap.nid";
	return CONV_FILTER_INVALID;
}

static et_dissector_info_t endpoint_info = { &endpoint_filter_type };

/* The Conversations and Endpoints tables hold NIDs as AT_STRINGZ
 * addresses: Wireshark quotes those when it builds "Apply as Filter"
 * strings (lnetcap.nid == "10.0.3.1@tcp"); our own address type would be
 * pasted bare, and 10.0.3.1@tcp is not a valid filter value. */
static void nid_text_address(address *a, const char *nid)
{
	set_address(a, AT_STRINGZ, (int)strlen(nid) + 1, nid);
}

static tap_packet_status conv_packet(void *pct, packet_info *pinfo, epan_dissect_t *edt,
				     const void *vip, tap_flags_t flags)
{
	conv_hash_t *hash = (conv_hash_t *)pct;
	const lnetcap_tap_info_t *ti = (const lnetcap_tap_info_t *)vip;
	address src, dst;
	if (!ti->src_str || pinfo->src.type != at_lnetcap_nid)
		return TAP_PACKET_DONT_REDRAW;
	hash->flags = flags;
	nid_text_address(&src, ti->src_str);
	nid_text_address(&dst, ti->dst_str);
	add_conversation_table_data(hash, &src, &dst, 0, 0, 1,
				    pinfo->fd->pkt_len, &pinfo->rel_ts, &pinfo->abs_ts,
				    &conv_info, CONVERSATION_NONE);
	return TAP_PACKET_REDRAW;
}

static tap_packet_status endpoint_packet(void *pit, packet_info *pinfo, epan_dissect_t *edt,
					 const void *vip, tap_flags_t flags)
{
	conv_hash_t *hash = (conv_hash_t *)pit;
	const lnetcap_tap_info_t *ti = (const lnetcap_tap_info_t *)vip;
	address src, dst;
	if (!ti->src_str || pinfo->src.type != at_lnetcap_nid)
		return TAP_PACKET_DONT_REDRAW;
	hash->flags = flags;
	nid_text_address(&src, ti->src_str);
	nid_text_address(&dst, ti->dst_str);
	add_endpoint_table_data(hash, &src, 0, TRUE, 1, pinfo->fd->pkt_len,
				&endpoint_info, ENDPOINT_NONE);
	add_endpoint_table_data(hash, &dst, 0, FALSE, 1, pinfo->fd->pkt_len,
				&endpoint_info, ENDPOINT_NONE);
	return TAP_PACKET_REDRAW;
}

/* Conversation Filter / Colorize Conversation in the packet list's menu. */
static lnetcap_conv_valid_t conv_filter_valid(LNETCAP_CONV_FILTER_PARAMS(pinfo))
{
	return pinfo->src.type == at_lnetcap_nid && pinfo->dst.type == at_lnetcap_nid;
}

static gchar *lnetcap_conv_filter_string(LNETCAP_CONV_FILTER_PARAMS(pinfo))
{
	char *a, *b, *s;
	if (!conv_filter_valid(LNETCAP_CONV_FILTER_CALL(pinfo)))
		return NULL;
	a = address_to_str(NULL, &pinfo->src);
	b = address_to_str(NULL, &pinfo->dst);
	s = g_strdup_printf("lnetcap.nid == \"%s\" && lnetcap.nid == \"%s\"", a, b);
	wmem_free(NULL, a);
	wmem_free(NULL, b);
	return s;
}

/* --- Record ---------------------------------------------------------------- */
static void add_rec_nid(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, int hf, int off)
{
	guint8 raw[20];
	lnetcap_nid_t nid;
	char buf[LNETCAP_NID_STRLEN];

	tvb_memcpy(tvb, raw, off, 20);
	lnetcap_nid_from_raw(&nid, raw);
	lnetcap_nid_to_str(&nid, buf, sizeof(buf));
	proto_tree_add_string(tree, hf, tvb, off, 20, buf);
}

/* First pass: the frame holding the first record of msg_id, remembered for
 * the outcome records that link to it (record.h: msg_id, OUTCOME). */
static guint32 outcome_frame(packet_info *pinfo, guint64 msg_id, gboolean outcome)
{
	lnetcap_frame_t *fr = (lnetcap_frame_t *)p_get_proto_data(
		wmem_file_scope(), pinfo, proto_lnetcap, 0);
	guint64 *key;
	gpointer f;

	if (!fr || !msg_id)
		return 0;
	if (!PINFO_FD_VISITED(pinfo)) {
		f = wmem_map_lookup(frame_by_msg_id, &msg_id);
		if (outcome && f)
			fr->outcome_of = GPOINTER_TO_UINT(f);
		else if (!outcome && !f && !lnetcap_table_is_full(frame_by_msg_id)) {
			key = wmem_new(wmem_file_scope(), guint64);
			*key = msg_id;
			wmem_map_insert(frame_by_msg_id, key, GUINT_TO_POINTER(pinfo->num));
		}
	}
	return fr->outcome_of;
}

/* Sequence gap before this record, computed on the first pass in frame
 * order and remembered for later passes.  The sequence is kept per
 * sequence domain: the capturing node (lnetcap-node.c) and the record's cpu
 * field.  Live capture numbers records per CPU (the BPF ring's per-CPU
 * counters) across all NIs of its node, while converters and other sources
 * that know no CPU (cpu = ~0) number all records of the source in one
 * sequence across all of its interfaces: a per-interface check would report
 * false gaps for both.  In a capture merged from several nodes each node
 * counts on its own, so a CPU's sequence is followed per node. */
static guint64 seq_gap(packet_info *pinfo, guint node, guint32 cpu, guint64 seq,
		       gboolean *untracked)
{
	lnetcap_frame_t *fr = (lnetcap_frame_t *)p_get_proto_data(
		wmem_file_scope(), pinfo, proto_lnetcap, 0);
	if (!fr) {
		guint64 *last;
		guint64 domain = ((guint64)node << 32) | cpu;
		fr = wmem_new0(wmem_file_scope(), lnetcap_frame_t);
		last = (guint64 *)wmem_map_lookup(last_seq_by_domain, &domain);
		if (!last) {
			/* A full table means no gap detection for new domains. */
			last = wmem_new(wmem_file_scope(), guint64);
			if (!lnetcap_table_insert(last_seq_by_domain, &domain, sizeof(domain), last))
				fr->untracked = TRUE;
		} else if (seq > *last + 1) {
			fr->seq_gap = seq - *last - 1;
		}
		/* Merged or reordered files may go backwards: no gap, resync. */
		*last = seq;
		p_add_proto_data(wmem_file_scope(), pinfo, proto_lnetcap, 0, fr);
	}
	*untracked = fr->untracked;
	return fr->seq_gap;
}


/* Why a live capture could not read a payload (record flags PAYLOAD_*). */
static const char *
unreadable_reason(guint flags)
{
	if (flags & LNETCAP_REC_F_PAYLOAD_NO_PAGE_MAP)
		return "its pages could not be mapped on the capturing node";
	if (flags & LNETCAP_REC_F_PAYLOAD_FAULT)
		return "reading it faulted on the capturing node";
	if (flags & LNETCAP_REC_F_PAYLOAD_DEVICE_MEMORY)
		return "it is in device (GPU) memory, which the capture never reads";
	if (flags & LNETCAP_REC_F_PAYLOAD_DISCARDED)
		return "LNet may discard received data of its MD (LNET_MD_DISCARD)";
	if (flags & LNETCAP_REC_F_PAYLOAD_PAGE_LIMIT)
		return "it spans more pages than the capture reads per record";
	return "the capture could not read it";
}

/* What the record pseudo-header says that the rest of the dissection needs. */
struct rec_fields {
	guint32 hdr_len, lnet_hdr_len, flags, direction, health, retries, cpu;
	guint32 payload_len, payload_caplen;
	const lnetcap_node_t *node;  /* the capturing node */
};

/* The record's sequence number, and the records missing before it. */
static void dissect_rec_seq(tvbuff_t *tvb, packet_info *pinfo, proto_tree *rt, guint node,
			    guint32 cpu)
{
	proto_item *it;
	guint64 seq, gap;
	gboolean untracked;

	proto_tree_add_item_ret_uint64(rt, hf_rec_seq, tvb, REC(seq), ENC_LITTLE_ENDIAN, &seq);
	gap = seq_gap(pinfo, node, cpu, seq, &untracked);
	if (untracked)
		lnetcap_table_full_note(tvb, pinfo, rt, "sequence domain");
	if (gap) {
		it = proto_tree_add_uint64(rt, hf_rec_seq_gap, tvb, REC(seq), gap);
		proto_item_set_generated(it);
		expert_add_info_format(pinfo, it, &ei_rec_seq_gap,
			"%" G_GUINT64_FORMAT " record(s) missing before this one "
			"(sequence jumped)", gap);
	}
}

/* The payload's length and how much of it was captured. */
static void dissect_rec_payload_lengths(tvbuff_t *tvb, packet_info *pinfo, proto_tree *rt,
					struct rec_fields *r)
{
	proto_tree_add_item_ret_uint(rt, hf_rec_payload_len, tvb, REC(payload_len),
				     ENC_LITTLE_ENDIAN, &r->payload_len);
	proto_tree_add_item_ret_uint(rt, hf_rec_payload_caplen, tvb, REC(payload_caplen),
				     ENC_LITTLE_ENDIAN, &r->payload_caplen);
	if (r->payload_caplen < r->payload_len) {
		proto_item *t = proto_tree_add_boolean(rt, hf_rec_truncated, tvb,
			REC(payload_caplen), TRUE);
		proto_item_set_generated(t);
		/* A payload the capture could not read is a problem worth a note,
		 * with the reason the record carries.  A snapped bulk payload or an
		 * undecoded body needs none: on a big trace those notes would bury
		 * the real ones, and decoders that miss bytes say so themselves
		 * (lnetcap.ptlrpc.truncated). */
		if (r->flags & LNETCAP_REC_F_PAYLOAD_UNREADABLE)
			expert_add_info_format(pinfo, t, &ei_rec_unreadable,
				"Only %u of %u payload bytes were captured: %s",
				r->payload_caplen, r->payload_len, unreadable_reason(r->flags));
	}
}

/* The LNet health fields (queue time, message id, drop reason, the
 * outcome link), in headers long enough to hold them. */
static void dissect_rec_health_tail(tvbuff_t *tvb, packet_info *pinfo, proto_tree *rt,
				    const struct rec_fields *r)
{
	proto_item *it;
	guint64 msg_id;
	guint32 reason = 0, linked;

	if (r->hdr_len < LNETCAP_REC_HDR_LEN)
		return;
	msg_id = tvb_get_letoh64(tvb, LNETCAP_OFF(struct lnetcap_rec_hdr, msg_id));
	if (r->flags & LNETCAP_REC_F_QUEUE_VALID)
		proto_tree_add_item(rt, hf_rec_queue, tvb, REC(queue_ns), ENC_LITTLE_ENDIAN);
	if (msg_id)
		proto_tree_add_item(rt, hf_rec_msg_id, tvb, REC(msg_id), ENC_LITTLE_ENDIAN);
	if (r->direction == LNETCAP_DIR_DROP) {
		it = proto_tree_add_item_ret_uint(rt, hf_rec_drop_reason, tvb,
						  REC(drop_reason), ENC_NA, &reason);
		expert_add_info_format(pinfo, it, &ei_rec_drop, "LNet dropped %s: %s",
			(r->flags & LNETCAP_REC_F_OUTCOME) ? "the message of an earlier record"
							   : "this message",
			val_to_str_const(reason, lnetcap_drop_reason_desc, "unknown reason"));
	}
	linked = outcome_frame(pinfo, msg_id, (r->flags & LNETCAP_REC_F_OUTCOME) != 0);
	if (linked) {
		it = proto_tree_add_uint(rt, hf_rec_outcome_of, tvb, REC(msg_id), linked);
		proto_item_set_generated(it);
	}
}

/* The record pseudo-header, into the subtree rt.  FALSE when the rest of
 * the record cannot be decoded (an unknown version, a short header). */
static gboolean dissect_rec_header(tvbuff_t *tvb, packet_info *pinfo, proto_item *rec_item,
				   proto_tree *rt, struct rec_fields *r)
{
	proto_item *it;
	guint32 version;
	gint32 status;

	proto_tree_add_item(rt, hf_rec_magic, tvb, REC(magic), ENC_LITTLE_ENDIAN);
	it = proto_tree_add_item_ret_uint(rt, hf_rec_version, tvb, REC(version),
					  ENC_LITTLE_ENDIAN, &version);
	if (version != LNETCAP_REC_VERSION) {
		expert_add_info_format(pinfo, it, &ei_rec_version,
			"Record version %u; this plugin decodes version %u only "
			"(a newer lnetcap wrote this file: update the plugin)",
			version, LNETCAP_REC_VERSION);
		col_set_str(pinfo->cinfo, COL_INFO, "lnetcap record of an unknown version");
		return FALSE;
	}
	it = proto_tree_add_item_ret_uint(rt, hf_rec_hdr_len, tvb, REC(rec_hdr_len),
					  ENC_LITTLE_ENDIAN, &r->hdr_len);
	if (r->hdr_len < LNETCAP_REC_HDR_V1_LEN || tvb_captured_length(tvb) < r->hdr_len) {
		expert_add_info_format(pinfo, it, &ei_rec_short,
			"Record header length %u: needs >= %u and at most the %u captured bytes",
			r->hdr_len, LNETCAP_REC_HDR_V1_LEN, tvb_captured_length(tvb));
		col_set_str(pinfo->cinfo, COL_INFO, "Malformed lnetcap record");
		return FALSE;
	}
	proto_item_set_len(rec_item, (gint)r->hdr_len);

	proto_tree_add_item_ret_uint(rt, hf_rec_direction, tvb, REC(direction), ENC_NA, &r->direction);
	proto_tree_add_item(rt, hf_rec_hook, tvb, REC(hook), ENC_NA);
	proto_tree_add_item(rt, hf_rec_lnd, tvb, REC(lnd_type), ENC_NA);
	proto_tree_add_item_ret_uint(rt, hf_rec_lnet_hdr_len, tvb, REC(lnet_hdr_len), ENC_NA,
				     &r->lnet_hdr_len);
	r->flags = tvb_get_letohs(tvb, LNETCAP_OFF(struct lnetcap_rec_hdr, rec_flags));
	it = lnetcap_flagset_add(rt, tvb, LNETCAP_OFF(struct lnetcap_rec_hdr, rec_flags),
				 ENC_LITTLE_ENDIAN, &fs_rec_flags);
	if (r->flags & LNETCAP_REC_F_GAP_BEFORE)
		expert_add_info(pinfo, it, &ei_rec_gap_flag);

	it = proto_tree_add_item_ret_uint(rt, hf_rec_health, tvb, REC(health_status), ENC_NA,
					  &r->health);
	if ((r->flags & LNETCAP_REC_F_HEALTH_VALID) && r->health != LNETCAP_HEALTH_OK)
		expert_add_info_format(pinfo, it, &ei_rec_health, "LNet health: %s",
				       val_to_str_const(r->health, lnetcap_health_vals, "unknown"));
	it = proto_tree_add_item_ret_uint(rt, hf_rec_retries, tvb, REC(retry_count), ENC_NA,
					  &r->retries);
	if ((r->flags & LNETCAP_REC_F_HEALTH_VALID) && r->retries > 0)
		expert_add_info_format(pinfo, it, &ei_rec_retries,
				       "LNet resent this message %u time(s)", r->retries);
	proto_tree_add_item_ret_uint(rt, hf_rec_cpu, tvb, REC(cpu), ENC_LITTLE_ENDIAN, &r->cpu);
	if (r->flags & LNETCAP_REC_F_TASK_VALID) {
		proto_tree_add_item(rt, hf_rec_pid, tvb, REC(pid), ENC_LITTLE_ENDIAN);
		proto_tree_add_item(rt, hf_rec_comm, tvb, REC(comm), ENC_ASCII);
	}
	dissect_rec_seq(tvb, pinfo, rt, lnetcap_node_index(r->node), r->cpu);
	dissect_rec_payload_lengths(tvb, pinfo, rt, r);
	add_rec_nid(rt, tvb, pinfo, hf_rec_local_nid, LNETCAP_OFF(struct lnetcap_rec_hdr, local_nid));
	add_rec_nid(rt, tvb, pinfo, hf_rec_peer_nid, LNETCAP_OFF(struct lnetcap_rec_hdr, peer_nid));
	if (r->flags & LNETCAP_REC_F_STATUS_VALID) {
		it = proto_tree_add_item_ret_int(rt, hf_rec_status, tvb, REC(status),
						 ENC_LITTLE_ENDIAN, &status);
		if (status != 0)
			expert_add_info_format(pinfo, it, &ei_rec_status,
				"LNet completion status %s",
				val_to_str((guint32)status, lnetcap_status_vals, "%d"));
	}
	proto_tree_add_item(rt, hf_rec_ni_id, tvb, REC(ni_id), ENC_LITTLE_ENDIAN);
	dissect_rec_health_tail(tvb, pinfo, rt, r);
	return TRUE;
}

/* The LNet header and the payload prefix after the pseudo-header, then
 * the links to other records (bulk to its RPC, across nodes). */
static void dissect_rec_lnet(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, proto_tree *lt,
			     const struct rec_fields *r, lnetcap_pkt_t *pkt)
{
	guint avail;

	if (r->lnet_hdr_len != 0) {
		tvbuff_t *payload;
		if (dissect_lnetcap_lnet(tvb, pinfo, lt, r->hdr_len, pkt) <= 0)
			return;
		/* The payload prefix: reported length is the original payload
		 * length, so anything cut by the snap length is known as such. */
		avail = tvb_captured_length_remaining(tvb, (gint)(r->hdr_len + r->lnet_hdr_len));
		if (avail > r->payload_caplen)
			avail = r->payload_caplen;
		if (r->payload_len > 0 && avail > 0) {
			/* A corrupt payload_len must not claim more than the frame's
			 * original length holds (that would throw here). */
			guint rep = (guint)tvb_reported_length_remaining(tvb,
				(gint)(r->hdr_len + r->lnet_hdr_len));
			rep = MIN(rep, MAX(r->payload_len, avail));
			payload = tvb_new_subset_length_caplen(tvb, (gint)(r->hdr_len + r->lnet_hdr_len),
				(gint)avail, (gint)rep);
			dissect_lnetcap_lnet_payload(payload, pinfo, tree, lt, pkt);
		}
	}
	/* Bulk transfers and ACKs carry no PtlRPC header: link them to their
	 * RPC through the match bits. */
	if (pkt->have_lnet && !pkt->is_rpc && lnetcap_pref_decode_rpc &&
	    pkt->msg_type <= LNETCAP_MSG_REPLY &&
	    !(pkt->have_portal && pkt->portal == LNETCAP_PORTAL_LNET_RESERVED) &&
	    pkt->match_bits != LNETCAP_LNET_PING_MATCHBITS && !pkt->ping_info)
		lnetcap_link_bulk(tvb, pinfo, lt, pkt);
	lnetcap_xnode_link(tvb, pinfo, lt, pkt);
	lnetcap_lnet_ping_kind(tvb, pinfo, lt, pkt);
}

/* The capturing node (lnetcap-node.c) and what it saw the message do. */
static void dissect_rec_node(tvbuff_t *tvb, packet_info *pinfo, proto_tree *lt, proto_item *ti,
			     const lnetcap_pkt_t *pkt)
{
	const char *word = val_to_str_const(pkt->direction, lnetcap_direction_words, "?");
	proto_item *it;

	it = proto_tree_add_string(lt, hf_node, tvb, 0, 0, pkt->node);
	proto_item_set_generated(it);
	it = proto_tree_add_uint(lt, hf_node_index, tvb, 0, 0, pkt->node_index);
	proto_item_set_generated(it);
	it = proto_tree_add_string_format_value(lt, hf_seen_by, tvb, 0, 0,
		wmem_strdup_printf(pinfo->pool, "%s %s", pkt->node, word),
		"%s, %s", pkt->node, word);
	proto_item_set_generated(it);
	proto_item_append_text(ti, ", %s on %s", word, pkt->node);
}

/* What the statistics (taps) count of this record. */
static void queue_tap(packet_info *pinfo, const lnetcap_pkt_t *pkt)
{
	lnetcap_tap_info_t *tap = wmem_new0(pinfo->pool, lnetcap_tap_info_t);

	tap->health = pkt->health;
	tap->direction = pkt->direction;
	tap->node = pkt->node;
	tap->node_index = pkt->node_index;
	lnetcap_nid_to_str(&pkt->peer, tap->peer_str, sizeof(tap->peer_str));
	tap->received = pkt->received;
	tap->ping_kind = pkt->ping_get ? pkt->ping_kind : NULL;
	tap->xnode_prev_hop_seen = pkt->xnode_prev_hop_seen;
	tap->phase_done = pkt->phase_done;
	tap->phase_final = pkt->phase_final;
	if (pkt->have_lnet) {
		tap->msg_type = pkt->msg_type;
		tap->portal = pkt->portal;
		tap->have_portal = pkt->have_portal;
		tap->src_str = pkt->src_str;
		tap->dst_str = pkt->dst_str;
	}
	if (pkt->is_rpc && pkt->rpc.have_body) {
		tap->is_rpc = TRUE;
		tap->pb_type = pkt->rpc.pb_type;
		tap->opc = pkt->rpc.opc;
		tap->status = pkt->rpc.status;
		tap->early_reply = pkt->rpc.early_reply;
		tap->jobid = pkt->rpc.jobid;
		if (pkt->trans && pkt->trans->rep_frame == pinfo->num && !pkt->rpc.early_reply) {
			tap->matched_reply = TRUE;
			tap->req_time = pkt->trans->req_time;
		}
	}
	tap_queue_packet(lnetcap_tap, pinfo, tap);
}

static int dissect_lnetcap(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
	proto_item *ti, *rec_item;
	proto_tree *lt, *rt;
	struct rec_fields r = { 0 };
	lnetcap_pkt_t *pkt;

	/* Not ours unless it starts with the record magic. */
	if (tvb_captured_length(tvb) < 8 ||
	    tvb_get_letohl(tvb, 0) != LNETCAP_REC_MAGIC)
		return 0;

	col_set_str(pinfo->cinfo, COL_PROTOCOL, "LNetCap");
	col_clear(pinfo->cinfo, COL_INFO);

	ti = proto_tree_add_item(tree, proto_lnetcap, tvb, 0, -1, ENC_NA);
	lt = proto_item_add_subtree(ti, ett_lnetcap);
	r.node = lnetcap_node_of(pinfo);
	rec_item = proto_tree_add_item(lt, hf_rec, tvb, 0, -1, ENC_NA);
	rt = proto_item_add_subtree(rec_item, ett_rec);
	if (!dissect_rec_header(tvb, pinfo, rec_item, rt, &r))
		return tvb_captured_length(tvb);

	pkt = wmem_new0(pinfo->pool, lnetcap_pkt_t);
	pkt->direction = r.direction;
	pkt->health = (r.flags & LNETCAP_REC_F_HEALTH_VALID) ? r.health : 0;
	pkt->retries = r.retries;
	pkt->payload_len = r.payload_len;
	pkt->payload_caplen = r.payload_caplen;
	pkt->node = lnetcap_node_label(r.node, pinfo->pool);
	pkt->node_index = lnetcap_node_index(r.node);
	{
		guint8 raw[20];
		tvb_memcpy(tvb, raw, LNETCAP_OFF(struct lnetcap_rec_hdr, peer_nid), 20);
		lnetcap_nid_from_raw(&pkt->peer, raw);
		tvb_memcpy(tvb, raw, LNETCAP_OFF(struct lnetcap_rec_hdr, local_nid), 20);
		lnetcap_nid_from_raw(&pkt->local, raw);
	}
	pkt->rec_flags = r.flags;
	if (r.hdr_len >= LNETCAP_REC_HDR_LEN && (r.flags & LNETCAP_REC_F_QUEUE_VALID))
		pkt->queue_ns = tvb_get_letoh64(tvb, LNETCAP_OFF(struct lnetcap_rec_hdr, queue_ns));
	/* Which end of the hop: the same rule as the cross-node links'. */
	pkt->received = r.direction == LNETCAP_DIR_RECV ||
		(r.direction == LNETCAP_DIR_DROP && r.hdr_len >= LNETCAP_REC_HDR_LEN &&
		 tvb_get_guint8(tvb, LNETCAP_OFF(struct lnetcap_rec_hdr, drop_reason)) >=
			 LNETCAP_DROP_RECV_NO_MATCH);
	dissect_rec_node(tvb, pinfo, lt, ti, pkt);
	dissect_rec_lnet(tvb, pinfo, tree, lt, &r, pkt);
	lnetcap_phases(tvb, pinfo, lt, pkt);
	/* Who saw it, first in the Info column, whatever the layers above
	 * wrote there: "[10.77.0.3@tcp FWD] PUT ..." */
	col_prepend_fstr(pinfo->cinfo, COL_INFO, "[%s %s] ", pkt->node,
			 val_to_str(pkt->direction, lnetcap_direction_words, "dir %u"));
	queue_tap(pinfo, pkt);
	return tvb_captured_length(tvb);
}

/* The protocols of PtlRPC bodies: each registers its opcodes in PtlRPC's
 * table (LNETCAP_OPC_TABLE) at handoff.  A new body is a new file and a
 * line here. */
static const struct {
	void (*register_proto)(void);
	void (*handoff)(void);
} body_protocols[] = {
	{ lnetcap_register_obd, lnetcap_handoff_obd },
	{ lnetcap_register_ost, lnetcap_handoff_ost },
	{ lnetcap_register_mdt, lnetcap_handoff_mdt },
	{ lnetcap_register_ldlm, lnetcap_handoff_ldlm },
	{ lnetcap_register_mgs, lnetcap_handoff_mgs },
	{ lnetcap_register_llog, lnetcap_handoff_llog },
	{ lnetcap_register_seq, lnetcap_handoff_seq },
	{ lnetcap_register_fld, lnetcap_handoff_fld },
	{ lnetcap_register_quota, lnetcap_handoff_quota },
	{ lnetcap_register_out, lnetcap_handoff_out },
};

void proto_register_lnetcap(void)
{
	static hf_register_info hf[] = {
		{ &hf_rec, { "Capture record", "lnetcap.rec", FT_NONE, BASE_NONE,
		  NULL, 0, "lnetcap record pseudo-header", HFILL } },
		{ &hf_node, { "Capturing node", "lnetcap.node", FT_STRING, BASE_NONE,
		  NULL, 0, "The node whose capture holds this record (its host name, or its "
		  "first NID when the host name does not tell nodes apart), from the pcapng "
		  "interface it was written on", HFILL } },
		{ &hf_node_index, { "Capturing node number", "lnetcap.node.index", FT_UINT32,
		  BASE_DEC, NULL, 0, "1 for the node of the first interface of the file, 2 for "
		  "the next node, ... (one per original file of a mergecap merge)", HFILL } },
		{ &hf_seen_by, { "Seen by", "lnetcap.seen_by", FT_STRING, BASE_NONE,
		  NULL, 0, "Capturing node and what it saw: SEND, RECV, FWD, DROP or WIRE", HFILL } },
		{ &hf_rec_magic, { "Magic", "lnetcap.rec.magic", FT_UINT32, BASE_HEX,
		  NULL, 0, NULL, HFILL } },
		{ &hf_rec_version, { "Version", "lnetcap.rec.version", FT_UINT16, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_rec_hdr_len, { "Header length", "lnetcap.rec.hdr_len", FT_UINT16, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_rec_direction, { "Direction", "lnetcap.rec.direction", FT_UINT8, BASE_DEC,
		  VALS(lnetcap_direction_vals), 0, NULL, HFILL } },
		{ &hf_rec_hook, { "Hook", "lnetcap.rec.hook", FT_UINT8, BASE_DEC,
		  VALS(lnetcap_hook_vals), 0, "Observation point that produced the record", HFILL } },
		{ &hf_rec_lnd, { "LND", "lnetcap.rec.lnd", FT_UINT8, BASE_DEC,
		  VALS(lnetcap_lnd_vals), 0, "LND type of the local NI", HFILL } },
		{ &hf_rec_lnet_hdr_len, { "LNet header length", "lnetcap.rec.lnet_hdr_len",
		  FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rec_health, { "Health status", "lnetcap.rec.health", FT_UINT8, BASE_DEC,
		  VALS(lnetcap_health_vals), 0, NULL, HFILL } },
		{ &hf_rec_retries, { "Retries", "lnetcap.rec.retries", FT_UINT8, BASE_DEC,
		  NULL, 0, "LNet resends of this message", HFILL } },
		{ &hf_rec_cpu, { "CPU", "lnetcap.rec.cpu", FT_UINT32,
		  BASE_DEC | BASE_SPECIAL_VALS, VALS(lnetcap_u32_unknown_vals), 0, "CPU of the capture; unknown for converted files",
		  HFILL } },
		{ &hf_rec_pid, { "PID", "lnetcap.rec.pid", FT_UINT32, BASE_DEC,
		  NULL, 0, "Initiating task", HFILL } },
		{ &hf_rec_comm, { "Command", "lnetcap.rec.comm", FT_STRINGZPAD, BASE_NONE,
		  NULL, 0, "Initiating task name", HFILL } },
		{ &hf_rec_seq, { "Sequence", "lnetcap.rec.seq", FT_UINT64, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_rec_seq_gap, { "Records missing before", "lnetcap.rec.seq_gap", FT_UINT64,
		  BASE_DEC, NULL, 0, "Sequence numbers skipped before this record (per CPU, or per source when the CPU is unknown)", HFILL } },
		{ &hf_rec_payload_len, { "Payload length", "lnetcap.rec.payload_len", FT_UINT32,
		  BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rec_payload_caplen, { "Captured payload length", "lnetcap.rec.payload_caplen",
		  FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rec_truncated, { "Payload truncated", "lnetcap.rec.truncated", FT_BOOLEAN,
		  BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_rec_local_nid, { "Local NID", "lnetcap.rec.local_nid", FT_STRING, BASE_NONE,
		  NULL, 0, "NI that sent or received the message", HFILL } },
		{ &hf_rec_peer_nid, { "Peer NID", "lnetcap.rec.peer_nid", FT_STRING, BASE_NONE,
		  NULL, 0, "Next or previous hop", HFILL } },
		{ &hf_rec_status, { "Completion status", "lnetcap.rec.status", FT_INT32, BASE_DEC,
		  VALS(lnetcap_status_vals), 0, NULL, HFILL } },
		{ &hf_rec_ni_id, { "NI index", "lnetcap.rec.ni_id", FT_UINT32, BASE_DEC,
		  NULL, 0, NULL, HFILL } },
		{ &hf_rec_queue, { "LNet queue time (ns)", "lnetcap.rec.queue_ns", FT_UINT64,
		  BASE_DEC, NULL, 0, "Time LNet held the message before the LND (credits, delay rules)",
		  HFILL } },
		{ &hf_rec_msg_id, { "Message id", "lnetcap.rec.msg_id", FT_UINT64, BASE_HEX,
		  NULL, 0, "(CPU + 1) << 48 | sequence number of the message's first record", HFILL } },
		{ &hf_rec_drop_reason, { "Drop reason", "lnetcap.rec.drop_reason", FT_UINT8, BASE_DEC,
		  VALS(lnetcap_drop_reason_vals), 0, "Why LNet dropped the message", HFILL } },
		{ &hf_rec_outcome_of, { "Outcome of", "lnetcap.rec.outcome_of", FT_FRAMENUM, BASE_NONE,
		  NULL, 0, "The record of the message this outcome completes", HFILL } },
	};
	static gint *ett[] = { &ett_lnetcap, &ett_rec };
	static ei_register_info ei[] = {
		{ &ei_rec_version, { "lnetcap.rec.version.unknown", PI_UNDECODED, PI_WARN,
		  "Unknown record version", EXPFILL } },
		{ &ei_rec_short, { "lnetcap.rec.hdr_len.bad", PI_MALFORMED, PI_ERROR,
		  "Bad record header length", EXPFILL } },
		{ &ei_rec_seq_gap, { "lnetcap.rec.seq_gap.lost", PI_SEQUENCE, PI_WARN,
		  "Records were lost before this one", EXPFILL } },
		{ &ei_rec_gap_flag, { "lnetcap.rec.flags.gap", PI_SEQUENCE, PI_WARN,
		  "The capture source lost data before this record", EXPFILL } },
		{ &ei_rec_unreadable, { "lnetcap.rec.flags.unreadable", PI_UNDECODED, PI_WARN,
		  "The payload bytes could not be read by the capture", EXPFILL } },
		{ &ei_rec_health, { "lnetcap.rec.health.failed", PI_RESPONSE_CODE, PI_WARN,
		  "LNet health failure", EXPFILL } },
		{ &ei_rec_retries, { "lnetcap.rec.retries.resent", PI_SEQUENCE, PI_NOTE,
		  "LNet retried this message", EXPFILL } },
		{ &ei_rec_status, { "lnetcap.rec.status.error", PI_RESPONSE_CODE, PI_WARN,
		  "LNet completion error", EXPFILL } },
		{ &ei_rec_drop, { "lnetcap.rec.drop", PI_RESPONSE_CODE, PI_WARN,
		  "LNet dropped a message", EXPFILL } },
	};
	module_t *mod;
	expert_module_t *em;

	proto_lnetcap = proto_register_protocol("LNet capture (lnetcap)", "LNetCap", "lnetcap");
	proto_register_field_array(proto_lnetcap, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto_lnetcap);
	expert_register_field_array(em, ei, array_length(ei));
	lnetcap_flagset_register(proto_lnetcap, &fs_rec_flags);

	lnetcap_register_lnet(proto_lnetcap);
	lnetcap_register_ptlrpc();
	for (size_t i = 0; i < array_length(body_protocols); i++)
		body_protocols[i].register_proto();
	lnetcap_register_stats(proto_lnetcap);
	lnetcap_register_xnode(proto_lnetcap);
	lnetcap_register_phases(proto_lnetcap);
	lnetcap_register_tables(proto_lnetcap);
	lnetcap_register_lov(proto_lnetcap);
	lnetcap_register_node();
	lnetcap_register_flow(proto_lnetcap);

	lnetcap_handle = register_dissector("lnetcap", dissect_lnetcap, proto_lnetcap);
	lnetcap_tap = register_tap("lnetcap");
	at_lnetcap_nid = address_type_dissector_register("AT_LNETCAP_NID", "LNet NID",
		nid_addr_to_str, nid_addr_str_len, NULL, nid_col_filter, nid_addr_len, NULL, NULL);
	register_conversation_table(proto_lnetcap, TRUE, conv_packet, endpoint_packet);
	register_conversation_filter("lnetcap", "LNetCap", conv_filter_valid, lnetcap_conv_filter_string
		LNETCAP_CONV_FILTER_USER_DATA);

	last_seq_by_domain = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
						    g_int64_hash, g_int64_equal);
	frame_by_msg_id = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
						 g_int64_hash, g_int64_equal);

	mod = prefs_register_protocol(proto_lnetcap, proto_reg_handoff_lnetcap);
	prefs_register_uint_preference(mod, "user_dlt", "LINKTYPE_USER slot",
		"Which LINKTYPE_USERn (0-15, DLT 147-162) carries lnetcap records. "
		"lnetcap writes USER7 (154) by default.", 10, &pref_user_slot);
	prefs_register_bool_preference(mod, "decode_rpc", "Decode PtlRPC messages",
		"Decode lustre_msg/ptlrpc_body and the bodies this plugin knows", &lnetcap_pref_decode_rpc);
	prefs_register_bool_preference(mod, "delegate_lustre",
		"Hand undecoded PUT payloads to Wireshark's Lustre dissector",
		"For PtlRPC bodies this plugin does not decode, call the built-in "
		"'lustre' dissector through the lnet.ptl_index table", &lnetcap_pref_delegate_lustre);
	prefs_register_uint_preference(mod, "max_table_entries", "Entries per matching table",
		"Most entries each table kept for matching (request/reply, bulk, cross-node, ...) "
		"may hold; messages beyond it are not linked and are flagged lnetcap.table.full. "
		"Bounds the memory a capture can make the plugin use.", 10, &lnetcap_pref_table_limit);
	lnetcap_xnode_register_prefs(mod);
	lnetcap_names_register_prefs(mod);
}

void proto_reg_handoff_lnetcap(void)
{
	static gboolean initialised = FALSE;
	guint encap;

	if (pref_user_slot > 15)
		pref_user_slot = LNETCAP_LINKTYPE_USER_SLOT;
	encap = (guint)(WTAP_ENCAP_USER0 + (int)pref_user_slot);
	if (!initialised) {
		lnetcap_handoff_lnet();
		for (size_t i = 0; i < array_length(body_protocols); i++)
			body_protocols[i].handoff();
		initialised = TRUE;
	} else if (claimed_encap != encap) {
		/* Give the old slot back to the DLT_USER (user_dlt) dissector. */
		dissector_handle_t user = find_dissector("user_dlt");
		if (user)
			dissector_change_uint("wtap_encap", claimed_encap, user);
		else
			dissector_delete_uint("wtap_encap", claimed_encap, lnetcap_handle);
	}
	dissector_add_uint("wtap_encap", encap, lnetcap_handle);
	claimed_encap = encap;
}
