// SPDX-License-Identifier: GPL-2.0-only
/*
 * lnetcap_kfunc.c - the kernel-side interface lnetcap uses to copy an LNet
 * message's payload into a BPF buffer.
 *
 * BPF cannot read a bio_vec page (it has no kmap), and received PUTs keep
 * their payload only in the MD's pages, so this module registers one kfunc
 * for tracing (fentry/fexit) programs:
 *
 *   int bpf_lnetcap_msg_payload(u64 msg, u32 offset, void *dst, u32 dst__sz)
 *
 * It copies up to dst__sz bytes of the payload of the struct lnet_msg at
 * address @msg, starting @offset bytes into the payload, and returns the
 * number of bytes copied or -errno.
 *
 * lnetcap reads page vectors without this module (bpf/lnetcap_pages.bpf.h,
 * through the kernel's direct map).  The module is only used where that
 * cannot work: /proc/kallsyms hides the addresses it needs even from root
 * (kernel.kptr_restrict=2), or a kernel layout the translation does not
 * cover; kmap_local_page() works everywhere.
 *
 * Why the message is passed as a u64 address and not as a
 * struct lnet_msg *: in Linux 6.1 the verifier only lets a kfunc take a
 * PTR_TO_BTF_ID argument whose BTF type is the very same type object
 * (btf_struct_ids_match), and module BTF is split on vmlinux only.  The
 * struct lnet_msg an fentry program gets comes from the lnet module's BTF;
 * the one in this module's BTF is a different type object, so a typed
 * argument could never be passed.  The program reads the address with
 * bpf_get_func_arg() instead.  The address is then untrusted, so every
 * read below goes through copy_from_kernel_nofault() and a bad address
 * yields -EFAULT, never an oops: the kfunc reads nothing a tracing
 * program could not already read with bpf_probe_read_kernel().
 *
 * Which bytes: those at msg_offset in the MD.  A contiguous MD (Lustre
 * before 2.15) is copied from md_start directly; KIOV MDs (every MD since
 * 2.15) and router buffers (no MD) are walked page by page with
 * kmap_local_page().
 *
 * It is built against <lnet/lib-types.h>: Lustre's own header on a Lustre
 * node, the test double's header in the rig.
 */
#define pr_fmt(fmt) "lnetcap_kfunc: " fmt

#include <linux/module.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/uaccess.h>

#include <lnet/lib-types.h>

#ifndef LNET_MD_KIOV
#define LNET_MD_KIOV 0x0100
#endif
#ifndef LNET_MAX_IOV
#define LNET_MAX_IOV 256
#endif

static int lnetcap_copy_kiov(const struct bio_vec *ukiov, unsigned int niov,
			     unsigned int skip, char *dst, unsigned int want)
{
	unsigned int i, done = 0;

	if (niov > LNET_MAX_IOV)
		return -EINVAL;
	for (i = 0; i < niov && done < want; i++) {
		struct bio_vec bv;
		unsigned int n;
		char *va;
		int rc;

		if (copy_from_kernel_nofault(&bv, &ukiov[i], sizeof(bv)))
			return -EFAULT;
		if (skip >= bv.bv_len) {
			skip -= bv.bv_len;
			continue;
		}
		/*
		 * A bvec never spans more than its compound page; refuse
		 * anything that does not look like a real page.
		 */
		if (!bv.bv_page || !pfn_valid(page_to_pfn(bv.bv_page)) ||
		    bv.bv_offset + bv.bv_len > page_size(bv.bv_page))
			return -EFAULT;
		n = min(bv.bv_len - skip, want - done);
		va = kmap_local_page(bv.bv_page);
		rc = copy_from_kernel_nofault(dst + done,
					      va + bv.bv_offset + skip, n);
		kunmap_local(va);
		if (rc)
			return -EFAULT;
		done += n;
		skip = 0;
	}
	return done;
}

__diag_push();
__diag_ignore_all("-Wmissing-prototypes",
		  "kfuncs are global functions found through BTF");

/*
 * Where the bitfield msg_receiving lives (offsetof cannot name a bitfield):
 * found once at load time on a static, zeroed struct lnet_msg.
 */
static struct lnet_msg lnetcap_probe_msg;
static unsigned int lnetcap_rx_byte;
static u8 lnetcap_rx_mask;

