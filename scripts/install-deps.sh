#!/bin/bash
# Installs on Debian 12 what ktrace needs to build and record: the compiler,
# libbpf/libelf/libtracefs, and the running kernel's headers when Debian has a
# package for them (so ktrace.ko is built for the kernel it will be loaded
# into).  --test adds what the tests and benchmarks need: QEMU, the
# kernels the VM tests boot (images and headers, scripts/kernel-paths.sh
# says where), DKMS, the 6.1 source (for the kselftest harness), python3,
# trace-cmd, libbpf-tools (runqlat), perf, cyclictest and hackbench
# (rt-tests), node and the JavaScript test dependency (Chrome DevTools'
# trace engine).  The kernels are each suite's newest, generic and
# PREEMPT_RT: bookworm's 6.1 and 6.12; bullseye's 5.10
# (its apt source pinned so low that nothing installed is ever upgraded
# from it); unstable's, in a chroot of its own made with debootstrap under
# KTRACE_CACHE (/var/cache/ktrace/sid), since its compiler and C library are
# newer than Debian 12's; and bookworm's arm64 6.1, unpacked under
# KTRACE_CACHE/arm64 (cross-compiled for, booted in qemu-system-aarch64).
# Idempotent; --dry-run says what it would install, and needs no root.
usage="usage: scripts/install-deps.sh [--test] [--dry-run]   (as root, or through sudo)"
set -eu
cd "$(dirname "$0")/.."

test=0 dry=0
for arg in "$@"; do
	case $arg in
	--test) test=1 ;;
	--dry-run|-n) dry=1 ;;
	-h|--help) echo "$usage"; exit 0 ;;
	*) echo "install-deps: unknown option '$arg'; $usage" >&2; exit 2 ;;
	esac
done

# Building the CLI, its manual pages (scdoc) and ktrace.ko, and recording.
packages=(
	build-essential make gcc clang llvm pkg-config scdoc
	libbpf-dev bpftool libelf-dev zlib1g-dev libtracefs-dev libtraceevent-dev
)
# The test suite: the module in VMs booting Debian's 6.1 and 6.12 kernels,
# generic and PREEMPT_RT, with the headers to build it for each (also what
# the DKMS suite builds against, and openssl for DKMS's signing key); the
# kselftest harness from the 6.1 source; cyclictest (rt-tests), which the
# timer suite checks ktrace against; make deb's tools and lintian, for the
# package suite (which installs them into a debootstrap root); systemd,
# which boots the VM that runs ktrace-watch.service (tests/suites/watch-systemd.sh).
test_packages=(
	python3 trace-cmd libbpf-tools linux-perf openssl rt-tests
	qemu-system-x86 busybox-static cpio dkms linux-source-6.1
	linux-image-amd64 linux-headers-amd64
	linux-image-rt-amd64 linux-headers-rt-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64
	linux-image-6.12-rt-amd64 linux-headers-6.12-rt-amd64
	debootstrap gcc-aarch64-linux-gnu qemu-system-arm
	debhelper dh-dkms lintian systemd
	libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 libtracefs-dev:arm64 libtraceevent-dev:arm64
)
if [ $test -eq 1 ]; then
	packages+=("${test_packages[@]}")
	# Only when the commands are missing: NodeSource's nodejs brings its own
	# npm and conflicts with Debian's npm package.
	command -v node >/dev/null 2>&1 || packages+=(nodejs)
	command -v npm >/dev/null 2>&1 || packages+=(npm)
fi

# apt-get that waits while another apt or an unattended upgrade holds dpkg's
# lock (DPkg::Lock::Timeout) or the package lists' (which only a retry can wait for).
apt_get() {
	local err i
	err=$(mktemp)
	for i in $(seq 120); do
		if apt-get -o DPkg::Lock::Timeout=600 "$@" 2>"$err"; then
			cat "$err" >&2; rm -f "$err"; return 0
		fi
		grep -q 'Could not get lock' "$err" || break
		[ "$i" -eq 1 ] && echo "install-deps: another package manager is running; waiting for it" >&2
		sleep 5
	done
	cat "$err" >&2; rm -f "$err"; return 1
}

