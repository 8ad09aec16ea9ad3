#!/bin/bash
# The Debian packages, installed the way test labs install things: make deb,
# lintian on what it built, then in a fresh Debian 12 root (debootstrap
# bookworm from deb.debian.org, with the headers of Debian 12's 6.1 generic
# and 6.12 PREEMPT_RT kernels; made once, cached in BUILD_DIR/deb-root)
# apt-get install of both packages: DKMS builds ktrace.ko for each kernel,
# the command, its manual pages and completion are there; DKMS's kernel hook
# builds it again for a kernel installed later; purging both leaves /usr,
# /lib/modules, /var/lib/dkms and /etc as they were.  Then the module DKMS
# built and the packaged command record in a VM booting each of those
# kernels (scripts/vm-run.sh), where this machine has its image.
# usage: tests/suites/deb.sh BUILD_DIR.  TAP output; SKIPs without root,
# the packaging tools, or when the mirror cannot be reached.
set -u
build=${1:-build}
release=$(cat VERSION)
tmp=$(mktemp -d)
source "$(dirname "$0")/../lib/tap.sh"
mk() { MAKEFLAGS= MAKELEVEL= make -s --no-print-directory O="$build" "$@"; }
cache=$build/deb-root
base=$cache/bookworm
root=$cache/work
debs=$(realpath -m "$build/deb")
trap 'rm -rf "$tmp"' EXIT

echo "TAP version 13"
[ "$(id -u)" -eq 0 ] || skip_all "Debian packages" "not root: debootstrap and chroot need root"
for t in dpkg-buildpackage dh dh_dkms lintian debootstrap; do
	command -v $t >/dev/null || skip_all "Debian packages" "$t is not installed (scripts/install-deps.sh --test)"
done

# ---- make deb, lintian
start=$(date +%s)
mk deb >"$tmp/deb.log" 2>&1
ok $? "make deb ($(( $(date +%s) - start )) s)" || tail -20 "$tmp/deb.log" | diag
cli=$debs/ktrace_${release}_amd64.deb dkms=$debs/ktrace-dkms_${release}_all.deb
[ -f "$cli" ] && [ -f "$dkms" ]
ok $? "it made ${cli##*/} and ${dkms##*/} in $build/deb" || { ls "$debs" | diag; finish; exit; }
deps=$(dpkg-deb -f "$cli" Depends)
grep -q libbpf <<<"$deps" && grep -q libtracefs <<<"$deps"
ok $? "ktrace's dependencies come from what it links ($deps)"
lintian --pedantic "$debs/ktrace_${release}_amd64.changes" >"$tmp/lintian" 2>&1
grep -v 'running with root privileges' "$tmp/lintian" | sed 's/^/  /' >"$tmp/lintian.tags"
! grep -q '^  E:' "$tmp/lintian.tags"
ok $? "lintian --pedantic: no errors ($(grep -c '^  E:' "$tmp/lintian.tags") errors, $(grep -c '^  W:' "$tmp/lintian.tags") warnings, $(grep -c '^  [IP]:' "$tmp/lintian.tags") info/pedantic; overrides in debian/)" ||
	diag "$tmp/lintian.tags"
[ -s "$tmp/lintian.tags" ] && diag "$tmp/lintian.tags"

# ---- the Debian 12 root
start=$(date +%s)
pkgs=$(sed 's/([^)]*)//g; s/,/ /g; s/|[^,]*//g' <<<"$deps")
scripts/make-deb-root.sh "$base" $pkgs >"$tmp/root.log" 2>&1
rc=$?
[ $rc -eq $EXIT_CANNOT_RUN_HERE ] && skip_all "install into a Debian 12 root" "debootstrap cannot reach deb.debian.org: $(tail -1 "$tmp/root.log")"
ok $rc "a Debian 12 root with the 6.1 and 6.12-rt headers in $base ($(( $(date +%s) - start )) s)" ||
	{ tail -20 "$tmp/root.log" | diag; finish; exit; }
kernels=$(cd "$base/lib/modules" && for k in *; do [ -d "$k/build/include" ] && echo "$k"; done)
grep -q '^6\.1\.' <<<"$kernels" && grep -q '^6\.12\..*-rt-' <<<"$kernels"
ok $? "its kernels with headers: $(echo $kernels)"
rm -rf "$root"
cp -a "$base" "$root"
in_root() { DEBIAN_FRONTEND=noninteractive scripts/run-in-chroot.sh "$root" "$debs" "$@"; }
# The packages' dependencies first: what purging ktrace's packages leaves
# is then compared with a root that already had them.
in_root apt-get satisfy -y -q --no-install-recommends "$deps" >"$tmp/deps.log" 2>&1
ok $? "the dependencies are installed in a copy of it" || tail -10 "$tmp/deps.log" | diag

