/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lnetcap_hooks.bpf.h - what each LNet hook records (docs/kernel-contract.md
 * lists the functions and fields).  Attach-independent: lnetcap.bpf.c wraps
 * these in fentry, kprobe or (host tests) uprobe programs.
 *
 * Every message appears once:
 *  - lnet_ni_send(ni, msg): every transmitted message, SEND, or FORWARD when
 *    msg_routing is set.  msg_hdr is final here (next-hop dest, src NID).
 *  - lnet_parse(ni, hdr, from, ...): received messages that carry no payload
 *    (GET, ACK).  A received GET's msg_hdr is rewritten into the REPLY
 *    inside lnet_parse (lnet_parse_get -> lnet_prep_send), so this is the
 *    only place its header exists.  Messages addressed to another net are
 *    being routed: their FORWARD record comes from lnet_ni_send.
 *  - lnet_finalize(msg, rc): received PUT and REPLY, once the LND has landed
 *    the payload in the MD, with the completion status and health; and a
 *    DROP record (header, status, health) for a send that failed.
 */
#ifndef LNETCAP_HOOKS_BPF_H
#define LNETCAP_HOOKS_BPF_H

#include "lnetcap_rec.bpf.h"

#ifdef LNETCAP_WITH_KFUNC
#define LNETCAP_HAVE_KFUNC 1
#else
#define LNETCAP_HAVE_KFUNC 0
#endif

/* Offsets inside struct lnet_hdr (in-memory form = include/lnetcap nid16). */
#define LNETCAP_HDR_TYPE LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, type)
#define LNETCAP_HDR_PAYLOAD_LEN                                                \
	LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, payload_length)

/*
 * Where the payload of msg is: its MD's buffer when the MD is contiguous
 * (Lustre before 2.15), else its page vector (lnetcap_pages.bpf.h), or,
 * when pages cannot be mapped here and the kfunc module is loaded, the
 * kfunc.
 */
static __always_inline void lnetcap_payload_src(struct lnetcap_src *s, __u64 msg)
{
	__u64 md, start;
	__u32 opts, off, want;

	if (!cfg.snaplen || !s->payload_have)
		return;
	md = lnetcap_read_ptr(msg + cfg.lo.msg_md);
	if (md) {
		opts = lnetcap_read_u32(md + cfg.lo.md_options);
		if (!(opts & LNETCAP_LNET_MD_KIOV)) {
			start = lnetcap_read_ptr(md + cfg.lo.md_start);
			off = lnetcap_read_u32(msg + cfg.lo.msg_offset);
			if (start) {
				s->payload = start + off;
				return;
			}
		}
	}
	want = s->payload_have < cfg.snaplen ? s->payload_have : cfg.snaplen;
	lnetcap_kiov_src(s, msg, want);
	if (!s->payload && !s->use_pages && LNETCAP_HAVE_KFUNC) {
		s->use_kfunc = 1;
		s->why = 0;
	}
}

/* -Q and "dir" terms, tested before any other read; a rejected message
 * still counts as seen and filtered. */
static __always_inline bool lnetcap_dir_wanted(__u8 dir)
{
	struct lnetcap_pcpu *pc;

	if (cfg.dir_mask & (1U << dir))
		return true;
	pc = lnetcap_pcpu();
	lnetcap_count(pc, LNETCAP_STAT_SEEN);
	lnetcap_count(pc, LNETCAP_STAT_FILTERED);
	return false;
}

static __always_inline int lnetcap_on_ni_send(__u64 ni, __u64 msg)
{
	struct lnetcap_src s = {};
	__u64 txpeer;
	bool routing;

	if (!msg)
		return 0;
	routing = lnetcap_msg_flag(msg, cfg.lo.msg_routing_byte,
				   cfg.lo.msg_routing_bit);
	s.dir = routing ? LNETCAP_DIR_FORWARD : LNETCAP_DIR_SEND;
	if (!lnetcap_dir_wanted(s.dir))
		return 0;
	s.hook = LNETCAP_HOOK_LNET_NI_SEND;
	s.hdr = msg + cfg.lo.msg_hdr;
	s.ni = ni;
	s.msg = msg;
	txpeer = lnetcap_read_ptr(msg + cfg.lo.msg_txpeer);
	if (txpeer)
		s.peer_nid = txpeer + cfg.lo.lpni_nid;
	else
		s.peer_nid = s.hdr; /* dest_nid is the next hop */
	/* The sending thread is the initiator unless we only forward. */
	if (!routing)
		s.flags = LNETCAP_REC_F_TASK_VALID;
	s.payload_len = lnetcap_read_u32(msg + cfg.lo.msg_len);
	s.payload_have = s.payload_len;
	lnetcap_payload_src(&s, msg);
	return lnetcap_emit(&s);
}

