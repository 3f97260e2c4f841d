#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# prepare.sh RIG_DIR [LNETCAP_SRC]
#
# Prepares everything the QEMU kernel rig needs, idempotently, under
# RIG_DIR (a build directory; nothing here is ever committed):
#   - Debian 12's own kernel image, the exact ABI the installed
#     linux-headers-amd64 depends on (apt-get download + dpkg -x);
#   - vmlinux extracted from vmlinuz (it carries .BTF/.BTF_ids, the base
#     that module BTF is split against);
#   - resolve_btfids built from linux-source-6.1 (bookworm's
#     linux-kbuild-6.1 does not ship it);
#   - kmod/ built twice: nobtf/ (as a Lustre build usually is: no module
#     BTF) and btf/ (pahole -J --btf_base vmlinux + resolve_btfids, what
#     kbuild's Makefile.modfinal would do with a vmlinux); plus
#     nobtf/lnet.btf, standalone BTF of the double from its DWARF, for
#     `lnetcap --btf` in kprobe mode; and master/, the double as a
#     2.17.57 lnet.ko without BTF (release published, 2.17.55+ structs);
#   - a busybox initramfs that mounts the host root read-only over 9p.
# Writes RIG_DIR/rig.env for run-guest.sh and the tests.
#
# Exit status: 0 ready; 77 a prerequisite cannot be had here (the message
# says which; tests turn it into SKIP); anything else is a real failure.
set -euo pipefail

RIG_DIR=${1:?usage: prepare.sh RIG_DIR [LNETCAP_SRC]}
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
mkdir -p "$RIG_DIR"
RIG_DIR=$(cd "$RIG_DIR" && pwd)
CACHE=$RIG_DIR/cache
mkdir -p "$CACHE"

log() { printf 'rig-prepare: %s\n' "$*" >&2; }
skip() { printf 'rig-prepare: SKIP: %s\n' "$*" >&2; exit 77; }
die() { printf 'rig-prepare: ERROR: %s\n' "$*" >&2; exit 1; }

# Serialise concurrent preparations (ctest -j runs several rig tests).
exec 9>"$RIG_DIR/.prepare.lock"
flock 9

for tool in qemu-system-x86_64 pahole cpio gzip objcopy apt-get dpkg-deb; do
	command -v "$tool" >/dev/null ||
		skip "$tool not installed (scripts/install-deps.sh installs the rig packages)"
done
[ -x /bin/busybox ] || skip "busybox-static not installed (/bin/busybox)"

# --- Which kernel: the ABI the installed headers meta-package points at ----
# (No `| head` or `| grep -q` under pipefail: an early exit of the reader
# would SIGPIPE the writer and fail the pipeline.)
hdr_dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
	grep -m1 -o 'linux-headers-[0-9][^ ,]*-amd64') ||
	skip "linux-headers-amd64 not installed"