# What "left behind" means: every file and link under /usr (/lib is a
# link to usr/lib), /var/lib/dkms and /etc, and the contents of depmod's
# indexes (which DKMS regenerates).
snapshot() {
	in_root sh -c 'find /usr /var/lib/dkms /etc -xdev \! -type d | sort
		for k in /lib/modules/*/; do sha256sum "$k"modules.* 2>/dev/null; done'
}
snapshot >"$tmp/before"

# ---- apt-get install of both
start=$(date +%s)
in_root sh -c "cd $debs && apt-get install -y -q ./${cli##*/} ./${dkms##*/}" >"$tmp/install.log" 2>&1
ok $? "apt-get install ./${cli##*/} ./${dkms##*/} ($(( $(date +%s) - start )) s with DKMS's builds)" ||
	tail -20 "$tmp/install.log" | diag
grep -E '^Building|^Done|^Skipped|^ktrace.ko (built|skipped|did)' "$tmp/install.log" | diag
for k in $kernels; do
	ko=$(ls "$root/lib/modules/$k/updates/dkms/"ktrace.ko* 2>/dev/null | head -n 1)
	vermagic=$([ -n "$ko" ] && modinfo -F vermagic "$ko" 2>/dev/null)
	in_root dkms status -m ktrace -v "$release" -k "$k" >"$tmp/status" 2>/dev/null
	[ -n "$ko" ] && [ "${vermagic%% *}" = "$k" ] && grep -q ': installed' "$tmp/status"
	ok $? "DKMS built and installed ktrace.ko for $k (${ko#$root}, vermagic ${vermagic%% *})" ||
		{ diag "$tmp/status"; tail -20 "$root/var/lib/dkms/ktrace/$release/build/make.log" 2>/dev/null | diag; }
done
v=$(in_root ktrace --version 2>&1)
[ "${v%% *}" = ktrace ] && [ "$v" = "ktrace $release (module ABI $(sed -n 's/^#define KTRACE_ABI_VERSION[[:space:]]*//p' include/uapi/linux/ktrace.h))" ]
ok $? "ktrace --version: $v (the package's version)"
page=$(in_root man -w ktrace-latency 2>&1)
[ "$page" = /usr/share/man/man1/ktrace-latency.1.gz ]
ok $? "man -w ktrace-latency: $page"
in_root man -w 4 ktrace >"$tmp/out" 2>&1 && in_root sh -c 'MANWIDTH=80 man 4 ktrace 2>/dev/null' | grep -q KTRACE_IOC_START
ok $? "man 4 ktrace: $(cat "$tmp/out")"
in_root bash -c '. /usr/share/bash-completion/completions/ktrace && COMP_WORDS=(ktrace la) COMP_CWORD=1 &&
	_ktrace && [ "${COMPREPLY[*]}" = latency ]'
ok $? "the bash completion is installed and completes 'ktrace la' to latency"

# ---- the package's postinst builds for every kernel with headers, not only
# for the running and the newest one as DKMS's own does (in a chroot,
# whose running kernel is not installed, DKMS builds for all): with the
# running kernel's directory there, as on a lab machine, reconfiguring the
# package (DKMS removes the module and builds it for the running kernel
# alone, which has no headers here) must bring back both.
running=/lib/modules/$(uname -r)
made_running=
[ -e "$root$running" ] || { mkdir -p "$root$running" && made_running=1; }
in_root dpkg-reconfigure ktrace-dkms >"$tmp/reconf.log" 2>&1
rc=$?
[ -n "$made_running" ] && rm -rf "$root$running"
built=
for k in $kernels; do
	in_root dkms status -m ktrace -v "$release" -k "$k" 2>/dev/null | grep -q ': installed' && built="$built $k"
done
[ $rc -eq 0 ] && [ "$built" = " $(echo $kernels)" ] && grep -q "^ktrace.ko built and installed for Linux" "$tmp/reconf.log"
ok $? "ktrace-dkms's postinst builds for every kernel with headers where DKMS builds only for the running one (installed for:$built)" ||
	tail -10 "$tmp/reconf.log" | diag
grep -E 'Building for|^ktrace.ko (built|skipped|did)' "$tmp/reconf.log" | diag

# ---- a kernel installed later: DKMS's hook for new headers builds it
k=$(echo "$kernels" | head -n 1)
in_root dkms remove -m ktrace -v "$release" -k "$k" >"$tmp/hook.log" 2>&1
start=$(date +%s)
in_root /etc/kernel/header_postinst.d/dkms "$k" >>"$tmp/hook.log" 2>&1
in_root dkms status -m ktrace -v "$release" -k "$k" >"$tmp/status" 2>/dev/null
grep -q ': installed' "$tmp/status" && ls "$root/lib/modules/$k/updates/dkms/"ktrace.ko* >/dev/null 2>&1
ok $? "DKMS's kernel hook (/etc/kernel/header_postinst.d/dkms $k) builds it again, as on a kernel upgrade ($(( $(date +%s) - start )) s)" ||
	{ diag "$tmp/status"; tail -10 "$tmp/hook.log" | diag; }

# What the VM below boots: the module as DKMS built it, the packaged command.
vmb=$build/deb-vm
rm -rf "$vmb"
for k in $kernels; do
	ko=$(ls "$root/lib/modules/$k/updates/dkms/"ktrace.ko* 2>/dev/null | head -n 1)
	[ -n "$ko" ] || continue
	mkdir -p "$vmb/kmod/$k/kmod"
	case $ko in
	*.xz) xz -dc "$ko" ;; *.zst) zstd -qdc "$ko" ;; *.gz) gzip -dc "$ko" ;; *) cat "$ko" ;;
	esac >"$vmb/kmod/$k/kmod/ktrace.ko"
