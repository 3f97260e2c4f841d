#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# prepare.sh WORK LNETCAP_SRC
#
# After build-lustre.sh: the QEMU rig (scripts/rig/prepare.sh into
# WORK/rig) and the real Lustre modules in the two forms the harness runs:
#   WORK/kmod/nobtf  stripped of debug info, no module BTF: what real
#                    clusters run (lnetcap has to use kprobes)
#   WORK/kmod/btf    with module BTF made as kbuild's Makefile.modfinal
#                    does when a vmlinux is at hand (pahole -J --btf_base
#                    vmlinux, resolve_btfids), then stripped (fentry)
# plus WORK/kernel-ko.list, the guest kernel's modules (guest/lib.sh).
# A server build (WORK/zfs-built, build-zfs.sh) adds the ZFS modules to
# both, stripped: lnetcap needs no BTF of them.
set -euo pipefail
WORK=$(cd "${1:?usage: prepare.sh WORK LNETCAP_SRC}" && pwd)
SRC=$(cd "${2:?usage: prepare.sh WORK LNETCAP_SRC}" && pwd)
[ -f "$WORK/built" ] || { echo "prepare: no finished Lustre build in $WORK (build-lustre.sh)" >&2; exit 2; }

"$SRC/scripts/rig/prepare.sh" "$WORK/rig" "$SRC"
# shellcheck source=/dev/null
. "$WORK/rig/rig.env"
find "$RIG_DIR/kernel/$RIG_KVER/lib/modules/$RIG_KVER/kernel" -name '*.ko' >"$WORK/kernel-ko.list"

K=$WORK/kmod
stamp=$(cat "$WORK/built")-$(stat -c %Y "$WORK/built")-$(cat "$WORK/zfs-built" 2>/dev/null || true)
[ "$(cat "$K/.stamp" 2>/dev/null)" = "$stamp" ] && exit 0
rm -rf "$K"
mkdir -p "$K/nobtf" "$K/btf"
find "$WORK/src" -name '*.ko' -not -path '*/.tmp*' | while read -r ko; do
	n=$(basename "$ko")
	strip --strip-debug -o "$K/nobtf/$n" "$ko"
	cp "$ko" "$K/btf/$n"
	LLVM_OBJCOPY=objcopy pahole -J --btf_gen_floats -j --btf_base "$RIG_VMLINUX" "$K/btf/$n"
	"$RIG_RESOLVE_BTFIDS" -b "$RIG_VMLINUX" "$K/btf/$n"
	strip --strip-debug "$K/btf/$n"
done
if [ -f "$WORK/zfs-built" ]; then
	find "$WORK/zfs/module" -name '*.ko' | while read -r ko; do
		strip --strip-debug -o "$K/nobtf/$(basename "$ko")" "$ko"
		cp "$K/nobtf/$(basename "$ko")" "$K/btf/"
	done
fi
echo "$stamp" >"$K/.stamp"
echo "prepare: $(ls "$K/nobtf" | wc -l) modules in $K/nobtf and $K/btf"
