# SPDX-License-Identifier: GPL-2.0
# The kernels the VM suite boots beyond bookworm's own packages, each
# suite's newest, generic and PREEMPT_RT (sourced by install-deps.sh --test,
# which has set up the apt sources; scripts/kernel-paths.sh finds them):
#   bullseye's 5.10        installed as packages from the low-pinned source;
#   unstable's newest      in a chroot, CACHE/sid (debootstrap --variant=minbase),
#                          made once and updated on every run;
#   bookworm's arm64 6.1   unpacked under CACHE/arm64, no package installed:
#                          an arm64 headers package wants arm64's own gcc.
# A package a mirror lacks (bullseye-security's RT image was missing from
# one) moves on to the suite's next newest release.
# test_kernels_plan CACHE; test_kernels_install CACHE

# The releases each version of META in apt source SUITE depends on, newest
# first: linux-image-rt-amd64 -> 5.10.0-46-rt-amd64, 5.10.0-32-rt-amd64.
meta_releases() {	# meta_releases SUITE META [CHROOT]
	local v
	${3:+chroot "$3"} apt-cache madison "$2" | awk -F'|' -v s="$1" '$3 ~ s { gsub(/ /, "", $2); print $2 }' |
		sort -urV | while read -r v; do
			${3:+chroot "$3"} apt-cache depends "$2=$v" | sed -n 's/^ *Depends: linux-[a-z]*-\([0-9][^ ]*\)$/\1/p'
		done | awk '!seen[$0]++'
}

test_kernels_plan() {	# test_kernels_plan CACHE
	echo "install-deps: kernels: bullseye's newest 5.10 (amd64, rt-amd64) from its apt source, pinned at priority 1;" \
		"unstable's newest (amd64, rt-amd64) in the chroot $1/sid (debootstrap --variant=minbase sid," \
		"$([ -x "$1/sid/bin/sh" ] && echo exists || echo "would be made"));" \
		"bookworm's arm64 6.1 unpacked in $1/arm64 ($(ls "$1"/arm64/boot/vmlinuz-* 2>/dev/null | sed 's|.*vmlinuz-||' || true))"
}

bullseye_kernels() {
	local flavour k
	for flavour in amd64 rt-amd64; do
		if ls /boot/vmlinuz-5.10.* 2>/dev/null | grep -qE -- "-[0-9]+-$flavour\$"; then
			k=$(ls /boot/vmlinuz-5.10.* | sed 's|.*vmlinuz-||' | grep -E -- "^5\.10\.0-[0-9]+-$flavour\$" | sort -V | tail -n 1)
			installed "linux-headers-$k" && { echo "install-deps: Linux $k (bullseye) is installed"; continue; }
		fi
		for k in $(meta_releases bullseye "linux-image-$flavour"); do
			echo "install-deps: installing Linux $k from bullseye"
			DEBIAN_FRONTEND=noninteractive apt_get install -y -q --no-install-recommends \
				"linux-image-$k" "linux-headers-$k" && continue 2
			echo "install-deps: Linux $k did not install; trying bullseye's previous release" >&2
		done
		echo "install-deps: no bullseye kernel $flavour installs" >&2
		return 1
	done
}

sid_kernels() {	# sid_kernels CHROOT
	local sid=$1 meta k pkgs=(make kmod)
	if [ ! -x "$sid/bin/sh" ]; then
		echo "install-deps: making the Debian unstable chroot $sid"
		rm -rf "$sid.tmp"
		mkdir -p "$(dirname "$sid")"
		debootstrap --variant=minbase sid "$sid.tmp" http://deb.debian.org/debian
		mv "$sid.tmp" "$sid"
	fi
	# Snapshot mirrors serve unstable's Release file past its Valid-Until.
	echo 'Acquire::Check-Valid-Until "false";' >"$sid/etc/apt/apt.conf.d/99ktrace"
	chroot "$sid" apt-get -q update
	for meta in linux-headers-amd64 linux-headers-rt-amd64; do
		k=$(meta_releases sid "$meta" "$sid" | head -n 1)
		[ -n "$k" ] || { echo "install-deps: unstable has no $meta" >&2; return 1; }
		pkgs+=("linux-headers-$k")
		# Unstable splits the image: the kernel in linux-binary-*, its modules in linux-modules-*.
		if chroot "$sid" apt-cache show "linux-binary-$k" >/dev/null 2>&1; then
			pkgs+=("linux-binary-$k" "linux-modules-$k")
		else
			pkgs+=("linux-image-$k")
		fi
	done
	echo "install-deps: in $sid: ${pkgs[*]}"
	chroot "$sid" env DEBIAN_FRONTEND=noninteractive apt-get -q -y install --no-install-recommends "${pkgs[@]}"
}

arm64_kernel() {	# arm64_kernel DIR
	local dir=$1 k kbuild debs
	k=$(meta_releases bookworm linux-headers-amd64 | head -n 1)
	k=${k%-amd64}-arm64
	if [ -r "$dir/boot/vmlinuz-$k" ] && [ -f "$dir/usr/src/linux-headers-$k/Makefile" ] &&
	   [ -x "$dir/bin/busybox" ]; then
		echo "install-deps: Linux $k (arm64) is unpacked in $dir"
		return 0
	fi
	echo "install-deps: unpacking Linux $k (arm64) in $dir"
	debs=$(mktemp -d)
	(cd "$debs" && apt_get -o APT::Sandbox::User=root download \
		"linux-image-$k:arm64" "linux-headers-$k:arm64" busybox-static:arm64)
	mkdir -p "$dir"
	for d in "$debs"/*.deb; do dpkg-deb -x "$d" "$dir"; done
	rm -rf "$debs"
	# Its Kbuild tools are this machine's (linux-kbuild is Multi-Arch: foreign),
	# and its common headers the amd64 kernel's of the same release.
	kbuild=$(readlink "$dir/usr/src/linux-headers-$k/scripts" | sed 's|^\.\./\.\./lib/||; s|/scripts$||')
	mkdir -p "$dir/usr/lib"
	ln -sfn "/usr/lib/$kbuild" "$dir/usr/lib/$kbuild"
	depmod -b "$dir" "$k"
}

test_kernels_install() {	# test_kernels_install CACHE
	bullseye_kernels
	sid_kernels "$1/sid"
	arm64_kernel "$1/arm64"
}