done
mkdir -p "$vmb/tests" "$vmb/selftests"
cp "$root/usr/bin/ktrace" "$vmb/ktrace"

# ---- purge: nothing left
in_root apt-get purge -y -q ktrace ktrace-dkms >"$tmp/purge.log" 2>&1
ok $? "apt-get purge ktrace ktrace-dkms" || tail -20 "$tmp/purge.log" | diag
snapshot >"$tmp/after"
diff "$tmp/before" "$tmp/after" >"$tmp/diff"
ok $? "nothing is left behind in /usr, /lib/modules, /var/lib/dkms or /etc ($(wc -l <"$tmp/before") files compared)" ||
	head -20 "$tmp/diff" | diag
rm -rf "$root"

# ---- the DKMS-built module and the packaged command in a VM
for k in $kernels; do
	what="ktrace.ko as DKMS built it for $k, with the packaged ktrace, records in a VM"
	if [ ! -f "$vmb/kmod/$k/kmod/ktrace.ko" ]; then
		skip "$what" "DKMS did not build it"
		continue
	fi
	if [ ! -r "/boot/vmlinuz-$k" ] || [ ! -f "/lib/modules/$k/modules.dep" ]; then
		skip "$what" "this machine has no linux-image-$k to boot (scripts/install-deps.sh --test)"
		continue
	fi
	missing=
	for p in tests/known_workload tests/latency_workload tests/fifo_hog_workload selftests/ktrace_test tests/check_trace; do
		[ -x "$build/$p" ] || missing="$missing $p"
		[ -x "$build/$p" ] && cp "$build/$p" "$vmb/$p"
	done
	if [ -n "$missing" ]; then
		skip "$what" "the VM's test programs are not built ($missing; make check builds them)"
		continue
	fi
	start=$(date +%s)
	KTRACE_VM_SCRIPT=tests/vm/deb-in-vm.sh scripts/vm-run.sh "$vmb" "$k" >"$tmp/vm.log" 2>&1
	rc=$?
	R=$vmb/vm/$k/results
	bad=$(awk '$2 != 0' "$R/status" 2>/dev/null)
	[ $rc -eq 0 ] && [ -z "$bad" ] && [ "$(cat "$R/uname" 2>/dev/null)" = "$k" ]
	ok $? "$what ($(( $(date +%s) - start )) s)" || {
		tail -10 "$tmp/vm.log" | diag
		echo "$bad" | diag
		for s in $(awk '$2 != 0 { print $1 }' "$R/status" 2>/dev/null); do tail -5 "$R/$s.err" | diag; done
	}
	[ $rc -eq 0 ] || continue
	grep -q "^ktrace $release" "$R/version.out"
	ok $? "in the VM: $(cat "$R/version.out"), /dev/ktrace and /dev/ktrace-mark exist"
	"$build/tests/check_trace" "$R/kmod.fxt" "$R/kmod.expect" >"$tmp/check" 2>&1
	rc=$?
	switches=$("$build/ktrace" dump --stats "$R/kmod.fxt" 2>/dev/null | grep -m1 'context switch' | tr -s ' ' | sed 's/^ //')
	ok $rc "$k: the workload's records check out ($switches)" ||
		grep -E '^not ok' "$tmp/check" | head -10 | diag
done

finish
