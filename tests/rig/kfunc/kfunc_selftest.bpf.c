// SPDX-License-Identifier: GPL-2.0-only
/*
 * kfunc_selftest.bpf.c - calls bpf_lnetcap_msg_payload() at every
 * lnet_finalize() of the LNet test double and keeps what it returned, so
 * the rig can check the kfunc independently of the agent.  Also calls it
 * once with a bad address, which must give -EFAULT, not an oops.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define SELFTEST_SLOTS 64
#define SELFTEST_BUF 512

extern int bpf_lnetcap_msg_payload(__u64 msg, __u32 offset, void *dst,
				   __u32 dst__sz) __ksym;

struct slot {
	__s32 ret;
	__u32 pad;
	__u8 buf[SELFTEST_BUF];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SELFTEST_SLOTS);
	__type(key, __u32);
	__type(value, struct slot);
} slots SEC(".maps");

/* One initialised global, so its layout in .data is fixed. */
struct globals {
	__u32 calls;
	__s32 bad_addr_ret;
	__s32 offset_ret;
	__u8 offset_buf[8];
} g = { .bad_addr_ret = 1, .offset_ret = 1 };

SEC("fentry/lnet_finalize")
int selftest_finalize(__u64 *ctx)
{
	__u64 msg = 0;
	__u32 i;
	struct slot *s;

	/* The argument as a plain address (see docs/kernel-contract.md). */
	if (bpf_get_func_arg(ctx, 0, &msg))
		return 0;
	i = __sync_fetch_and_add(&g.calls, 1);
	if (i == 0) {
		g.bad_addr_ret = bpf_lnetcap_msg_payload(0xdead000000000000ULL,
							 0, g.offset_buf,
							 sizeof(g.offset_buf));
		/* 8 bytes from offset 8 of the first message's payload */
		g.offset_ret = bpf_lnetcap_msg_payload(msg, 8, g.offset_buf,
						       sizeof(g.offset_buf));
	}
	if (i >= SELFTEST_SLOTS)
		return 0;
	s = bpf_map_lookup_elem(&slots, &i);
	if (!s)
		return 0;
	s->ret = bpf_lnetcap_msg_payload(msg, 0, s->buf, sizeof(s->buf));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
