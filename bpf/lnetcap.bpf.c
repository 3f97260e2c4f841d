// SPDX-License-Identifier: GPL-2.0-only
/*
 * lnetcap.bpf.c - LNet capture programs.  Built once per attach flavour
 * (bpf/CMakeLists.txt), each its own skeleton, because an object whose
 * fentry targets or kfunc are missing fails to load as a whole:
 *
 *   LNETCAP_MODE_FENTRY (+ LNETCAP_WITH_KFUNC)  fentry, needs lnet module BTF
 *   LNETCAP_MODE_KPROBE                         kprobe, offsets only
 *   LNETCAP_MODE_UPROBE                         host tests: uprobes on
 *                                               stand-ins in a test binary
 *
 * The hook bodies are shared (lnetcap_hooks.bpf.h); only the way arguments
 * arrive differs.  Arguments are taken as plain integers: every access goes
 * through cfg.lo offsets, never through kernel types.
 */
#if defined(LNETCAP_MODE_UPROBE)
/* The test binary's fake Lustre structs live in user memory. */
#define LNETCAP_READ bpf_probe_read_user
#endif

#include "lnetcap_hooks.bpf.h"

#include <asm/ptrace.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#if defined(LNETCAP_MODE_FENTRY)

/*
 * bpf_get_func_arg() hands the arguments over as plain integers: the hooks
 * only add offsets and read through bpf_probe_read_kernel, and the kfunc
 * takes the lnet_msg address as a scalar (typed PTR_TO_BTF_ID arguments
 * would be refused there).
 */
static __always_inline __u64 lnetcap_arg(void *ctx, __u32 n)
{
	__u64 v = 0;

	bpf_get_func_arg(ctx, n, &v);
	return v;
}

SEC("fentry/lnet_ni_send")
int lnetcap_fentry_lnet_ni_send(void *ctx)
{
	return lnetcap_on_ni_send(lnetcap_arg(ctx, 0), lnetcap_arg(ctx, 1));
}

SEC("fentry/lnet_parse")
int lnetcap_fentry_lnet_parse(void *ctx)
{
	return lnetcap_on_parse(lnetcap_arg(ctx, 0), lnetcap_arg(ctx, 1),
				lnetcap_arg(ctx, 2));
}

SEC("fentry/lnet_finalize")
int lnetcap_fentry_lnet_finalize(void *ctx)
{
	return lnetcap_on_finalize(lnetcap_arg(ctx, 0), (int)lnetcap_arg(ctx, 1));
}

SEC("fentry/lnet_send")
int lnetcap_fentry_lnet_send(void *ctx)
{
	return lnetcap_on_send(lnetcap_arg(ctx, 1));
}

SEC("fentry/lnet_msg_commit")
int lnetcap_fentry_lnet_msg_commit(void *ctx)
{
	return lnetcap_on_commit(lnetcap_arg(ctx, 0));
}

SEC("fentry/lnet_handle_remote_failure_locked")
int lnetcap_fentry_lnet_handle_remote_failure_locked(void *ctx)
{
	return lnetcap_on_remote_failure(lnetcap_arg(ctx, 0));
}

SEC("fentry/lnet_drop_message")
int lnetcap_fentry_lnet_drop_message(void *ctx)
{
	return lnetcap_on_drop_message();
}

static __always_inline __u64 lnetcap_ret(void *ctx)
{
	__u64 v = 0;

	bpf_get_func_ret(ctx, &v);
	return v;
}

SEC("fexit/lnet_parse")
int lnetcap_fexit_lnet_parse(void *ctx)
{
	return lnetcap_on_parse_ret((int)lnetcap_ret(ctx));
}

/* The reply an RDMA LND makes for a GET it sends (lnetcap_hooks.bpf.h). */
SEC("fexit/lnet_create_reply_msg")
int lnetcap_fexit_lnet_create_reply_msg(void *ctx)
{
	lnetcap_on_create_reply(lnetcap_arg(ctx, 0), lnetcap_arg(ctx, 1));
	return lnetcap_on_create_reply_ret(lnetcap_ret(ctx));
}

