// SPDX-License-Identifier: GPL-2.0-only
/*
 * lnet_double.c - a test double of Lustre LNet for the lnetcap kernel rig.
 *
 * It is loaded as module "lnet" and exports the functions lnetcap hooks
 * (lnet_send, lnet_ni_send, lnet_parse, lnet_finalize, lnet_drop_message,
 * lnet_drop_rule_match) with Lustre 2.15+'s signatures.  Writing a scenario name to
 * /sys/kernel/debug/lnet/double_ctl makes it produce the traffic a Lustre
 * client (and, for "forward", a router) would produce, calling those
 * functions in the order LNet calls them:
 *
 *   TX:  lnet_send [credit/delay wait, or drop] -> lnet_ni_send -> lnd_send
 *        -> lnet_finalize (a health failure: lnet_send again, the resend)
 *   RX:  lnet_parse -> lnd_recv (payload lands in the MD) -> lnet_finalize
 *        (+ the ACK or forwarded send LNet derives from the same lnet_msg);
 *   RDMA GET (the o2ib NI, as o2iblnd/kfilnd/gnilnd): the initiator's LND
 *        calls lnet_create_reply_msg in lnd_send, the data lands in the
 *        GET's MD, lnet_set_reply_msg_len, lnet_finalize of GET and reply;
 *        the responder's lnet_parse(rdma_req) turns the GET into the REPLY
 *        and hands it to lnd_recv, which writes it and finalizes it -
 *        neither side has a REPLY in lnet_parse or lnet_ni_send;
 *        refused inside lnet_parse: lnet_drop_rule_match, lnet_finalize
 *        with an error, lnet_drop_message, or a -EPROTO return
 *
 * Health, as LNet handles it (lnet_health_check): a send that failed with
 * a resendable status (LOCAL_*, REMOTE_DROPPED) is resent as the same
 * lnet_msg on another NI of the net (multi-rail), its msg_health_status
 * left as the LND set it until the next attempt completes; a remote
 * failure lowers the peer NI's health (lnet_handle_remote_failure_locked),
 * which the monitor thread also does when a response times out.  A
 * message to forward is committed in lnet_parse (lnet_msg_commit) and may
 * wait there for a router buffer before it is received and sent on.
 *
 * Every call is logged in /sys/kernel/debug/lnet/double_log with the exact
 * 96-byte struct lnet_hdr and payload bytes involved, so the rig can compare
 * lnetcap's capture with what was really produced, byte for byte.
 * /sys/kernel/debug/lnet/nis lists the NIs in Lustre's format.
 *
 * Nothing here is Lustre code; the payloads are built from the shared
 * protocol definition in include/lnetcap/.
 */
#define pr_fmt(fmt) "lnet(double): " fmt

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/highmem.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>
#include <linux/ktime.h>
#include <linux/string.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/capability.h>

#include <lnet/lib-types.h>
#include <lnetcap/lnet.h>
#include <lnetcap/ptlrpc.h>
#include <lnetcap/bodies.h>

#define DBL_PID			LNETCAP_LNET_PID_LUSTRE
#define DBL_LOG_SNAP		1024	/* payload bytes logged per event */
#define DBL_LOG_SIZE		(8U << 20)
#define DBL_BULK_PAGES		2
#define DBL_BULK_LEN		(DBL_BULK_PAGES * PAGE_SIZE)
#define DBL_RETRY_LIMIT		1
#define DBL_WIRE_COOKIE_NONE	LNETCAP_LNET_WIRE_COOKIE_NONE

/* ---- NIs, nets, LNDs, peers ----------------------------------------------- */

static int dbl_lnd_send(struct lnet_ni *ni, void *private,
			struct lnet_msg *msg);
static int dbl_lnd_recv(struct lnet_ni *ni, void *private,
			struct lnet_msg *msg, int delayed, unsigned int niov,
			struct bio_vec *kiov, unsigned int offset,
			unsigned int mlen, unsigned int rlen);

static int dbl_lo_send(struct lnet_ni *ni, void *private,
		       struct lnet_msg *msg);
/* The loopback LND: a message sent on 0@lo is parsed back on it (lolnd). */
static const struct lnet_lnd dbl_lolnd = {
	.lnd_type = LNETCAP_LND_LOLND,
	.lnd_send = dbl_lo_send,
	.lnd_recv = dbl_lnd_recv,
};
static const struct lnet_lnd dbl_socklnd = {
	.lnd_type = LNETCAP_LND_SOCKLND,
	.lnd_send = dbl_lnd_send,
	.lnd_recv = dbl_lnd_recv,
};
static int dbl_ib_send(struct lnet_ni *ni, void *private,
		       struct lnet_msg *msg);
static int dbl_ib_recv(struct lnet_ni *ni, void *private,
		       struct lnet_msg *msg, int delayed, unsigned int niov,
		       struct bio_vec *kiov, unsigned int offset,
		       unsigned int mlen, unsigned int rlen);
/* An RDMA LND: a GET's REPLY is RDMA, not a message (dbl_ib_send). */
static const struct lnet_lnd dbl_o2iblnd = {
	.lnd_type = LNETCAP_LND_O2IBLND,
	.lnd_send = dbl_ib_send,
	.lnd_recv = dbl_ib_recv,
};

/*
 * Five NIs: the loopback NI every LNet node has, a TCP NI (this node's
 * address), an o2ib NI, so that "forward" can route between two nets
 * as an LNet router does, a second TCP NI, so that a resend can
 * leave by another interface of the same net (multi-rail), and a TCP NI
 * with an IPv6 address on net tcp1 (a large NID: nid_size 12, as
 * "lnetctl lnet configure --large" and an IPv6 interface give socklnd).
 */
enum { DBL_NI_LO, DBL_NI_TCP, DBL_NI_O2IB, DBL_NI_TCP2, DBL_NI_TCP6, DBL_NR_NI };

static struct lnet_net dbl_nets[DBL_NR_NI];
static struct lnet_ni dbl_nis[DBL_NR_NI];

/*
 * Remote peers: the OSS this client talks to, a client behind the router
 * on o2ib, and the server the router forwards to.
 */
enum { DBL_PEER_OSS, DBL_PEER_IBCLIENT, DBL_PEER_FWDSERVER, DBL_PEER_OSS6,
       DBL_NR_PEER };

/* The IPv6 addresses of the tcp1 NI and of the OSS on that net. */
static const u8 dbl_ni6_addr[16] = { 0xfd, 0, 0, 0x77, [15] = 0x10 };
static const u8 dbl_oss6_addr[16] = { 0xfd, 0, 0, 0x77, [15] = 0x20 };
static struct lnet_peer_ni dbl_peers[DBL_NR_PEER];

static void dbl_mknid(struct lnet_nid *nid, u32 lnd, u16 netnum, u32 ipv4)
{
	memset(nid, 0, sizeof(*nid));
	nid->nid_size = 0;	/* 4-byte address */
	nid->nid_type = lnd;
	nid->nid_num = cpu_to_be16(netnum);
	nid->nid_addr[0] = cpu_to_be32(ipv4);
}

/* A large NID: a 16-byte (IPv6) address, nid_size 12 (bytes beyond 4). */
static void dbl_mknid6(struct lnet_nid *nid, u32 lnd, u16 netnum,
		       const u8 addr[16])
{
	memset(nid, 0, sizeof(*nid));
	nid->nid_size = 12;
	nid->nid_type = lnd;
	nid->nid_num = cpu_to_be16(netnum);
	memcpy(nid->nid_addr, addr, 16);
}

