/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-lnetcap.h - what the files of the lnetcap plugin share: the
 * per-packet state passed down the layers (record -> LNet -> PtlRPC ->
 * bodies), the tap record and the registration hooks of each layer.
 *
 * The plugin is written against the Wireshark 4.0 API; every difference
 * between Wireshark versions lives in plugin.c.
 */
#ifndef PACKET_LNETCAP_H
#define PACKET_LNETCAP_H

#include <epan/packet.h>
#include <epan/expert.h>

#include "lnetcap-nid.h"
#include "ws-version.h"
#include "lnetcap/compat.h"

/* Field f of struct s (include/lnetcap/) in a structure that starts at byte
 * base of the tvb: LNETCAP_FIELD gives the offset and length that
 * proto_tree_add_item() takes, LNETCAP_AT the offset alone.  The plugin
 * types no protocol offset as a number (tests/lint/no_literal_offsets.sh). */
#define LNETCAP_FIELD(base, s, f) (gint)(base) + LNETCAP_OFF(struct s, f), LNETCAP_LEN(struct s, f)
#define LNETCAP_AT(base, s, f) ((guint32)(base) + (guint32)LNETCAP_OFF(struct s, f))

extern int proto_lnetcap;

/* PtlRPC facts of one message, filled by packet-lnetcap-ptlrpc.c. */
typedef struct lnetcap_rpc {
	guint encoding;         /* ENC_LITTLE_ENDIAN or ENC_BIG_ENDIAN */
	guint32 bufcount;
	guint32 buf_off[32];    /* offsets of the buffers in the message tvb */
	guint32 buf_len[32];
	guint32 lm_flags;
	guint32 lm_cksum;
	guint32 pb_type;        /* LNETCAP_PTL_RPC_MSG_* */
	guint32 opc;
	gint32 status;          /* replies only; 0 for a bulk I/O byte count */
	guint32 io_bytes;       /* OST_READ/OST_WRITE reply: pb_status > 0 */
	guint32 pb_flags;
	guint64 pb_mbits;
	gboolean have_body;
	gboolean partial;       /* ptlrpc_body cut by the snap length */
	gboolean early_reply;
	gboolean body_known;    /* a body dissector of ours handled the opcode */
	const char *jobid;      /* NULL when empty or absent */
} lnetcap_rpc_t;

/* One request/reply transaction, kept for the whole capture file. */
typedef struct lnetcap_trans {
	guint32 req_frame;
	guint32 rep_frame;
	nstime_t req_time;
	guint32 opc;
	guint64 xid;
	guint32 req_flags;       /* lustre_msg lm_flags of the request */
	guint32 resends;         /* requests seen again with the same XID */
	/* LDLM_ENQUEUE: the request's ldlm_intent.opc (0 without an intent),
	 * which chose the reply's format (include/lnetcap/rpc_formats.h). */
	guint32 intent_sel;
	gboolean have_intent_sel;
} lnetcap_trans_t;

/* What the layers learn about one record. */
typedef struct lnetcap_pkt {
	/* record */
	guint32 direction;
	guint32 health;
	guint32 retries;
	guint32 payload_len;
	guint32 payload_caplen;
	const char *node;        /* label of the capturing node (lnetcap-node.h) */
	guint32 node_index;
	lnetcap_nid_t peer;      /* next hop (send, forward) or previous hop (receive) */
	lnetcap_nid_t local;     /* the NI that sent, forwarded or received it */
	guint32 rec_flags;       /* LNETCAP_REC_F_* */
	guint64 queue_ns;        /* with LNETCAP_REC_F_QUEUE_VALID (128-byte header) */
	gboolean received;       /* the receiver's record: RECV, or a DROP in lnet_parse */
	/* LNet header */
	gboolean have_lnet;
	guint32 msg_type;
	guint32 portal;          /* PUT and GET only */
	gboolean have_portal;
	guint64 match_bits;
	guint32 put_offset;
	guint64 wmd_if;          /* GET return_wmd / REPLY dst_wmd / PUT ack_wmd / ACK dst_wmd */
	guint64 wmd_obj;
	gboolean ack_wanted;     /* a PUT that asks for an ACK (ack_wmd set) */
	lnetcap_nid_t src;
	lnetcap_nid_t dst;
	char src_str[LNETCAP_NID_STRLEN];
	char dst_str[LNETCAP_NID_STRLEN];
	gboolean ping_info;      /* payload was an lnet_ping_info */
	gboolean ping_get;       /* LNet's ping GET (portal 0, ping match bits) */
	const char *ping_kind;   /* of a ping GET: recovery, discovery, ping, unknown */
	proto_tree *lnet_tree;   /* the LNet header's subtree */
	/* cross-node (packet-lnetcap-xnode.c) */
	guint32 xnode_send_frame;      /* the sender's SEND of this message, 0 if none */
	gboolean xnode_prev_hop_seen;  /* a RECV whose hop a SEND/FWD record shows */
	/* PtlRPC */
	gboolean is_rpc;
	lnetcap_rpc_t rpc;
	lnetcap_trans_t *trans;
	/* bulk PUT/GET, the REPLY to a bulk GET, ACKs (lnetcap_link_bulk) */
	lnetcap_trans_t *bulk_trans;   /* the RPC they belong to */
	gboolean bulk_reply_ack;       /* the ACK of the RPC's reply, not of a bulk PUT */
	/* RPC phases (lnetcap-phases.c): the RPC this record completes */
	const struct lnetcap_phase_rpc *phase_done;
	gboolean phase_final;          /* dissected after the first pass: offsets final */
} lnetcap_pkt_t;