static void lnetcap_find_rx_bit(void)
{
	const u8 *p = (const u8 *)&lnetcap_probe_msg;
	unsigned int i;

	lnetcap_probe_msg.msg_receiving = 1;
	for (i = 0; i < sizeof(lnetcap_probe_msg); i++) {
		if (p[i]) {
			lnetcap_rx_byte = i;
			lnetcap_rx_mask = p[i];
			return;
		}
	}
}

/* Reads one member of a struct at an untrusted kernel address. */
#define lnetcap_get(dst, ptr, member)					\
	copy_from_kernel_nofault(&(dst), &(ptr)->member, sizeof(dst))

noinline int bpf_lnetcap_msg_payload(u64 msg, u32 offset, void *dst,
				     u32 dst__sz)
{
	const struct lnet_msg *umsg = (const void *)(unsigned long)msg;
	/*
	 * Only the members used are read, one by one: a struct lnet_msg or
	 * lnet_libmd copy would put hundreds or thousands of bytes on the
	 * stack of an LND thread.
	 */
	unsigned int opts, moff, niov, len, want;
	struct lnet_libmd *md;
	struct bio_vec *kiov;
	char *start;
	u8 flags;

	if (!umsg)
		return -EINVAL;
	if (!dst__sz)
		return 0;
	if (lnetcap_get(md, umsg, msg_md) || lnetcap_get(moff, umsg, msg_offset) ||
	    copy_from_kernel_nofault(&flags, (const u8 *)umsg + lnetcap_rx_byte, 1))
		return -EFAULT;
	/* Received: what the LND landed (msg_wanted); sent: msg_len. */
	if (flags & lnetcap_rx_mask ? lnetcap_get(len, umsg, msg_wanted) :
				      lnetcap_get(len, umsg, msg_len))
		return -EFAULT;
	if (offset >= len)
		return 0;
	want = min(len - offset, dst__sz);
	if (md) {
		if (lnetcap_get(opts, md, md_options) ||
		    lnetcap_get(start, md, md_start))
			return -EFAULT;
		if (!(opts & LNET_MD_KIOV) && start) {
			if (copy_from_kernel_nofault(dst, start + moff + offset,
						     want))
				return -EFAULT;
			return want;
		}
	}
	if (lnetcap_get(kiov, umsg, msg_kiov) || lnetcap_get(niov, umsg, msg_niov))
		return -EFAULT;
	if (!kiov)
		return -ENODATA;
	return lnetcap_copy_kiov(kiov, niov, moff + offset, dst, want);
}

__diag_pop();

BTF_SET8_START(lnetcap_kfunc_ids)
BTF_ID_FLAGS(func, bpf_lnetcap_msg_payload)
BTF_SET8_END(lnetcap_kfunc_ids)

static const struct btf_kfunc_id_set lnetcap_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &lnetcap_kfunc_ids,
};

static int __init lnetcap_kfunc_init(void)
{
	int rc;

	lnetcap_find_rx_bit();
	/*
	 * Without module BTF the kernel accepts the registration (returns 0)
	 * but no program can ever call the kfunc; say why here, since the
	 * agent will only see "kfunc not found".
	 */
#ifdef CONFIG_DEBUG_INFO_BTF_MODULES
	if (!THIS_MODULE->btf_data_size)
		pr_warn("built without module BTF: bpf_lnetcap_msg_payload is unusable (rebuild with vmlinux + pahole + resolve_btfids)\n");
#else
	pr_warn("kernel lacks CONFIG_DEBUG_INFO_BTF_MODULES: kfunc unusable\n");
#endif
	rc = register_btf_kfunc_id_set(BPF_PROG_TYPE_TRACING,
				       &lnetcap_kfunc_set);
	if (rc)
		pr_err("register_btf_kfunc_id_set failed: %d\n", rc);
	return rc;
}

static void __exit lnetcap_kfunc_exit(void)
{
	/* 6.1 has no unregister: the set goes away with the module's BTF. */
}

module_init(lnetcap_kfunc_init);
module_exit(lnetcap_kfunc_exit);

MODULE_AUTHOR("lnetcap developers");
MODULE_DESCRIPTION("kfunc copying LNet message payloads for lnetcap");
MODULE_LICENSE("GPL");
