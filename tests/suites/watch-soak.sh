#!/bin/bash
# ktrace watch for ten minutes (KTRACE_SOAK_SECS) in a VM booting one of
# Debian's kernels (KREL), with each backend (KTRACE_SOAK_BACKENDS, "kmod
# bpf"), beside a burst of a SCHED_FIFO hog every 5 s
# (tests/vm/soak-watch-in-vm.sh): its memory (RSS) stays flat, every spike
# file passes ktrace dump --check, spikes.jsonl parses, no window holds an
# unexplained gap (tests/check_spike_windows.py), and the bursts are saved
# and explained.  Long: not part of make check (make vm-watch-soak).
# usage: KREL=RELEASE tests/suites/watch-soak.sh BUILD_DIR.  TAP output; the
# VM's results stay in BUILD_DIR/vm/RELEASE.soak.
set -u
build=${1:-build}
krel=${KREL:-$(scripts/pick-kernel.sh)}
secs=${KTRACE_SOAK_SECS:-600}
backends=${KTRACE_SOAK_BACKENDS:-kmod bpf}
ktrace=$build/ktrace
S=$build/vm/$krel.soak
R=$S/results
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/vm.sh"
status() { status_in "$R" "$1"; }

echo "TAP version 13"
[ -n "$krel" ] || skip_all "ktrace watch soak in a VM" "no kernel headers to pick a kernel from"
. scripts/kernel-paths.sh
kernel_paths "$krel" || skip_all "ktrace watch soak in a VM on $krel" "linux-image-$krel is not installed"
[ -f "$build/kmod/$krel/kmod/ktrace.ko" ] ||
	skip_all "ktrace watch soak in a VM on $krel" "ktrace.ko is not built (make vm-check KREL=$krel)"

script=$(mktemp)
trap 'rm -f "$script"' EXIT
{ head -1 tests/vm/soak-watch-in-vm.sh; echo "soak_secs=$secs backends='$backends'"
  tail -n +2 tests/vm/soak-watch-in-vm.sh; } >"$script"
chmod +x "$script"
start=$(date +%s)
nb=$(echo $backends | wc -w)
vm_boot "$build" "$krel" soak KTRACE_VM_TIMEOUT=$((nb * (secs + 300) + 600)) KTRACE_VM_SCRIPT=$script
rc=$?
ok $rc "the VM booted $krel and ran $secs s of watch with $backends ($(($(date +%s) - start)) s)" ||
	sed 's/^/# /' "$build/vm/$krel.soak.log" | tail -20
[ -f "$R/status" ] || { echo "1..$n"; exit 1; }
for b in $backends; do
	[ "$(status ${b}_soak)" = 0 ] && [ "$(status ${b}_soakload)" = 0 ]
	ok $? "$b: the watch and the bursts ran $secs s, SIGTERM ended the watch with 0" ||
		{ diag "$R/${b}_soak.err" | tail -5; diag "$R/${b}_soakload.err" | head -5; }
	sed -n 's/^ktrace: \(watch: .*\)/#   \1/p' "$R/${b}_soak.err"
	# Flat: the second half's median RSS within 10% of the first half's (a
	# sample taken while a window is analysed shows what that takes, freed
	# after it: the largest are given, not compared).
	read -r first second peak last < <(awk '$2 { v[n++] = $2 } END {
		h = int(n / 2); for (i = 0; i < n; i++) { if (v[i] > p) p = v[i]; w[i] = v[i] }
		for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (i < h && j < h && v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		for (i = h; i < n; i++) for (j = i + 1; j < n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		print v[int(h / 2)] + 0, v[h + int((n - h) / 2)] + 0, p + 0, w[n - 1] + 0 }' "$R/${b}_soak.rss")
	echo "# $b: RSS (KB) every 10 s: $(awk '{printf "%s ", $2}' "$R/${b}_soak.rss")"
	[ "${first:-0}" -gt 0 ] && [ "${second:-0}" -gt 0 ] && [ "$second" -le $((first + first / 10)) ]
	ok $? "$b: the watch's memory is flat: median RSS $first KB in the first half, $second KB in the second (largest $peak KB, $last KB at the end)"
	tap_include < <(tests/check_spike_windows.py "$ktrace" "$R/${b}_soak" | sed 's/^\(\(not \)\?ok [0-9]* - \)/\1'"$b"': /')
	bursts=$(sed -n 's/^bursts=//p' "$R/${b}_soak.expect")
	tap_include < <(tests/check_spike_causes.py "$ktrace" "$R/${b}_soak" "victim=$R/${b}_soak.expect" \
		higher_priority "behind kt_hog" $((bursts * 9 / 10)) | sed 's/^\(\(not \)\?ok [0-9]* - \)/\1'"$b"': /')
done
finish