/* What the tap listeners (SRT, stats_tree, conversations) receive. */
typedef struct lnetcap_tap_info {
	guint32 msg_type;
	guint32 portal;
	gboolean have_portal;
	const char *src_str;
	const char *dst_str;
	gboolean is_rpc;
	guint32 pb_type;
	guint32 opc;
	gint32 status;
	gboolean early_reply;
	gboolean matched_reply;  /* a final reply whose request was seen */
	nstime_t req_time;
	guint32 health;
	const char *jobid;
	/* who saw it (the flow graph, lnetcap-flow.c) */
	guint32 direction;
	const char *node;
	guint32 node_index;
	char peer_str[LNETCAP_NID_STRLEN];
	gboolean received;
	const char *ping_kind;
	gboolean xnode_prev_hop_seen;
	/* an RPC seen by both ends that this record completes (lnetcap-phases.h) */
	const struct lnetcap_phase_rpc *phase_done;
	gboolean phase_final;      /* its pair's offset is final (not the first pass) */
} lnetcap_tap_info_t;

extern int lnetcap_tap;

/* Preferences read by several layers. */
extern lnetcap_ws_bool lnetcap_pref_delegate_lustre;
extern lnetcap_ws_bool lnetcap_pref_decode_rpc;

/* Layer entry points. */
/* Sets pinfo->src/dst to a NID (the plugin's address type). */
void lnetcap_set_address(packet_info *pinfo, address *a, const lnetcap_nid_t *nid);

void lnetcap_register_lnet(int proto);
int dissect_lnetcap_lnet(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			 guint hdr_len, lnetcap_pkt_t *pkt);
/* root is the tree's top (for PtlRPC), tree the LNetCap subtree. */
void dissect_lnetcap_lnet_payload(tvbuff_t *payload, packet_info *pinfo, proto_tree *root,
				  proto_tree *tree, lnetcap_pkt_t *pkt);

/* PtlRPC (packet-lnetcap-ptlrpc.c) is the dissector "lnetcap.ptlrpc",
 * called with the lnetcap_pkt_t as data; bulk transfers and ACKs are
 * linked to their RPC by lnetcap_link_bulk. */
void lnetcap_register_ptlrpc(void);
void lnetcap_link_bulk(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt);

/* The body protocols.  Each is one packet-lnetcap-<name>.c with a
 * register function (its protocol and fields) and a handoff function (its
 * opcodes in LNETCAP_OPC_TABLE), listed once in packet-lnetcap.c.  Their
 * dissectors get the whole lustre_msg as tvb, the root tree and the
 * lnetcap_pkt_t as data, and read rpc->buf_off[i]/buf_len[i] themselves. */
#define LNETCAP_OPC_TABLE "lnetcap.ptlrpc.opc"
void lnetcap_register_obd(void);
void lnetcap_handoff_obd(void);
void lnetcap_register_ost(void);
void lnetcap_handoff_ost(void);
void lnetcap_register_mdt(void);
void lnetcap_handoff_mdt(void);
void lnetcap_register_ldlm(void);
void lnetcap_handoff_ldlm(void);
void lnetcap_register_mgs(void);
void lnetcap_handoff_mgs(void);
void lnetcap_register_llog(void);
void lnetcap_handoff_llog(void);
void lnetcap_register_seq(void);
void lnetcap_handoff_seq(void);
void lnetcap_register_fld(void);
void lnetcap_handoff_fld(void);
void lnetcap_register_quota(void);
void lnetcap_handoff_quota(void);
void lnetcap_register_out(void);
void lnetcap_handoff_out(void);

