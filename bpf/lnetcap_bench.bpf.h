/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lnetcap_bench.bpf.h - the loop body shared by the two benchmark/test
 * drivers of lnetcap.bpf.c (user-memory uprobe build and kernel-memory
 * bench build): run the lnet_ni_send hook once per bpf_loop() iteration.
 */
#ifndef LNETCAP_BENCH_BPF_H
#define LNETCAP_BENCH_BPF_H

struct lnetcap_bench_args {
	__u64 ni;
	__u64 msg;
};

static long lnetcap_bench_one(__u32 i, void *data)
{
	struct lnetcap_bench_args *a = data;

	lnetcap_on_ni_send(a->ni, a->msg);
	return 0;
}

#endif /* LNETCAP_BENCH_BPF_H */
