# SPDX-License-Identifier: GPL-2.0
# Where a Debian kernel's image, modules and headers are, whichever suite or
# architecture it comes from (sourced by the VM scripts; the Makefile does
# the same for the headers).  scripts/install-deps.sh --test puts them in:
#   /boot, /lib/modules, /usr/src            bookworm's and bullseye's x86-64 kernels
#   $KTRACE_CACHE/sid (a chroot)              unstable's newest kernel, built in there:
#                                             its compiler and C library are newer than Debian 12's
#   $KTRACE_CACHE/arm64 (unpacked packages)   an arm64 kernel, cross-compiled for
# kernel_paths KREL -> kimage, kmoddir, kdir (host paths), kroot (the chroot
# to build in, or empty), karch (x86_64 or arm64); returns 1 when no image
# of KREL is installed.
KTRACE_CACHE=${KTRACE_CACHE:-/var/cache/ktrace}

kernel_paths() {
	local k=$1 sid=$KTRACE_CACHE/sid arm=$KTRACE_CACHE/arm64
	kroot= karch=x86_64
	case $k in *-arm64) karch=arm64 ;; esac
	if [ -r "/boot/vmlinuz-$k" ]; then
		kimage=/boot/vmlinuz-$k kmoddir=/lib/modules/$k kdir=/usr/src/linux-headers-$k
	elif [ -r "$sid/usr/lib/modules/$k/vmlinuz" ]; then
		kimage=$sid/usr/lib/modules/$k/vmlinuz kmoddir=$sid/usr/lib/modules/$k
		kdir=$sid/usr/src/linux-headers-$k kroot=$sid
	elif [ -r "$arm/boot/vmlinuz-$k" ]; then
		kimage=$arm/boot/vmlinuz-$k kmoddir=$arm/lib/modules/$k kdir=$arm/usr/src/linux-headers-$k
	else
		kimage=/boot/vmlinuz-$k kmoddir=/lib/modules/$k kdir=/usr/src/linux-headers-$k
		return 1
	fi
}

# Every installed kernel with its headers, by version.
kernels_installed() {
	local f k
	for f in /boot/vmlinuz-* "$KTRACE_CACHE"/sid/usr/lib/modules/*/vmlinuz "$KTRACE_CACHE"/arm64/boot/vmlinuz-*; do
		[ -r "$f" ] || continue
		case $f in */vmlinuz) k=${f%/vmlinuz}; k=${k##*/} ;; *) k=${f##*/vmlinuz-} ;; esac
		kernel_paths "$k" && [ -f "$kdir/Makefile" ] && echo "$k"
	done | sort -uV
}

# The kernels the VM matrix boots: of each series and flavour installed
# (5.10 generic, 5.10 RT, 6.1 generic, ... arm64), the newest.
kernels_matrix() {
	kernels_installed | awk '{
		split($0, v, /[.-]/); series = v[1] "." v[2]
		flavour = $0; sub(/^[0-9.]+(-[0-9]+)?(\+deb[0-9]+)?-/, "", flavour)
		newest[series " " flavour] = $0	# sorted by version: the last wins
	} END { for (k in newest) print newest[k] }' | sort -V
}
