/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lib-types.h - the LNet types of the lnetcap test double.
 *
 * This is NOT Lustre.  It re-declares, with Lustre 2.15+'s names, member
 * order and member types, exactly the part of LNet's in-memory types that
 * lnetcap reads (docs/kernel-contract.md, docs/protocol.md section 6), so that
 * the capture programs find the same BTF names, the same function
 * signatures and the same kind of layout they find on a real node.
 * Structures Lustre keeps much larger (lnet_ni, lnet_net, lnet_peer_ni)
 * keep Lustre's leading members up to the one read (ni_nid, lpni_nid), as
 * master (2.17.55+) declares them, and only then members of the double's
 * own: every offset lnetcap reads is the real one, so the built-in table
 * of Lustre 2.17.55-2.17.57 fits the double exactly (the rig's "master"
 * build, kmod/master/, publishes release 2.17.57 and is read without any
 * BTF).  struct lnet_msg is master's too: msg_t_start and msg_t_end after
 * msg_deadline (LU-20426).
 *
 * Spelled as Lustre spells them (__attribute__((packed)), a volatile
 * sequence) so the BTF matches a real node's; checkpatch's preferences do
 * not apply to a copy of another project's layout.
 *
 * The payload kfunc module (kmod/lnetcap_kfunc) includes this header as
 * <lnet/lib-types.h>; on a real Lustre node it is built against Lustre's
 * own header of the same name instead.
 */
#ifndef LNETCAP_DOUBLE_LIB_TYPES_H
#define LNETCAP_DOUBLE_LIB_TYPES_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/ktime.h>
#include <linux/bvec.h>
#include <linux/spinlock.h>
#include <linux/atomic.h>

/* ---- uapi/linux/lnet/lnet-idl.h, lnet-types.h ---------------------------- */

typedef __u32 lnet_pid_t;

/* Large NID: net number and address are big-endian. */
struct lnet_nid {
	__u8	nid_size;
	__u8	nid_type;
	__be16	nid_num;
	__be32	nid_addr[4];
} __attribute__((packed));

struct lnet_processid {
	struct lnet_nid	nid;
	lnet_pid_t	pid;
};

struct lnet_handle_wire {
	__u64	wh_interface_cookie;
	__u64	wh_object_cookie;
} __attribute__((packed));

enum lnet_msg_type {
	LNET_MSG_ACK = 0,
	LNET_MSG_PUT,
	LNET_MSG_GET,
	LNET_MSG_REPLY,
	LNET_MSG_HELLO,
};

struct lnet_ack {
	struct lnet_handle_wire	dst_wmd;
	__u64			match_bits;
	__u32			mlength;
} __attribute__((packed));

struct lnet_put {
	struct lnet_handle_wire	ack_wmd;
	__u64			match_bits;
	__u64			hdr_data;
	__u32			ptl_index;
	__u32			offset;
} __attribute__((packed));

struct lnet_get {
	struct lnet_handle_wire	return_wmd;
	__u64			match_bits;
	__u32			ptl_index;
	__u32			src_offset;
	__u32			sink_length;
} __attribute__((packed));

struct lnet_reply {
	struct lnet_handle_wire	dst_wmd;
} __attribute__((packed));

struct lnet_hello {
	__u64	incarnation;
	__u32	type;
} __attribute__((packed));

/* In-memory, host-order header (2.15+): 96 bytes. */
struct lnet_hdr {
	struct lnet_nid	dest_nid;
	struct lnet_nid	src_nid;
	lnet_pid_t	dest_pid;
	lnet_pid_t	src_pid;
	__u32		type;
	__u32		payload_length;
	union {
		struct lnet_ack		ack;
		struct lnet_put		put;
		struct lnet_get		get;
		struct lnet_reply	reply;
		struct lnet_hello	hello;
	} msg;
} __attribute__((packed));

struct lnet_handle_md {
	__u64	cookie;
};

enum lnet_event_kind {
	LNET_EVENT_GET = 1,
	LNET_EVENT_PUT,
	LNET_EVENT_REPLY,
	LNET_EVENT_ACK,
	LNET_EVENT_SEND,
	LNET_EVENT_UNLINK,
};

struct lnet_event {
	struct lnet_processid	target;
	struct lnet_processid	initiator;
	struct lnet_processid	source;
	struct lnet_nid		sender;
	enum lnet_event_kind	type;
	unsigned int		pt_index;
	__u64			match_bits;
	unsigned int		rlength;
	unsigned int		mlength;
	struct lnet_handle_md	md_handle;
	void			*md_start;
	void			*md_user_ptr;
	unsigned int		md_options;
	__u64			hdr_data;
	__u32			msg_type;
	int			status;
	int			unlinked;
	unsigned int		offset;
	volatile unsigned long	sequence;
};