static bool dbl_nid_eq(const struct lnet_nid *a, const struct lnet_nid *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* "192.168.1.10@tcp", "0@lo": Lustre's libcfs_nidstr() for 4-byte NIDs. */
static int dbl_nidstr(const struct lnet_nid *nid, char *buf, size_t len)
{
	u32 addr = be32_to_cpu(nid->nid_addr[0]);
	u16 num = be16_to_cpu(nid->nid_num);
	const char *net;

	switch (nid->nid_type) {
	case LNETCAP_LND_LOLND:
		return scnprintf(buf, len, "%u@lo", addr);
	case LNETCAP_LND_SOCKLND:
		net = "tcp";
		break;
	case LNETCAP_LND_O2IBLND:
		net = "o2ib";
		break;
	default:
		return scnprintf(buf, len, "<%u:%u>@?", nid->nid_type, addr);
	}
	if (nid->nid_size == 12)	/* libcfs_nidstr: "fd00:77::10@tcp1" */
		return num ? scnprintf(buf, len, "%pI6c@%s%u", nid->nid_addr, net, num) :
			     scnprintf(buf, len, "%pI6c@%s", nid->nid_addr, net);
	if (num)
		return scnprintf(buf, len, "%pI4h@%s%u", &addr, net, num);
	return scnprintf(buf, len, "%pI4h@%s", &addr, net);
}

static void dbl_setup_nis(void)
{
	static const struct lnet_lnd *lnds[DBL_NR_NI] = {
		&dbl_lolnd, &dbl_socklnd, &dbl_o2iblnd, &dbl_socklnd, &dbl_socklnd
	};
	static const u32 addrs[DBL_NR_NI] = {
		0, 0xc0a8010a /* 192.168.1.10 */, 0x0a00000a /* 10.0.0.10 */,
		0xc0a8010b /* 192.168.1.11 */, 0 /* IPv6, below */
	};
	int i;

	for (i = 0; i < DBL_NR_NI; i++) {
		struct lnet_net *net = &dbl_nets[i];
		struct lnet_ni *ni = &dbl_nis[i];

		INIT_LIST_HEAD(&net->net_list);
		INIT_LIST_HEAD(&net->net_ni_list);
		net->net_lnd = lnds[i];
		net->net_id = LNETCAP_MKNET(lnds[i]->lnd_type, 0);
		INIT_LIST_HEAD(&ni->ni_netlist);
		INIT_LIST_HEAD(&ni->ni_cptlist);
		spin_lock_init(&ni->ni_lock);
		ni->ni_state = 1;	/* LNET_NI_STATE_ACTIVE */
		ni->ni_net = net;
		atomic_set(&ni->ni_healthv, 1000);
		dbl_mknid(&ni->ni_nid, lnds[i]->lnd_type, 0, addrs[i]);
		list_add_tail(&ni->ni_netlist, &net->net_ni_list);
	}
	dbl_nets[DBL_NI_TCP6].net_id = LNETCAP_MKNET(LNETCAP_LND_SOCKLND, 1);
	dbl_mknid6(&dbl_nis[DBL_NI_TCP6].ni_nid, LNETCAP_LND_SOCKLND, 1,
		   dbl_ni6_addr);
	dbl_mknid6(&dbl_peers[DBL_PEER_OSS6].lpni_nid, LNETCAP_LND_SOCKLND, 1,
		   dbl_oss6_addr);
	dbl_mknid(&dbl_peers[DBL_PEER_OSS].lpni_nid, LNETCAP_LND_SOCKLND, 0,
		  0xc0a80114 /* 192.168.1.20 */);
	dbl_mknid(&dbl_peers[DBL_PEER_IBCLIENT].lpni_nid, LNETCAP_LND_O2IBLND,
		  0, 0x0a000014 /* 10.0.0.20 */);
	dbl_mknid(&dbl_peers[DBL_PEER_FWDSERVER].lpni_nid, LNETCAP_LND_SOCKLND,
		  0, 0xc0a8011e /* 192.168.1.30 */);
	for (i = 0; i < DBL_NR_PEER; i++) {
		INIT_LIST_HEAD(&dbl_peers[i].lpni_peer_nis);
		INIT_LIST_HEAD(&dbl_peers[i].lpni_hashlist);
		dbl_peers[i].lpni_txcredits = 8;
		atomic_set(&dbl_peers[i].lpni_healthv, 1000);
		dbl_peers[i].lpni_rtrcredits = 8;
	}
}

static struct lnet_ni *dbl_local_ni(const struct lnet_nid *nid)
{
	int i;

	for (i = 0; i < DBL_NR_NI; i++)
		if (dbl_nid_eq(&dbl_nis[i].ni_nid, nid))
			return &dbl_nis[i];
	return NULL;
}

static struct lnet_peer_ni *dbl_peer(const struct lnet_nid *nid)
{
	int i;

	for (i = 0; i < DBL_NR_PEER; i++)
		if (dbl_nid_eq(&dbl_peers[i].lpni_nid, nid))
			return &dbl_peers[i];
	return NULL;
}

/* The NI a message to @nid leaves by: same net type, or tcp by default. */
static struct lnet_ni *dbl_route(const struct lnet_nid *nid)
{
	int i;

	for (i = 0; i < DBL_NR_NI; i++)
		if (dbl_nis[i].ni_nid.nid_type == nid->nid_type &&
		    dbl_nis[i].ni_nid.nid_num == nid->nid_num)
			return &dbl_nis[i];
	return &dbl_nis[DBL_NI_TCP];
}

/* Another NI of @ni's net, for a resend (multi-rail), or @ni itself. */
static struct lnet_ni *dbl_other_ni(struct lnet_ni *ni)
{
	int i;

	for (i = 0; i < DBL_NR_NI; i++)
		if (&dbl_nis[i] != ni &&
		    dbl_nis[i].ni_nid.nid_type == ni->ni_nid.nid_type &&
		    dbl_nis[i].ni_nid.nid_num == ni->ni_nid.nid_num)
			return &dbl_nis[i];
	return ni;
}

/* ---- the event log ---------------------------------------------------------- */

static DEFINE_MUTEX(dbl_mutex);	/* one generator at a time, and the log */
static char *dbl_log;
static size_t dbl_log_len;
static bool dbl_log_on = true;
static bool dbl_log_full;
static u64 dbl_event_seq;
static u32 dbl_msg_ids;

static __printf(1, 2) void dbl_logf(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!dbl_log_on || dbl_log_full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(dbl_log + dbl_log_len, DBL_LOG_SIZE - dbl_log_len, fmt,
		      ap);
	va_end(ap);
	if (dbl_log_len + n >= DBL_LOG_SIZE - 1) {
		/* Say so instead of silently truncating: tests must fail. */
		dbl_log_full = true;
		dbl_log_len = strlen(dbl_log);
		return;
	}
	dbl_log_len += n;
}

static void dbl_loghex(const void *p, size_t n)
{
	if (!dbl_log_on || dbl_log_full)
		return;
	if (dbl_log_len + 2 * n + 2 >= DBL_LOG_SIZE) {
		dbl_log_full = true;
		return;
	}
	bin2hex(dbl_log + dbl_log_len, p, n);
	dbl_log_len += 2 * n;
	dbl_log[dbl_log_len] = '\0';
}

/* Copy up to @len payload bytes starting at @offset of a kiov list. */
static size_t dbl_kiov_read(const struct bio_vec *kiov, unsigned int niov,
			    unsigned int offset, void *dst, size_t len)
{
	size_t done = 0;
	unsigned int i;

	for (i = 0; i < niov && done < len; i++) {
		unsigned int bl = kiov[i].bv_len;
		size_t n;
		char *va;

		if (offset >= bl) {
			offset -= bl;
			continue;
		}
		n = min_t(size_t, bl - offset, len - done);
		va = kmap_local_page(kiov[i].bv_page);
		memcpy((char *)dst + done, va + kiov[i].bv_offset + offset, n);
		kunmap_local(va);
		done += n;
		offset = 0;
	}
	return done;
}

static u8 dbl_snap[DBL_LOG_SNAP];

struct dbl_msg {
	struct lnet_msg	msg;
	u32		id;
	int		inject_rc;	/* lnd_send fails with this once */
	int		inject_hs;	/* ... setting this health status */
	int		lnd_refuse_rc;	/* lnd_send returns this, sends nothing */
	unsigned int	hold_ms;	/* lnet_send holds it (credits) once */
	int		drop_rc;	/* lnet_send drops it before the LND */
	int		drop_hs;	/* ... with this health status */
	const void	*wire;		/* RX: payload "on the wire" */
	unsigned int	wire_len;	/* RDMA GET: bytes the peer writes */
	bool		rdma_reply;	/* the REPLY of a GET we serve by RDMA */
	struct page	*rtr_pages[DBL_BULK_PAGES];	/* router buffer */
	struct bio_vec	rtr_kiov[DBL_BULK_PAGES];
};

static const char *dbl_dir(const struct lnet_msg *msg, bool rx)
{
	if (msg->msg_routing)
		return "forward";
	return rx ? "recv" : "send";
}

/*
 * Why a capture must leave this event's payload out: "device" for an MD of
 * GPU memory (LNET_MD_FLAG_GPU), "discard" for a receive into an MD that
 * may drop what arrives (LNET_MD_DISCARD), "-" otherwise.
 */
static const char *dbl_nocap(const struct lnet_msg *msg, bool rx)
{
	const struct lnet_libmd *md = msg->msg_md;

	if (md && (md->md_flags & LNET_MD_FLAG_GPU))
		return "device";
	if (md && rx && (md->md_options & LNET_MD_DISCARD))
		return "discard";
	return "-";
}

/*
 * One line per event:
 *   <hook> ev=N msg=ID dir=D type=T ni=NID peer=NID rc=R hs=H retry=N
 *   routing=0|1 plen=PAYLOAD_LENGTH nocap=device|discard|- hdr=<96 bytes
 *   hex> payload=<hex>
 * where payload is the first DBL_LOG_SNAP bytes the event carries.
 */
static void dbl_log_event(const char *hook, struct lnet_msg *msg,
			  struct lnet_ni *ni, const struct lnet_hdr *hdr,
			  bool rx, int rc, const void *payload,
			  size_t paylen, size_t plen)
{
	struct dbl_msg *dm = container_of(msg, struct dbl_msg, msg);
	struct lnet_peer_ni *peer = rx ? msg->msg_rxpeer : msg->msg_txpeer;
	char nistr[48] = "-", peerstr[48] = "-";

	if (!dbl_log_on)
		return;
	if (ni)
		dbl_nidstr(&ni->ni_nid, nistr, sizeof(nistr));
	if (peer)
		dbl_nidstr(&peer->lpni_nid, peerstr, sizeof(peerstr));
	dbl_logf("%s ev=%llu msg=%u dir=%s type=%u ni=%s peer=%s rc=%d hs=%d retry=%d routing=%u plen=%zu nocap=%s hdr=",
		 hook, ++dbl_event_seq, dm->id, dbl_dir(msg, rx), hdr->type,
		 nistr, peerstr, rc, msg->msg_health_status,
		 msg->msg_retry_count, msg->msg_routing, plen,
		 dbl_nocap(msg, rx));
	dbl_loghex(hdr, sizeof(*hdr));
	dbl_logf(" payload=");
	dbl_loghex(payload, min_t(size_t, paylen, DBL_LOG_SNAP));
	dbl_logf("\n");
}

/* ---- message allocation -------------------------------------------------- */

static struct dbl_msg *dbl_msg_alloc(void)
{
	struct dbl_msg *dm = kzalloc(sizeof(*dm), GFP_KERNEL);

	if (!dm)
		return NULL;
	dm->id = ++dbl_msg_ids;
	INIT_LIST_HEAD(&dm->msg.msg_activelist);
	INIT_LIST_HEAD(&dm->msg.msg_list);
	dm->msg.msg_t_start = ktime_get();
	dm->msg.msg_deadline = ktime_add_ms(dm->msg.msg_t_start, 50000);
	return dm;
}

static void dbl_msg_free(struct dbl_msg *dm)
{
	int i;

	for (i = 0; i < DBL_BULK_PAGES; i++)
		if (dm->rtr_pages[i])
			__free_page(dm->rtr_pages[i]);
	kfree(dm);
}

/* ---- memory descriptors ---------------------------------------------------- */

/*
 * A contiguous MD (ptlrpc request and reply buffers): like Lustre 2.15+'s
 * lnet_md_build(), keep md_start, describe the buffer as page fragments in
 * md_kiov and mark the MD LNET_MD_KIOV, so LNet and the LND only ever use
 * the pages.  @buf is kmalloc()ed or vmalloc()ed (one page per entry
 * either way, found as lnet_md_build finds them).
 */
static struct lnet_libmd *dbl_md_contig(void *buf, unsigned int len,
					unsigned int options)
{
	unsigned int niov = DIV_ROUND_UP(offset_in_page(buf) + len, PAGE_SIZE);
	struct lnet_libmd *md;
	unsigned int i, done = 0;

	md = kzalloc(struct_size(md, md_kiov, niov), GFP_KERNEL);
	if (!md)
		return NULL;
	INIT_LIST_HEAD(&md->md_list);
	INIT_LIST_HEAD(&md->md_lh.lh_hash_chain);
	md->md_lh.lh_cookie = 0x10000ULL + (dbl_msg_ids << 2) + 1;
	md->md_start = buf;
	md->md_length = len;
	md->md_max_size = len;
	md->md_threshold = 1;
	md->md_refcount = 1;
	md->md_options = options | LNET_MD_KIOV;
	md->md_niov = niov;
	for (i = 0; i < niov; i++) {
		char *p = (char *)buf + done;
		unsigned int n = min_t(unsigned int, len - done,
				       PAGE_SIZE - offset_in_page(p));

		md->md_kiov[i].bv_page = is_vmalloc_addr(p) ?
					 vmalloc_to_page(p) : virt_to_page(p);
		md->md_kiov[i].bv_offset = offset_in_page(p);
		md->md_kiov[i].bv_len = n;
		done += n;
	}
	return md;
}

/*
 * Option bits the next bulk MDs get on top of their own, as
 * lnet_md_build() takes them from the caller (the "gpu" and "discard"
 * scenarios); GPU memory also sets LNET_MD_FLAG_GPU, as LNet does.
 */
static unsigned int dbl_bulk_md_options;

/* A KIOV MD over whole pages (bulk buffers). */
static struct lnet_libmd *dbl_md_kiov(struct page **pages, unsigned int npages,
				      unsigned int options)
{
	struct lnet_libmd *md;
	unsigned int i;

	md = kzalloc(struct_size(md, md_kiov, npages), GFP_KERNEL);
	if (!md)
		return NULL;
	INIT_LIST_HEAD(&md->md_list);
	INIT_LIST_HEAD(&md->md_lh.lh_hash_chain);
	md->md_lh.lh_cookie = 0x20000ULL + (dbl_msg_ids << 2) + 1;
	md->md_start = (char *)md->md_kiov;	/* as LNet: the kiov array */
	md->md_length = npages * PAGE_SIZE;
	md->md_max_size = md->md_length;
	md->md_threshold = 1;
	md->md_refcount = 1;
	md->md_options = options | dbl_bulk_md_options | LNET_MD_KIOV;
	if (md->md_options & LNET_MD_GPU_ADDR)
		md->md_flags |= LNET_MD_FLAG_GPU;
	md->md_niov = npages;
	for (i = 0; i < npages; i++) {
		md->md_kiov[i].bv_page = pages[i];
		md->md_kiov[i].bv_offset = 0;
		md->md_kiov[i].bv_len = PAGE_SIZE;
	}
	return md;
}

/*
 * The MEs "attached" to portals, i.e. what lnet_parse() can match: match
 * bits compared outside ignore_bits, as lnet_try_match_md() does (a ptlrpc
 * request buffer's ME ignores them all: any request on its portal).
 */
struct dbl_me {
	u32			portal;
	u64			match_bits;
	u64			ignore_bits;
	struct lnet_libmd	*md;
};

#define DBL_NR_ME 4
static struct dbl_me dbl_mes[DBL_NR_ME];

static void dbl_me_insert(u32 portal, u64 mbits, u64 ignore,
			  struct lnet_libmd *md)
{
	int i;

	for (i = 0; i < DBL_NR_ME; i++) {
		if (!dbl_mes[i].md) {
			dbl_mes[i].portal = portal;
			dbl_mes[i].match_bits = mbits;
			dbl_mes[i].ignore_bits = ignore;
			dbl_mes[i].md = md;
			return;
		}
	}
	WARN_ON_ONCE(1);
}

static void dbl_me_attach(u32 portal, u64 mbits, struct lnet_libmd *md)
{
	dbl_me_insert(portal, mbits, 0, md);
}

/* ptlrpc_register_rqbd(): LNetMEAttach(portal, any NID/PID, 0, ~0). */
static void dbl_me_attach_any(u32 portal, struct lnet_libmd *md)
{
	dbl_me_insert(portal, 0, ~0ULL, md);
}

/* LNet's lnet_md_exhausted(): no operation left, or (LNET_MD_MAX_SIZE)
 * less room left than the largest message the MD accepts. */
static bool dbl_md_exhausted(const struct lnet_libmd *md)
{
	return md->md_threshold == 0 ||
	       ((md->md_options & LNET_MD_MAX_SIZE) &&
		md->md_offset + md->md_max_size > md->md_length);
}

static struct lnet_libmd *dbl_me_match(u32 portal, u64 mbits)
{
	int i;

	for (i = 0; i < DBL_NR_ME; i++)
		if (dbl_mes[i].md && dbl_mes[i].portal == portal &&
		    !((dbl_mes[i].match_bits ^ mbits) &
		      ~dbl_mes[i].ignore_bits) &&
		    !dbl_md_exhausted(dbl_mes[i].md))
			return dbl_mes[i].md;
	return NULL;
}

/* Threshold reached: the MD no longer matches (auto-unlink). */
static void dbl_me_unlink(struct lnet_libmd *md)
{
	int i;

	for (i = 0; i < DBL_NR_ME; i++)
		if (dbl_mes[i].md == md)
			dbl_mes[i].md = NULL;
}

static bool dbl_me_posted(const struct lnet_libmd *md)
{
	int i;

	for (i = 0; i < DBL_NR_ME; i++)
		if (dbl_mes[i].md == md)
			return true;
	return false;
}

/*
 * A PUT matched @md: where it lands and how much of it is kept, as
 * lnet_try_match_md() decides.  False when it is longer than the MD allows
 * and the MD does not truncate (LNet drops it).  It lands at the MD's
 * running offset (md_offset) unless the MD lets the sender choose
 * (LNET_MD_MANAGE_REMOTE), so a multi-use request buffer receives each
 * request after the previous one; md_offset moves past it, the threshold
 * counts it, and an MD left exhausted is unlinked there and then (all the
 * double's MDs are attached with LNET_UNLINK), logged as
 * "lnet_md_unlink ... offset=<md_offset>".
 */
static bool dbl_md_take_put(struct lnet_libmd *md, u32 roffset, u32 rlength,
			    unsigned int *offset, unsigned int *mlength)
{
	unsigned int off = (md->md_options & LNET_MD_MANAGE_REMOTE) ?
			   roffset : md->md_offset;
	unsigned int len;

	if (off > md->md_length)
		return false;
	len = (md->md_options & LNET_MD_MAX_SIZE) ? md->md_max_size :
	      md->md_length - off;
	if (rlength <= len)
		len = rlength;
	else if (!(md->md_options & LNET_MD_TRUNCATE))
		return false;
	*offset = off;
	*mlength = len;
	md->md_offset = off + len;
	if (md->md_threshold != LNET_MD_THRESH_INF)
		md->md_threshold--;
	if (dbl_md_exhausted(md)) {
		dbl_me_unlink(md);
		if (dbl_log_on)
			dbl_logf("lnet_md_unlink ev=%llu md=%#llx offset=%u length=%u max_size=%u threshold=%d\n",
				 ++dbl_event_seq, md->md_lh.lh_cookie,
				 md->md_offset, md->md_length,
				 md->md_max_size, md->md_threshold);
	}
	return true;
}

/* ---- the hooked functions ------------------------------------------------- */

/*
 * Hand a committed message to the NI's LND, exactly as LNet's
 * lnet_ni_send() does; an immediate failure finalizes the message.
 */
noinline void lnet_ni_send(struct lnet_ni *ni, struct lnet_msg *msg)
{
	size_t n = 0;
	int rc;

	if (msg->msg_len && dbl_log_on)
		n = dbl_kiov_read(msg->msg_kiov, msg->msg_niov,
				  msg->msg_offset, dbl_snap,
				  min_t(size_t, msg->msg_len, DBL_LOG_SNAP));
	dbl_log_event("lnet_ni_send", msg, ni, &msg->msg_hdr, false, 0,
		      dbl_snap, n, msg->msg_len);

	rc = ni->ni_net->net_lnd->lnd_send(ni, msg->msg_private, msg);
	if (rc < 0) {
		msg->msg_no_resend = true;
		lnet_finalize(msg, rc);
	}
}
EXPORT_SYMBOL(lnet_ni_send);

/*
 * LNet takes a message to send, as lnet_send() does: here it may wait for
 * credits or a delay rule (hold_ms, slept: the time LNet holds it before
 * the LND) or be dropped before the LND, as lnet_post_send_locked() drops
 * a message for a peer that is not alive: finalized with the error and
 * its health status, never handed to lnet_ni_send.
 */
noinline int lnet_send(struct lnet_nid *src_nid, struct lnet_msg *msg,
		       struct lnet_nid *rtr_nid)
{
	struct dbl_msg *dm = container_of(msg, struct dbl_msg, msg);
	unsigned int hold = dm->hold_ms;
	int rc = dm->drop_rc;

	if (dbl_log_on)
		dbl_logf("lnet_send ev=%llu msg=%u retry=%d hold_ms=%u drop=%d\n",
			 ++dbl_event_seq, dm->id, msg->msg_retry_count, hold, rc);
	dm->hold_ms = 0;
	dm->drop_rc = 0;
	/* Held by the clock lnetcap measures with (CLOCK_MONOTONIC): under
	 * TCG jiffies run uneven, and msleep() can wake early by it. */
	if (hold) {
		ktime_t end = ktime_add_ms(ktime_get(), hold);

		while (ktime_before(ktime_get(), end))
			usleep_range(500, 1000);
	}
	if (rc) {
		msg->msg_health_status = dm->drop_hs;
		msg->msg_no_resend = true;
		lnet_finalize(msg, rc);
		return 0;
	}
	lnet_ni_send(msg->msg_txni, msg);
	return 0;
}
EXPORT_SYMBOL(lnet_send);

/* An LNet drop rule (lctl net_drop_add), armed by the "drop_rule"
 * scenario for the next message lnet_parse checks. */
static bool dbl_drop_rule_armed;

noinline bool lnet_drop_rule_match(struct lnet_hdr *hdr,
				   struct lnet_nid *local_nid,
				   enum lnet_msg_hstatus *hstatus)
{
	bool drop = dbl_drop_rule_armed;

	dbl_drop_rule_armed = false;
	return drop;
}
EXPORT_SYMBOL(lnet_drop_rule_match);

noinline void lnet_drop_message(struct lnet_ni *ni, int cpt, void *private,
				unsigned int nob, __u32 msg_type)
{
	char nistr[48] = "-";

	if (!dbl_log_on)
		return;
	if (ni)
		dbl_nidstr(&ni->ni_nid, nistr, sizeof(nistr));
	dbl_logf("lnet_drop_message ev=%llu dir=drop type=%u ni=%s cpt=%d nob=%u\n",
		 ++dbl_event_seq, msg_type, nistr, cpt, nob);
}
EXPORT_SYMBOL(lnet_drop_message);

/*
 * Send a REPLY or ACK built in the same lnet_msg, as lnet_parse_get()
 * and lnet_complete_msg_locked() do.
 */
static void dbl_send_response(struct lnet_msg *msg, struct lnet_ni *ni)
{
	/* LNet decommits the receive before committing the send. */
	msg->msg_receiving = 0;
	msg->msg_rx_committed = 0;
	msg->msg_sending = 1;
	msg->msg_tx_committed = 1;
	msg->msg_txni = ni;
	msg->msg_txpeer = msg->msg_rxpeer;
	msg->msg_hdr.src_nid = ni->ni_nid;
	msg->msg_hdr.src_pid = DBL_PID;
	lnet_send(&ni->ni_nid, msg, NULL);
}

/*
 * Completion.  Mirrors what LNet decides in lnet_finalize() and
 * lnet_complete_msg_locked(): resend on a health failure, send the ACK a
 * received PUT asked for, forward a routed message once it is received.
 */
/*
 * The status LNet reports for msg (lnet_msg_detach_md): a message that
 * completed on an MD unlinked under it, with an event handler, is
 * -ETIMEDOUT and not counted as sent or received.
 */
static int dbl_event_status(const struct lnet_msg *msg, int rc)
{
	const struct lnet_libmd *md = msg->msg_md;

	if (rc == 0 && md && (md->md_flags & LNET_MD_FLAG_ABORTED) &&
	    md->md_handler)
		return -ETIMEDOUT;
	return rc;
}

/*
 * LNet lowers a peer NI's health (lnet_handle_remote_failure_locked, the
 * function lnetcap hooks): after a send's remote failure ("health") or,
 * from the monitor thread, when no response came ("response_timeout").
 */
noinline void lnet_handle_remote_failure_locked(struct lnet_peer_ni *lpni)
{
	atomic_dec_if_positive(&lpni->lpni_healthv);
}
EXPORT_SYMBOL(lnet_handle_remote_failure_locked);

static void dbl_remote_failure(struct lnet_peer_ni *lpni, const char *cause)
{
	char peerstr[48];

	if (dbl_log_on) {
		dbl_nidstr(&lpni->lpni_nid, peerstr, sizeof(peerstr));
		dbl_logf("lnet_handle_remote_failure_locked ev=%llu peer=%s cause=%s task=%s\n",
			 ++dbl_event_seq, peerstr, cause, current->comm);
	}
	lnet_handle_remote_failure_locked(lpni);
}

/* The statuses lnet_health_check() resends on. */
static bool dbl_resendable(int hs)
{
	return (hs >= LNET_MSG_STATUS_LOCAL_INTERRUPT &&
		hs <= LNET_MSG_STATUS_LOCAL_TIMEOUT &&
		hs != LNET_MSG_STATUS_LOCAL_ERROR) ||
	       hs == LNET_MSG_STATUS_REMOTE_DROPPED;
}

/*
 * lnet_msg_commit(): committed for receiving (lnet_parse) or sending.
 * The double's senders set the send commit themselves.
 */
noinline void lnet_msg_commit(struct lnet_msg *msg, int cpt)
{
	if (msg->msg_sending)
		msg->msg_tx_committed = 1;
	else
		msg->msg_rx_committed = 1;
}
EXPORT_SYMBOL(lnet_msg_commit);

noinline void lnet_finalize(struct lnet_msg *msg, int rc)
{
	struct dbl_msg *dm = container_of(msg, struct dbl_msg, msg);
	bool rx = msg->msg_receiving;
	size_t n = 0;

	msg->msg_t_end = ktime_get();
	if (rx && rc == 0 && dbl_log_on)
		n = dbl_kiov_read(msg->msg_kiov, msg->msg_niov,
				  msg->msg_offset, dbl_snap,
				  min_t(size_t, msg->msg_wanted, DBL_LOG_SNAP));
	/* Logged with the status LNet reports; health decides on rc. */
	dbl_log_event("lnet_finalize", msg,
		      rx ? msg->msg_rxni : msg->msg_txni, &msg->msg_hdr, rx,
		      dbl_event_status(msg, rc), dbl_snap, n,
		      rx ? msg->msg_wanted : msg->msg_len);

	if (msg->msg_sending) {
		int hs = msg->msg_health_status;

		/* lnet_health_check(): a remote failure lowers the peer NI's
		 * health first. */
		if (rc && hs >= LNET_MSG_STATUS_REMOTE_ERROR && msg->msg_txpeer)
			dbl_remote_failure(msg->msg_txpeer, "health");
		if (rc && dbl_resendable(hs) && !msg->msg_no_resend &&
		    msg->msg_retry_count < DBL_RETRY_LIMIT) {
			/*
			 * lnet_resend_msg_locked(): the same message, sent
			 * again on another NI of the net.  Its health status
			 * stays until the LND completes the new attempt.
			 */
			struct lnet_ni *ni = dbl_other_ni(msg->msg_txni);

			msg->msg_retry_count++;
			msg->msg_txni = ni;
			msg->msg_hdr.src_nid = ni->ni_nid;
			lnet_send(&ni->ni_nid, msg, NULL);
			return;
		}
		goto out;
	}
	if (rx) {
		if (rc == 0 && msg->msg_routing) {
			struct lnet_ni *tx = dbl_route(&msg->msg_hdr.dest_nid);

			msg->msg_receiving = 0;
			msg->msg_sending = 1;
			msg->msg_tx_committed = 1;
			msg->msg_txni = tx;
			msg->msg_txpeer = dbl_peer(&msg->msg_hdr.dest_nid);
			lnet_send(NULL, msg, NULL);
			return;
		}
		if (rc == 0 && msg->msg_ack) {
			struct lnet_hdr *h = &msg->msg_hdr;
			struct lnet_handle_wire wmd = h->msg.put.ack_wmd;
			u64 mbits = h->msg.put.match_bits;
			struct lnet_nid peer = h->src_nid;
			u32 pid = h->src_pid;

			msg->msg_ack = 0;
			memset(&h->msg, 0, sizeof(h->msg));
			h->dest_nid = peer;
			h->dest_pid = pid;
			h->type = LNET_MSG_ACK;
			h->payload_length = 0;
			h->msg.ack.dst_wmd = wmd;
			h->msg.ack.match_bits = mbits;
			h->msg.ack.mlength = msg->msg_wanted;
			msg->msg_type = LNET_MSG_ACK;
			msg->msg_len = 0;
			msg->msg_niov = 0;
			msg->msg_kiov = NULL;
			msg->msg_md = NULL;
			dbl_send_response(msg, msg->msg_rxni);
			return;
		}
	}
out:
	dbl_msg_free(dm);
}
EXPORT_SYMBOL(lnet_finalize);

/* lnet_parse refused a header before making a message of it. */
static void dbl_log_refused(const char *why, int rc, u32 type,
			    struct lnet_ni *ni, const struct lnet_hdr *hdr)
{
	char nistr[48] = "-";

	dbl_nidstr(&ni->ni_nid, nistr, sizeof(nistr));
	dbl_logf("lnet_parse_refused ev=%llu why=%s rc=%d type=%u ni=%s hdr=",
		 ++dbl_event_seq, why, rc, type, nistr);
	dbl_loghex(hdr, sizeof(*hdr));
	dbl_logf("\n");
}

/*
 * A header arrived: match it, and let the LND receive the payload into
 * the matched MD (or a router buffer).  Payload is not there yet when this
 * is called, as in LNet.
 */
/* How long the next forwarded message waits for a router buffer. */
static unsigned int dbl_next_rtr_wait_ms;

noinline int lnet_parse(struct lnet_ni *ni, struct lnet_hdr *hdr,
			struct lnet_nid *from_nid, void *private, int rdma_req)
{
	struct dbl_msg *dm;
	struct lnet_msg *msg;
	struct lnet_libmd *md = NULL;
	u32 type = hdr->type;
	u32 plen = hdr->payload_length;
	unsigned int offset = 0, mlength = 0;
	int i;

	/* As LNet: a GET or ACK carries no payload, or it is a protocol
	 * error (the LND closes the connection; nothing is dropped). */
	if ((type == LNET_MSG_GET || type == LNET_MSG_ACK) && plen > 0) {
		dbl_log_refused("proto", -EPROTO, type, ni, hdr);
		return -EPROTO;
	}
	/* Drop rules act before a message exists (lctl net_drop_add); LNet
	 * asks only while a rule exists (ln_drop_rules not empty). */
	if (dbl_drop_rule_armed && lnet_drop_rule_match(hdr, &ni->ni_nid, NULL)) {
		dbl_log_refused("rule", 0, type, ni, hdr);
		goto drop;
	}

	dm = dbl_msg_alloc();
	if (!dm)
		goto drop;
	msg = &dm->msg;
	msg->msg_hdr = *hdr;
	msg->msg_type = type;
	msg->msg_from = *from_nid;
	msg->msg_initiator = hdr->src_nid;
	msg->msg_target.nid = hdr->dest_nid;
	msg->msg_target.pid = hdr->dest_pid;
	msg->msg_rxni = ni;
	msg->msg_rxpeer = dbl_peer(from_nid);
	msg->msg_private = private;
	msg->msg_receiving = 1;
	msg->msg_len = plen;
	msg->msg_wanted = plen;
	dm->wire = private;
	/* Not for us: forwarded, as LNet decides before the commit. */
	msg->msg_routing = !dbl_local_ni(&hdr->dest_nid);
	lnet_msg_commit(msg, 0);

	if (msg->msg_routing) {
		/*
		 * A router receives it into a router buffer, once it has
		 * one and router credits (lnet_post_routed_recv_locked:
		 * msg_rx_delayed until then).
		 */
		if (dbl_next_rtr_wait_ms) {
			unsigned int wait = dbl_next_rtr_wait_ms;
			ktime_t end = ktime_add_ms(ktime_get(), wait);

			dbl_next_rtr_wait_ms = 0;
			if (dbl_log_on)
				dbl_logf("rtr_buffer_wait ev=%llu msg=%u wait_ms=%u\n",
					 ++dbl_event_seq, dm->id, wait);
			msg->msg_rx_delayed = 1;
			while (ktime_before(ktime_get(), end))
				usleep_range(500, 1000);
		}
		msg->msg_rtrcredit = 1;
		for (i = 0; i < DBL_BULK_PAGES; i++) {
			dm->rtr_pages[i] = alloc_page(GFP_KERNEL);
			if (!dm->rtr_pages[i])
				goto free_drop;
			dm->rtr_kiov[i].bv_page = dm->rtr_pages[i];
			dm->rtr_kiov[i].bv_len = PAGE_SIZE;
		}
		msg->msg_kiov = dm->rtr_kiov;
		msg->msg_niov = DIV_ROUND_UP(plen, PAGE_SIZE);
		if (plen > DBL_BULK_LEN)
			goto free_drop;
		dbl_log_event("lnet_parse", msg, ni, hdr, true, 0, private,
			      plen, plen);
		ni->ni_net->net_lnd->lnd_recv(ni, private, msg, 0,
					      msg->msg_niov, msg->msg_kiov, 0,
					      plen, plen);
		return 0;
	}

	dbl_log_event("lnet_parse", msg, ni, hdr, true, 0, private, plen,
		      plen);

	switch (type) {
	case LNET_MSG_PUT:
		md = dbl_me_match(hdr->msg.put.ptl_index,
				  hdr->msg.put.match_bits);
		if (md && !dbl_md_take_put(md, hdr->msg.put.offset, plen,
					   &offset, &mlength))
			md = NULL;	/* too long for it: dropped */
		if (!md)
			break;
		msg->msg_ack = hdr->msg.put.ack_wmd.wh_object_cookie !=
			       DBL_WIRE_COOKIE_NONE &&
			       !(md->md_options & LNET_MD_ACK_DISABLE);
		break;
	case LNET_MSG_GET:
		md = dbl_me_match(hdr->msg.get.ptl_index,
				  hdr->msg.get.match_bits);
		if (md)
			offset = hdr->msg.get.src_offset;
		break;
	case LNET_MSG_REPLY:
	case LNET_MSG_ACK:
		/* matched by wire handle: the one MD the scenario posted */
		md = dbl_me_match(0, hdr->msg.reply.dst_wmd.wh_object_cookie);
		break;
	}
	if (!md && type != LNET_MSG_ACK)
		goto free_drop;

	if (md) {
		unsigned int room = md->md_length - offset;

		msg->msg_md = md;
		msg->msg_offset = offset;
		msg->msg_kiov = md->md_kiov;
		msg->msg_niov = md->md_niov;
		msg->msg_ev.md_start = md->md_start;
		msg->msg_ev.offset = offset;
		msg->msg_ev.type = type == LNET_MSG_PUT ? LNET_EVENT_PUT :
				   type == LNET_MSG_GET ? LNET_EVENT_GET :
				   LNET_EVENT_REPLY;
		if (type == LNET_MSG_GET) {
			u32 want = min(hdr->msg.get.sink_length, room);
			struct lnet_handle_wire ret = hdr->msg.get.return_wmd;
			u64 mbits = hdr->msg.get.match_bits;
			struct lnet_hdr *h = &msg->msg_hdr;

			/*
			 * lnet_parse_get(): no payload to receive; the
			 * same message becomes the REPLY.
			 */
			dbl_me_unlink(md);
			ni->ni_net->net_lnd->lnd_recv(ni, private, NULL, 0, 0,
						      NULL, 0, 0, 0);
			if (rdma_req) {
				/*
				 * lnet_parse_get(..., rdma_get): lnet_prep_send
				 * clears the header (src_nid stays 0: only
				 * lnet_send would set it) and the LND's
				 * receive path sends the REPLY by RDMA.
				 */
				struct lnet_nid src = hdr->src_nid;
				u32 src_pid = hdr->src_pid;

				memset(h, 0, sizeof(*h));
				h->dest_nid = src;
				h->dest_pid = src_pid;
				h->src_pid = DBL_PID;
				h->type = LNET_MSG_REPLY;
				h->payload_length = want;
				h->msg.reply.dst_wmd = ret;
				msg->msg_type = LNET_MSG_REPLY;
				msg->msg_len = want;
				msg->msg_wanted = want;
				msg->msg_ev.match_bits = mbits;
				dm->rdma_reply = true;
				ni->ni_net->net_lnd->lnd_recv(ni, private, msg,
							      0, msg->msg_niov,
							      msg->msg_kiov,
							      msg->msg_offset,
							      want, want);
				return 0;
			}
			memset(&h->msg, 0, sizeof(h->msg));
			h->dest_nid = hdr->src_nid;
			h->dest_pid = hdr->src_pid;
			h->type = LNET_MSG_REPLY;
			h->payload_length = want;
			h->msg.reply.dst_wmd = ret;
			msg->msg_type = LNET_MSG_REPLY;
			msg->msg_len = want;
			msg->msg_wanted = want;
			msg->msg_ev.match_bits = mbits;
			dbl_send_response(msg, ni);
			return 0;
		}
		if (type == LNET_MSG_PUT) {
			msg->msg_wanted = mlength;	/* unlinked if exhausted */
		} else {
			msg->msg_wanted = min(plen, room);
			dbl_me_unlink(md);
		}
		msg->msg_ev.mlength = msg->msg_wanted;
		msg->msg_ev.rlength = plen;
	}
	ni->ni_net->net_lnd->lnd_recv(ni, private, msg, 0, msg->msg_niov,
				      msg->msg_kiov, msg->msg_offset,
				      msg->msg_wanted, plen);
	return 0;

free_drop:
	lnet_finalize(&dm->msg, -ENOENT);
drop:
	lnet_drop_message(ni, 0, private, plen, type);
	return 0;
}
EXPORT_SYMBOL(lnet_parse);

/* ---- the LND of the double -------------------------------------------------- */

/* "Transmit": completes at once, or fails once if the scenario says so. */
static int dbl_lnd_send(struct lnet_ni *ni, void *private,
			struct lnet_msg *msg)
{
	struct dbl_msg *dm = container_of(msg, struct dbl_msg, msg);

	/* ksocknal_send when ksocknal_launch_packet fails: -EIO, the
	 * message untouched (its tx_hstatus still OK), for the caller to
	 * finalize. */
	if (dm->lnd_refuse_rc)
		return dm->lnd_refuse_rc;
	if (dm->inject_rc) {
		int rc = dm->inject_rc;

		dm->inject_rc = 0;
		msg->msg_health_status = dm->inject_hs;
		lnet_finalize(msg, rc);
		return 0;
	}
	/* As socklnd/o2iblnd: the attempt's health, set on completion. */
	msg->msg_health_status = LNET_MSG_STATUS_OK;
	lnet_finalize(msg, 0);
	return 0;
}

/*
 * The loopback LND as lolnd_send() is: the message is handed straight to
 * lnet_parse() on the same NI, in the sending thread, with the sender's
 * payload as the "wire", then the send completes.  Only lnetcap's
 * self-check ping (/dev/lnet, below) sends on 0@lo.
 */
static int dbl_lo_send(struct lnet_ni *ni, void *private,
		       struct lnet_msg *msg)
{
	void *wire = NULL;

	if (msg->msg_len) {
		wire = kmalloc(msg->msg_len, GFP_KERNEL);
		if (!wire)
			return -ENOMEM;
		dbl_kiov_read(msg->msg_kiov, msg->msg_niov, msg->msg_offset,
			      wire, msg->msg_len);
	}
	msg->msg_health_status = LNET_MSG_STATUS_OK;
	lnet_parse(ni, &msg->msg_hdr, &ni->ni_nid, wire, 0);
	kfree(wire);
	lnet_finalize(msg, 0);
	return 0;
}

/* "Receive": copy the payload from the wire buffer into the MD pages. */
static int dbl_lnd_recv(struct lnet_ni *ni, void *private,
			struct lnet_msg *msg, int delayed, unsigned int niov,
			struct bio_vec *kiov, unsigned int offset,
			unsigned int mlen, unsigned int rlen)
{
	const char *src = private;
	unsigned int i, done = 0;

	if (!msg)
		return 0;	/* GET: nothing follows the header */
	/* As socklnd with LNET_MD_DISCARD: the bytes are dropped, not copied. */
	if (msg->msg_md && (msg->msg_md->md_options & LNET_MD_DISCARD))
		mlen = 0;
	for (i = 0; i < niov && done < mlen; i++) {
		unsigned int bl = kiov[i].bv_len, n;
		char *va;

		if (offset >= bl) {
			offset -= bl;
			continue;
		}
		n = min(bl - offset, mlen - done);
		va = kmap_local_page(kiov[i].bv_page);
		memcpy(va + kiov[i].bv_offset + offset, src + done, n);
		kunmap_local(va);
		done += n;
		offset = 0;
	}
	lnet_finalize(msg, 0);
	return 0;
}

/* ---- the RDMA LND (o2ib NI) ------------------------------------------------ */

/*
 * lnet_create_reply_msg() as LNet has it: a message for the LND to finalize
 * once the peer has written the GET's sink, flagged by type GET, with a
 * header that is zero but for the source NID and the MD's length, the GET's
 * MD attached (no page vector of its own, no receiving NI), committed for
 * receiving.
 */
noinline struct lnet_msg *lnet_create_reply_msg(struct lnet_ni *ni,
						struct lnet_msg *getmsg)
{
	struct lnet_libmd *getmd = getmsg->msg_md;
	struct dbl_msg *dm = dbl_msg_alloc();
	struct lnet_msg *msg;

	if (!dm)
		return NULL;
	msg = &dm->msg;
	msg->msg_initiator = getmsg->msg_target.nid;
	msg->msg_from = getmsg->msg_target.nid;
	msg->msg_type = LNET_MSG_GET;
	msg->msg_hdr.src_nid = getmsg->msg_target.nid;
	msg->msg_hdr.payload_length = getmd->md_length;
	msg->msg_receiving = 1;
	msg->msg_md = getmd;
	msg->msg_offset = 0;
	msg->msg_wanted = getmd->md_length;
	msg->msg_rx_committed = 1;
	msg->msg_ev.type = LNET_EVENT_REPLY;
	msg->msg_ev.mlength = getmd->md_length;
	return msg;
}
EXPORT_SYMBOL(lnet_create_reply_msg);

noinline void lnet_set_reply_msg_len(struct lnet_ni *ni,
				     struct lnet_msg *reply, unsigned int len)
{
	reply->msg_ev.mlength = len;
}
EXPORT_SYMBOL(lnet_set_reply_msg_len);

/*
 * Logs the REPLY an RDMA GET carried as the LNet header a socklnd peer
 * would have sent for it, with its payload: "lnd_rdma_reply" (dir=send on
 * the responder, dir=recv on the initiator), what lnetcap must record.
 */
static void dbl_log_rdma_reply(struct lnet_msg *msg, struct lnet_ni *ni,
			       const struct lnet_hdr *hdr, bool rx,
			       const struct bio_vec *kiov, unsigned int niov,
			       unsigned int offset, unsigned int len)
{
	size_t n = 0;

	if (!dbl_log_on)
		return;
	if (len)
		n = dbl_kiov_read(kiov, niov, offset, dbl_snap,
				  min_t(size_t, len, DBL_LOG_SNAP));
	dbl_log_event("lnd_rdma_reply", msg, ni, hdr, rx, 0, dbl_snap, n, len);
}

/*
 * Send: a GET (not routed) whose sink is more than an immediate message
 * holds goes out as GET_REQ; the peer RDMA-writes the sink (the scenario's
 * wire buffer) and answers GET_DONE with the length it wrote.
 */
static int dbl_ib_send(struct lnet_ni *ni, void *private,
		       struct lnet_msg *msg)
{
	struct dbl_msg *dm = container_of(msg, struct dbl_msg, msg);
	struct lnet_libmd *md = msg->msg_md;
	struct lnet_msg *reply;
	struct lnet_hdr rh;
	unsigned int i, done = 0, len;

	if (msg->msg_type != LNET_MSG_GET || msg->msg_routing || !md ||
	    !dm->wire)
		return dbl_lnd_send(ni, private, msg);
	reply = lnet_create_reply_msg(ni, msg);
	if (!reply)
		return -EIO;
	len = min_t(unsigned int, md->md_length, dm->wire_len);
	for (i = 0; i < md->md_niov && done < len; i++) {
		unsigned int n = min(md->md_kiov[i].bv_len, len - done);
		char *va = kmap_local_page(md->md_kiov[i].bv_page);

		memcpy(va + md->md_kiov[i].bv_offset,
		       (const char *)dm->wire + done, n);
		kunmap_local(va);
		done += n;
	}
	lnet_set_reply_msg_len(ni, reply, len);
	/* The REPLY the peer would have sent in a message. */
	memset(&rh, 0, sizeof(rh));
	rh.dest_nid = msg->msg_hdr.src_nid;
	rh.src_nid = msg->msg_hdr.dest_nid;
	rh.dest_pid = msg->msg_hdr.src_pid;
	rh.src_pid = msg->msg_hdr.dest_pid;
	rh.type = LNET_MSG_REPLY;
	rh.payload_length = len;
	rh.msg.reply.dst_wmd = msg->msg_hdr.msg.get.return_wmd;
	dbl_log_rdma_reply(reply, ni, &rh, true, md->md_kiov, md->md_niov, 0,
			   len);
	/* GET_DONE: o2iblnd finalizes the GET, then its reply. */
	lnet_finalize(msg, 0);
	lnet_finalize(reply, 0);
	return 0;
}

/* Receive: the REPLY of an RDMA GET is written to the peer's sink and
 * finalized; anything else as the plain LND. */
static int dbl_ib_recv(struct lnet_ni *ni, void *private,
		       struct lnet_msg *msg, int delayed, unsigned int niov,
		       struct bio_vec *kiov, unsigned int offset,
		       unsigned int mlen, unsigned int rlen)
{
	struct lnet_hdr rh;

	if (!msg || !container_of(msg, struct dbl_msg, msg)->rdma_reply)
		return dbl_lnd_recv(ni, private, msg, delayed, niov, kiov,
				    offset, mlen, rlen);
	rh = msg->msg_hdr;
	rh.src_nid = ni->ni_nid;	/* as lnet_send would have set it */
	dbl_log_rdma_reply(msg, ni, &rh, false, kiov, niov, offset, mlen);
	lnet_finalize(msg, 0);
	return 0;
}

/* ---- scenario builders ------------------------------------------------------ */

/*
 * The TCP NI and the OSS the client scenarios use: 192.168.1.10@tcp and
 * 192.168.1.20@tcp, or, while "ipv6" runs them, fd00:77::10@tcp1 and
 * fd00:77::20@tcp1.
 */
static int dbl_tcp_idx = DBL_NI_TCP, dbl_oss_idx = DBL_PEER_OSS;

static struct lnet_ni *dbl_tcp_ni(void)
{
	return &dbl_nis[dbl_tcp_idx];
}

static struct lnet_peer_ni *dbl_oss(void)
{
	return &dbl_peers[dbl_oss_idx];
}

static u64 dbl_xid = 0x65f1a0c000000ULL;
static u64 dbl_cookie = 0x3b7d5c9e11000ULL;

static void dbl_hdr(struct lnet_hdr *h, const struct lnet_nid *dst,
		    const struct lnet_nid *src, u32 type, u32 plen)
{
	memset(h, 0, sizeof(*h));
	h->dest_nid = *dst;
	h->src_nid = *src;
	h->dest_pid = DBL_PID;
	h->src_pid = DBL_PID;
	h->type = type;
	h->payload_length = plen;
}

/* The header of a PtlRPC PUT (request or reply): ptlrpc never wants an ACK. */
static void dbl_rpc_put_hdr(struct lnet_hdr *h, const struct lnet_nid *dst,
			    const struct lnet_nid *src, u32 plen, u32 portal,
			    u64 xid, u32 offset)
{
	dbl_hdr(h, dst, src, LNET_MSG_PUT, plen);
	h->msg.put.ack_wmd.wh_interface_cookie = DBL_WIRE_COOKIE_NONE;
	h->msg.put.ack_wmd.wh_object_cookie = DBL_WIRE_COOKIE_NONE;
	h->msg.put.match_bits = xid;
	h->msg.put.ptl_index = portal;
	h->msg.put.offset = offset;
}

/*
 * A lustre_msg_v2 with a ptlrpc_body v3 and optionally one more buffer.
 * Returns its length; @buf must hold it.
 */
static unsigned int dbl_lustre_msg(void *buf, u32 type, u32 opc, u32 version,
				   u64 xid, const void *buf2, u32 len2)
{
	struct lnetcap_lustre_msg_v2 *lm = buf;
	u32 bufcount = len2 ? 2 : 1;
	u32 *buflens = (u32 *)(lm + 1);
	unsigned int off = LNETCAP_LUSTRE_MSG_HDR_SIZE(bufcount);
	struct lnetcap_ptlrpc_body *pb = (void *)((char *)buf + off);
	unsigned int total = off + LNETCAP_PTLRPC_BODY_V3_LEN +
			     (len2 ? LNETCAP_LUSTRE_MSG_ROUND8(len2) : 0);

	memset(buf, 0, total);
	lm->lm_bufcount = bufcount;
	lm->lm_secflvr = 0;		/* SPTLRPC_FLVR_NULL */
	lm->lm_magic = LNETCAP_LUSTRE_MSG_MAGIC_V2;
	lm->lm_repsize = type == LNETCAP_PTL_RPC_MSG_REQUEST ? 1024 : 0;
	lm->lm_flags = LNETCAP_MSGHDR_AT_SUPPORT;
	buflens[0] = LNETCAP_PTLRPC_BODY_V3_LEN;
	if (len2)
		buflens[1] = len2;

	pb->pb_handle = 0x9a5c2e4f1d3b7a01ULL;	/* import connection cookie */
	pb->pb_type = type;
	pb->pb_version = version | LNETCAP_PTLRPC_MSG_VERSION;
	pb->pb_opc = opc;
	pb->pb_last_xid = xid - 1;
	pb->pb_last_committed = 0x100000a2cULL;
	pb->pb_conn_cnt = 1;
	pb->pb_timeout = type == LNETCAP_PTL_RPC_MSG_REQUEST ? 5 : 0;
	pb->pb_service_time = type == LNETCAP_PTL_RPC_MSG_REPLY ? 1 : 0;
	pb->pb_mbits = xid;
	pb->pb_uid = 0;
	pb->pb_gid = 0;
	strscpy(pb->pb_jobid, "dd.0", sizeof(pb->pb_jobid));
	if (len2)
		memcpy((char *)pb + LNETCAP_PTLRPC_BODY_V3_LEN, buf2, len2);
	return total;
}

static struct dbl_msg *dbl_tx_msg(struct lnet_ni *ni, struct lnet_peer_ni *peer,
				  u32 type, struct lnet_libmd *md,
				  unsigned int offset, unsigned int len)
{
	struct dbl_msg *dm = dbl_msg_alloc();
	struct lnet_msg *msg;

	if (!dm)
		return NULL;
	msg = &dm->msg;
	msg->msg_type = type;
	msg->msg_target.nid = peer->lpni_nid;
	msg->msg_target.pid = DBL_PID;
	msg->msg_initiator = ni->ni_nid;
	msg->msg_txni = ni;
	msg->msg_txpeer = peer;
	msg->msg_md = md;
	msg->msg_len = len;
	msg->msg_offset = offset;
	if (md && len) {
		msg->msg_kiov = md->md_kiov;
		msg->msg_niov = md->md_niov;
	}
	msg->msg_sending = 1;
	msg->msg_tx_committed = 1;
	msg->msg_txcredit = 1;
	msg->msg_peertxcredit = 1;
	dbl_hdr(&msg->msg_hdr, &peer->lpni_nid, &ni->ni_nid, type, len);
	return dm;
}

/* What lnet_send does with the next request (the "queue" and "send_drop"
 * scenarios set them). */
static unsigned int dbl_next_hold_ms;
static bool dbl_next_aborted;

/* The event handler of an MD whose waiter gave up ("aborted"): LNet only
 * reports -ETIMEDOUT for an MD that has one. */
static noinline void dbl_md_handler(struct lnet_event *ev)
{
}
static int dbl_next_drop_rc, dbl_next_drop_hs;

/* A ptlrpc request: LNetPut(NOACK) of a contiguous buffer, offset 0. */
static int dbl_send_request(u32 portal, u32 opc, u32 version, u64 xid,
			    const void *body2, u32 len2, int inject_rc,
			    int inject_hs, bool no_resend)
{
	struct lnet_ni *ni = dbl_tcp_ni();
	struct lnet_peer_ni *peer = dbl_oss();
	struct lnet_libmd *md;
	struct dbl_msg *dm;
	unsigned int len;
	void *buf;

	buf = kmalloc(1024, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	len = dbl_lustre_msg(buf, LNETCAP_PTL_RPC_MSG_REQUEST, opc, version,
			     xid, body2, len2);
	md = dbl_md_contig(buf, len, 0);
	dm = md ? dbl_tx_msg(ni, peer, LNET_MSG_PUT, md, 0, len) : NULL;
	if (!dm) {
		kfree(md);
		kfree(buf);
		return -ENOMEM;
	}
	dm->msg.msg_hdr.msg.put.ack_wmd.wh_interface_cookie =
		DBL_WIRE_COOKIE_NONE;
	dm->msg.msg_hdr.msg.put.ack_wmd.wh_object_cookie =
		DBL_WIRE_COOKIE_NONE;
	dm->msg.msg_hdr.msg.put.match_bits = xid;
	dm->msg.msg_hdr.msg.put.hdr_data = 0;
	dm->msg.msg_hdr.msg.put.ptl_index = portal;
	dm->msg.msg_hdr.msg.put.offset = 0;
	dm->inject_rc = inject_rc;
	dm->inject_hs = inject_hs;
	dm->msg.msg_no_resend = no_resend;
	if (dbl_next_aborted) {
		md->md_flags |= LNET_MD_FLAG_ABORTED;
		md->md_handler = dbl_md_handler;
		dbl_next_aborted = false;
	}
	dm->hold_ms = dbl_next_hold_ms;
	dm->drop_rc = dbl_next_drop_rc;
	dm->drop_hs = dbl_next_drop_hs;
	dbl_next_hold_ms = 0;
	dbl_next_drop_rc = 0;
	lnet_send(&ni->ni_nid, &dm->msg, NULL);	/* finalized (and freed) inside */
	kfree(md);
	kfree(buf);
	return 0;
}

/*
 * The reply to a request: the server PUTs it into the client's reply
 * buffer at offset 224 (after room for an early reply), on the reply
 * portal, matched by the xid.  The buffer is vmalloc()ed and placed so
 * that the reply straddles two pages that are not neighbours in physical
 * memory: a capture must follow the page vector to read it.
 */
#define DBL_REPBUF_HEAD	400	/* MD bytes in the first page */

static int dbl_recv_reply(u32 portal, u32 opc, u32 version, u64 xid,
			  const void *body2, u32 len2)
{
	struct lnet_ni *ni = dbl_tcp_ni();
	struct lnet_peer_ni *peer = dbl_oss();
	struct lnet_libmd *md;
	struct lnet_hdr hdr;
	void *repbuf, *wire;
	unsigned int len;

	repbuf = vzalloc(2 * PAGE_SIZE);
	wire = kmalloc(1024, GFP_KERNEL);
	md = repbuf ? dbl_md_contig((char *)repbuf + PAGE_SIZE - DBL_REPBUF_HEAD,
				    2048, LNET_MD_OP_PUT |
				    LNET_MD_MANAGE_REMOTE | LNET_MD_TRUNCATE) :
		      NULL;
	if (!md || !wire) {
		kfree(md);
		vfree(repbuf);
		kfree(wire);
		return -ENOMEM;
	}
	len = dbl_lustre_msg(wire, LNETCAP_PTL_RPC_MSG_REPLY, opc, version,
			     xid, body2, len2);
	dbl_me_attach(portal, xid, md);
	dbl_rpc_put_hdr(&hdr, &ni->ni_nid, &peer->lpni_nid, len, portal, xid,
			LNETCAP_LUSTRE_MSG_EARLY_SIZE);
	lnet_parse(ni, &hdr, &peer->lpni_nid, wire, 0);
	dbl_me_unlink(md);
	kfree(md);
	vfree(repbuf);
	kfree(wire);
	return 0;
}

static int dbl_sc_ping_rpc(void)
{
	u64 xid = dbl_xid++;
	int rc;

	rc = dbl_send_request(LNETCAP_PORTAL_OST_REQUEST, LNETCAP_OPC_OBD_PING,
			      0x00010000 /* LUSTRE_OBD_VERSION */, xid, NULL,
			      0, 0, 0, false);
	if (!rc)
		rc = dbl_recv_reply(LNETCAP_PORTAL_OSC_REPLY,
				    LNETCAP_OPC_OBD_PING, 0x00010000, xid,
				    NULL, 0);
	return rc;
}

static int dbl_sc_enqueue(void)
{
	struct {
		struct lnetcap_ldlm_request req;
		u64 handles[LNETCAP_LDLM_LOCKREQ_HANDLES];
	} __packed rq = {};
	struct lnetcap_ldlm_reply rp = {};
	u64 xid = dbl_xid++;
	int rc;

	/* PW extent lock on object 0x2:0x100000400, whole file */
	rq.req.lock_flags = 0;
	rq.req.lock_count = 1;
	rq.req.lock_desc.l_resource.lr_type = 11;	/* LDLM_EXTENT */
	rq.req.lock_desc.l_resource.lr_name.name[0] = 0x2;
	rq.req.lock_desc.l_resource.lr_name.name[1] = 0x100000400ULL;
	rq.req.lock_desc.l_req_mode = 2;		/* LCK_PW */
	rq.req.lock_desc.l_policy_data.l_extent.start = 0;
	rq.req.lock_desc.l_policy_data.l_extent.end = ~0ULL;
	rq.handles[0] = 0x6c0ffee000000001ULL;		/* client lock handle */
	rc = dbl_send_request(LNETCAP_PORTAL_OST_REQUEST,
			      LNETCAP_OPC_LDLM_ENQUEUE,
			      0x00040000 /* LUSTRE_DLM_VERSION */, xid, &rq,
			      sizeof(rq), 0, 0, false);
	if (rc)
		return rc;
	rp.lock_flags = 0;
	rp.lock_desc = rq.req.lock_desc;
	rp.lock_desc.l_granted_mode = 2;
	rp.lock_handle = 0x2b8e11d000000007ULL;	/* server lock handle */
	return dbl_recv_reply(LNETCAP_PORTAL_OSC_REPLY,
			      LNETCAP_OPC_LDLM_ENQUEUE, 0x00040000, xid, &rp,
			      sizeof(rp));
}

static struct page *dbl_bulk_pages[DBL_BULK_PAGES];

static void dbl_fill_bulk(void *wire, u64 seed)
{
	u64 *p = wire;
	unsigned int i;

	for (i = 0; i < DBL_BULK_LEN / sizeof(u64); i++)
		p[i] = seed + i * 0x0101010101010101ULL;
}

/*
 * OST_WRITE bulk as seen from the client: the OSS GETs the data from the
 * client's KIOV MD on OST_BULK; the client LNet answers with a REPLY
 * carrying the pages.  rdma_req: the GET arrived as an RDMA LND's GET_REQ
 * (lnet_parse with rdma_req set), so the REPLY completes from the receive
 * path, as on o2iblnd.  fill marks each scenario's pages.
 */
static int dbl_serve_bulk_get(struct lnet_ni *ni, struct lnet_peer_ni *peer, u8 fill, int rdma_req)
{
	u64 mbits = dbl_xid++;
	struct lnet_libmd *md;
	struct lnet_hdr hdr;
	int i;

	for (i = 0; i < DBL_BULK_PAGES; i++) {
		void *va = kmap_local_page(dbl_bulk_pages[i]);

		memset(va, fill + i, PAGE_SIZE);
		*(u64 *)va = mbits + i;	/* makes every run's data unique */
		kunmap_local(va);
	}
	md = dbl_md_kiov(dbl_bulk_pages, DBL_BULK_PAGES, LNET_MD_OP_GET);
	if (!md)
		return -ENOMEM;
	dbl_me_attach(LNETCAP_PORTAL_OST_BULK, mbits, md);
	dbl_hdr(&hdr, &ni->ni_nid, &peer->lpni_nid, LNET_MSG_GET, 0);
	hdr.msg.get.return_wmd.wh_interface_cookie = dbl_cookie++;
	hdr.msg.get.return_wmd.wh_object_cookie = dbl_cookie++;
	hdr.msg.get.match_bits = mbits;
	hdr.msg.get.ptl_index = LNETCAP_PORTAL_OST_BULK;
	hdr.msg.get.src_offset = 0;
	hdr.msg.get.sink_length = DBL_BULK_LEN;
	lnet_parse(ni, &hdr, &peer->lpni_nid, NULL, rdma_req);
	dbl_me_unlink(md);
	kfree(md);
	return 0;
}

static int dbl_sc_bulk_get(void)
{
	return dbl_serve_bulk_get(dbl_tcp_ni(), dbl_oss(), 0xa0, 0);
}

/*
 * OST_READ bulk: the OSS PUTs the data into the client's KIOV MD on
 * OST_BULK and asks for an ACK, which the client LNet sends.
 */
static int dbl_sc_bulk_put(void);

/* Both bulk directions on GPU memory (LNET_MD_GPU_ADDR, 2.16+): the
 * REPLY sent from it and the PUT landing in it. */
static int dbl_sc_gpu(void)
{
	int rc;

	dbl_bulk_md_options = LNET_MD_GPU_ADDR;
	rc = dbl_serve_bulk_get(dbl_tcp_ni(), dbl_oss(), 0xb0, 0);
	if (!rc)
		rc = dbl_sc_bulk_put();
	dbl_bulk_md_options = 0;
	return rc;
}

/* A PUT into an MD that may discard what arrives (LNET_MD_DISCARD, as
 * lnet_selftest's check=discard posts its sinks on master). */
static int dbl_sc_discard(void)
{
	int rc;

	dbl_bulk_md_options = LNET_MD_DISCARD;
	rc = dbl_sc_bulk_put();
	dbl_bulk_md_options = 0;
	return rc;
}

static int dbl_sc_bulk_put(void)
{
	struct lnet_ni *ni = dbl_tcp_ni();
	struct lnet_peer_ni *peer = dbl_oss();
	u64 mbits = dbl_xid++;
	struct lnet_libmd *md;
	struct lnet_hdr hdr;
	void *wire;

	wire = kmalloc(DBL_BULK_LEN, GFP_KERNEL);
	md = dbl_md_kiov(dbl_bulk_pages, DBL_BULK_PAGES, LNET_MD_OP_PUT);
	if (!wire || !md) {
		kfree(wire);
		kfree(md);
		return -ENOMEM;
	}
	dbl_fill_bulk(wire, mbits);
	dbl_me_attach(LNETCAP_PORTAL_OST_BULK, mbits, md);
	dbl_hdr(&hdr, &ni->ni_nid, &peer->lpni_nid, LNET_MSG_PUT,
		DBL_BULK_LEN);
	hdr.msg.put.ack_wmd.wh_interface_cookie = dbl_cookie++;
	hdr.msg.put.ack_wmd.wh_object_cookie = dbl_cookie++;
	hdr.msg.put.match_bits = mbits;
	hdr.msg.put.hdr_data = 0;
	hdr.msg.put.ptl_index = LNETCAP_PORTAL_OST_BULK;
	hdr.msg.put.offset = 0;
	lnet_parse(ni, &hdr, &peer->lpni_nid, wire, 0);
	dbl_me_unlink(md);
	kfree(md);
	kfree(wire);
	return 0;
}

/*
 * OST_WRITE bulk over an RDMA LND, as the OSS: GET the client's pages
 * (o2ib NI); the client RDMA-writes them into our sink MD, no REPLY
 * message crosses the wire (dbl_ib_send).
 */
static int dbl_sc_rdma_get(void)
{
	struct lnet_ni *ni = &dbl_nis[DBL_NI_O2IB];
	struct lnet_peer_ni *peer = &dbl_peers[DBL_PEER_IBCLIENT];
	u64 mbits = dbl_xid++;
	struct lnet_libmd *md;
	struct dbl_msg *dm;
	struct lnet_hdr *h;
	void *wire;

	wire = kmalloc(DBL_BULK_LEN, GFP_KERNEL);
	md = dbl_md_kiov(dbl_bulk_pages, DBL_BULK_PAGES, LNET_MD_OP_PUT);
	dm = md ? dbl_tx_msg(ni, peer, LNET_MSG_GET, md, 0, 0) : NULL;
	if (!wire || !dm) {
		kfree(wire);
		kfree(md);
		if (dm)
			dbl_msg_free(dm);
		return -ENOMEM;
	}
	dbl_fill_bulk(wire, mbits);
	h = &dm->msg.msg_hdr;
	h->msg.get.return_wmd.wh_interface_cookie = dbl_cookie++;
	h->msg.get.return_wmd.wh_object_cookie = md->md_lh.lh_cookie;
	h->msg.get.match_bits = mbits;
	h->msg.get.ptl_index = LNETCAP_PORTAL_OST_BULK;
	h->msg.get.src_offset = 0;
	h->msg.get.sink_length = md->md_length;
	dm->wire = wire;
	dm->wire_len = DBL_BULK_LEN;
	lnet_send(&ni->ni_nid, &dm->msg, NULL);	/* finalized (and freed) inside */
	kfree(md);
	kfree(wire);
	return 0;
}

/*
 * The same as the client: the OSS's GET arrives as an RDMA GET_REQ
 * (lnet_parse with rdma_req) and our pages go back by RDMA.
 */
static int dbl_sc_rdma_serve_get(void)
{
	return dbl_serve_bulk_get(&dbl_nis[DBL_NI_O2IB], &dbl_peers[DBL_PEER_IBCLIENT], 0xc0, 1);
}

/*
 * A multi-use request buffer, as ptlrpc_register_rqbd() posts them on a
 * server (and on a client for LDLM callbacks): one contiguous MD of the
 * service's buffer size on its request portal, LNET_MD_OP_PUT |
 * LNET_MD_MAX_SIZE with max_size the largest request it takes, threshold
 * LNET_MD_THRESH_INF, its ME matching any match bits.  Here the ldlm_canceld
 * service (LDLM_BUFSIZE 8 KiB, LDLM_MAXREQSIZE 5 KiB) receives LDLM_CANCEL
 * requests from 192.168.1.20 that cancel 1 to 30 locks, so each is a
 * different length (lock handles after ldlm_request).  They land one after
 * the other (match at md_offset, dbl_md_take_put) until less than max_size
 * is left: the 8th request ends at offset 3152 > 8192 - 5120 and LNet
 * unlinks the MD.  The buffer is vmalloc()ed and starts 1000 bytes before
 * a page end, so the requests also straddle pages that are not neighbours.
 */
#define DBL_RQBD_SIZE		8192
#define DBL_RQBD_MAX_REQ	5120
#define DBL_RQBD_HEAD		1000	/* MD bytes in the first page */
#define DBL_RQBD_REQS		8	/* requests until it unlinks */

static const u8 dbl_rqbd_cancels[DBL_RQBD_REQS] = { 1, 6, 17, 2, 9, 30, 4, 12 };

static int dbl_sc_reqbuf(void)
{
	struct lnet_ni *ni = dbl_tcp_ni();
	struct lnet_peer_ni *peer = dbl_oss();
	struct {
		struct lnetcap_ldlm_request req;
		u64 handles[32];
	} __packed *rq;
	struct lnet_libmd *md;
	void *buf, *wire;
	int n = 0, rc = 0;

	buf = vzalloc(3 * PAGE_SIZE);
	wire = kmalloc(1024, GFP_KERNEL);
	rq = kzalloc(sizeof(*rq), GFP_KERNEL);
	md = buf ? dbl_md_contig((char *)buf + PAGE_SIZE - DBL_RQBD_HEAD,
				 DBL_RQBD_SIZE,
				 LNET_MD_OP_PUT | LNET_MD_MAX_SIZE) : NULL;
	if (!md || !wire || !rq) {
		rc = -ENOMEM;
		goto out;
	}
	md->md_max_size = DBL_RQBD_MAX_REQ;
	md->md_threshold = LNET_MD_THRESH_INF;
	dbl_me_attach_any(LNETCAP_PORTAL_LDLM_CANCEL_REQUEST, md);
	/* The peer sends until LNet unlinks the buffer (bounded: a double
	 * that never unlinks it fails the scenario). */
	while (dbl_me_posted(md) && n < 2 * DBL_RQBD_REQS) {
		unsigned int k = dbl_rqbd_cancels[n % DBL_RQBD_REQS], len, j;
		u32 blen = sizeof(rq->req) +
			   8 * max_t(u32, k, LNETCAP_LDLM_LOCKREQ_HANDLES);
		u64 xid = dbl_xid++;
		struct lnet_hdr hdr;

		memset(rq, 0, sizeof(*rq));
		rq->req.lock_count = k;
		for (j = 0; j < k; j++)	/* distinct per request and lock */
			rq->handles[j] = 0x6c0ffee000000000ULL ^ (xid << 8) ^ j;
		len = dbl_lustre_msg(wire, LNETCAP_PTL_RPC_MSG_REQUEST,
				     LNETCAP_OPC_LDLM_CANCEL,
				     0x00040000 /* LUSTRE_DLM_VERSION */, xid,
				     rq, blen);
		/* ptl_send_rpc(): match bits = xid, offset 0 */
		dbl_rpc_put_hdr(&hdr, &ni->ni_nid, &peer->lpni_nid, len,
				LNETCAP_PORTAL_LDLM_CANCEL_REQUEST, xid, 0);
		lnet_parse(ni, &hdr, &peer->lpni_nid, wire, 0);
		n++;
	}
	if (dbl_me_posted(md) || n != DBL_RQBD_REQS) {
		pr_err("reqbuf: %d requests, MD %s\n", n,
		       dbl_me_posted(md) ? "still posted" : "unlinked");
		rc = -EIO;
	}
	dbl_me_unlink(md);
out:
	kfree(md);
	kfree(rq);
	kfree(wire);
	vfree(buf);
	return rc;
}

/* The lnet_ping_info a peer with two NIs returns. */
struct dbl_ping_reply {
	struct lnetcap_ping_info pi;
	struct lnetcap_ni_status ns[2];
} __packed;

/*
 * "lnetctl ping 192.168.1.20@tcp": GET on portal 0 with the reserved
 * match bits, answered by a REPLY carrying the peer's lnet_ping_info.
 */
static int dbl_sc_lnet_ping(void)
{
	struct lnet_ni *ni = dbl_tcp_ni();
	struct lnet_peer_ni *peer = dbl_oss();
	struct dbl_ping_reply *ping;
	struct lnet_libmd *md;
	struct dbl_msg *dm;
	struct lnet_hdr hdr;
	void *sink;
	u64 cookie = dbl_cookie++;

	sink = kzalloc(256, GFP_KERNEL);
	ping = kzalloc(sizeof(*ping), GFP_KERNEL);
	md = sink ? dbl_md_contig(sink, 256, LNET_MD_TRUNCATE) : NULL;
	dm = md ? dbl_tx_msg(ni, peer, LNET_MSG_GET, md, 0, 0) : NULL;
	if (!dm || !ping) {
		kfree(ping);
		kfree(md);
		kfree(sink);
		return -ENOMEM;
	}
	dm->msg.msg_hdr.msg.get.return_wmd.wh_interface_cookie = 0x1;
	dm->msg.msg_hdr.msg.get.return_wmd.wh_object_cookie = cookie;
	dm->msg.msg_hdr.msg.get.match_bits = LNETCAP_LNET_PING_MATCHBITS;
	dm->msg.msg_hdr.msg.get.ptl_index = LNETCAP_PORTAL_LNET_RESERVED;
	dm->msg.msg_hdr.msg.get.src_offset = 0;
	dm->msg.msg_hdr.msg.get.sink_length = 256;
	dbl_me_attach(0, cookie, md);	/* the REPLY matches by wire handle */
	lnet_send(&ni->ni_nid, &dm->msg, NULL);

	ping->pi.pi_magic = LNETCAP_LNET_PROTO_PING_MAGIC;
	ping->pi.pi_features = 0x1 | 0x2 | 0x8 | 0x10;	/* BASE NI_STATUS MR DISC */
	ping->pi.pi_pid = DBL_PID;
	ping->pi.pi_nnis = 2;
	ping->ns[0].ns_nid = LNETCAP_MKNID4(LNETCAP_MKNET(LNETCAP_LND_LOLND, 0), 0);
	ping->ns[0].ns_status = LNETCAP_LNET_NI_STATUS_UP;
	ping->ns[1].ns_nid = LNETCAP_MKNID4(LNETCAP_MKNET(LNETCAP_LND_SOCKLND, 0),
					    0xc0a80114);
	ping->ns[1].ns_status = LNETCAP_LNET_NI_STATUS_UP;
	dbl_hdr(&hdr, &ni->ni_nid, &peer->lpni_nid, LNET_MSG_REPLY,
		sizeof(*ping));
	hdr.msg.reply.dst_wmd.wh_interface_cookie = 0x1;
	hdr.msg.reply.dst_wmd.wh_object_cookie = cookie;
	lnet_parse(ni, &hdr, &peer->lpni_nid, ping, 0);
	dbl_me_unlink(md);
	kfree(ping);
	kfree(md);
	kfree(sink);
	return 0;
}

/*
 * LNetGetForce() (Lustre 2.17+, LU-18808; static in api-ni.c, used by
 * lnet_discover_nid_metadata: the EFA LND's handshake over TCP and a ping
 * fault-injection path), as v2_17_0 through master write it: the GET is
 * built by hand on an MD bound without an ME (lnet_msg_attach_md,
 * lnet_prep_send: header zeroed, type, dest_nid/pid, src_pid; then the GET
 * fields and src_nid = the NI's) and handed to the NI's LND, lnd_send,
 * directly: no lnet_send, no lnet_ni_send, never committed, msg_txni and
 * msg_txpeer never set.  If lnd_send fails, LNetGetForce sets
 * msg_no_resend and finalizes it with that error.  @ni carries it to
 * @target; the REPLY matches the MD by its wire handle (here the ME list
 * stands in for that lookup).
 */
static int dbl_get_force(struct lnet_ni *ni, const struct lnet_nid *target,
			 struct lnet_libmd *md, u64 cookie, int refuse_rc)
{
	struct dbl_msg *dm = dbl_msg_alloc();
	struct lnet_msg *msg;
	struct lnet_hdr *h;
	int rc;

	if (!dm)
		return -ENOMEM;
	msg = &dm->msg;
	dm->lnd_refuse_rc = refuse_rc;
	msg->msg_md = md;				/* lnet_msg_attach_md */
	msg->msg_type = LNET_MSG_GET;			/* lnet_prep_send */
	msg->msg_target.nid = *target;
	msg->msg_target.pid = DBL_PID;
	h = &msg->msg_hdr;
	memset(h, 0, sizeof(*h));
	h->type = LNET_MSG_GET;
	h->dest_nid = *target;
	h->dest_pid = DBL_PID;
	h->src_pid = DBL_PID;
	h->msg.get.match_bits = LNETCAP_LNET_PING_MATCHBITS;
	h->msg.get.ptl_index = LNETCAP_PORTAL_LNET_RESERVED;
	h->msg.get.src_offset = 0;
	h->msg.get.sink_length = md->md_length;
	h->msg.get.return_wmd.wh_interface_cookie = 0x1;
	h->msg.get.return_wmd.wh_object_cookie = cookie;
	h->src_nid = ni->ni_nid;
	dbl_me_attach(0, cookie, md);
	rc = ni->ni_net->net_lnd->lnd_send(ni, msg->msg_private, msg);
	if (rc < 0) {
		msg->msg_no_resend = true;
		lnet_finalize(msg, rc);
	}
	return 0;
}

/* The peer's REPLY to a ping GET with wire cookie @cookie, from @from. */
static void dbl_parse_ping_reply(struct lnet_ni *ni, const struct lnet_nid *from,
				 struct dbl_ping_reply *ping, u64 cookie)
{
	struct lnet_hdr hdr;

	ping->pi.pi_magic = LNETCAP_LNET_PROTO_PING_MAGIC;
	ping->pi.pi_features = 0x1 | 0x2 | 0x8 | 0x10;	/* BASE NI_STATUS MR DISC */
	ping->pi.pi_pid = DBL_PID;
	ping->pi.pi_nnis = 2;
	ping->ns[0].ns_nid = LNETCAP_MKNID4(LNETCAP_MKNET(LNETCAP_LND_LOLND, 0), 0);
	ping->ns[0].ns_status = LNETCAP_LNET_NI_STATUS_UP;
	ping->ns[1].ns_nid = LNETCAP_MKNID4(LNETCAP_MKNET(LNETCAP_LND_SOCKLND, 0),
					    be32_to_cpu(from->nid_addr[0]));
	ping->ns[1].ns_status = LNETCAP_LNET_NI_STATUS_UP;
	dbl_hdr(&hdr, &ni->ni_nid, from, LNET_MSG_REPLY, sizeof(*ping));
	hdr.msg.reply.dst_wmd.wh_interface_cookie = 0x1;
	hdr.msg.reply.dst_wmd.wh_object_cookie = cookie;
	lnet_parse(ni, &hdr, (struct lnet_nid *)from, ping, 0);
}

/*
 * lnet_discover_nid_metadata() of 192.168.1.20@tcp on the TCP NI: a forced
 * GET the LND sends, the peer's REPLY with its ping info (matched to the
 * GET's MD, as any REPLY); then one whose lnd_send fails (-EIO, as
 * ksocknal_send when it cannot launch the packet): no REPLY.
 */
static int dbl_sc_get_force(void)
{
	struct lnet_ni *ni = dbl_tcp_ni();
	struct lnet_peer_ni *peer = dbl_oss();
	struct dbl_ping_reply *ping;
	struct lnet_libmd *md;
	void *sink;
	u64 cookie = dbl_cookie++;
	int rc;

	sink = kzalloc(256, GFP_KERNEL);
	ping = kzalloc(sizeof(*ping), GFP_KERNEL);
	md = sink ? dbl_md_contig(sink, 256, LNET_MD_TRUNCATE) : NULL;
	if (!md || !ping) {
		kfree(ping);
		kfree(md);
		kfree(sink);
		return -ENOMEM;
	}
	md->md_threshold = 2;	/* GET + REPLY */
	rc = dbl_get_force(ni, &peer->lpni_nid, md, cookie, 0);
	if (!rc)
		dbl_parse_ping_reply(ni, &peer->lpni_nid, ping, cookie);
	dbl_me_unlink(md);
	if (!rc)
		rc = dbl_get_force(ni, &peer->lpni_nid, md, dbl_cookie++, -EIO);
	dbl_me_unlink(md);
	kfree(ping);
	kfree(md);
	kfree(sink);
	return rc;
}

/*
 * "lnetctl ping 0@lo" (IOC_LIBCFS_PING_PEER on /dev/lnet), what lnetcap's
 * start-up self-check does: LNetGet of this node's ping buffer on portal 0
 * with the ping match bits from 0@lo to 0@lo; the loopback LND parses the
 * GET, which becomes the REPLY carrying the ping info, parsed back into the
 * sink.  All in the calling thread, as in LNet.  Not logged in double_log:
 * it is lnetcap's own traffic, which no capture records.
 */
static int dbl_self_ping(void)
{
	struct lnet_ni *lo = &dbl_nis[DBL_NI_LO];
	struct lnet_libmd *target_md = NULL, *sink_md = NULL;
	struct dbl_ping_reply *target;
	struct dbl_msg *dm = NULL;
	struct lnet_msg *msg;
	void *sink;
	u64 cookie = dbl_cookie++;
	bool log_was = dbl_log_on;
	int i, rc = 0;

	target = kzalloc(sizeof(*target) + 2 * sizeof(target->ns[0]),
			 GFP_KERNEL);
	sink = kzalloc(256, GFP_KERNEL);
	if (target && sink) {
		target_md = dbl_md_contig(target, sizeof(*target),
					  LNET_MD_OP_GET | LNET_MD_TRUNCATE);
		sink_md = dbl_md_contig(sink, 256, LNET_MD_TRUNCATE);
	}
	if (target_md && sink_md)
		dm = dbl_msg_alloc();
	if (!dm) {
		rc = -ENOMEM;
		goto out;
	}
	/* the node's ping buffer: 0@lo and the TCP NI */
	target->pi.pi_magic = LNETCAP_LNET_PROTO_PING_MAGIC;
	target->pi.pi_features = 0x1 | 0x2 | 0x8 | 0x10;
	target->pi.pi_pid = DBL_PID;
	target->pi.pi_nnis = 2;
	for (i = 0; i < 2; i++) {
		const struct lnet_nid *n = &dbl_nis[i].ni_nid;

		target->ns[i].ns_nid = LNETCAP_MKNID4(
			LNETCAP_MKNET(n->nid_type, be16_to_cpu(n->nid_num)),
			be32_to_cpu(n->nid_addr[0]));
		target->ns[i].ns_status = LNETCAP_LNET_NI_STATUS_UP;
	}
	dbl_me_attach(LNETCAP_PORTAL_LNET_RESERVED, LNETCAP_LNET_PING_MATCHBITS,
		      target_md);
	dbl_me_attach(LNETCAP_PORTAL_LNET_RESERVED, cookie, sink_md);

	msg = &dm->msg;
	msg->msg_type = LNET_MSG_GET;
	msg->msg_target.nid = lo->ni_nid;
	msg->msg_target.pid = DBL_PID;
	msg->msg_initiator = lo->ni_nid;
	msg->msg_txni = lo;
	msg->msg_txpeer = NULL;		/* lnet_handle_lo_send: no peer NI */
	msg->msg_md = sink_md;
	msg->msg_sending = 1;
	msg->msg_tx_committed = 1;
	dbl_hdr(&msg->msg_hdr, &lo->ni_nid, &lo->ni_nid, LNET_MSG_GET, 0);
	msg->msg_hdr.msg.get.return_wmd.wh_interface_cookie = 0x1;
	msg->msg_hdr.msg.get.return_wmd.wh_object_cookie = cookie;
	msg->msg_hdr.msg.get.match_bits = LNETCAP_LNET_PING_MATCHBITS;
	msg->msg_hdr.msg.get.ptl_index = LNETCAP_PORTAL_LNET_RESERVED;
	msg->msg_hdr.msg.get.src_offset = 0;
	msg->msg_hdr.msg.get.sink_length = 256;

	dbl_log_on = false;
	lnet_send(&lo->ni_nid, msg, NULL);	/* finalized (and freed) inside */
	dbl_log_on = log_was;
	if (((struct lnetcap_ping_info *)sink)->pi_magic !=
	    LNETCAP_LNET_PROTO_PING_MAGIC)
		rc = -EIO;
out:
	if (target_md && dbl_me_posted(target_md))
		dbl_me_unlink(target_md);
	if (sink_md && dbl_me_posted(sink_md))
		dbl_me_unlink(sink_md);
	kfree(sink_md);
	kfree(target_md);
	kfree(sink);
	kfree(target);
	return rc;
}

/* Lustre's uapi (libcfs_ioctl.h, lnet-dlc.h), the same from 2.15 to 2.17. */
struct dbl_libcfs_ioctl_hdr {
	__u32 ioc_len;
	__u32 ioc_version;
};

struct dbl_lnet_process_id {
	__u64 nid;
	__u32 pid;
};

struct dbl_lnet_ioctl_ping_data {
	struct dbl_libcfs_ioctl_hdr ping_hdr;
	__u32 op_param;
	__u32 ping_count;
	__u32 ping_flags;
	__u32 mr_info;
	struct dbl_lnet_process_id ping_id;
	struct dbl_lnet_process_id __user *ping_buf;
	__u64 ping_src;
};

#define DBL_IOC_LIBCFS_PING_PEER	_IOWR('e', 62, long)
#define DBL_LNET_IOCTL_VERSION2		0x0001000b

/* /dev/lnet: only the ping of 0@lo; anything else as LNet refuses it. */
static long dbl_lnet_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	struct dbl_lnet_ioctl_ping_data d;
	struct dbl_lnet_process_id id = {};
	u64 lo0 = LNETCAP_MKNID4(LNETCAP_MKNET(LNETCAP_LND_LOLND, 0), 0);
	int rc;

	/* As lnet_psdev_ioctl: every LNet ioctl needs CAP_SYS_ADMIN. */
	if (!capable(CAP_SYS_ADMIN))
		return -EACCES;
	if (cmd != DBL_IOC_LIBCFS_PING_PEER)
		return -EINVAL;
	if (copy_from_user(&d, (void __user *)arg, sizeof(d)))
		return -EFAULT;
	if (d.ping_hdr.ioc_len != sizeof(d) ||
	    d.ping_hdr.ioc_version != DBL_LNET_IOCTL_VERSION2)
		return -EINVAL;
	if (d.ping_id.nid != lo0)
		return -EHOSTUNREACH;	/* the double pings only itself */
	mutex_lock(&dbl_mutex);
	rc = dbl_self_ping();
	mutex_unlock(&dbl_mutex);
	if (rc)
		return rc;
	id.nid = lo0;
	id.pid = DBL_PID;
	if (d.ping_count && d.ping_buf &&
	    copy_to_user(d.ping_buf, &id, sizeof(id)))
		return -EFAULT;
	return 0;
}

static const struct file_operations dbl_lnet_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = dbl_lnet_ioctl,
};

