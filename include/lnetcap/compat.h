/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * compat.h - the few portability macros every shared lnetcap header needs.
 *
 * The headers in include/lnetcap/ are included by four consumers: the C++
 * agent, the BPF programs (clang -target bpf, after vmlinux.h), the
 * GoogleTest suite and the Wireshark plugin (C, glib).  They therefore use
 * only fixed-width __uN types and plain C11; nothing here may pull in libc,
 * glib, libbpf or C++.
 */
#ifndef LNETCAP_COMPAT_H
#define LNETCAP_COMPAT_H

/* vmlinux.h (bpftool btf dump) defines __VMLINUX_H__ and every __uN type. */
#if !defined(__VMLINUX_H__)
#include <linux/types.h>
#endif

#if defined(__cplusplus)
#define LNETCAP_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define LNETCAP_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

/* Every wire and record struct is packed: its layout is defined byte by byte. */
#define LNETCAP_PACKED __attribute__((packed))

#if defined(__cplusplus)
#define LNETCAP_OFFSETOF(type, field) __builtin_offsetof(type, field)
#else
#define LNETCAP_OFFSETOF(type, field) __builtin_offsetof(type, field)
#endif

/* Offset and length of a field, for dissectors and decoders that must not
 * repeat magic numbers: proto_tree_add_item(tree, hf, tvb,
 * base + LNETCAP_OFF(struct x, f), LNETCAP_LEN(struct x, f), enc). */
#define LNETCAP_OFF(type, field) ((int)LNETCAP_OFFSETOF(type, field))
#define LNETCAP_LEN(type, field) ((int)sizeof(((type *)0)->field))

/* Pin a field's offset; a mismatch fails the build of every consumer. */
#define LNETCAP_ASSERT_OFFSET(type, field, off)                                \
	LNETCAP_STATIC_ASSERT(LNETCAP_OFFSETOF(type, field) == (off),          \
			      #type "." #field " must be at offset " #off)
#define LNETCAP_ASSERT_SIZE(type, size)                                        \
	LNETCAP_STATIC_ASSERT(sizeof(type) == (size),                          \
			      #type " must be " #size " bytes")

#endif /* LNETCAP_COMPAT_H */
