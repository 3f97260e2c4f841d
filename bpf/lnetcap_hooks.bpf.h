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
 *    GET LNetGetForce (2.17+) gave the LND itself, bypassing lnet_send and
 *    lnet_ni_send: its SEND, when the LND completes it.
 *
 * An RDMA-optimised GET (o2iblnd, kfilnd, gnilnd: a GET whose REPLY does not
 * fit the LND's immediate message) has no REPLY message on the wire: the
 * responder RDMA-writes the data and says GET_DONE.  LNet counts a REPLY on
 * each side all the same, and so do we, at lnet_finalize:
 *  - responder: lnet_parse_get(..., rdma_get) turns the received GET into
 *    the REPLY and hands it to the LND's receive path (lnet_ni_recv), never
 *    to lnet_send/lnet_ni_send; when the LND finalizes it (the data is
 *    written), one SEND REPLY with the payload it sent.  Its header is the
 *    one lnet_prep_send built, src_nid (never set) taken from the NI.
 *  - initiator: the LND calls lnet_create_reply_msg(ni, getmsg) when it
 *    sends the GET; that message's header is empty but for the source NID
 *    and length, and its type says GET.  Its creation is hooked (with
 *    lnet_set_reply_msg_len, which gives the length the peer wrote) and its
 *    lnet_finalize is one RECV REPLY: the header the peer would have sent
 *    (from the GET: NIDs and pids swapped, dst_wmd = the GET's return_wmd,
 *    which links it to its GET as a socklnd REPLY is linked), the payload
 *    read from the GET's MD, where the data landed.
 *
 * Every message LNet drops is one DROP record with a drop_reason
 * (lnetcap_track.bpf.h keeps the state this needs):
 *  - a send that failed after lnet_ni_send: a DROP that is the OUTCOME of
 *    the SEND record (same msg_id), not a second message;
 *  - a send LNet dropped before the LND (lnet_finalize of a message that
 *    never reached lnet_ni_send): a DROP of its own, with queue_ns;
 *  - a received message LNet refused (lnet_finalize with an error of a
 *    received message, inside lnet_parse or after it), a drop in lnet_parse
 *    before a message existed (lnet_drop_message; drop rules seen at
 *    lnet_drop_rule_match's return), and a header lnet_parse rejected
 *    (its return value): one DROP, an OUTCOME of the RECV record for a GET
 *    or ACK, which is recorded at lnet_parse.
 * lnet_send(src, msg, rtr) marks when LNet accepted each message for this
 * attempt; SEND/FORWARD and DROP records carry how long LNet held it
 * (credit and delay queues) as queue_ns.
 */
#ifndef LNETCAP_HOOKS_BPF_H
#define LNETCAP_HOOKS_BPF_H

#include "lnetcap_track.bpf.h"

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
		/* Bytes that are not host memory, or not what crossed the
		 * wire, are left out and the record says why. */
		if (lnetcap_read_u32(md + cfg.lo.md_flags) &
		    LNETCAP_LNET_MD_FLAG_GPU) {
			s->why = LNETCAP_REC_F_PAYLOAD_DEVICE_MEMORY;
			return;
		}
		if ((opts & LNETCAP_LNET_MD_DISCARD) &&
		    s->dir == LNETCAP_DIR_RECV) {
			s->why = LNETCAP_REC_F_PAYLOAD_DISCARDED;
			return;
		}
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

	if (cfg.dir_mask & (1U << dir) || lnetcap_self_task())
		return true;
	pc = lnetcap_pcpu();
	lnetcap_count(pc, LNETCAP_STAT_SEEN);
	lnetcap_count(pc, LNETCAP_STAT_FILTERED);
	return false;
}


#define LNETCAP_ENOENT 2
#define LNETCAP_ETIMEDOUT 110
#define LNETCAP_EPROTO 71

/* lnet_send(src_nid, msg, rtr_nid): LNet takes a message to send: a new
 * one, a REPLY or ACK built in a received one, a forwarded one once it is
 * received, or a resend (msg_retry_count already raised), which stays the
 * same message. */
static __always_inline int lnetcap_on_send(__u64 msg)
{
	struct lnetcap_held fresh = {}, *h;
	int retries = 0;

	if (!msg)
		return 0;
	fresh.accept_ns = bpf_ktime_get_ns();
	LNETCAP_READ(&retries, sizeof(retries),
		     (const void *)(msg + cfg.lo.msg_retry_count));
	h = bpf_map_lookup_elem(&held, &msg);
	if (h && h->arrived) {
		/* Forwarded: held since it arrived (lnetcap_on_commit). */
		h->arrived = 0;
		h->sent = 0;
		return 0;
	}
	if (h && retries > 0) {
		h->accept_ns = fresh.accept_ns;
		h->sent = 0;
		return 0;
	}
	if (bpf_map_update_elem(&held, &msg, &fresh, BPF_ANY))
		lnetcap_untracked();
	return 0;
}

/* The same for a DROP record, by the side of the message (rx: received). */
static __always_inline bool lnetcap_drop_wanted(bool rx)
{
	struct lnetcap_pcpu *pc;

	if (cfg.dir_mask & (rx ? LNETCAP_DIRMASK_DROP_RX : LNETCAP_DIRMASK_DROP_TX) ||
	    lnetcap_self_task())
		return true;
	pc = lnetcap_pcpu();
	lnetcap_count(pc, LNETCAP_STAT_SEEN);
	lnetcap_count(pc, LNETCAP_STAT_FILTERED);
	return false;
}

static __always_inline int lnetcap_on_ni_send(__u64 ni, __u64 msg)
{
	struct lnetcap_src s = {};
	struct lnetcap_held *h;
	__u64 txpeer, id;
	bool routing;

	if (!msg)
		return 0;
	/* Marked sent before any filter: a failure of this attempt is then
	 * the SEND's outcome whether or not the SEND is kept. */
	h = bpf_map_lookup_elem(&held, &msg);
	if (h) {
		h->sent = 1;
		if (h->accept_ns) {
			s.queue_ns = bpf_ktime_get_ns() - h->accept_ns;
			s.flags = LNETCAP_REC_F_QUEUE_VALID;
		}
		s.msg_id = h->msg_id;
	} else {
		struct lnetcap_held n = { .sent = 1 };

		if (bpf_map_update_elem(&held, &msg, &n, BPF_ANY))
			lnetcap_untracked();
	}
	routing = lnetcap_msg_flag(msg, cfg.lo.msg_routing_byte,
				   cfg.lo.msg_routing_bit);
	s.dir = routing ? LNETCAP_DIR_FORWARD : LNETCAP_DIR_SEND;
	if (!lnetcap_dir_wanted(s.dir))
		return 0;
	s.hook = LNETCAP_HOOK_LNET_NI_SEND;
	s.hdr = msg + cfg.lo.msg_hdr;
	s.ni = ni;
	s.msg = msg;
	s.attempt_start = 1;
	txpeer = lnetcap_read_ptr(msg + cfg.lo.msg_txpeer);
	if (txpeer)
		s.peer_nid = txpeer + cfg.lo.lpni_nid;
	else
		s.peer_nid = s.hdr; /* dest_nid is the next hop */
	/* The sending thread is the initiator unless we only forward. */
	if (!routing)
		s.flags |= LNETCAP_REC_F_TASK_VALID;
	s.payload_len = lnetcap_read_u32(msg + cfg.lo.msg_len);
	s.payload_have = s.payload_len;
	lnetcap_payload_src(&s, msg);
	id = lnetcap_emit(&s);
	h = bpf_map_lookup_elem(&held, &msg);
	if (h && !h->msg_id)
		h->msg_id = id;
	return 0;
}

static __always_inline int lnetcap_on_parse(__u64 ni, __u64 hdr, __u64 from)
{
	struct lnetcap_src s = {};
	struct lnetcap_parse_frame *fr;
	__u8 dest[4] = {}, local[4] = {};
	__u32 type;
	__u64 id;

	fr = lnetcap_parse_push(ni, hdr, from);
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
	id = lnetcap_emit(&s);
	/* A drop of it later in lnet_parse is this record's outcome. */
	if (fr)
		fr->msg_id = id;
	return 0;
}

static __always_inline bool lnetcap_nid_mem_eq(__u64 a, __u64 b)
{
	__u32 x[5] = {}, y[5] = {};

	LNETCAP_READ(x, sizeof(x), (const void *)a);
	LNETCAP_READ(y, sizeof(y), (const void *)b);
	return x[0] == y[0] && x[1] == y[1] && x[2] == y[2] &&
	       x[3] == y[3] && x[4] == y[4];
}

/*
 * lnet_finalize() of a send whose health is a remote failure: its health
 * check lowers the peer NI's health next, on this thread
 * (lnet_handle_remote_failure_locked); that is this send's failure, which
 * its DROP says, not a response timeout.
 */
static __always_inline void lnetcap_note_remote_fail(__u64 msg)
{
	struct lnetcap_remote_fail rf = {};
	__u64 tid = bpf_get_current_pid_tgid();
	int hs = 0;

	LNETCAP_READ(&hs, sizeof(hs),
		     (const void *)(msg + cfg.lo.msg_health_status));
	if (hs < LNETCAP_HEALTH_REMOTE_ERROR || hs > LNETCAP_HEALTH_NETWORK_TIMEOUT)
		return;
	rf.lpni = lnetcap_read_ptr(msg + cfg.lo.msg_txpeer);
	if (!rf.lpni)
		return;
	rf.when_ns = bpf_ktime_get_ns();
	bpf_map_update_elem(&remote_fail, &tid, &rf, BPF_ANY);
}

/*
 * A send that LNet finalized with an error, or dropped before it was
 * committed: after lnet_ni_send, the OUTCOME of the SEND record (LND or
 * network failure; LNet may resend it, so the entry stays); before, a DROP
 * of its own with the time LNet held it.
 */
static __always_inline int lnetcap_on_send_failed(__u64 msg, int rc,
						  struct lnetcap_held *h)
{
	struct lnetcap_src s = {};
	__u64 txpeer, id;

	lnetcap_note_remote_fail(msg);
	s.drop_reason = LNETCAP_DROP_SEND_BEFORE_LND;
	if (h) {
		if (h->sent)
			s.drop_reason = LNETCAP_DROP_SEND_FAILED;
		else if (h->accept_ns) {
			s.queue_ns = bpf_ktime_get_ns() - h->accept_ns;
			s.flags = LNETCAP_REC_F_QUEUE_VALID;
		}
		/* Any earlier record of it (the SEND, or a first attempt)
		 * makes this its outcome. */
		if (h->msg_id) {
			s.msg_id = h->msg_id;
			s.flags |= LNETCAP_REC_F_OUTCOME;
		}
		h->sent = 0;
	}
	if (!lnetcap_drop_wanted(false))
		return 0;
	s.dir = LNETCAP_DIR_DROP;
	s.hook = LNETCAP_HOOK_LNET_FINALIZE;
	s.hdr = msg + cfg.lo.msg_hdr;
	s.ni = lnetcap_read_ptr(msg + cfg.lo.msg_txni);
	s.msg = msg;
	txpeer = lnetcap_read_ptr(msg + cfg.lo.msg_txpeer);
	s.peer_nid = txpeer ? txpeer + cfg.lo.lpni_nid : s.hdr;
	s.status = rc;
	s.flags |= LNETCAP_REC_F_STATUS_VALID;
	s.payload_len = lnetcap_read_u32(msg + cfg.lo.msg_len);
	id = lnetcap_emit(&s); /* the SEND record already has the payload */
	h = bpf_map_lookup_elem(&held, &msg);
	if (h && !h->msg_id)
		h->msg_id = id;
	return 0;
}

/*
 * A received message LNet finalized with an error: inside lnet_parse it
 * matched nothing (-ENOENT) or was refused (routing off, no router buffer),
 * after it the payload could not be received.  One DROP; the OUTCOME of a
 * GET's or ACK's RECV record.
 */
static __always_inline int lnetcap_on_recv_dropped(__u64 msg, int rc)
{
	struct lnetcap_parse_frame *fr = lnetcap_parse_top();
	struct lnetcap_src s = {};

	s.drop_reason = LNETCAP_DROP_RECV_FAILED;
	if (fr) {
		s.drop_reason = rc == -LNETCAP_ENOENT ? LNETCAP_DROP_RECV_NO_MATCH
						      : LNETCAP_DROP_RECV_REFUSED;
		fr->reported = 1;
		if (fr->msg_id) {
			s.msg_id = fr->msg_id;
			s.flags = LNETCAP_REC_F_OUTCOME;
		}
	}
	if (!lnetcap_drop_wanted(true))
		return 0;
	s.dir = LNETCAP_DIR_DROP;
	s.hook = LNETCAP_HOOK_LNET_FINALIZE;
	s.hdr = msg + cfg.lo.msg_hdr;
	s.ni = lnetcap_read_ptr(msg + cfg.lo.msg_rxni);
	s.msg = msg;
	s.peer_nid = msg + cfg.lo.msg_from;
	s.status = rc;
	s.flags |= LNETCAP_REC_F_STATUS_VALID;
	s.payload_len = lnetcap_read_u32(msg + cfg.lo.msg_len);
	lnetcap_emit(&s);
	return 0;
}

/*
 * The status LNet gives the message's event, and counts it by: a message
 * that completed without error on an MD that was unlinked under it (its
 * waiter gave up, e.g. a ping past its timeout) is -ETIMEDOUT when the MD
 * has an event handler, and is then not counted as sent or received
 * (lnet_msg_detach_md, lnet_msg_decommit_tx/rx).
 */
static __always_inline int lnetcap_event_status(__u64 msg, int rc)
{
	__u64 md;

	if (rc != 0)
		return rc;
	md = lnetcap_read_ptr(msg + cfg.lo.msg_md);
	if (!md || !(lnetcap_read_u32(md + cfg.lo.md_flags) &
		     LNETCAP_LNET_MD_FLAG_ABORTED))
		return 0;
	return lnetcap_read_ptr(md + cfg.lo.md_handler) ? -LNETCAP_ETIMEDOUT : 0;
}

/*
 * lnet_create_reply_msg(ni, getmsg) entry: the REPLY header the peer would
 * have sent for the GET getmsg (sent already: its header is final), into
 * this thread's reply_making entry.  Returns it, or NULL.
 */
static __always_inline struct lnetcap_rdma_reply *
lnetcap_on_create_reply(__u64 ni, __u64 getmsg)
{
	static const struct lnetcap_rdma_reply empty = {};
	__u64 tid = bpf_get_current_pid_tgid();
	struct lnetcap_hdr_nid16 *h;
	struct lnetcap_rdma_reply *r;
	__u64 get;

	if (!getmsg)
		return NULL;
	if (bpf_map_update_elem(&reply_making, &tid, &empty, BPF_ANY))
		return NULL;
	r = bpf_map_lookup_elem(&reply_making, &tid);
	if (!r)
		return NULL;
	r->ni = ni;
	get = getmsg + cfg.lo.msg_hdr;
	h = &r->hdr;
	LNETCAP_READ(&h->dest_nid, sizeof(h->dest_nid),
		     (const void *)(get + LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, src_nid)));
	LNETCAP_READ(&h->src_nid, sizeof(h->src_nid),
		     (const void *)(get + LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, dest_nid)));
	h->dest_pid = lnetcap_read_u32(get + LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, src_pid));
	h->src_pid = lnetcap_read_u32(get + LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, dest_pid));
	h->type = LNETCAP_MSG_REPLY;
	/* What the MD can take; lnet_set_reply_msg_len says what came. */
	h->payload_length = lnetcap_read_u32(
		get + LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, msg.get.sink_length));
	LNETCAP_READ(&h->msg.reply.dst_wmd, sizeof(h->msg.reply.dst_wmd),
		     (const void *)(get + LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16,
							 msg.get.return_wmd)));
	return r;
}