/* Structures more than one body shows. */
/* struct ost_id as Lustre prints it (packet-lnetcap-ost.c); hf is an
 * FT_STRING field. */
void lnetcap_add_ost_id(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, int hf, guint off,
			guint enc);
/* A LOV layout (v1/v3/composite) of len bytes at off (packet-lnetcap-lov.c);
 * what names the buffer ("LVB", "MDT_MD"). */
void lnetcap_register_lov(int proto);
void lnetcap_lov_layout(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, guint off, guint len,
			guint enc, const char *what);
/* The early-lock-cancel ldlm_request in buffer i of a request
 * (lnetcap-elc.c); returns how many locks it cancels. */
void lnetcap_register_elc(int proto);
guint32 lnetcap_elc(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const lnetcap_pkt_t *pkt,
		    guint i);
/* The same, with its subtree named label (LDLM_CANCEL: the locks it
 * cancels). */
guint32 lnetcap_elc_named(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			  const lnetcap_pkt_t *pkt, guint i, const char *label);
/* The early-cancelled locks of an LDLM_ENQUEUE's ldlm_request in buffer i
 * (after the enqueued lock's own handle); returns their number. */
guint32 lnetcap_elc_enqueue(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			    const lnetcap_pkt_t *pkt, guint i);
/* obd_statfs of OST_STATFS/MDS_STATFS replies (packet-lnetcap-obd.c). */
void lnetcap_obd_statfs(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt);

/* The quota_body in buffer i (packet-lnetcap-quota.c): QUOTA_DQACQ and the
 * quota intents of LDLM_ENQUEUE (RMF_QUOTA_BODY). */
void lnetcap_quota_body(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt,
			guint i);

/* Shared body helpers (lnetcap-body.c). */
void lnetcap_register_body_helpers(int proto);
extern int lnetcap_hf_buffer;              /* lnetcap.ptlrpc.buffer */
extern expert_field lnetcap_ei_truncated;  /* lnetcap.ptlrpc.truncated */
/* The protocol item of a body protocol, over the buffers after the
 * ptlrpc_body, at the top of tree; sets the Protocol column. */
proto_tree *lnetcap_body_tree(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, int proto,
			      gint ett, const lnetcap_pkt_t *pkt);
/* Registers a body dissector for these opcodes in LNETCAP_OPC_TABLE. */
dissector_handle_t lnetcap_body_register(int proto, dissector_t dissector, const guint32 *opcodes,
					 size_t n);
/* Captured bytes of buffer i (0 if absent); the buffer's declared length
 * is rpc->buf_len[i]. */
gboolean lnetcap_rpc_buf(const lnetcap_pkt_t *pkt, guint i, guint32 *off, guint32 *len);
/* Adds a subtree (*out) for buffer i holding at least need bytes; FALSE
 * (with expert info) when the buffer is absent, too short or not captured.
 * *out may be NULL with TRUE returned: tree is NULL in tshark's first pass. */
gboolean lnetcap_rpc_buf_tree(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			      const lnetcap_pkt_t *pkt, guint i, guint32 need, gint ett,
			      const char *name, proto_tree **out, guint32 *off);
/* Marks a field of an obdo/mdt_body that its o_valid/mbo_valid does not
 * declare valid (OBD_MD_FL* bit flag unset): Lustre ignores its value. */
void lnetcap_mark_valid(proto_item *it, guint64 valid, guint64 bit, const char *flag);
/* Adds an FT_ABSOLUTE_TIME field from Lustre's 64-bit seconds since the
 * epoch (mtime, atime, ctime, btime...): shown as a UTC date. */
proto_item *lnetcap_add_secs(proto_tree *tree, int hf, tvbuff_t *tvb, guint off, guint enc);
/* Adds the hidden lnetcap.fid (any FID of the message) for FID text fid. */
void lnetcap_add_any_fid(proto_tree *tree, tvbuff_t *tvb, guint off, const char *fid);
/* Adds an lu_fid subtree (and lnetcap.fid); returns its "[0x..:0x..:0x..]" text. */
const char *lnetcap_add_fid(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo,
			    guint off, guint enc, int hf_fid, const char *label);