static struct miscdevice dbl_lnet_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "lnet",
	.fops = &dbl_lnet_fops,
};

/*
 * An incoming PtlRPC request that no ME of this node matches: lnet_parse
 * forwards it (when the destination is on another net) or drops it.
 */
static int dbl_parse_unmatched_request(struct lnet_ni *ni,
				       const struct lnet_nid *dst,
				       struct lnet_nid *from, u32 opc,
				       u32 version, u32 portal)
{
	u64 xid = dbl_xid++;
	struct lnet_hdr hdr;
	unsigned int len;
	void *wire;

	wire = kmalloc(1024, GFP_KERNEL);
	if (!wire)
		return -ENOMEM;
	len = dbl_lustre_msg(wire, LNETCAP_PTL_RPC_MSG_REQUEST, opc, version,
			     xid, NULL, 0);
	dbl_rpc_put_hdr(&hdr, dst, from, len, portal, xid, 0);
	lnet_parse(ni, &hdr, from, wire, 0);
	kfree(wire);
	return 0;
}

/*
 * This node as an LNet router: a client on o2ib sends an OBD_PING request
 * to a server on tcp; it is received into a router buffer and forwarded
 * with msg_routing set, header unchanged.
 */
#define DBL_RTR_WAIT_MS 10
static int dbl_sc_forward(void)
{
	dbl_next_rtr_wait_ms = DBL_RTR_WAIT_MS;
	return dbl_parse_unmatched_request(&dbl_nis[DBL_NI_O2IB],
		&dbl_peers[DBL_PEER_FWDSERVER].lpni_nid,
		&dbl_peers[DBL_PEER_IBCLIENT].lpni_nid,
		LNETCAP_OPC_OBD_PING, 0x00010000, LNETCAP_PORTAL_OST_REQUEST);
}

