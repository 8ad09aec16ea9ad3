#!/bin/bash
# Installs what ktrace needs to build, record and test on Debian 12, then the
# JavaScript test dependency (Chrome DevTools' trace engine).  Idempotent.
# usage: scripts/install-deps.sh   (as root, or through sudo)
set -eu
cd "$(dirname "$0")/.."

packages=(
	build-essential make gcc clang llvm pkg-config python3
	libbpf-dev bpftool libelf-dev zlib1g-dev
	libtracefs-dev libtraceevent-dev trace-cmd libbpf-tools
	linux-headers-amd64 linux-image-amd64 linux-source-6.1
	qemu-system-x86 busybox-static cpio
)
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

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

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: run as root to install: ${missing[*]}" >&2
		exit 1
	fi
	echo "install-deps: installing ${missing[*]}"
	apt_get update -q
	DEBIAN_FRONTEND=noninteractive apt_get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ ! -d tests/js/node_modules/@paulirish/trace_engine ]; then
	(cd tests/js && npm install --no-audit --no-fund --no-package-lock --loglevel=error)
fi
echo "install-deps: done"