/* MDT helpers shared with the LDLM intent decoder (packet-lnetcap-mdt.c). */
void lnetcap_mdt_body(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt,
		      guint i);
guint32 lnetcap_mdt_reint(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			  lnetcap_pkt_t *pkt, guint i);
void lnetcap_mdt_reint_names(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			     lnetcap_pkt_t *pkt, guint32 op, guint shift);
const char *lnetcap_mdt_name(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			     lnetcap_pkt_t *pkt, guint i, int hf);

/* An offset at which a zero-length item (expert info) may be placed:
 * past the captured end, Wireshark would throw. */
static inline gint lnetcap_clamp(tvbuff_t *tvb, guint32 off)
{
	guint cap = tvb_captured_length(tvb);
	return (gint)(off < cap ? off : cap);
}

/* Stats (lnetcap-stats.c). */
void lnetcap_register_stats(int proto);
void lnetcap_register_stats_tree(void);

/* Where each RPC's time went in a capture merged from its client and its
 * server (lnetcap-phases.c): after the lower layers, before the tap. */
void lnetcap_register_phases(int proto);
void lnetcap_phases(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt);
/* tshark -z lnetcap,phases (lnetcap-phases-table.c); Statistics > LNetCap >
 * RPC phases (lnetcap-phases-tree.c). */
void lnetcap_register_phases_table(void);
void lnetcap_register_phases_tree(void);

/* Cross-node links in merged captures (packet-lnetcap-xnode.c). */
void lnetcap_register_xnode(int proto);
void lnetcap_xnode_register_prefs(module_t *mod);
void lnetcap_xnode_link(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			lnetcap_pkt_t *pkt);
/* The ping kind the sender's SEND of this message had (NULL if unknown). */
const char *lnetcap_xnode_send_ping_kind(packet_info *pinfo, const lnetcap_pkt_t *pkt);

/* LNet's ping GETs: which kind (lnet_ping_kind of the sending task, or of
 * the linked SEND for a FWD/RECV), in the tree and the Info column; called
 * after the cross-node link (packet-lnetcap-lnet.c). */
void lnetcap_lnet_ping_kind(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			    lnetcap_pkt_t *pkt);

/* The LNet flow graph (Statistics > Flow Graph, tshark -z flow,lnet): each
 * hop between the nodes that saw it (lnetcap-flow.c). */
void lnetcap_register_flow(int proto);

/* Handoff helpers for the LNet layer. */
void lnetcap_handoff_lnet(void);

/* MDT extras (lnetcap-xattr.c, lnetcap-dom.c, lnetcap-intent.c): xattrs and
 * POSIX ACLs, DoM inline data, the layout intent and the intent reply
 * buffers after MDT_MD.  Slots per layout.c, see bodies.h. */
void lnetcap_register_xattr(int proto);      /* lnetcap.mdt.xattr.*, .acl.* */
void lnetcap_register_dom(int proto);        /* lnetcap.mdt.dom.* */
void lnetcap_register_intent(int proto);     /* lnetcap.ldlm.layout_intent.* */
/* A posix_acl_xattr of len bytes at off (what names where it is). */
void lnetcap_posix_acl(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, guint32 off,
		       guint32 len, const char *what);
/* RMF_ACL in buffer i of a reply whose mdt_body is buffer body. */
void lnetcap_mdt_acl(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const lnetcap_pkt_t *pkt,
		     guint body, guint i);
/* MDS_GETXATTR request (remembers what it asks) and reply. */
void lnetcap_getxattr_request(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			      lnetcap_pkt_t *pkt);
void lnetcap_getxattr_reply(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			    lnetcap_pkt_t *pkt);
/* The xattr cache refill of an IT_GETXATTR enqueue reply. */
void lnetcap_xattr_cache(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, lnetcap_pkt_t *pkt);
/* RMF_NIOBUF_INLINE (buffer i) of an open intent reply. */
void lnetcap_dom_inline(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			const lnetcap_pkt_t *pkt, guint i);
/* RMF_LAYOUT_INTENT (buffer i) of an IT_LAYOUT enqueue. */
void lnetcap_layout_intent(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			   const lnetcap_pkt_t *pkt, guint i);
/* ACL, xattr cache or DoM data of an intent enqueue reply. */
void lnetcap_intent_reply_extras(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
				 lnetcap_pkt_t *pkt);

#endif /* PACKET_LNETCAP_H */