/* lnet_create_reply_msg returned reply (NULL: no reply, LNet counted a
 * drop of the GET's reply itself; not recorded). */
static __always_inline int lnetcap_on_create_reply_ret(__u64 reply)
{
	__u64 tid = bpf_get_current_pid_tgid();
	struct lnetcap_rdma_reply *r = bpf_map_lookup_elem(&reply_making, &tid);

	if (!r)
		return 0;
	if (reply && bpf_map_update_elem(&rdma_replies, &reply, r, BPF_ANY))
		lnetcap_untracked();
	bpf_map_delete_elem(&reply_making, &tid);
	return 0;
}

/* lnet_set_reply_msg_len(ni, reply, len): the bytes the peer wrote. */
static __always_inline int lnetcap_on_set_reply_len(__u64 reply, __u32 len)
{
	struct lnetcap_rdma_reply *r = bpf_map_lookup_elem(&rdma_replies, &reply);

	if (r)
		r->hdr.payload_length = len;
	return 0;
}

/*
 * lnet_finalize of the reply lnet_create_reply_msg made: one RECV REPLY (or
 * DROP recv-failed) from the header kept at its creation, payload from the
 * GET's MD, where the peer wrote it.
 */
static __always_inline int lnetcap_on_rdma_reply_done(__u64 msg, int rc)
{
	struct lnetcap_rdma_reply *rr = bpf_map_lookup_elem(&rdma_replies, &msg);
	struct lnetcap_src s = {};

	if (!rr)
		return 0;
	rc = lnetcap_event_status(msg, rc);
	s.dir = rc ? LNETCAP_DIR_DROP : LNETCAP_DIR_RECV;
	if (rc ? lnetcap_drop_wanted(true) : lnetcap_dir_wanted(LNETCAP_DIR_RECV)) {
		s.drop_reason = rc ? LNETCAP_DROP_RECV_FAILED : 0;
		s.hook = LNETCAP_HOOK_LNET_FINALIZE;
		s.hdr = (__u64)&rr->hdr;
		s.hdr_built = 1;
		s.ni = rr->ni;
		s.msg = msg;
		s.peer_nid = s.hdr + LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, src_nid);
		s.status = rc;
		s.flags = LNETCAP_REC_F_STATUS_VALID;
		s.payload_len = rr->hdr.payload_length;
		if (!rc) {
			s.payload_have = lnetcap_read_u32(msg + cfg.lo.msg_wanted);
			if (s.payload_have > s.payload_len)
				s.payload_have = s.payload_len;
			lnetcap_payload_src(&s, msg);
		}
		lnetcap_emit(&s);
	}
	bpf_map_delete_elem(&rdma_replies, &msg);
	return 0;
}

