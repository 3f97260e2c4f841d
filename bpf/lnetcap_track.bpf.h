/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lnetcap_track.bpf.h - what the hooks remember between calls, so that each
 * message LNet handles is one message in the capture (record.h: msg_id,
 * queue_ns, drop_reason, OUTCOME):
 *
 *  - map "held", keyed by the struct lnet_msg address: when lnet_send()
 *    accepted the message (for this attempt), the id of its first record,
 *    and whether this attempt reached lnet_ni_send().  lnet_ni_send() turns
 *    it into queue_ns; lnet_finalize() into a DROP linked to the SEND
 *    (OUTCOME) or a DROP of its own (never sent), and deletes it, except
 *    after a failed send, which LNet may resend as the same lnet_msg.  A
 *    failed message that is never resent stays until its address is used
 *    again (lnet_send() of a fresh message, retry count 0, overwrites it).
 *    A message this node forwards is timed from its arrival instead
 *    (lnet_msg_commit() of the received message, inside lnet_parse()), so
 *    its queue_ns includes the wait for a router buffer and router
 *    credits before LNet received it and called lnet_send().
 *  - map "remote_fail" (LRU), keyed by thread: the peer NI of the last send
 *    finalized on it with a remote health failure, so that the health check
 *    that follows (lnet_handle_remote_failure_locked() from lnet_finalize())
 *    is told from a response timeout (the same call from the monitor
 *    thread's lnet_finalize_expired_responses(), which no message carries).
 *  - map "parsing" (LRU), keyed by thread: the lnet_parse() calls under way on it
 *    (a small stack: the loopback LND parses inside a send inside a parse),
 *    with the header, the NI, the sender, the RECV record's id (GET, ACK)
 *    and whether the drop was already recorded, so lnet_drop_message(),
 *    lnet_finalize() of a refused message and a drop rule's verdict become
 *    one DROP for the received message.
 *
 *  - map "rdma_replies", keyed by the struct lnet_msg address of the reply
 *    lnet_create_reply_msg() made for an RDMA-optimised GET we sent: the
 *    REPLY header the peer would have sent (from the GET's header) and the
 *    NI, so lnet_finalize() of that message, whose own header is all but
 *    empty, can record it as the RECV of a REPLY.  Deleted there.
 *  - map "reply_making" (LRU), keyed by thread: the same, between the entry
 *    and the return of lnet_create_reply_msg() (kprobe mode: the return
 *    probe has no arguments).
 *
 * All maps are bounded; a message that finds its map full is counted in
 * LNETCAP_STAT_UNTRACKED and recorded without the linked fields.
 */
#ifndef LNETCAP_TRACK_BPF_H
#define LNETCAP_TRACK_BPF_H

#include "lnetcap_rec.bpf.h"

/* Messages LNet has in flight at once are bounded by its credits; this is
 * well above a busy server's. */
#define LNETCAP_HELD_MAX 65536
/* Threads inside lnet_parse at once (LND threads) and nesting depth. */
#define LNETCAP_PARSING_MAX 4096
#define LNETCAP_PARSE_DEPTH 4

struct lnetcap_held {
	__u64 accept_ns; /* lnet_send() entry of this attempt, 0 = unknown;
			  * for a message being forwarded, its arrival */
	__u64 msg_id;    /* id of the message's first record, 0 = none yet */
	__u8 sent;       /* this attempt reached lnet_ni_send() */
	__u8 arrived;    /* a forwarded message, timed from lnet_parse's
			  * commit: lnet_send() keeps accept_ns */
	__u8 pad[6];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LNETCAP_HELD_MAX);
	__type(key, __u64);
	__type(value, struct lnetcap_held);
} held SEC(".maps");

struct lnetcap_parse_frame {
	__u64 hdr;      /* struct lnet_hdr * of the LND's buffer */
	__u64 ni;
	__u64 from;     /* struct lnet_nid *: previous hop */
	__u64 msg_id;   /* RECV record of a GET/ACK, 0 = none */
	__u8 reported;  /* its drop is recorded */
	__u8 rule;      /* a drop rule matched it */
	__u8 pad[6];
};

struct lnetcap_parsing {
	__u32 depth;
	__u32 pad;
	struct lnetcap_parse_frame f[LNETCAP_PARSE_DEPTH];
};

/* LRU: a thread's entry stays (depth 0) between its lnet_parse calls, so
 * a parse costs one lookup, not an insert and a delete; threads that
 * stopped parsing are evicted, never one in the middle of a parse (its
 * entry was used at its start). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, LNETCAP_PARSING_MAX);
	__type(key, __u64);
	__type(value, struct lnetcap_parsing);
} parsing SEC(".maps");

/* A send finalized with a remote health failure on this thread (above). */
struct lnetcap_remote_fail {
	__u64 lpni;    /* struct lnet_peer_ni * the send went to */
	__u64 when_ns; /* bpf_ktime_get_ns() at lnet_finalize() */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, LNETCAP_PARSING_MAX);
	__type(key, __u64);
	__type(value, struct lnetcap_remote_fail);
} remote_fail SEC(".maps");