/*
 * A request whose first transmission the peer dropped (health failure
 * REMOTE_DROPPED at lnet_finalize) and which LNet resends on the other
 * TCP NI (msg_retry_count 1), where it goes through.
 */
static int dbl_sc_resend(void)
{
	return dbl_send_request(LNETCAP_PORTAL_OST_REQUEST,
				LNETCAP_OPC_OBD_PING, 0x00010000, dbl_xid++,
				NULL, 0, -ECONNRESET,
				LNET_MSG_STATUS_REMOTE_DROPPED, false);
}

/*
 * The monitor thread (LNet's "monitor_thread"): a send of it fails for
 * good with a remote error (its health check lowers the peer NI's health:
 * the send's failure), then a response times out
 * (lnet_finalize_expired_responses): the peer NI's health is lowered with
 * no message at hand.
 */
static DECLARE_COMPLETION(dbl_monitor_done);
static int dbl_monitor_rc;

static int dbl_monitor_fn(void *unused)
{
	dbl_monitor_rc = dbl_send_request(LNETCAP_PORTAL_OST_REQUEST,
					  LNETCAP_OPC_OBD_PING, 0x00010000,
					  dbl_xid++, NULL, 0, -EHOSTUNREACH,
					  LNET_MSG_STATUS_REMOTE_ERROR, true);
	dbl_remote_failure(dbl_oss(), "response_timeout");
	complete(&dbl_monitor_done);
	return 0;
}