/*
 * A GET that LNetGetForce (2.17+, LU-18808: lnet_discover_nid_metadata, the
 * EFA LND's handshake and a ping fault-injection path) handed to the LND's
 * lnd_send itself, never to lnet_send or lnet_ni_send.  It is never
 * committed (msg_txni and msg_txpeer stay NULL), and its header is final:
 * lnet_prep_send built it (zeroed) and LNetGetForce set src_nid to the NI's.
 * No other message reaches lnet_finalize so: LNet sets a header's src_nid
 * only after lnet_msg_commit (lnet_handle_send), a resend (src_nid set by
 * its first attempt) has msg_retry_count > 0, and the reply
 * lnet_create_reply_msg makes, whose type also says GET, is rx-committed.
 */
static __always_inline bool lnetcap_is_forced_get(__u64 msg)
{
	__u32 src[5] = {};
	int retries = 0;
	__u64 hdr;

	if (lnetcap_read_u32(msg + cfg.lo.msg_type) != LNETCAP_MSG_GET ||
	    lnetcap_msg_flag(msg, cfg.lo.msg_routing_byte, cfg.lo.msg_routing_bit))
		return false;
	hdr = msg + cfg.lo.msg_hdr;
	if (lnetcap_read_u32(hdr + LNETCAP_HDR_TYPE) != LNETCAP_MSG_GET)
		return false;
	LNETCAP_READ(&retries, sizeof(retries),
		     (const void *)(msg + cfg.lo.msg_retry_count));
	if (retries)
		return false;
	LNETCAP_READ(src, sizeof(src),
		     (const void *)(hdr + LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, src_nid)));
	return src[0] | src[1] | src[2] | src[3] | src[4];
}