# --test boots kernels from other suites and architectures: arm64's
# libraries for the arm64 CLI, and bullseye's packages, by name only.
cache=${KTRACE_CACHE:-/var/cache/ktrace}
bullseye_list=/etc/apt/sources.list.d/ktrace-bullseye.sources
bullseye_pin=/etc/apt/preferences.d/ktrace-bullseye
add_sources() {	# -> 0 when the package lists need an update
	local changed=1
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
		changed=0
	fi
	if [ ! -f "$bullseye_pin" ]; then
		cat >"$bullseye_pin" <<'PIN'
# ktrace's VM tests boot bullseye's Linux 5.10 (scripts/install-deps.sh
# --test): packages only bullseye has can be installed from it by name;
# nothing installed from bookworm is ever upgraded or replaced from it.
Package: *
Pin: release n=bullseye
Pin-Priority: 1

Package: *
Pin: release n=bullseye-security
Pin-Priority: 1
PIN
		changed=0
	fi
	if [ ! -f "$bullseye_list" ]; then
		cat >"$bullseye_list" <<'LIST'
# Linux 5.10 for ktrace's VM tests, pinned low in /etc/apt/preferences.d/ktrace-bullseye.
Types: deb
URIs: http://deb.debian.org/debian
Suites: bullseye
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bullseye-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
LIST
		changed=0
	fi
	return $changed
}

source scripts/install-test-kernels.sh

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
# Unpacked but never configured (an interrupted install): apt-get configures it.
unpacked() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok \(unpacked\|half-configured\)'; }
available() { apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [^(]'; }

# The running kernel's headers, named so on Debian and Ubuntu; none when the
# kernel is not a packaged one (then the CLI records with BPF, or build for
# another kernel with KDIR=).
headers=linux-headers-$(uname -r)
select_missing() {	# -> wanted, missing, unconfigured, kernel_note
	local p
	wanted=("${packages[@]}") missing=() unconfigured=()
	kernel_note="no package $headers: no kernel headers to install; the CLI records with BPF (make builds ktrace.ko for installed Debian headers, or KDIR=)"
	if installed "$headers"; then
		kernel_note="$headers is installed: ktrace.ko is built for Linux $(uname -r)"
	elif available "$headers"; then
		kernel_note="$headers: ktrace.ko will be built for Linux $(uname -r)"
		wanted+=("$headers")
	fi
	for p in "${wanted[@]}"; do
		installed "$p" && continue
		missing+=("$p")
		if unpacked "$p"; then unconfigured+=("$p"); fi
	done
}
select_missing

if [ $dry -eq 1 ]; then
	echo "install-deps: $([ $test -eq 1 ] && echo "building, recording and testing" || echo "building and recording"): ${wanted[*]}"
	echo "install-deps: kernel: $kernel_note"
	if [ ${#missing[@]} -eq 0 ]; then
		echo "install-deps: would install: nothing, all installed"
	else
		echo "install-deps: would install: ${missing[*]}"
		[ ${#unconfigured[@]} -eq 0 ] ||
			echo "install-deps: of which unpacked but not configured (apt-get would configure them): ${unconfigured[*]}"
	fi
	if [ $test -eq 1 ]; then
		test_kernels_plan "$cache"
	fi
	if [ $test -eq 1 ] && [ ! -d tests/js/node_modules/@paulirish/trace_engine ]; then
		echo "install-deps: would run: (cd tests/js && npm install --no-audit --no-fund --no-package-lock)"
	fi
	exit 0
fi

if [ $test -eq 1 ] && [ "$(id -u)" -eq 0 ] && add_sources; then
	apt_get update -q
	select_missing
fi
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: run as root to install: ${missing[*]}" >&2
		exit 1
	fi
	apt_get update -q
	# Fresh package lists may know the running kernel's headers.
	select_missing
	echo "install-deps: installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt_get install -y -q --no-install-recommends "${missing[@]}"
fi
echo "install-deps: kernel: $kernel_note"
[ $test -eq 0 ] || test_kernels_install "$cache"

if [ $test -eq 1 ] && [ ! -d tests/js/node_modules/@paulirish/trace_engine ]; then
	(cd tests/js && npm install --no-audit --no-fund --no-package-lock --loglevel=error)
fi
echo "install-deps: done"