static int dbl_sc_rsp_timeout(void)
{
	struct task_struct *t;

	reinit_completion(&dbl_monitor_done);
	t = kthread_run(dbl_monitor_fn, NULL, "monitor_thread");
	if (IS_ERR(t))
		return PTR_ERR(t);
	wait_for_completion(&dbl_monitor_done);
	return dbl_monitor_rc;
}

/* A request that fails for good: no resend allowed, health status set. */
static int dbl_sc_health(void)
{
	return dbl_send_request(LNETCAP_PORTAL_OST_REQUEST,
				LNETCAP_OPC_OBD_PING, 0x00010000, dbl_xid++,
				NULL, 0, -EHOSTUNREACH,
				LNET_MSG_STATUS_LOCAL_DROPPED, true);
}

/* A PUT nobody posted a buffer for: lnet_parse drops it. */
static int dbl_sc_drop(void)
{
	return dbl_parse_unmatched_request(dbl_tcp_ni(),
		&dbl_tcp_ni()->ni_nid, &dbl_oss()->lpni_nid,
		LNETCAP_OPC_LDLM_CANCEL, 0x00040000,
		LNETCAP_PORTAL_LDLM_CANCEL_REQUEST);
}

/* A request that waits 30 ms for credits in lnet_send before the LND. */
#define DBL_QUEUE_HOLD_MS 30
static int dbl_sc_queue(void)
{
	dbl_next_hold_ms = DBL_QUEUE_HOLD_MS;
	return dbl_send_request(LNETCAP_PORTAL_OST_REQUEST,
				LNETCAP_OPC_OBD_PING, 0x00010000, dbl_xid++,
				NULL, 0, 0, 0, false);
}