/*
 * That GET's lnet_finalize, where the LND completes it: the one place it
 * can be seen.  One SEND GET (its REPLY then pairs with it by return_wmd)
 * at hook lnet_finalize, with the header as sent; local NID = its src_nid
 * (no NI in the message), peer = its dest_nid (sent straight to the
 * target); no queue time (LNet never held it).  Failed (lnd_send refused
 * it, or the LND failed it): one DROP send-failed of its own.
 */
static __always_inline int lnetcap_on_forced_get_done(__u64 msg, int rc)
{
	struct lnetcap_src s = {};

	if (rc ? !lnetcap_drop_wanted(false) : !lnetcap_dir_wanted(LNETCAP_DIR_SEND))
		return 0;
	s.dir = rc ? LNETCAP_DIR_DROP : LNETCAP_DIR_SEND;
	s.drop_reason = rc ? LNETCAP_DROP_SEND_FAILED : 0;
	s.hook = LNETCAP_HOOK_LNET_FINALIZE;
	s.hdr = msg + cfg.lo.msg_hdr;
	s.local_is_src = 1;
	s.peer_nid = s.hdr; /* dest_nid */
	s.msg = msg;
	s.status = rc;
	s.flags = LNETCAP_REC_F_STATUS_VALID;
	s.payload_len = lnetcap_read_u32(msg + cfg.lo.msg_len);
	lnetcap_emit(&s);
	return 0;
}

