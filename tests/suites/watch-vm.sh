#!/bin/bash
# ktrace watch in a VM booting one of Debian's kernels (KREL, by default
# scripts/pick-kernel.sh), with the module and with BPF
# (tests/vm/watch-in-vm.sh): known spikes watched by --cgroup, of a
# throttled cgroup and of a thread that spins in the kernel through the test
# module, each saved and explained with its cause and culprit; and the
# module unloaded under a running watch: refused while it records, also
# while it takes windows and re-arms, nothing saved lost or half written.
# usage: KREL=RELEASE tests/suites/watch-vm.sh BUILD_DIR.  TAP output; the
# VM's results stay in BUILD_DIR/vm/RELEASE.watch.
set -u
build=${1:-build}
krel=${KREL:-$(scripts/pick-kernel.sh)}
ktrace=$build/ktrace
W=$build/vm/$krel.watch
R=$W/results
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/vm.sh"
status() { status_in "$R" "$1"; }

echo "TAP version 13"
[ -n "$krel" ] || skip_all "ktrace watch in a VM" "no kernel headers to pick a kernel from"
. scripts/kernel-paths.sh
kernel_paths "$krel" || skip_all "ktrace watch in a VM on $krel" "linux-image-$krel is not installed"
command -v qemu-system-x86_64 >/dev/null || skip_all "ktrace watch in a VM on $krel" "qemu is not installed"
[ -f "$build/kmod/$krel/kmod/ktrace.ko" ] && [ -f "$build/kmod/$krel/tests/kmod-api/ktrace_api_test.ko" ] ||
	skip_all "ktrace watch in a VM on $krel" "ktrace.ko or the test module is not built (make vm-check KREL=$krel)"

start=$(date +%s)
vm_boot "$build" "$krel" watch KTRACE_VM_SCRIPT=tests/vm/watch-in-vm.sh
ok $? "the VM booted $krel and ran the watch steps ($(($(date +%s) - start)) s)" ||
	sed 's/^/# /' "$build/vm/$krel.watch.log" | tail -20
[ -f "$R/status" ] || { echo "1..$n"; exit 1; }
echo "# steps (s): $(tr '\n' ' ' <"$W/steps.log")"
[ "$(status insmod)" = 0 ] && [ "$(status api_insmod)" = 0 ]
ok $? "insmod ktrace.ko and the test module on $(cat "$R/uname")"

for b in kmod bpf; do
	# Below the BPF backend's floor (doc/bpf.md) the CLI refuses it and says so.
	refused=$(cat "$R/${b}_wcg.err" "$R/${b}_wthr.log" "$R/${b}_wthr.out" "$R/${b}_wspin.err" 2>/dev/null |
		sed -n 's/.*error: \(the kernel .* needs Linux .* or later\)$/\1/p' | head -n 1)
	if [ -n "$refused" ]; then
		skip "$b: watch --cgroup, a throttled cgroup, a spin in the kernel" "$refused"
		continue
	fi
	# --cgroup: the hog's three bursts, the workload in a child of the cgroup.
	if [ "$(cat "$R/cgroup2")" = none ]; then
		skip "$b: watch --cgroup beside three hog bursts" "no cgroup2 in the VM"
	elif [ "$(status ${b}_wcg)" = 0 ] && [ "$(status ${b}_wcgload)" = 0 ]; then
		tap_include < <(tests/check_spikes.py "$ktrace" "$R/${b}_wcg" "$R/${b}_wcg.expect" 3 |
			sed 's/^\(\(not \)\?ok [0-9]* - \)/\1'"$b"': --cgroup: /')
		victim=$(sed -n 's/^victim=//p' "$R/${b}_wcg.expect")
		others=$(grep -vc "\"tid\":$victim," "$R/${b}_wcg/spikes.jsonl")
		[ "$others" -eq 0 ]
		ok $? "$b: --cgroup --comm kt_victim: no other thread fires it ($others others)"
	else
		ok 1 "$b: watch --cgroup beside three hog bursts ran and ended with 0" ||
			{ diag "$R/${b}_wcg.err" | tail -5; diag "$R/${b}_wcgload.err" | head -5; }
	fi
	# A throttled cgroup's spinner.
	if [ "$(status ${b}_wthr)" = $EXIT_CANNOT_RUN_HERE ]; then
		skip "$b: watch of a throttled cgroup" "$(head -1 "$R/${b}_wthr.out")"
	elif [ "$(status ${b}_wthr)" = 0 ]; then
		tap_include < <(tests/check_spike_causes.py "$ktrace" "$R/${b}_wthr" "@$R/${b}_wthr.pid" throttled \
			"throttled in cgroup /ktrace-throttle-test" 1 | sed 's/^\(\(not \)\?ok [0-9]* - \)/\1'"$b"': throttled: /')
	else
		ok 1 "$b: watch of a throttled cgroup ran and ended with 0" ||
			{ diag "$R/${b}_wthr.out"; diag "$R/${b}_wthr.log" | tail -5; }
	fi
	# A thread that spins in the kernel, where the kernel does not preempt it.
	if [ "$(status ${b}_wspinload)" = $EXIT_CANNOT_RUN_HERE ]; then
		skip "$b: watch beside a spin in the kernel" "the workload cannot run here: $(head -1 "$R/${b}_wspinload.err")"
	elif [ "$(status ${b}_wspin)" != 0 ] || [ "$(status ${b}_wspinload)" != 0 ]; then
		ok 1 "$b: watch beside a spin in the kernel ran and ended with 0" ||
			{ diag "$R/${b}_wspin.err" | tail -5; diag "$R/${b}_wspinload.err" | head -5; }
	elif case $krel in *-rt-*) true ;; *) false ;; esac; then
		skip "$b: watch beside a spin in the kernel: not_preempted behind kt_spinner" \
			"PREEMPT_RT preempts the spinner: no kernel-side delay"
	else
		# Full or lazy preemption (PREEMPT_DYNAMIC's choice, Debian's
		# since 6.13) may take the CPU from the spinner at once: no spike
		# need come, and those the spinner held are judged all the same
		# (under emulation 7.2's lazy model kept kt_rt behind it 7.5 ms).
		model=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' "$R/preempt" 2>/dev/null)
		case $model in full | lazy) least=0 ;; *) least=1 ;; esac
		tap_include < <(tests/check_spike_causes.py "$ktrace" "$R/${b}_wspin" "rt=$R/${b}_wspin.expect" \
			not_preempted kt_spinner $least "spinner=$R/${b}_wspin.expect" |
			sed 's/^\(\(not \)\?ok [0-9]* - \)/\1'"$b"': kernel spin'"${model:+ ($model preemption)}"': /')
	fi
