#!/bin/bash
# Makes the Debian 12 root the package suite installs ktrace's .deb files
# into: debootstrap --variant=minbase bookworm from deb.debian.org, with its
# security and updates suites, DKMS, man-db, and the headers of Debian 12's
# newest 6.1 generic and 6.12 PREEMPT_RT kernels (the 6.12 headers bring
# the image along; 6.1 has only headers, and depmod's indexes are made for
# it, as an installed kernel has them).  Made once: a root that exists only
# gets the PACKAGEs it lacks.  Exits 4 when the mirror cannot be reached
# (EXIT_CANNOT_RUN_HERE, tests/lib/tap.sh).
# usage: scripts/make-deb-root.sh DIR [PACKAGE...]   (as root; PACKAGEs: more to install)
set -eu
root=${1:?usage: scripts/make-deb-root.sh DIR [PACKAGE...]}
shift
mirror=${DEB_MIRROR:-http://deb.debian.org/debian}
headers=(linux-headers-amd64 linux-headers-6.12-rt-amd64)

in_root() { DEBIAN_FRONTEND=noninteractive scripts/run-in-chroot.sh "$1" /tmp "${@:2}"; }
if [ -f "$root/.ktrace-root-done" ]; then
	# Made before: only PACKAGEs it lacks are added.
	missing=()
	for p in "$@"; do
		in_root "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && exit 0
	in_root "$root" apt-get -q update >>"$root.log" 2>&1 ||
		{ echo "make-deb-root: apt-get update failed in $root (the mirror cannot be reached?)" >&2; exit 4; }
	{ in_root "$root" apt-get install -y -q --no-install-recommends "${missing[@]}" &&
		in_root "$root" apt-get clean; } >>"$root.log" 2>&1 || { tail -20 "$root.log" >&2; exit 1; }
	exit 0
fi
if ! wget -q -T 20 -O /dev/null "$mirror/dists/bookworm/Release" 2>/dev/null &&
	! curl -fsS -m 20 -o /dev/null "$mirror/dists/bookworm/Release" 2>/dev/null; then
	echo "make-deb-root: $mirror cannot be reached" >&2
	exit 4
fi
rm -rf "$root.tmp"
mkdir -p "$(dirname "$root")"
debootstrap --variant=minbase bookworm "$root.tmp" "$mirror" >"$root.log" 2>&1 ||
	{ tail -20 "$root.log" >&2; exit 1; }
security=${mirror%/debian}/debian-security
cat >"$root.tmp/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
# Nothing here asks questions, and no service starts in the chroot.
printf '#!/bin/sh\nexit 101\n' >"$root.tmp/usr/sbin/policy-rc.d"
chmod 755 "$root.tmp/usr/sbin/policy-rc.d"
in_root "$root.tmp" apt-get -q update >>"$root.log" 2>&1
in_root "$root.tmp" apt-get install -y -q --no-install-recommends dkms man-db "${headers[@]}" "$@" >>"$root.log" 2>&1 ||
	{ tail -20 "$root.log" >&2; exit 1; }
for k in $(ls "$root.tmp/lib/modules"); do
	in_root "$root.tmp" depmod "$k" 2>>"$root.log"
done
in_root "$root.tmp" apt-get clean
touch "$root.tmp/.ktrace-root-done"
mv "$root.tmp" "$root"