static __always_inline int lnetcap_on_finalize(__u64 msg, int rc)
{
	struct lnetcap_src s = {};
	struct lnetcap_held *h;
	bool rx, tx, routing;
	__u32 type;
	__u64 rxni;
	int status;

	if (!msg)
		return 0;
	/* The initiator's REPLY of an RDMA GET: its own header is empty. */
	if (bpf_map_lookup_elem(&rdma_replies, &msg))
		return lnetcap_on_rdma_reply_done(msg, rc);
	rx = lnetcap_msg_flag(msg, cfg.lo.msg_rx_committed_byte,
			      cfg.lo.msg_rx_committed_bit);
	tx = lnetcap_msg_flag(msg, cfg.lo.msg_tx_committed_byte,
			      cfg.lo.msg_tx_committed_bit);
	h = bpf_map_lookup_elem(&held, &msg);
	if (!rx && !tx && lnetcap_is_forced_get(msg)) {
		/* Never at lnet_send: an entry here is an earlier message's
		 * at this address (LNet frees this one now). */
		if (h)
			bpf_map_delete_elem(&held, &msg);
		return lnetcap_on_forced_get_done(msg, lnetcap_event_status(msg, rc));
	}
	/* A failed send, or one LNet gave up before committing it.  A
	 * committed one may be resent as the same msg (health decides that
	 * from rc, before the MD is looked at); one never committed, or
	 * failed only by its aborted MD, is freed by LNet now. */
	status = lnetcap_event_status(msg, rc);
	if (status != 0 && (tx || (!rx && h))) {
		lnetcap_on_send_failed(msg, status, h);
		if (!tx || rc == 0)
			bpf_map_delete_elem(&held, &msg);
		return 0;
	}
	rc = status;
	routing = lnetcap_msg_flag(msg, cfg.lo.msg_routing_byte,
				   cfg.lo.msg_routing_bit);
	/* A forwarded message received whole is sent next: it stays held
	 * (its arrival time) until lnet_send. */
	if (h && !(h->arrived && routing && rx && !tx && rc == 0))
		bpf_map_delete_elem(&held, &msg);
	/* Only a message we received and are not also sending (a received
	 * GET becomes our REPLY; a PUT's ACK reuses the msg but is
	 * decommitted and recommitted for TX first). */
	if (!rx || tx)
		return 0;
	if (rc != 0)
		return lnetcap_on_recv_dropped(msg, rc);
	/* A forwarded message is finalized once received, then sent. */
	if (routing)
		return 0;
	type = lnetcap_read_u32(msg + cfg.lo.msg_type);
	if (type != LNETCAP_MSG_PUT && type != LNETCAP_MSG_REPLY)
		return 0;
	s.hdr = msg + cfg.lo.msg_hdr;
	if (lnetcap_read_u32(s.hdr + LNETCAP_HDR_TYPE) != type)
		return 0;
	rxni = lnetcap_read_ptr(msg + cfg.lo.msg_rxni);
	s.ni = rxni;
	s.payload_len = lnetcap_read_u32(msg + cfg.lo.msg_len);
	/* The responder's REPLY of an RDMA-optimised GET, completed from the
	 * LND's receive path: rx-committed, type REPLY, addressed to the
	 * peer.  Sent, though never through lnet_ni_send. */
	if (type == LNETCAP_MSG_REPLY && rxni &&
	    !lnetcap_nid_mem_eq(s.hdr, rxni + cfg.lo.ni_nid)) {
		if (!lnetcap_dir_wanted(LNETCAP_DIR_SEND))
			return 0;
		s.dir = LNETCAP_DIR_SEND;
		s.src_is_ni = 1;
		s.peer_nid = msg + cfg.lo.msg_from;
		s.payload_have = s.payload_len;
		goto emit;
	}
	/* Counted by -Q here only: GET and ACK were counted at lnet_parse. */
	if (!lnetcap_dir_wanted(LNETCAP_DIR_RECV))
		return 0;
	s.dir = LNETCAP_DIR_RECV;
	s.peer_nid = msg + cfg.lo.msg_from;
	s.payload_have = lnetcap_read_u32(msg + cfg.lo.msg_wanted);
	if (s.payload_have > s.payload_len)
		s.payload_have = s.payload_len;
emit:
	s.hook = LNETCAP_HOOK_LNET_FINALIZE;
	s.msg = msg;
	s.status = rc;
	s.flags = LNETCAP_REC_F_STATUS_VALID;
	lnetcap_payload_src(&s, msg);
	lnetcap_emit(&s);
	return 0;
}