static __always_inline int lnetcap_on_parse(__u64 ni, __u64 hdr, __u64 from)
{
	struct lnetcap_src s = {};
	__u8 dest[4] = {}, local[4] = {};
	__u32 type;

	if (!hdr)
		return 0;
	type = lnetcap_read_u32(hdr + LNETCAP_HDR_TYPE);
	if (type == LNETCAP_MSG_PUT || type == LNETCAP_MSG_REPLY)
		return 0; /* recorded with its payload at lnet_finalize */
	/* Bytes 1..3 of a struct lnet_nid are its net (type, number). */
	LNETCAP_READ(dest, sizeof(dest), (const void *)hdr);
	if (ni)
		LNETCAP_READ(local, sizeof(local),
			     (const void *)(ni + cfg.lo.ni_nid));
	/* Being routed (lnet_ni_send records the FORWARD), unless it came
	 * over the loopback NI, which carries messages for any local NID. */
	if (ni && local[1] != LNETCAP_LND_LOLND &&
	    (dest[1] != local[1] || dest[2] != local[2] || dest[3] != local[3]))
		return 0;
	/* Only now, at the one hook that records it, may -Q count it. */
	if (!lnetcap_dir_wanted(LNETCAP_DIR_RECV))
		return 0;
	s.dir = LNETCAP_DIR_RECV;
	s.hook = LNETCAP_HOOK_LNET_PARSE;
	s.hdr = hdr;
	s.ni = ni;
	s.peer_nid = from;
	s.payload_len = lnetcap_read_u32(hdr + LNETCAP_HDR_PAYLOAD_LEN);
	return lnetcap_emit(&s);
}

static __always_inline bool lnetcap_nid_mem_eq(__u64 a, __u64 b)
{
	__u32 x[5] = {}, y[5] = {};

	LNETCAP_READ(x, sizeof(x), (const void *)a);
	LNETCAP_READ(y, sizeof(y), (const void *)b);
	return x[0] == y[0] && x[1] == y[1] && x[2] == y[2] &&
	       x[3] == y[3] && x[4] == y[4];
}

/* A send (or forward) that completed with an error: a DROP record with the
 * status and LNet health, so failed sends and their resends are visible. */
static __always_inline int lnetcap_on_send_failed(__u64 msg, int rc)
{
	struct lnetcap_src s = {};
	__u64 txpeer;

	if (!lnetcap_dir_wanted(LNETCAP_DIR_DROP))
		return 0;
	s.dir = LNETCAP_DIR_DROP;
	s.hook = LNETCAP_HOOK_LNET_FINALIZE;
	s.hdr = msg + cfg.lo.msg_hdr;
	s.ni = lnetcap_read_ptr(msg + cfg.lo.msg_txni);
	s.msg = msg;
	txpeer = lnetcap_read_ptr(msg + cfg.lo.msg_txpeer);
	s.peer_nid = txpeer ? txpeer + cfg.lo.lpni_nid : s.hdr;
	s.status = rc;
	s.flags = LNETCAP_REC_F_STATUS_VALID;
	s.payload_len = lnetcap_read_u32(msg + cfg.lo.msg_len);
	return lnetcap_emit(&s); /* the SEND record already has the payload */
}

static __always_inline int lnetcap_on_finalize(__u64 msg, int rc)
{
	struct lnetcap_src s = {};
	bool rx, tx, routing;
	__u32 type;
	__u64 rxni;

	if (!msg)
		return 0;
	rx = lnetcap_msg_flag(msg, cfg.lo.msg_rx_committed_byte,
			      cfg.lo.msg_rx_committed_bit);
	tx = lnetcap_msg_flag(msg, cfg.lo.msg_tx_committed_byte,
			      cfg.lo.msg_tx_committed_bit);
	if (tx && rc != 0)
		return lnetcap_on_send_failed(msg, rc);
	/* Only a message we received and are not also sending or forwarding
	 * (a received GET becomes our REPLY; a PUT's ACK reuses the msg but
	 * is decommitted and recommitted for TX first; a forwarded message
	 * is finalized once received, then sent). */
	routing = lnetcap_msg_flag(msg, cfg.lo.msg_routing_byte,
				   cfg.lo.msg_routing_bit);
	if (!rx || tx || routing)
		return 0;
	type = lnetcap_read_u32(msg + cfg.lo.msg_type);
	if (type != LNETCAP_MSG_PUT && type != LNETCAP_MSG_REPLY)
		return 0;
	s.hdr = msg + cfg.lo.msg_hdr;
	if (lnetcap_read_u32(s.hdr + LNETCAP_HDR_TYPE) != type)
		return 0;
	rxni = lnetcap_read_ptr(msg + cfg.lo.msg_rxni);
	/* An RDMA-optimised GET completes our REPLY from the LND's receive
	 * path: rx-committed, type REPLY, but addressed to the peer. */
	if (type == LNETCAP_MSG_REPLY && rxni &&
	    !lnetcap_nid_mem_eq(s.hdr, rxni + cfg.lo.ni_nid))
		return 0;
	/* Counted by -Q here only: GET and ACK were counted at lnet_parse. */
	if (!lnetcap_dir_wanted(LNETCAP_DIR_RECV))
		return 0;
	s.dir = LNETCAP_DIR_RECV;
	s.hook = LNETCAP_HOOK_LNET_FINALIZE;
	s.ni = rxni;
	s.msg = msg;
	s.peer_nid = msg + cfg.lo.msg_from;
	s.status = rc;
	s.flags = LNETCAP_REC_F_STATUS_VALID;
	s.payload_len = lnetcap_read_u32(msg + cfg.lo.msg_len);
	/* A failed receive has no payload to show. */
	if (rc == 0)
		s.payload_have = lnetcap_read_u32(msg + cfg.lo.msg_wanted);
	if (s.payload_have > s.payload_len)
		s.payload_have = s.payload_len;
	lnetcap_payload_src(&s, msg);
	return lnetcap_emit(&s);
}

#endif /* LNETCAP_HOOKS_BPF_H */