/* The REPLY of an RDMA-optimised GET we sent, as LNet never builds it. */
struct lnetcap_rdma_reply {
	__u64 ni;                     /* struct lnet_ni * the GET went out on */
	struct lnetcap_hdr_nid16 hdr; /* REPLY header (host order) */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LNETCAP_HELD_MAX);
	__type(key, __u64);
	__type(value, struct lnetcap_rdma_reply);
} rdma_replies SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, LNETCAP_PARSING_MAX);
	__type(key, __u64);
	__type(value, struct lnetcap_rdma_reply);
} reply_making SEC(".maps");

static __always_inline void lnetcap_untracked(void)
{
	lnetcap_count(lnetcap_pcpu(), LNETCAP_STAT_UNTRACKED);
}

/* The innermost lnet_parse() frame of this thread, or NULL. */
static __always_inline struct lnetcap_parse_frame *lnetcap_parse_top(void)
{
	__u64 tid = bpf_get_current_pid_tgid();
	struct lnetcap_parsing *p = bpf_map_lookup_elem(&parsing, &tid);
	__u32 d;

	if (!p)
		return NULL;
	d = p->depth;
	if (d == 0 || d > LNETCAP_PARSE_DEPTH)
		return NULL;
	return &p->f[(d - 1) & (LNETCAP_PARSE_DEPTH - 1)];
}

/* lnet_parse() entry: push a frame (a full stack only counts depth, so
 * the exits still pair up). */
static __always_inline struct lnetcap_parse_frame *
lnetcap_parse_push(__u64 ni, __u64 hdr, __u64 from)
{
	static const struct lnetcap_parsing empty = {};
	__u64 tid = bpf_get_current_pid_tgid();
	struct lnetcap_parse_frame *fr;
	struct lnetcap_parsing *p;
	__u32 d;

	p = bpf_map_lookup_elem(&parsing, &tid);
	if (!p) {
		bpf_map_update_elem(&parsing, &tid, &empty, BPF_NOEXIST);
		p = bpf_map_lookup_elem(&parsing, &tid);
		if (!p) {
			lnetcap_untracked();
			return NULL;
		}
	}
	d = p->depth++;
	if (d >= LNETCAP_PARSE_DEPTH)
		return NULL;
	fr = &p->f[d & (LNETCAP_PARSE_DEPTH - 1)];
	fr->hdr = hdr;
	fr->ni = ni;
	fr->from = from;
	fr->msg_id = 0;
	fr->reported = 0;
	fr->rule = 0;
	return fr;
}

/* lnet_parse() exit: pop (the entry stays for the thread's next parse). */
static __always_inline void lnetcap_parse_pop(void)
{
	__u64 tid = bpf_get_current_pid_tgid();
	struct lnetcap_parsing *p = bpf_map_lookup_elem(&parsing, &tid);

	if (p && p->depth > 0)
		p->depth--;
}

#endif /* LNETCAP_TRACK_BPF_H */