/* A DROP from what the innermost lnet_parse frame knows (no lnet_msg). */
static __always_inline int lnetcap_emit_parse_drop(struct lnetcap_parse_frame *fr,
						   __u8 hook, __u8 reason,
						   int status, __u16 flags)
{
	struct lnetcap_src s = {};

	fr->reported = 1;
	if (!lnetcap_drop_wanted(true))
		return 0;
	s.dir = LNETCAP_DIR_DROP;
	s.hook = hook;
	s.hdr = fr->hdr;
	s.ni = fr->ni;
	s.peer_nid = fr->from;
	s.drop_reason = reason;
	s.status = status;
	s.flags = flags;
	if (fr->msg_id) {
		s.msg_id = fr->msg_id;
		s.flags |= LNETCAP_REC_F_OUTCOME;
	}
	s.payload_len = lnetcap_read_u32(fr->hdr + LNETCAP_HDR_PAYLOAD_LEN);
	lnetcap_emit(&s);
	return 0;
}

/* lnet_drop_message(ni, cpt, private, nob, type): lnet_parse gives up on a
 * message; recorded unless lnet_finalize already did. */
static __always_inline int lnetcap_on_drop_message(void)
{
	struct lnetcap_parse_frame *fr = lnetcap_parse_top();

	if (!fr || fr->reported || !fr->hdr)
		return 0;
	return lnetcap_emit_parse_drop(fr, LNETCAP_HOOK_LNET_DROP,
				       fr->rule ? LNETCAP_DROP_DROP_RULE
						: LNETCAP_DROP_PARSE_DROPPED,
				       0, 0);
}