/* A request LNet drops before the LND: the peer is not alive
 * (lnet_post_send_locked: -EHOSTUNREACH, REMOTE_DROPPED). */
static int dbl_sc_send_drop(void)
{
	dbl_next_hold_ms = 5;
	dbl_next_drop_rc = -EHOSTUNREACH;
	dbl_next_drop_hs = LNET_MSG_STATUS_REMOTE_DROPPED;
	return dbl_send_request(LNETCAP_PORTAL_OST_REQUEST,
				LNETCAP_OPC_OBD_PING, 0x00010000, dbl_xid++,
				NULL, 0, 0, 0, false);
}

/* A request whose MD its waiter unlinked before the send completed (a
 * ping past its timeout): sent without error, reported -ETIMEDOUT. */
static int dbl_sc_aborted(void)
{
	dbl_next_aborted = true;
	return dbl_send_request(LNETCAP_PORTAL_OST_REQUEST,
				LNETCAP_OPC_OBD_PING, 0x00010000, dbl_xid++,
				NULL, 0, 0, 0, false);
}

/* A GET (a bulk read from the OSS) that a drop rule drops in lnet_parse. */
static int dbl_sc_drop_rule(void)
{
	struct lnet_ni *ni = dbl_tcp_ni();
	struct lnet_peer_ni *peer = dbl_oss();
	struct lnet_hdr hdr;

	dbl_hdr(&hdr, &ni->ni_nid, &peer->lpni_nid, LNET_MSG_GET, 0);
	hdr.msg.get.return_wmd.wh_interface_cookie = 0x1;
	hdr.msg.get.return_wmd.wh_object_cookie = dbl_cookie++;
	hdr.msg.get.match_bits = dbl_xid++;
	hdr.msg.get.ptl_index = LNETCAP_PORTAL_OST_BULK;
	hdr.msg.get.sink_length = 4096;
	dbl_drop_rule_armed = true;
	lnet_parse(ni, &hdr, &peer->lpni_nid, NULL, 0);
	dbl_drop_rule_armed = false;
	return 0;
}

