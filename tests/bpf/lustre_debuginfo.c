// SPDX-License-Identifier: GPL-2.0-only
/*
 * lustre_debuginfo.c - stands in for Lustre's lnet.ko debuginfo in the
 * --btf test: compiled with -g and turned into a detached BTF file by
 * `pahole --btf_encode_detached`, exactly as a user would from the real
 * module.  The structs repeat Lustre 2.16's declarations (lib-types.h,
 * lnet-types.h, lnet-idl.h at tag v2_16_0) up to the last member lnetcap
 * reads, with x86_64 production kernel type sizes.
 */
#include <stdbool.h>

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef long long ktime_t;

struct list_head { struct list_head *next, *prev; };
typedef struct { unsigned int raw; } spinlock_t;
typedef struct { int counter; } atomic_t;

struct lnet_nid {
	__u8 nid_size;
	__u8 nid_type;
	__u16 nid_num;
	__u32 nid_addr[4];
} __attribute__((packed));

struct lnet_processid { struct lnet_nid nid; __u32 pid; };
struct lnet_handle_md { __u64 cookie; };

struct lnet_event {
	struct lnet_processid target, initiator, source;
	struct lnet_nid sender;
	int type;
	unsigned int pt_index;
	__u64 match_bits;
	unsigned int rlength, mlength;
	struct lnet_handle_md md_handle;
	void *md_start, *md_user_ptr;
	unsigned int md_options;
	__u64 hdr_data;
	__u32 msg_type;
	int status, unlinked;
	unsigned int offset;
	volatile unsigned long sequence;
};

struct lnet_hdr { __u8 bytes[96]; } __attribute__((packed));

struct lnet_msg {
	struct list_head msg_activelist;
	struct list_head msg_list;
	struct lnet_processid msg_target;
	struct lnet_nid msg_initiator;
	struct lnet_nid msg_from;
	__u32 msg_type;
	struct lnet_nid msg_src_nid_param;
	struct lnet_nid msg_rtr_nid_param;
	ktime_t msg_deadline;
	int msg_health_status;
	bool msg_recovery;
	int msg_retry_count;
	bool msg_no_resend;
	unsigned int msg_tx_committed:1;
	unsigned int msg_tx_cpt:15;
	unsigned int msg_rx_committed:1;
	unsigned int msg_rx_cpt:15;
	unsigned int msg_tx_delayed:1;
	unsigned int msg_rx_delayed:1;
	unsigned int msg_rx_ready_delay:1;
	unsigned int msg_vmflush:1;
	unsigned int msg_target_is_router:1;
	unsigned int msg_routing:1;
	unsigned int msg_ack:1;
	unsigned int msg_sending:1;
	unsigned int msg_receiving:1;
	unsigned int msg_txcredit:1;
	unsigned int msg_peertxcredit:1;
	unsigned int msg_rtrcredit:1;
	unsigned int msg_peerrtrcredit:1;
	unsigned int msg_onactivelist:1;
	unsigned int msg_rdma_get:1;
	void *msg_txpeer;
	void *msg_rxpeer;
	void *msg_private;
	void *msg_md;
	void *msg_txni;
	void *msg_rxni;
	unsigned int msg_len;
	unsigned int msg_wanted;
	unsigned int msg_offset;
	unsigned int msg_niov;
	void *msg_kiov;
	struct lnet_event msg_ev;
	struct lnet_hdr msg_hdr;
};

struct lnet_libhandle { struct list_head lh_hash_chain; __u64 lh_cookie; };

struct lnet_libmd {
	struct list_head md_list;
	struct lnet_libhandle md_lh;
	void *md_me;
	char *md_start;
	unsigned int md_offset, md_length, md_max_size;
	int md_threshold, md_refcount;
	unsigned int md_options, md_flags, md_niov;
	void *md_user_ptr, *md_rspt_ptr;
	void (*md_handler)(void *ev);
	struct { __u64 cookie; } md_bulk_handle;
	struct { void *bv_page; unsigned int bv_len, bv_offset; } md_kiov[1];
};

struct lnet_ni {
	struct list_head ni_netlist;
	struct list_head ni_recovery;
	struct lnet_handle_md ni_ping_mdh;
	spinlock_t ni_lock;
	int ni_ncpts;
	__u32 *ni_cpts;
	struct lnet_nid ni_nid;
};

struct lnet_comm_count { atomic_t co_get_count, co_put_count, co_reply_count,
			 co_ack_count, co_hello_count; };
struct lnet_element_stats { struct lnet_comm_count el_send_stats, el_recv_stats,
			    el_drop_stats; };
struct lnet_health_remote_stats { atomic_t hlt_remote_dropped, hlt_remote_timeout,
				  hlt_remote_error, hlt_network_timeout; };

struct lnet_peer_ni {
	struct list_head lpni_peer_nis, lpni_on_remote_peer_ni_list, lpni_recovery,
		lpni_hashlist, lpni_txq;
	void *lpni_peer_net;
	struct lnet_element_stats lpni_stats;
	struct lnet_health_remote_stats lpni_hstats;
	spinlock_t lpni_lock;
	int lpni_txcredits, lpni_mintxcredits, lpni_rtrcredits, lpni_minrtrcredits;
	long lpni_txqnob;
	void *lpni_net;
	struct lnet_nid lpni_nid;
};

/* Referenced so the compiler keeps every type in the debuginfo. */
struct lnet_msg lnetcap_keep_msg;
struct lnet_libmd lnetcap_keep_md;
struct lnet_ni lnetcap_keep_ni;
struct lnet_peer_ni lnetcap_keep_lpni;

/*
 * lnet_drop_rule_match: local_nid is a struct lnet_nid * from 2.15.51
 * (LU-10391), a 64-bit lnet_nid_t value before (built again with
 * -DLNETCAP_LUSTRE_2_15 for that form); lnetcap reads which from BTF.
 */
#ifdef LNETCAP_LUSTRE_2_15
typedef __u64 lnet_nid_t;
bool lnet_drop_rule_match(struct lnet_hdr *hdr, lnet_nid_t local_nid, int *hstatus)
#else
bool lnet_drop_rule_match(struct lnet_hdr *hdr, struct lnet_nid *local_nid, int *hstatus)
#endif
{
	return hdr && local_nid && hstatus;
}