/* lnet_drop_rule_match(hdr, local_nid, hstatus) returned: a receive-side
 * rule (local_nid set; unknown in kprobe mode) dropping this message. */
static __always_inline int lnetcap_on_drop_rule(bool matched)
{
	struct lnetcap_parse_frame *fr;

	if (!matched)
		return 0;
	fr = lnetcap_parse_top();
	if (fr)
		fr->rule = 1;
	return 0;
}

/* lnet_parse returned: a negative value refuses the header (the LND closes
 * the connection) without lnet_drop_message. */
static __always_inline int lnetcap_on_parse_ret(int ret)
{
	struct lnetcap_parse_frame *fr = lnetcap_parse_top();

	if (fr && ret < 0 && !fr->reported && fr->hdr)
		lnetcap_emit_parse_drop(fr, LNETCAP_HOOK_LNET_PARSE,
					ret == -LNETCAP_EPROTO ? LNETCAP_DROP_MALFORMED
							       : LNETCAP_DROP_PARSE_DROPPED,
					ret, LNETCAP_REC_F_STATUS_VALID);
	lnetcap_parse_pop();
	return 0;
}

/*
 * lnet_msg_commit(msg, cpt): LNet commits a message for receiving (inside
 * lnet_parse) or sending.  Only the receive commit of a message to
 * forward matters: it is when the message arrived on this router; it then
 * may wait for a router buffer and router credits before LNet receives it
 * and sends it on (lnet_send), and its FORWARD's queue_ns counts from here.
 */