#define LNET_MD_OP_PUT		0x0001
#define LNET_MD_OP_GET		0x0002
#define LNET_MD_MANAGE_REMOTE	0x0004
#define LNET_MD_TRUNCATE	0x0010
#define LNET_MD_ACK_DISABLE	0x0020
#define LNET_MD_MAX_SIZE	0x0080
#define LNET_MD_KIOV		0x0100
#define LNET_MD_GPU_ADDR	0x2000	/* 2.16+: the pages are GPU memory */
#define LNET_MD_DISCARD		0x4000	/* master after 2.17.57: received data may be dropped */
#define LNET_MD_THRESH_INF	(-1)	/* md_threshold: no limit */

#define LNET_MAX_IOV		256

/* ---- lnet/include/lnet/lib-types.h --------------------------------------- */

enum lnet_msg_hstatus {
	LNET_MSG_STATUS_OK = 0,
	LNET_MSG_STATUS_LOCAL_INTERRUPT,
	LNET_MSG_STATUS_LOCAL_DROPPED,
	LNET_MSG_STATUS_LOCAL_ABORTED,
	LNET_MSG_STATUS_LOCAL_NO_ROUTE,
	LNET_MSG_STATUS_LOCAL_ERROR,
	LNET_MSG_STATUS_LOCAL_TIMEOUT,
	LNET_MSG_STATUS_REMOTE_ERROR,
	LNET_MSG_STATUS_REMOTE_DROPPED,
	LNET_MSG_STATUS_REMOTE_TIMEOUT,
	LNET_MSG_STATUS_NETWORK_TIMEOUT,
	LNET_MSG_STATUS_END,
};

struct lnet_libmd;
struct lnet_ni;
struct lnet_peer_ni;

struct lnet_msg {
	struct list_head	msg_activelist;
	struct list_head	msg_list;

	struct lnet_processid	msg_target;
	struct lnet_nid		msg_initiator;
	struct lnet_nid		msg_from;
	__u32			msg_type;

	struct lnet_nid		msg_src_nid_param;
	struct lnet_nid		msg_rtr_nid_param;

	ktime_t			msg_deadline;
	ktime_t			msg_t_start;
	ktime_t			msg_t_end;

	enum lnet_msg_hstatus	msg_health_status;
	bool			msg_recovery;
	int			msg_retry_count;
	bool			msg_no_resend;

	unsigned int		msg_tx_committed:1;
	unsigned int		msg_tx_cpt:15;
	unsigned int		msg_rx_committed:1;
	unsigned int		msg_rx_cpt:15;
	unsigned int		msg_tx_delayed:1;
	unsigned int		msg_rx_delayed:1;
	unsigned int		msg_rx_ready_delay:1;
	unsigned int		msg_vmflush:1;
	unsigned int		msg_target_is_router:1;
	unsigned int		msg_routing:1;
	unsigned int		msg_ack:1;
	unsigned int		msg_sending:1;
	unsigned int		msg_receiving:1;
	unsigned int		msg_txcredit:1;
	unsigned int		msg_peertxcredit:1;
	unsigned int		msg_rtrcredit:1;
	unsigned int		msg_peerrtrcredit:1;
	unsigned int		msg_onactivelist:1;
	unsigned int		msg_rdma_get:1;

	struct lnet_peer_ni	*msg_txpeer;
	struct lnet_peer_ni	*msg_rxpeer;

	void			*msg_private;
	struct lnet_libmd	*msg_md;
	struct lnet_ni		*msg_txni;
	struct lnet_ni		*msg_rxni;

	unsigned int		msg_len;
	unsigned int		msg_wanted;
	unsigned int		msg_offset;
	unsigned int		msg_niov;
	struct bio_vec		*msg_kiov;

	struct lnet_event	msg_ev;
	struct lnet_hdr		msg_hdr;
};

struct lnet_libhandle {
	struct list_head	lh_hash_chain;
	__u64			lh_cookie;
};

struct lnet_me;

struct lnet_libmd {
	struct list_head	md_list;
	struct lnet_libhandle	md_lh;
	struct lnet_me		*md_me;
	char			*md_start;
	unsigned int		md_offset;
	unsigned int		md_length;
	unsigned int		md_max_size;
	int			md_threshold;
	int			md_refcount;
	unsigned int		md_options;
	unsigned int		md_flags;
	unsigned int		md_niov;
	void			*md_user_ptr;
	void			*md_rspt_ptr;
	void			*md_handler;
	struct lnet_handle_md	md_bulk_handle;
	struct bio_vec		md_kiov[];	/* md_niov entries */
};