[ -n "$hdr_dep" ] || skip "cannot resolve linux-headers-amd64's dependency"
KVER=${hdr_dep#linux-headers-}
KDIR=/usr/src/linux-headers-$KVER
[ -d "$KDIR" ] || skip "$KDIR missing (apt-get install $hdr_dep)"
KPKGVER=$(dpkg-query -W -f='${Version}' "$hdr_dep")
log "kernel $KVER ($KPKGVER), headers $KDIR"

fetch_deb() { # package version -> path of the .deb in the cache
	local pkg=$1 ver=$2 f
	f=$(ls "$CACHE/${pkg}_${ver//:/%3a}_"*.deb 2>/dev/null | sed -n 1p || true)
	if [ -z "$f" ]; then
		log "apt-get download $pkg=$ver"
		(cd "$CACHE" && apt-get download -q "$pkg=$ver" >&2) ||
			skip "cannot download $pkg=$ver from the apt mirror (apt-get update? headers and image must be the same version)"
		f=$(ls "$CACHE/${pkg}_"*"_"*.deb | sed -n 1p)
	fi
	printf '%s\n' "$f"
}

# --- Kernel image --------------------------------------------------------------
KROOT=$RIG_DIR/kernel/$KVER
if [ ! -f "$KROOT/.done" ]; then
	deb=$(fetch_deb "linux-image-$KVER" "$KPKGVER")
	rm -rf "$KROOT"
	mkdir -p "$KROOT"
	dpkg-deb -x "$deb" "$KROOT"
	touch "$KROOT/.done"
fi
VMLINUZ=$KROOT/boot/vmlinuz-$KVER
MODROOT=$KROOT/lib/modules/$KVER
[ -f "$VMLINUZ" ] || die "no $VMLINUZ in the image package"

# --- vmlinux (BTF base) ----------------------------------------------------------
VMLINUX=$KROOT/vmlinux
if [ ! -s "$VMLINUX" ]; then
	# vmlinuz is a bzImage whose payload is an xz stream: find its magic
	# and decompress from there (what scripts/extract-vmlinux does).
	off=$(LC_ALL=C grep -abo $'\xfd''7zXZ' "$VMLINUZ" | cut -d: -f1 | sed -n 1p)
	[ -n "$off" ] || die "no xz payload in $VMLINUZ"
	tail -c +$((off + 1)) "$VMLINUZ" | xz -dc 2>/dev/null >"$VMLINUX.tmp" || true
	sections=$(readelf -S "$VMLINUX.tmp" 2>/dev/null || true)
	[[ $sections == *" .BTF "* ]] || die "extracted vmlinux has no .BTF section"
	mv "$VMLINUX.tmp" "$VMLINUX"
fi

# --- resolve_btfids ----------------------------------------------------------------
RESOLVE_BTFIDS=$RIG_DIR/tools/resolve_btfids
if [ ! -x "$RESOLVE_BTFIDS" ]; then
	srcver=$(dpkg-query -W -f='${Version}' linux-kbuild-6.1 2>/dev/null || echo "$KPKGVER")
	deb=$(fetch_deb linux-source-6.1 "$srcver")
	t=$RIG_DIR/tools/src
	rm -rf "$t"
	mkdir -p "$t"
	log "extracting tools/ from linux-source-6.1"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO --wildcards './usr/src/linux-source-6.1.tar.xz' |
		tar -xJ -C "$t" linux-source-6.1/tools linux-source-6.1/scripts \
			linux-source-6.1/include/uapi \
			linux-source-6.1/include/linux/btf_ids.h \
			linux-source-6.1/Makefile
	log "building resolve_btfids"
	mkdir -p "$t/out"
	make -s -C "$t/linux-source-6.1/tools/bpf/resolve_btfids" \
		OUTPUT="$t/out/" -j"$(nproc)" >"$t/build.log" 2>&1 ||
		{ tail -20 "$t/build.log" >&2; die "resolve_btfids build failed (needs libelf-dev zlib1g-dev)"; }
	cp "$t/out/resolve_btfids" "$RESOLVE_BTFIDS"
	rm -rf "$t"
fi

# --- the modules ------------------------------------------------------------------------
KM=$RIG_DIR/kmod
# Rebuild when a source changed: the stamp holds a hash of kmod/ and the
# shared headers the double includes.
khash=$(cat "$SRC"/kmod/*/Kbuild "$SRC"/kmod/*/*.c "$SRC"/kmod/*/include/*/*.h \
	"$SRC"/include/lnetcap/*.h | sha256sum | cut -c1-16)
if [ "$(cat "$KM/.hash" 2>/dev/null)" != "$khash-$KVER" ]; then
	rm -rf "$KM"
	mkdir -p "$KM/src" "$KM/nobtf" "$KM/btf"
	cp -r "$SRC/kmod/." "$KM/src/"
	for m in lnet lnetcap_kfunc; do
		log "building kmod/$m against $KDIR"
		make -s -C "$KDIR" M="$KM/src/$m" LNETCAP_TOP="$SRC" modules \
			>"$KM/$m.build.log" 2>&1 ||
			{ cat "$KM/$m.build.log" >&2; die "kmod/$m build failed"; }
		! grep -i 'warning' "$KM/$m.build.log" | grep -v 'Skipping BTF' >&2 ||
			die "kmod/$m: compiler warnings (see above)"
	done
	cp "$KM/src/lnet/lnet.ko" "$KM/src/lnetcap_kfunc/lnetcap_kfunc.ko" "$KM/nobtf/"
	cp "$KM/nobtf/"*.ko "$KM/btf/"
	# Same steps and flags as the kernel's Makefile.modfinal (its pahole-flags.sh
	# for pahole 1.24: --btf_gen_floats -j).
	for ko in "$KM/btf/"*.ko; do
		LLVM_OBJCOPY=objcopy pahole -J --btf_gen_floats -j \
			--btf_base "$VMLINUX" "$ko"
		"$RESOLVE_BTFIDS" -b "$VMLINUX" "$ko"
	done
	# Standalone BTF of the double, from the DWARF of the no-BTF build.
	pahole --btf_encode_detached="$KM/nobtf/lnet.btf" "$KM/nobtf/lnet.ko"
	# master/: the double as lnet.ko of Lustre 2.17.57 presents itself
	# without BTF: /sys/module/lnet/version = 2.17.57, 2.17.55+ structs
	# (no BTF and no .btf file: lnetcap must take its built-in table).
	mkdir -p "$KM/master" "$KM/src-master"
	cp -r "$SRC/kmod/lnet/." "$KM/src-master/"
	log "building kmod/lnet (master: release 2.17.57) against $KDIR"
	make -s -C "$KDIR" M="$KM/src-master" LNETCAP_TOP="$SRC" LNETCAP_DOUBLE_RELEASE=2.17.57 \
		modules >"$KM/lnet-master.build.log" 2>&1 ||
		{ cat "$KM/lnet-master.build.log" >&2; die "kmod/lnet (master) build failed"; }
	cp "$KM/src-master/lnet.ko" "$KM/master/"
	echo "$khash-$KVER" >"$KM/.hash"
fi

# --- initramfs -------------------------------------------------------------------------------
INITRD=$RIG_DIR/initramfs.cpio.gz
ihash=$(cat "$SRC/scripts/rig/init.sh" /bin/busybox | sha256sum | cut -c1-16)
if [ "$(cat "$RIG_DIR/.initrd.hash" 2>/dev/null)" != "$ihash-$KVER" ]; then
	ir=$RIG_DIR/initramfs
	rm -rf "$ir"
	mkdir -p "$ir"/{bin,dev,proc,sys,host,lib/modules,tmp}
	cp /bin/busybox "$ir/bin/busybox"
	cp "$SRC/scripts/rig/init.sh" "$ir/init"
	chmod 755 "$ir/init"
	# Modules for virtio-pci + 9p, in dependency order.  The image package
	# ships no modules.dep, so read each module's "depends=" from .modinfo.
	declare -A kopath=()
	while IFS= read -r f; do
		n=$(basename "$f" .ko)
		kopath[${n//-/_}]=$f
	done < <(find "$MODROOT/kernel" -name '*.ko')
	order=()
	declare -A seen=()
	add_mod() {
		local n=${1//-/_} d
		[ -n "${seen[$n]:-}" ] && return 0
		seen[$n]=1
		[ -n "${kopath[$n]:-}" ] || die "module $n not in the image"
		for d in $(objcopy -O binary --only-section=.modinfo "${kopath[$n]}" /dev/stdout |
			tr '\0' '\n' | sed -n 's/^depends=//p' | tr ',' ' '); do
			add_mod "$d"
		done
		order+=("$n")
	}
	for m in virtio_pci 9pnet_virtio 9p; do add_mod "$m"; done
	for n in "${order[@]}"; do
		cp "${kopath[$n]}" "$ir/lib/modules/$n.ko"
		echo "$n.ko" >>"$ir/lib/modules/order"
	done
	(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -6) >"$INITRD.tmp"
	mv "$INITRD.tmp" "$INITRD"
	echo "$ihash-$KVER" >"$RIG_DIR/.initrd.hash"
fi

cat >"$RIG_DIR/rig.env" <<EOF
# Generated by scripts/rig/prepare.sh
RIG_DIR=$RIG_DIR
RIG_KVER=$KVER
RIG_VMLINUZ=$VMLINUZ
RIG_VMLINUX=$VMLINUX
RIG_INITRD=$INITRD
RIG_KMOD_NOBTF=$KM/nobtf
RIG_KMOD_BTF=$KM/btf
RIG_KMOD_MASTER=$KM/master
RIG_RESOLVE_BTFIDS=$RESOLVE_BTFIDS
EOF
log "ready: $RIG_DIR/rig.env"