SEC("fentry/lnet_set_reply_msg_len")
int lnetcap_fentry_lnet_set_reply_msg_len(void *ctx)
{
	return lnetcap_on_set_reply_len(lnetcap_arg(ctx, 1),
					(__u32)lnetcap_arg(ctx, 2));
}

/* Only the receive-side check (local_nid set) decides a drop in lnet_parse;
 * the LNDs' health simulation calls it without one: local_nid NULL since
 * 2.16 (struct lnet_nid *), LNET_NID_ANY in 2.15, where local_nid is a
 * 64-bit lnet_nid_t value (lnet_nid_to_nid4(&ni->ni_nid), 0 for 0@lo). */
SEC("fexit/lnet_drop_rule_match")
int lnetcap_fexit_lnet_drop_rule_match(void *ctx)
{
	__u64 local = lnetcap_arg(ctx, 1);
	bool rx = cfg.drop_rule_nid4 ? local != ~0ULL : local != 0;

	return lnetcap_on_drop_rule(rx && (lnetcap_ret(ctx) & 0xff) != 0);
}

#elif defined(LNETCAP_MODE_KPROBE) || defined(LNETCAP_MODE_UPROBE)

#if defined(LNETCAP_MODE_KPROBE)
#define LNETCAP_SEC(fn) SEC("kprobe/" #fn)
#define LNETCAP_RET_SEC(fn) SEC("kretprobe/" #fn)
#define LNETCAP_PROG(fn) lnetcap_kprobe_##fn
#define LNETCAP_RET_PROG(fn) lnetcap_kretprobe_##fn
#else
/* Attached by the test to stand-in functions of the same names. */
#define LNETCAP_SEC(fn) SEC("uprobe")
#define LNETCAP_RET_SEC(fn) SEC("uretprobe")
#define LNETCAP_PROG(fn) lnetcap_uprobe_##fn
#define LNETCAP_RET_PROG(fn) lnetcap_uretprobe_##fn
#endif

LNETCAP_SEC(lnet_ni_send)
int LNETCAP_PROG(lnet_ni_send)(struct pt_regs *ctx)
{
	return lnetcap_on_ni_send(PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx));
}

LNETCAP_SEC(lnet_parse)
int LNETCAP_PROG(lnet_parse)(struct pt_regs *ctx)
{
	return lnetcap_on_parse(PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx),
				PT_REGS_PARM3(ctx));
}

LNETCAP_SEC(lnet_finalize)
int LNETCAP_PROG(lnet_finalize)(struct pt_regs *ctx)
{
	return lnetcap_on_finalize(PT_REGS_PARM1(ctx), (int)PT_REGS_PARM2(ctx));
}

LNETCAP_SEC(lnet_send)
int LNETCAP_PROG(lnet_send)(struct pt_regs *ctx)
{
	return lnetcap_on_send(PT_REGS_PARM2(ctx));
}

LNETCAP_SEC(lnet_msg_commit)
int LNETCAP_PROG(lnet_msg_commit)(struct pt_regs *ctx)
{
	return lnetcap_on_commit(PT_REGS_PARM1(ctx));
}

LNETCAP_SEC(lnet_handle_remote_failure_locked)
int LNETCAP_PROG(lnet_handle_remote_failure_locked)(struct pt_regs *ctx)
{
	return lnetcap_on_remote_failure(PT_REGS_PARM1(ctx));
}

LNETCAP_SEC(lnet_drop_message)
int LNETCAP_PROG(lnet_drop_message)(struct pt_regs *ctx)
{
	return lnetcap_on_drop_message();
}

LNETCAP_RET_SEC(lnet_parse)
int LNETCAP_RET_PROG(lnet_parse)(struct pt_regs *ctx)
{
	return lnetcap_on_parse_ret((int)PT_REGS_RC(ctx));
}

/* A return probe has no arguments: any match inside lnet_parse counts
 * (the health simulation's calls come from the LNDs' send path). */
LNETCAP_RET_SEC(lnet_drop_rule_match)
int LNETCAP_RET_PROG(lnet_drop_rule_match)(struct pt_regs *ctx)
{
	return lnetcap_on_drop_rule((PT_REGS_RC(ctx) & 0xff) != 0);
}