/* md_flags: the MD was unlinked while messages still used it. */
#define LNET_MD_FLAG_ABORTED	BIT(2)
/* md_flags: set by lnet_md_build() from LNET_MD_GPU_ADDR (2.16+). */
#define LNET_MD_FLAG_GPU	BIT(5)

struct lnet_lnd {
	__u32	lnd_type;
	int	(*lnd_startup)(struct lnet_ni *ni);
	void	(*lnd_shutdown)(struct lnet_ni *ni);
	int	(*lnd_ctl)(struct lnet_ni *ni, unsigned int cmd, void *arg);
	int	(*lnd_send)(struct lnet_ni *ni, void *private,
			    struct lnet_msg *msg);
	int	(*lnd_recv)(struct lnet_ni *ni, void *private,
			    struct lnet_msg *msg, int delayed,
			    unsigned int niov, struct bio_vec *kiov,
			    unsigned int offset, unsigned int mlen,
			    unsigned int rlen);
};

struct lnet_net {
	struct list_head	net_list;
	__u32			net_id;
	__u32			net_seq;
	__u32			net_ncpts;
	__u32			*net_cpts;
	__u32			net_sel_priority;
	const struct lnet_lnd	*net_lnd;
	struct list_head	net_ni_list;
};

struct lnet_ni {
	/* Lustre's, up to ni_nid */
	struct list_head	ni_netlist;
	struct list_head	ni_recovery;
	struct lnet_handle_md	ni_ping_mdh;
	spinlock_t		ni_lock;
	int			ni_ncpts;
	__u32			*ni_cpts;
	struct lnet_nid		ni_nid;
	/* the double's */
	struct list_head	ni_cptlist;
	int			ni_state;
	struct lnet_net		*ni_net;
	void			*ni_data;
	atomic_t		ni_healthv;
	char			*ni_interface;
};

struct lnet_comm_count {
	atomic_t co_get_count;
	atomic_t co_put_count;
	atomic_t co_reply_count;
	atomic_t co_ack_count;
	atomic_t co_hello_count;
};

struct lnet_element_stats {
	struct lnet_comm_count el_send_stats;
	struct lnet_comm_count el_recv_stats;
	struct lnet_comm_count el_drop_stats;
};

struct lnet_health_remote_stats {
	atomic_t hlt_remote_dropped;
	atomic_t hlt_remote_timeout;
	atomic_t hlt_remote_error;
	atomic_t hlt_network_timeout;
};

/* LU-20426 (2.17.55) */
struct lnet_latency_stats {
	atomic_t	lls_samples;
	atomic64_t	lls_sum_ns;
	atomic64_t	lls_min_ns;
	atomic64_t	lls_max_ns;
};
#define LNET_LATENCY_NR 3

struct lnet_peer_ni {
	/* Lustre's (2.17.55+), up to lpni_nid */
	struct list_head	lpni_peer_nis;
	struct list_head	lpni_on_remote_peer_ni_list;
	struct list_head	lpni_recovery;
	struct list_head	lpni_hashlist;
	struct list_head	lpni_txq;
	void			*lpni_peer_net;
	struct lnet_element_stats lpni_stats;
	struct lnet_health_remote_stats lpni_hstats;
	struct lnet_latency_stats lpni_latency[LNET_LATENCY_NR];
	spinlock_t		lpni_lock;
	int			lpni_txcredits;
	int			lpni_mintxcredits;
	int			lpni_rtrcredits;
	int			lpni_minrtrcredits;
	long			lpni_txqnob;
	struct lnet_net		*lpni_net;
	struct lnet_nid		lpni_nid;
	/* the double's */
	atomic_t		lpni_healthv;
};

/* ---- exported entry points (lib-move.c, lib-msg.c) ------------------------ */

int lnet_parse(struct lnet_ni *ni, struct lnet_hdr *hdr,
	       struct lnet_nid *from_nid, void *private, int rdma_req);
void lnet_ni_send(struct lnet_ni *ni, struct lnet_msg *msg);
void lnet_finalize(struct lnet_msg *msg, int rc);
void lnet_drop_message(struct lnet_ni *ni, int cpt, void *private,
		       unsigned int nob, __u32 msg_type);
void lnet_msg_commit(struct lnet_msg *msg, int cpt);
void lnet_handle_remote_failure_locked(struct lnet_peer_ni *lpni);

#endif /* LNETCAP_DOUBLE_LIB_TYPES_H */