done

# The module re-armed between bursts closer than a window takes: what the
# re-arm left unrecorded is marked in the windows that reach back past it.
if [ "$(status kmod_wclose)" = 0 ] && [ "$(status kmod_wcloseload)" = 0 ]; then
	tap_include < <(tests/check_spike_windows.py "$ktrace" "$R/kmod_wclose" |
		sed 's/^\(\(not \)\?ok [0-9]* - \)/\1kmod: bursts 120 ms apart: /')
else
	ok 1 "kmod: watch beside bursts 120 ms apart ran and ended with 0" ||
		{ diag "$R/kmod_wclose.err" | tail -5; diag "$R/kmod_wcloseload.err" | head -5; }
fi

# The module unloaded under a running watch.
[ "$(status kmod_wunload_busy)" != 0 ] && [ "$(status kmod_wunload_alive)" = 0 ] &&
	grep -qi 'in use\|busy\|temporarily' "$R/kmod_wunload_busy.err"
ok $? "rmmod ktrace while a watch records: refused (the module is in use), the watch goes on" ||
	diag "$R/kmod_wunload_busy.err"
d=$R/kmod_wunload
whole=$(python3 - "$ktrace" "$d" <<'EOF'
import json, os, subprocess, sys
ktrace, d = sys.argv[1:3]
lines = open(os.path.join(d, 'spikes.jsonl')).read().splitlines() if os.path.exists(os.path.join(d, 'spikes.jsonl')) else []
bad = 0
for line in lines:
    s = json.loads(line)
    if s['status'] == 'saved':
        bad += subprocess.run([ktrace, 'dump', '--check', os.path.join(d, s['fxt'])],
                              capture_output=True).returncode != 0
        bad += not os.path.exists(os.path.join(d, s['txt']))
tmp = [n for n in os.listdir(d) if n.endswith('.tmp')] if os.path.isdir(d) else []
print(f"{sum(json.loads(l)['status'] == 'saved' for l in lines)} {bad + len(tmp)}")
EOF
)
saved=${whole% *} broken=${whole#* }
[ "$(status kmod_wunload_rmmod)" = 0 ] && [ "$(status kmod_wunload)" = 0 ] && [ "$broken" = 0 ] && [ "$saved" -ge 1 ]
ok $? "rmmod ktrace tried $(status kmod_wunload_tries) times while the watch took windows and re-armed: refused each time ($(status kmod_wunload_rmmod) landed); the watch saved its spikes whole ($saved) and ended with 0" ||
	diag "$R/kmod_wunload.err"
! grep -E "$DMESG_BAD" "$R/dmesg" >/dev/null
ok $? "no warning in dmesg" || grep -E -A5 "$DMESG_BAD" "$R/dmesg" | head -20 | diag /dev/stdin
finish