/* An ACK with a payload length: lnet_parse rejects it with -EPROTO. */
static int dbl_sc_malformed(void)
{
	struct lnet_ni *ni = dbl_tcp_ni();
	struct lnet_peer_ni *peer = dbl_oss();
	struct lnet_hdr hdr;
	int rc;

	dbl_hdr(&hdr, &ni->ni_nid, &peer->lpni_nid, LNET_MSG_ACK, 16);
	hdr.msg.ack.dst_wmd.wh_interface_cookie = 0x1;
	hdr.msg.ack.dst_wmd.wh_object_cookie = dbl_cookie++;
	rc = lnet_parse(ni, &hdr, &peer->lpni_nid, NULL, 0);
	return rc == -EPROTO ? 0 : -EIO;
}

/*
 * Large NIDs: a client on an IPv6 socklnd NI ("lnetctl lnet configure
 * --large", an IPv6 address on the interface; socklnd then speaks V4 with
 * 96-byte headers): a request PUT out and its reply in, a bulk GET in and
 * its REPLY out, a bulk PUT in and its ACK out, all between
 * fd00:77::10@tcp1 and fd00:77::20@tcp1, every NID in them nid_size 12.
 */
static int dbl_sc_ipv6(void)
{
	int rc;

	dbl_tcp_idx = DBL_NI_TCP6;
	dbl_oss_idx = DBL_PEER_OSS6;
	rc = dbl_sc_ping_rpc();
	if (!rc)
		rc = dbl_sc_bulk_get();
	if (!rc)
		rc = dbl_sc_bulk_put();
	dbl_tcp_idx = DBL_NI_TCP;
	dbl_oss_idx = DBL_PEER_OSS;
	return rc;
}