#if defined(LNETCAP_MODE_KPROBE)
/* The reply an RDMA LND makes for a GET it sends (lnetcap_hooks.bpf.h):
 * built at entry, kept under the address the function returns. */
SEC("kprobe/lnet_create_reply_msg")
int lnetcap_kprobe_lnet_create_reply_msg(struct pt_regs *ctx)
{
	lnetcap_on_create_reply(PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx));
	return 0;
}

SEC("kretprobe/lnet_create_reply_msg")
int lnetcap_kretprobe_lnet_create_reply_msg(struct pt_regs *ctx)
{
	return lnetcap_on_create_reply_ret(PT_REGS_RC(ctx));
}

SEC("kprobe/lnet_set_reply_msg_len")
int lnetcap_kprobe_lnet_set_reply_msg_len(struct pt_regs *ctx)
{
	return lnetcap_on_set_reply_len(PT_REGS_PARM2(ctx),
					(__u32)PT_REGS_PARM3(ctx));
}
#endif

#if defined(LNETCAP_MODE_UPROBE)
/*
 * Benchmark and test driver: BPF_PROG_TEST_RUN with args (ni, msg, n) runs
 * the lnet_ni_send hook n times on fake structs in the caller's memory.
 */
#include "lnetcap_bench.bpf.h"

SEC("raw_tp")
int lnetcap_bench_ni_send(struct bpf_raw_tracepoint_args *ctx)
{
	struct lnetcap_bench_args a = { ctx->args[0], ctx->args[1] };

	bpf_loop(ctx->args[2], lnetcap_bench_one, &a, 0);
	return 0;
}
#endif

#elif defined(LNETCAP_MODE_BENCH)

/*
 * Benchmark producer reading kernel memory, as the real hooks do: fake
 * Lustre objects live in a map value ("arena") that user space fills with
 * the layout of cfg.lo, pointer fields holding arena-relative offsets;
 * this program turns them into kernel addresses and runs the lnet_ni_send
 * hook body n times (BPF_PROG_TEST_RUN args: n).
 */
#define LNETCAP_ARENA_SIZE 8192
#define LNETCAP_ARENA_NI 0
#define LNETCAP_ARENA_PEER 512
#define LNETCAP_ARENA_MD 1024
#define LNETCAP_ARENA_MSG 2048
#define LNETCAP_ARENA_PAYLOAD 4096

struct lnetcap_arena {
	__u8 b[LNETCAP_ARENA_SIZE];
};
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lnetcap_arena);
} arena SEC(".maps");

#include "lnetcap_bench.bpf.h"

SEC("raw_tp")
int lnetcap_bench_kernel(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 zero = 0;
	__u8 *base = bpf_map_lookup_elem(&arena, &zero);
	struct lnetcap_bench_args a;
	__u64 *p;

	if (!base)
		return 0;
	/* The offsets are load-time constants inside the arena's first 4 KiB. */
	if (cfg.lo.msg_txpeer > 1016 || cfg.lo.msg_md > 1016 || cfg.lo.md_start > 504)
		return 0;
	p = (__u64 *)(base + LNETCAP_ARENA_MSG + cfg.lo.msg_txpeer);
	*p = (__u64)(base + LNETCAP_ARENA_PEER);
	p = (__u64 *)(base + LNETCAP_ARENA_MSG + cfg.lo.msg_md);
	*p = (__u64)(base + LNETCAP_ARENA_MD);
	p = (__u64 *)(base + LNETCAP_ARENA_MD + cfg.lo.md_start);
	*p = (__u64)(base + LNETCAP_ARENA_PAYLOAD);
	a.ni = (__u64)(base + LNETCAP_ARENA_NI);
	a.msg = (__u64)(base + LNETCAP_ARENA_MSG);
	bpf_loop(ctx->args[0], lnetcap_bench_one, &a, 0);
	return 0;
}

#else
#error "define LNETCAP_MODE_FENTRY, LNETCAP_MODE_KPROBE, LNETCAP_MODE_UPROBE or LNETCAP_MODE_BENCH"
#endif