static __always_inline int lnetcap_on_commit(__u64 msg)
{
	struct lnetcap_held n = {};

	if (!msg || !lnetcap_msg_flag(msg, cfg.lo.msg_routing_byte,
				      cfg.lo.msg_routing_bit))
		return 0;
	/* The send commit of a forwarded message: received, so rx-committed. */
	if (lnetcap_msg_flag(msg, cfg.lo.msg_rx_committed_byte,
			     cfg.lo.msg_rx_committed_bit) ||
	    lnetcap_msg_flag(msg, cfg.lo.msg_tx_committed_byte,
			     cfg.lo.msg_tx_committed_bit))
		return 0;
	n.accept_ns = bpf_ktime_get_ns();
	n.arrived = 1;
	if (bpf_map_update_elem(&held, &msg, &n, BPF_ANY))
		lnetcap_untracked();
	return 0;
}

/* "monitor_thread": the LNet thread that times out responses. */
static __always_inline bool lnetcap_on_monitor_thread(void)
{
	char comm[16] = {};

	bpf_get_current_comm(comm, sizeof(comm));
	return comm[0] == 'm' && comm[1] == 'o' && comm[2] == 'n' &&
	       comm[3] == 'i' && comm[4] == 't' && comm[5] == 'o' &&
	       comm[6] == 'r' && comm[7] == '_' && comm[8] == 't' &&
	       comm[9] == 'h' && comm[10] == 'r' && comm[11] == 'e' &&
	       comm[12] == 'a' && comm[13] == 'd' && comm[14] == 0;
}

/* A health check follows its lnet_finalize at once; older marks are of
 * sends whose check lowered nothing (a peer with one NI). */
#define LNETCAP_REMOTE_FAIL_WINDOW_NS 100000000ULL

/*
 * lnet_handle_remote_failure_locked(lpni): LNet lowers a peer NI's health.
 * From the monitor thread and not the health check of a send just
 * finalized there, it is a response timeout
 * (lnet_finalize_expired_responses, static, inlined into the monitor
 * thread: no hook of its own): no ACK or REPLY came from that peer NI in
 * time.  One DROP, OUTCOME of the message that waited for it, which no
 * record names (msg_id 0: the response tracker is the MD's, not the
 * message's); no LNet header; health REMOTE_TIMEOUT.  Discovery's calls
 * (a peer NI reported down) are not recorded.
 */
static __always_inline int lnetcap_on_remote_failure(__u64 lpni)
{
	__u64 tid = bpf_get_current_pid_tgid();
	struct lnetcap_remote_fail *rf;
	struct lnetcap_src s = {};

	if (!lpni)
		return 0;
	rf = bpf_map_lookup_elem(&remote_fail, &tid);
	if (rf && rf->lpni) {
		bool same = rf->lpni == lpni &&
			    bpf_ktime_get_ns() - rf->when_ns < LNETCAP_REMOTE_FAIL_WINDOW_NS;

		rf->lpni = 0;
		if (same)
			return 0;
	}
	if (!lnetcap_on_monitor_thread() || !lnetcap_drop_wanted(false))
		return 0;
	s.dir = LNETCAP_DIR_DROP;
	s.hook = LNETCAP_HOOK_LNET_REMOTE_FAILURE;
	s.peer_nid = lpni + cfg.lo.lpni_nid;
	s.drop_reason = LNETCAP_DROP_RESPONSE_TIMEOUT;
	s.status = -LNETCAP_ETIMEDOUT;
	s.health = LNETCAP_HEALTH_REMOTE_TIMEOUT;
	s.flags = LNETCAP_REC_F_OUTCOME | LNETCAP_REC_F_HEALTH_VALID |
		  LNETCAP_REC_F_STATUS_VALID;
	lnetcap_emit(&s);
	return 0;
}

#endif /* LNETCAP_HOOKS_BPF_H */
