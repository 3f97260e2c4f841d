#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Builds lnetcap_kfunc for DKMS: dkms-make.sh KERNELVER KERNEL_SOURCE_DIR
#
# The module reads struct lnet_msg and struct lnet_libmd, so it must be
# compiled with the very <lnet/lib-types.h> of the Lustre the node runs.
# Where those headers are is site specific, so, in this order:
#   1. LNET_INCLUDE (a directory holding lnet/lib-types.h) and LNET_CFLAGS
#      from the environment or from /etc/default/lnetcap-dkms
#      (/etc/sysconfig/lnetcap-dkms on RHEL-like systems);
#   2. a configured Lustre tree: the lustre-client(-modules) DKMS build
#      trees under /var/lib/dkms, then /usr/src/lustre*.
# It fails with a message saying what to set when neither is found: a
# module built against the wrong struct layout would copy wrong bytes.
#
# dkms-make.sh --find-headers only looks for the headers (exit 0 when
# found): dkms.conf uses it to skip the build cleanly on a node without them.
set -eu
find_only=0
if [ "${1-}" = --find-headers ]; then
	find_only=1
	kver=$(uname -r) ksrc=""
else
	kver=${1:?usage: dkms-make.sh KERNELVER KERNEL_SOURCE_DIR}
	ksrc=${2:?usage: dkms-make.sh KERNELVER KERNEL_SOURCE_DIR}
fi

for conf in /etc/default/lnetcap-dkms /etc/sysconfig/lnetcap-dkms; do
	# shellcheck disable=SC1090
	[ -r "$conf" ] && . "$conf"
done
LNET_CFLAGS=${LNET_CFLAGS-}

lustre_flags() {
	# The include path Lustre's own Kbuild uses for its modules.
	t=$1
	flags=""
	[ -f "$t/config.h" ] && flags="-include $t/config.h"
	for d in include libcfs/include lnet/include/uapi lnet/include \
		 lustre/include/uapi lustre/include; do
		[ -d "$t/$d" ] && flags="$flags -I$t/$d"
	done
	echo "$flags"
}

if [ -z "${LNET_INCLUDE-}" ]; then
	for t in /var/lib/dkms/lustre*/*/build /usr/src/lustre*; do
		if [ -f "$t/lnet/include/lnet/lib-types.h" ]; then
			LNET_INCLUDE=$t/lnet/include
			[ -n "$LNET_CFLAGS" ] || LNET_CFLAGS=$(lustre_flags "$t")
			break
		fi
	done
fi
if [ -z "${LNET_INCLUDE-}" ] || [ ! -f "$LNET_INCLUDE/lnet/lib-types.h" ]; then
	echo "lnetcap-dkms: no Lustre headers found for kernel $kver." >&2
	echo "  Set LNET_INCLUDE=<dir holding lnet/lib-types.h> (and LNET_CFLAGS," >&2
	echo "  e.g. '-include <lustre>/config.h -I<lustre>/libcfs/include ...')" >&2
	echo "  in /etc/default/lnetcap-dkms or /etc/sysconfig/lnetcap-dkms," >&2
	echo "  then: dkms build lnetcap/<version> -k $kver" >&2
	exit 1
fi
[ "$find_only" = 0 ] || { echo "$LNET_INCLUDE"; exit 0; }
echo "lnetcap-dkms: building against $LNET_INCLUDE"
make -C "$ksrc" M="$(pwd)" LNET_INCLUDE="$LNET_INCLUDE" \
	LNET_CFLAGS="$LNET_CFLAGS" modules

# BPF programs can call the kfunc only if the module has BTF with resolved
# BTF ids.  Kbuild adds them only when the kernel build directory has a
# vmlinux, which distribution header packages (Debian's linux-headers, most
# kernel-devel) do not ship; then do what Makefile.modfinal would do, with
# the running kernel's BTF as the base, when the tools are there.
ko=lnetcap_kfunc.ko
if ! readelf -S "$ko" 2>/dev/null | grep -q '\.BTF '; then
	base=${BTF_BASE:-}
	[ -n "$base" ] || { [ "$kver" = "$(uname -r)" ] && base=/sys/kernel/btf/vmlinux; }
	rbi=${RESOLVE_BTFIDS:-}
	for c in "$ksrc/tools/bpf/resolve_btfids/resolve_btfids" "$(command -v resolve_btfids || true)"; do
		[ -n "$rbi" ] || { [ -n "$c" ] && [ -x "$c" ] && rbi=$c; }
	done
	if [ -n "$base" ] && [ -r "$base" ] && [ -n "$rbi" ] && command -v pahole >/dev/null; then
		echo "lnetcap-dkms: adding module BTF (base $base)"
		pahole -J --btf_base "$base" "$ko"
		"$rbi" -b "$base" "$ko"
	else
		echo "lnetcap-dkms: WARNING: $ko has no BTF (needs pahole, resolve_btfids" >&2
		echo "  and the kernel's BTF: set BTF_BASE and RESOLVE_BTFIDS); it loads, but" >&2
		echo "  lnetcap cannot call it and captures headers without received payloads." >&2
	fi
fi