struct dbl_scenario {
	const char	*name;
	int		(*fn)(void);
	unsigned int	events;		/* messages it produces */
	bool		not_in_all;	/* run by name only */
};

static const struct dbl_scenario dbl_scenarios[] = {
	{ "ping_rpc", dbl_sc_ping_rpc, 2 },	/* request PUT + reply PUT */
	{ "enqueue", dbl_sc_enqueue, 2 },	/* LDLM_ENQUEUE + reply */
	{ "bulk_get", dbl_sc_bulk_get, 2 },	/* GET in + REPLY out */
	{ "bulk_put", dbl_sc_bulk_put, 2 },	/* PUT in + ACK out */
	{ "lnet_ping", dbl_sc_lnet_ping, 2 },	/* GET out + REPLY in */
	{ "forward", dbl_sc_forward, 2 },	/* PUT in + forwarded out */
	{ "resend", dbl_sc_resend, 2 },		/* 2 transmissions */
	{ "health", dbl_sc_health, 1 },
	{ "drop", dbl_sc_drop, 1 },
	{ "queue", dbl_sc_queue, 1 },		/* held 30 ms before the LND */
	{ "send_drop", dbl_sc_send_drop, 1 },	/* dropped before the LND */
	{ "drop_rule", dbl_sc_drop_rule, 1 },	/* GET dropped by a rule */
	{ "malformed", dbl_sc_malformed, 1 },	/* ACK refused: -EPROTO */
	{ "aborted", dbl_sc_aborted, 1 },	/* MD unlinked: -ETIMEDOUT */
	/* RDMA GETs on the o2ib NI (the rig's "rdma" captures): GET out +
	 * REPLY in, GET in + REPLY out, no REPLY message on either side */
	{ "rdma_get", dbl_sc_rdma_get, 2, true },
	{ "rdma_serve_get", dbl_sc_rdma_serve_get, 2, true },
	/* the monitor thread's failed send and a response timeout (the
	 * rig's "rsp_timeout" capture) */
	{ "rsp_timeout", dbl_sc_rsp_timeout, 2, true },
	/* 8 LDLM_CANCEL requests in one request buffer, at growing offsets,
	 * then the MD unlinks (the rig's "reqbuf" captures) */
	{ "reqbuf", dbl_sc_reqbuf, DBL_RQBD_REQS, true },
	/* bulk payloads a capture must leave out (the rig's "nocap"
	 * captures): bulk_get + bulk_put on GPU pages, a PUT into a
	 * discarding MD */
	{ "gpu", dbl_sc_gpu, 4, true },
	{ "discard", dbl_sc_discard, 2, true },
	/* LNetGetForce: a GET handed to the LND without lnet_send or
	 * lnet_ni_send, its REPLY, and one lnd_send refuses (the rig's
	 * "getforce" captures) */
	{ "get_force", dbl_sc_get_force, 3, true },
	/* ping_rpc, bulk_get, bulk_put on the IPv6 NI (the rig's "ipv6"
	 * captures) */
	{ "ipv6", dbl_sc_ipv6, 6, true },
};

/* ---- debugfs ---------------------------------------------------------------- */

static struct dentry *dbl_dir_dentry;
static u64 dbl_bench_msgs, dbl_bench_ns;

static int dbl_run(const char *name, unsigned long count)
{
	unsigned long n;
	size_t i;
	int rc = 0;

	for (n = 0; n < count && !rc; n++) {
		bool found = false;

		for (i = 0; i < ARRAY_SIZE(dbl_scenarios) && !rc; i++) {
			if (strcmp(name, "all") ?
			    strcmp(name, dbl_scenarios[i].name) :
			    dbl_scenarios[i].not_in_all)
				continue;
			found = true;
			rc = dbl_scenarios[i].fn();
		}
		if (!found)
			return -EINVAL;
		if (n % 64 == 63)
			cond_resched();
	}
	return rc;
}

/*
 * Commands, one per write:
 *   <scenario>|all [count]   generate traffic (see dbl_scenarios)
 *   bench <count>            count x ping_rpc with the log off, timed
 *   log on|off, clear        control the event log
 */
static ssize_t dbl_ctl_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	char cmd[64], *arg, *p;
	unsigned long count = 1;
	int rc;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';
	p = strim(cmd);
	arg = strchr(p, ' ');
	if (arg) {
		*arg++ = '\0';
		arg = strim(arg);
	}

	mutex_lock(&dbl_mutex);
	if (!strcmp(p, "clear")) {
		dbl_log_len = 0;
		dbl_log[0] = '\0';
		dbl_log_full = false;
		rc = 0;
	} else if (!strcmp(p, "log")) {
		rc = arg && (!strcmp(arg, "on") || !strcmp(arg, "off")) ?
		     0 : -EINVAL;
		if (!rc)
			dbl_log_on = !strcmp(arg, "on");
	} else if (!strcmp(p, "bench")) {
		bool was_on = dbl_log_on;
		u64 t0;

		rc = arg ? kstrtoul(arg, 0, &count) : -EINVAL;
		if (!rc) {
			dbl_log_on = false;
			t0 = ktime_get_ns();
			rc = dbl_run("ping_rpc", count);
			dbl_bench_ns = ktime_get_ns() - t0;
			dbl_bench_msgs = 2ULL * count;
			dbl_log_on = was_on;
		}
	} else {
		rc = arg ? kstrtoul(arg, 0, &count) : 0;
		if (!rc)
			rc = dbl_run(p, count);
	}
	mutex_unlock(&dbl_mutex);
	return rc ? rc : len;
}

static const struct file_operations dbl_ctl_fops = {
	.owner = THIS_MODULE,
	.write = dbl_ctl_write,
};

static ssize_t dbl_log_read(struct file *file, char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	ssize_t rc;

	mutex_lock(&dbl_mutex);
	rc = simple_read_from_buffer(ubuf, len, ppos, dbl_log, dbl_log_len);
	mutex_unlock(&dbl_mutex);
	return rc;
}

static const struct file_operations dbl_log_fops = {
	.owner = THIS_MODULE,
	.read = dbl_log_read,
	.llseek = default_llseek,
};

static int dbl_stats_show(struct seq_file *m, void *v)
{
	mutex_lock(&dbl_mutex);
	seq_printf(m, "events %llu\nmessages_generated %u\nlog_bytes %zu\nlog_full %d\nbench_msgs %llu\nbench_ns %llu\n",
		   dbl_event_seq, dbl_msg_ids, dbl_log_len, dbl_log_full,
		   dbl_bench_msgs, dbl_bench_ns);
	mutex_unlock(&dbl_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dbl_stats);

/* Lustre's /sys/kernel/debug/lnet/nis (proc_lnet_nis) layout. */
static int dbl_nis_show(struct seq_file *m, void *v)
{
	int i;

	seq_printf(m, "%-24s %6s %5s %4s %4s %4s %5s %5s %5s\n",
		   "nid", "status", "alive", "refs", "peer", "rtr", "max",
		   "tx", "min");
	for (i = 0; i < DBL_NR_NI; i++) {
		bool lo = i == DBL_NI_LO;
		char nid[48];

		dbl_nidstr(&dbl_nis[i].ni_nid, nid, sizeof(nid));
		seq_printf(m, "%-24s %6s %5lld %4d %4d %4d %5d %5d %5d\n",
			   nid, "up", lo ? 0LL : 0LL, lo ? 2 : 1,
			   lo ? 0 : 8, lo ? 0 : 0, lo ? 0 : 256,
			   lo ? 0 : 256, lo ? 0 : 256);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dbl_nis);

static int __init lnet_double_init(void)
{
	int i;

	dbl_log = vzalloc(DBL_LOG_SIZE);
	if (!dbl_log)
		return -ENOMEM;
	for (i = 0; i < DBL_BULK_PAGES; i++) {
		dbl_bulk_pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!dbl_bulk_pages[i])
			goto fail;
	}
	dbl_setup_nis();
	if (misc_register(&dbl_lnet_dev))
		goto fail;
	dbl_dir_dentry = debugfs_create_dir("lnet", NULL);
	debugfs_create_file("nis", 0444, dbl_dir_dentry, NULL, &dbl_nis_fops);
	debugfs_create_file("double_ctl", 0200, dbl_dir_dentry, NULL,
			    &dbl_ctl_fops);
	debugfs_create_file("double_log", 0400, dbl_dir_dentry, NULL,
			    &dbl_log_fops);
	debugfs_create_file("double_stats", 0444, dbl_dir_dentry, NULL,
			    &dbl_stats_fops);
	pr_info("LNet test double loaded (not Lustre): %d NIs\n", DBL_NR_NI);
	return 0;
fail:
	for (i = 0; i < DBL_BULK_PAGES; i++)
		if (dbl_bulk_pages[i])
			__free_page(dbl_bulk_pages[i]);
	vfree(dbl_log);
	return -ENOMEM;
}

static void __exit lnet_double_exit(void)
{
	int i;

	debugfs_remove_recursive(dbl_dir_dentry);
	misc_deregister(&dbl_lnet_dev);
	for (i = 0; i < DBL_BULK_PAGES; i++)
		__free_page(dbl_bulk_pages[i]);
	vfree(dbl_log);
}

module_init(lnet_double_init);
module_exit(lnet_double_exit);

MODULE_AUTHOR("lnetcap developers");
MODULE_DESCRIPTION("LNet test double for the lnetcap kernel rig (not Lustre)");
/* LNet's own version (LNET_VERSION), as real lnet.ko reports it under
 * /sys/module/lnet/version; the Lustre release is published elsewhere
 * (/sys/fs/lustre/version, by obdclass), which the double, being LNet
 * only like a router, does not have. */
#ifdef LNETCAP_DOUBLE_RELEASE
/* The "master" build (kmod/master/): lnet.ko of 2.17.54 and later
 * publishes the Lustre release here (LU-18839: LNET_VERSION =
 * LUSTRE_VERSION_STRING); the double's structs are 2.17.55+'s. */
MODULE_VERSION(LNETCAP_DOUBLE_RELEASE);
#else
MODULE_VERSION("0.7.0");
#endif
MODULE_LICENSE("GPL");
