#!/bin/bash
# ktrace.ko in a VM booting one of Debian's kernels under TCG (KREL, by
# default scripts/pick-kernel.sh): the kselftests, the known workload
# recorded by the module and by BPF and checked here record by record,
# their equivalence, exact losses, ring mode, a SCHED_FIFO hog starving the
# reader, the module reference an open file holds, 50 load/record/unload
# cycles, and a clean dmesg.  usage: KREL=RELEASE tests/suites/vm.sh BUILD_DIR.
# TAP output; a kernel that is not installed is a SKIP.
set -u
build=${1:-build}
krel=${KREL:-$(scripts/pick-kernel.sh)}
ktrace=$build/ktrace
R=$build/vm/$krel/results
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/vm.sh"
status() { status_in "$R" "$1"; }
hstatus() { status_in "$H" "$1"; }


echo "TAP version 13"
[ -n "$krel" ] || skip_all "module in a VM" "no kernel headers to pick a kernel from (install linux-headers-amd64)"
. scripts/kernel-paths.sh
kernel_paths "$krel" || skip_all "module in a VM on $krel" "linux-image-$krel is not installed (scripts/install-deps.sh --test)"
[ -f "$kdir/Makefile" ] || skip_all "module in a VM on $krel" "linux-headers-$krel is not installed"
# An arm64 kernel boots in qemu-system-aarch64 with programs built for it.
qemu=qemu-system-x86_64 pbuild=$build
[ "$karch" = arm64 ] && qemu=qemu-system-aarch64 pbuild=$build/arm64
command -v $qemu >/dev/null || skip_all "module in a VM on $krel" "$qemu is not installed"
[ -f "$build/kmod/$krel/kmod/ktrace.ko" ] && [ -x "$pbuild/selftests/ktrace_test" ] ||
	skip_all "module in a VM on $krel" "ktrace.ko or the selftests are not built (make vm-check KREL=$krel)"

start=$(date +%s)
# First a 4-CPU boot in which three CPUs go offline and online while
# recording (its results move aside: each boot starts afresh), then the rest.
H=$build/vm/$krel.hotplug/results
vm_boot "$build" "$krel" hotplug KTRACE_VM_SMP=4 KTRACE_VM_SCRIPT=tests/vm/hotplug-in-vm.sh
hotplug_rc=$?
scripts/vm-run.sh "$build" "$krel" >"$build/vm/$krel.log" 2>&1
ok $? "the VM booted $krel, ran the tests and brought the results back ($(($(date +%s) - start)) s)" ||
	sed 's/^/# /' "$build/vm/$krel.log" | tail -30
# One kernel (KTRACE_VM_MANY_CPUS_KREL, by default scripts/pick-kernel.sh's)
# also boots with 32 CPUs: switch storms on eight of them, each backend.
M=$build/vm/$krel.many/results
many=0
if [ "$krel" = "${KTRACE_VM_MANY_CPUS_KREL-$(scripts/pick-kernel.sh)}" ]; then
	many=1 mstart=$(date +%s)
	vm_boot "$build" "$krel" many KTRACE_VM_SMP=32 KTRACE_VM_MEM=2048 \
		KTRACE_VM_SCRIPT=tests/vm/many-cpus-in-vm.sh
	many_rc=$? many_secs=$(($(date +%s) - mstart))
fi
# One kernel (KTRACE_VM_WIDE_KREL, by default the same) also boots with 72
# CPUs, where allowed-CPU masks go above CPU 63 (tests/vm/wide-masks-in-vm.sh).
W=$build/vm/$krel.wide/results
wide=0
if [ "$krel" = "${KTRACE_VM_WIDE_KREL-$(scripts/pick-kernel.sh)}" ]; then
	wide=1 wstart=$(date +%s)
	vm_boot "$build" "$krel" wide KTRACE_VM_SMP=72 KTRACE_VM_MEM=3072 \
		KTRACE_VM_SCRIPT=tests/vm/wide-masks-in-vm.sh
	wide_rc=$? wide_secs=$(($(date +%s) - wstart))
fi
[ -f "$R/status" ] || { echo "1..$n"; exit 1; }
# Where the time went: the seconds at which each step began.
echo "# steps (s): $(tr '\n' ' ' <"$build/vm/$krel/steps.log")"

[ "$(status insmod)" = 0 ]
ok $? "insmod ktrace.ko on $(cat "$R/uname")"
sed 's/^/# /' "$R/insmod.err"

# The kselftests, one line each.
while read -r line; do
	case $line in
	"ok "*) ok 0 "selftest: ${line#ok [0-9]* }" ;;
	"not ok "*) ok 1 "selftest: ${line#not ok [0-9]* }" ;;
	esac
done < <(grep -E '^(not )?ok [0-9]+ ' "$R/selftest.out")
[ "$(status selftest)" = 0 ]
ok $? "ktrace_test exits 0"
[ "$(status selftest)" = 0 ] || grep -E '^#' "$R/selftest.out" | head -20

# Below the BPF backend's floor (doc/bpf.md) the CLI refuses it and says so:
# its checks are SKIPs with that reason.
bpf_refused=$(sed -n 's/.*error: \(the kernel .* needs Linux .* or later\)$/\1/p' "$R/bpf_workload.err" | head -n 1)
okb() {	# okb BACKEND EXIT-STATUS DESCRIPTION
	if [ "$1" = bpf ] && [ -n "$bpf_refused" ]; then
		skip "$3" "$bpf_refused"
		return 0
	fi
	ok "$2" "$3"
}

for b in kmod bpf; do
	[ "$(status ${b}_workload)" = 0 ]
	okb $b $? "ktrace record --backend $b -- known_workload, in the VM"
	sed 's/^/# /' "$R/${b}_workload.err" | grep -v 'wrote' | head -5
	"$build/tests/check_trace" "$R/$b.fxt" "$R/$b.expect" >"$R/$b.check" 2>&1
	okb $b $? "$b: the workload's records check out"
	grep -E '^(not ok|# timeline)' "$R/$b.check" | sed 's/^/#   /'
done

# ftrace as the witness: ktrace lost none of the switches ftrace saw, and
# every untraced_switch is missing from ftrace's events too.
for b in kmod bpf; do
	[ "$(status ${b}_witness)" = 0 ] &&
		tests/check_witness.py "$ktrace" "$R/${b}_witness.fxt" >"$R/${b}_witness.check" 2>&1
	okb $b $? "$b with --ftrace 'sched:sched_switch': ftrace witnesses that ktrace lost none of its switches, and that each untraced_switch is the kernel's" ||
		{ sed 's/^/# /' "$R/${b}_witness.err" | head -5; sed 's/^/#   /' "$R/${b}_witness.check" | head -10; }
	grep '^#' "$R/${b}_witness.check" 2>/dev/null | head -3 | sed 's/^/#   /'
done

# Interrupt handlers recorded by each backend: named tracks, blamed by
# ktrace latency, and the same runs ftrace's irq events show (TCG's slower
# clock reads and probes: ends within 500 us).
for b in kmod bpf; do
	[ "$(status ${b}_irq)" = 0 ] && [ "$(status ${b}_irqft)" = 0 ] &&
		tests/check_irq.py "$ktrace" "$R/${b}_irq.fxt" "$R/${b}_irqft.fxt" 500 >"$R/${b}_irq.check"
	okb $b $? "$b: interrupt handlers recorded by default: named tracks, blamed in ktrace latency, the same runs as ftrace's" ||
		{ sed 's/^/# /' "$R/${b}_irq.err" "$R/${b}_irqft.err" | head -5; grep -E '^not ok|^#' "$R/${b}_irq.check" | sed 's/^/#   /'; }
	grep -E '^# per CPU' "$R/${b}_irq.check" 2>/dev/null | sed 's/^/#   /'
done

# Equivalence: the same kinds of records with the same fields and states
# (the timer expiries of the workload's sleeper included), but for the runs
# the kernel skipped of a BPF program, which only the BPF backend can have.
# Which threads are pinned ("cpus", on wakeups and on the state dump's
# thread records) depends on what ran, so that argument is compared apart;
# so does where threads blocked long enough to be named, and whether a
# switch's other side was the idle task (its weight is negative): a D or I
# switch-out to idle, which keeps its arguments, happens in one run or not.
shapes() {
	"$ktrace" dump "$1" | grep -E 'switch:|wakeup:|kernel_object:|dropped|"migrate"|"ktrace:timer"' |
		grep -v 'program=' |
		sed -E 's/@[0-9a-f]+ +[0-9.]* *//; s/  \[[^]]*\]$//; s/ cpus=[0-9]+//;
			s/ \(blocked in [^)]*\)/ (blocked in F)/;
			s/(running|blocked|suspended|dying|dead) \(.\)/STATE/;
			s/[0-9]+/N/g; s/=-N/=N/g; s/"[^"]*"/S/g' | sort -u
}
shapes "$R/kmod.fxt" >"$R/kmod.shapes"
shapes "$R/bpf.fxt" >"$R/bpf.shapes"
diff "$R/kmod.shapes" "$R/bpf.shapes" >"$R/shapes.diff"
okb bpf $? "module and BPF write the same kinds of records with the same fields ($(wc -l <"$R/kmod.shapes") shapes)"
states() { "$ktrace" dump "$1" | grep -oE 'switch: tid=[0-9]+ [a-z]+ \(.\)' | grep -oE '\(.\)' | sort -u | tr -d '\n'; }
ks=$(states "$R/kmod.fxt"); bs=$(states "$R/bpf.fxt")
case "$ks" in *"(R)"*"(S)"*) true ;; *) false ;; esac && case "$bs" in *"(R)"*"(S)"*) true ;; *) false ;; esac
okb bpf $? "both backends record preempted (R) and sleeping (S) switch-outs (module: $ks, BPF: $bs)"
sed 's/^/#   /' "$R/shapes.diff" | head -10
km=$("$ktrace" dump "$R/kmod.fxt" | grep -c 'wakeup:.* cpus=')
bm=$("$ktrace" dump "$R/bpf.fxt" | grep -c 'wakeup:.* cpus=')
[ "$km" -gt 0 ] && [ "$bm" -gt 0 ]
okb bpf $? "both backends give a pinned thread's allowed CPUs on its wakeups (module: $km, BPF: $bm wakeups)"

# ktrace latency on known waits, and the latency trigger, in the kernel.
for b in kmod bpf; do
	[ "$(status ${b}_lat)" = 0 ] &&
		tests/check_latency.py "$ktrace" "$R/${b}_lat.fxt" "$R/${b}_lat.expect" 2 >"$R/${b}_lat.check"
	okb $b $? "$b: ktrace latency finds each 20 ms wait behind the hog, its kind, waker and blame" ||
		{ sed 's/^/# /' "$R/${b}_lat.err" | head -5; grep -E '^not ok|^#' "$R/${b}_lat.check" | sed 's/^/#   /'; }
	[ "$(status ${b}_trig)" = 0 ] && grep -q 'latency trigger: thread' "$R/${b}_trig.err" &&
		tests/check_trigger.py "$ktrace" "$R/${b}_trig.fxt" "$R/${b}_trig.expect" 10000000 50000000 \
			>"$R/${b}_trig.check"
	okb $b $? "$b: --stop-on-latency 10ms fires in the kernel on the victim's wait, the snapshot checks out" ||
		{ sed 's/^/# /' "$R/${b}_trig.err" | head -5; grep -E '^not ok|^#' "$R/${b}_trig.check" | sed 's/^/#   /'; }
done

# Where each wait of a fair thread behind a SCHED_FIFO thread was queued,
# its causes and the idle CPU it could have used, from the records.
for b in kmod bpf; do
	for p in place pinned runfree runpin; do
		# Free, the victim may be on the idle CPU 0 when kt_fifo comes,
		# round after round: moved there while it runs (runfree), or woken
		# there (place: seen on 7.2 with BPF beside two other VMs, once
		# in 10 rounds on CPU 1).  One wait behind it will do.
		min=2
		case $p in place | runfree) min=1 ;; esac
		[ "$(status ${b}_$p)" = 0 ] &&
			tests/check_placement.py "$ktrace" "$R/${b}_$p.fxt" "$R/${b}_$p.expect" $min \
				quiet >"$R/${b}_$p.check"
		okb $b $? "$b: placement ($p): each wait's run queues, causes and idle_allowed_elsewhere match the records" ||
			{ sed 's/^/# /' "$R/${b}_$p.err" 2>/dev/null | head -5; grep -E '^not ok|^#' "$R/${b}_$p.check" | sed 's/^/#   /'; }
	done
done

# ktrace watch: each of the three bursts saved and explained (each
# backend re-armed in place after each window).
for b in kmod bpf; do
	if [ "$(status ${b}_watchload)" = $EXIT_CANNOT_RUN_HERE ]; then
		skip "$b: ktrace watch beside three hog bursts" "the workload cannot run here: $(head -1 "$R/${b}_watchload.err")"
	elif [ "$(status ${b}_watch)" = 0 ] && [ "$(status ${b}_watchload)" = 0 ]; then
		tap_include < <(tests/check_spikes.py "$ktrace" "$R/${b}_watch" "$R/${b}_watch.expect" 3 |
			sed 's/^\(\(not \)\?ok [0-9]* - \)/\1'"$b"': watch: /')
	else
		okb $b 1 "$b: ktrace watch beside three hog bursts ran and ended with 0" ||
			{ sed 's/^/# /' "$R/${b}_watch.err" 2>/dev/null | tail -5; sed 's/^/# /' "$R/${b}_watchload.err" 2>/dev/null | head -5; }
	fi
done

# A SCHED_FIFO thread woken where a fair thread spins in the kernel: its
# waits against the kernel's preemption model (not_preempted, or short).
for b in kmod bpf; do
	if [ "$(status ${b}_preempt)" = $EXIT_CANNOT_RUN_HERE ]; then
		skip "$b: a FIFO thread behind a fair one spinning in the kernel" \
			"the workload cannot run here: $(grep -v '^ktrace' "$R/${b}_preempt.err" | head -1)"
		continue
	fi
	[ "$(status ${b}_preempt)" = 0 ] &&
		tests/check_preempt.py "$ktrace" "$R/${b}_preempt.fxt" "$R/${b}_preempt.expect" \
			>"$R/${b}_preempt.check"
	okb $b $? "$b: a FIFO thread behind a fair one spinning in the kernel: not_preempted without full preemption, short with it" ||
		{ sed 's/^/# /' "$R/${b}_preempt.err" 2>/dev/null | head -5; grep -E '^not ok|^#' "$R/${b}_preempt.check" | sed 's/^/#   /'; }
	[ -f "$R/${b}_preempt.check" ] && grep '^# preemption model' "$R/${b}_preempt.check"
done

# CFS bandwidth throttling: both backends record it, in both throttle
# models (6.18's task-based one and the whole-cfs_rq one before), the
# module at the offsets the CLI read from the kernel's BTF.
for b in kmod bpf; do
	want=recorded
	if [ "$(status ${b}_throttle)" = $EXIT_CANNOT_RUN_HERE ]; then
		skip "$b: throttling of a spinner in a cgroup with cpu.max 10000 100000" \
			"$(cat "$R/${b}_throttle.out")"
		continue
	fi
	[ "$(status ${b}_throttle)" = 0 ] &&
		tests/check_throttle.py "$ktrace" "$R/${b}_throttle.fxt" "$R/${b}_throttle.pid" $want \
			>"$R/${b}_throttle.check"
	okb $b $? "$b: a spinner in a cgroup with cpu.max 10000 100000: throttling $want$([ $want = recorded ] && echo ', its waits >= 80% throttled, the cgroup named')" ||
		{ sed 's/^/# /' "$R/${b}_throttle.err" | head -5; grep -E '^not ok|^#' "$R/${b}_throttle.check" | sed 's/^/#   /'; }
	grep -E '^# spinner' "$R/${b}_throttle.check" 2>/dev/null | sed 's/^/#   /'
done

# Each thread's cgroup (v2) from the recorders: children born and gone
# during the recording, one in a cgroup removed before it ends.
for b in kmod bpf; do
	if [ "$(status ${b}_cgroups)" = $EXIT_CANNOT_RUN_HERE ]; then
		skip "$b: short-lived children named with their cgroups" "$(cat "$R/${b}_cgroups.out")"
		continue
	fi
	[ "$(status ${b}_cgroups)" = 0 ] &&
		tests/check_cgroups.py "$ktrace" "$R/${b}_cgroups.fxt" >"$R/${b}_cgroups.check"
	okb $b $? "$b: short-lived children named with their cgroups' ids and paths, in dump, the JSON and latency --by cgroup / --cgroup" ||
		{ sed 's/^/# /' "$R/${b}_cgroups.err" | head -5; grep -E '^not ok|^#' "$R/${b}_cgroups.check" | sed 's/^/#   /'; }
done

# Every thread of a flight recording over short-lived processes is named,
# each child by its own name though pids were reused; beside the trigger too.
for b in kmod bpf; do
	[ "$(status ${b}_churn)" = 0 ] && grep -q 'wrote .* 0 threads without a name' "$R/${b}_churn.err" &&
		tests/check_names.py "$ktrace" "$R/${b}_churn.fxt" "$R/${b}_churn.pids" >"$R/${b}_churn.check"
	okb $b $? "$b: --ring over short-lived processes with reused pids: every thread named, each child by its own name" ||
		{ sed 's/^/# /' "$R/${b}_churn.err" | head -5; grep -E '^not ok|^#' "$R/${b}_churn.check" | sed 's/^/#   /'; }
	[ "$(status ${b}_churntrig)" = 0 ] && grep -q 'latency trigger: thread' "$R/${b}_churntrig.err" &&
		tests/check_trigger.py "$ktrace" "$R/${b}_churntrig.fxt" "$R/${b}_churntrig.expect" 10000000 50000000 \
			>"$R/${b}_churntrig.check" &&
		tests/check_names.py "$ktrace" "$R/${b}_churntrig.fxt" "$R/${b}_churntrig.pids" 1 >>"$R/${b}_churntrig.check"
	okb $b $? "$b: --stop-on-latency beside short-lived processes: the snapshot checks out, every thread named" ||
		{ sed 's/^/# /' "$R/${b}_churntrig.err" | head -5; grep -E '^not ok|^#' "$R/${b}_churntrig.check" | sed 's/^/#   /'; }
done
# cyclictest beside a busy loop on each CPU, recorded by the module: its
# max and p99 against ktrace's timer latency of its thread (check_cyclictest.py).
if [ -z "$(status kmod_cyclictest)" ]; then
	skip "cyclictest in the VM agrees with ktrace" "cyclictest is not installed (apt-get install rt-tests)"
else
	ok "$(status kmod_cyclictest)" "kmod: record -- cyclictest -t1 -p80 with a busy loop on each CPU" ||
		sed 's/^/# /' "$R/kmod_cyclictest.err" | head -5
	"$ktrace" latency "$R/cyc.fxt" --comm cyclictest --json --top 20000 >"$R/cyc.json"
	tap_include < <(tests/check_cyclictest.py "$R/kmod_cyclictest.out" "$R/cyc.json" "vm $krel, kmod" tcg)
	"$ktrace" latency "$R/cyc.fxt" --comm cyclictest --top 1 | sed -n '/worst wait/,$p' | sed 's/^/#   /'
fi

# Stream mode with an 8 KiB buffer: losses counted exactly.
reported=$(sed -n 's/.* \([0-9]*\) dropped.*/\1/p' "$R/kmod_small.err")
in_trace=$("$ktrace" dump --stats --quiet "$R/small.fxt" | sed -n 's/^dropped: \([0-9]*\) records.*/\1/p')
[ "$(status kmod_small)" = 0 ] && [ "${reported:-0}" -gt 0 ] && [ "$reported" = "$in_trace" ]
ok $? "stream mode, 8 KiB buffers: ${reported:-0} losses reported, $in_trace in the trace's loss records"
"$ktrace" dump --strict --quiet "$R/small.fxt"
ok $? "the trace with losses is valid FXT"

# Ring mode keeps the newest data: ping's exit is there, most of its 3000
# switch-ins (the oldest data) are not.
ping=$(sed -n 's/^ping=//p' "$R/ring.expect")
"$ktrace" dump "$R/ring.fxt" >"$R/ring.dump"
ins=$(grep -cE "==> tid=$ping " "$R/ring.dump")
[ "$(status kmod_ring)" = 0 ] && grep -q 'overwritten' "$R/kmod_ring.err" &&
	grep -qE "switch: tid=$ping (dead|dying)" "$R/ring.dump" && [ "$ins" -lt 3000 ]
ok $? "ring mode, 64 KiB buffers: ping's exit (the newest data) is kept, $ins of its 3000 switch-ins remain"
ping=$(sed -n 's/^ping=//p' "$R/bpfring.expect")
"$ktrace" dump --strict "$R/bpfring.fxt" >"$R/bpfring.dump"
ins=$(grep -cE "==> tid=${ping:-none} " "$R/bpfring.dump")
[ "$(status bpf_ring)" = 0 ] && grep -q 'overwritten' "$R/bpf_ring.err" &&
	grep -qE "switch: tid=$ping (dead|dying)" "$R/bpfring.dump" && [ "$ins" -gt 0 ] && [ "$ins" -lt 3000 ]
okb bpf $? "BPF ring mode, 64 KiB buffers: ping's exit is kept, $ins of its 3000 switch-ins remain" ||
	sed 's/^/# /' "$R/bpf_ring.err"

[ "$(status kmod_json)" = 0 ] && node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$R/kmod.json"
ok $? "recording to JSON with the default backend (the module) gives valid JSON"

# The in-kernel API and -p probes through the test module.
[ "$(status api_insmod)" = 0 ] && [ "$(status api)" = 0 ] && "$ktrace" dump --strict "$R/api.fxt" >"$R/api.dump"
ok $? "API events and probes recorded; every interned string resolves (dump --strict)"
sed 's/^/# /' "$R/api.err" | grep -v wrote | head -5
cat >"$R/check_probes.py" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
api = sys.argv[2] == "api"
def count(kind, cat, name):
    return sum(1 for l in lines if f'{kind}:' in l and f'"{cat}":"{name}"' in l)
checks = {} if not api else {
    "instant tick": (count("instant", "test", "tick"), 10),
    "begin outer": (count("duration begin", "test", "outer"), 10),
    "begin inner": (count("duration begin", "test", "inner"), 10),
    "ends": (count("duration end", "test", "outer") + count("duration end", "test", "inner"), 20),
    "counter": (count("counter", "test", "queue"), 10),
    "async": (count("async begin", "test", "request") + count("async end", "test", "request"), 20),
    "flow": (count("flow begin", "test", "handoff") + count("flow end", "test", "handoff"), 20),
    "complete work": (count("duration complete", "test", "work"), 10),
}
checks["kprobe instants"] = (count("instant", "kprobe", "ktrace_api_test_target"), 40)
checks["kretprobe completes"] = (count("duration complete", "kprobe", "ktrace_api_test_target"), 40)
bad = {k: v for k, v in checks.items() if v[0] != v[1]}
if api and not any('label="hello"' in l and 'i=' in l for l in lines if '"tick"' in l):
    bad["tick arguments"] = "missing"
# Recursion nests: sorted by start, each group of four lies inside the one before.
ivs = []
for l in lines:
    if 'duration complete:' in l and '"ktrace_api_test_target"' in l:
        ts = float(l.split()[1]); dur = int(re.search(r'dur=(\d+)', l).group(1))
        ivs.append((int(round(ts * 1e9)), dur))
ivs.sort()
for g in range(0, len(ivs) - 3, 4):
    grp = ivs[g:g + 4]
    for (s0, d0), (s1, d1) in zip(grp, grp[1:]):
        if not (s0 <= s1 and s1 + d1 <= s0 + d0):
            bad["nesting"] = grp
print("# " + (str(bad) if bad else "all counts as expected"))
sys.exit(1 if bad else 0)
PY
python3 "$R/check_probes.py" "$R/api.dump" api
ok $? "10 runs: every API event type, 40 kprobe instants and 40 kretprobe durations nested four deep"
[ "$(status bpf_probes)" = 0 ] && "$ktrace" dump --strict "$R/bpfprobe.fxt" >"$R/bpfprobe.dump" &&
	python3 "$R/check_probes.py" "$R/bpfprobe.dump" probes
okb bpf $? "BPF backend: 40 kprobe instants and 40 nested kretprobe durations, names resolved"
sed 's/^/# /' "$R/bpf_probes.err" | grep -v wrote | head -5
[ "$(status bpf_badprobe)" != 0 ] && grep -q 'kprobe:no_such_function_xyz: no such symbol' "$R/bpf_badprobe.err"
okb bpf $? "BPF backend: an unknown probe symbol is refused before recording, naming it"
sed 's/^/# /' "$R/bpf_badprobe.err" | head -3
[ "$(status api_idle)" = 0 ]
ok $? "the API is a no-op with no session recording"
[ "$(status badprobe)" != 0 ] && grep -q 'kprobe:no_such_function_xyz: no such symbol in this kernel' "$R/badprobe.err"
ok $? "an unknown probe symbol is refused before recording, naming it"
[ "$(status bigbuf)" != 0 ] && grep -q 'Cannot allocate memory (try a smaller --buffer-size)' "$R/bigbuf.err" &&
	[ ! -e "$R/big.fxt" ]
ok $? "buffers larger than the VM's free memory are refused with ENOMEM, nothing written"
sed 's/^/# /' "$R/bigbuf.err" | head -2
[ "$(status api_rmmod)" = 0 ]
ok $? "the test module unloads"
"$ktrace" dump --strict "$R/marks.fxt" >"$R/marks.dump"
[ "$(status marks)" = 0 ] && grep -q 'instant: [0-9]*/[0-9]* "mark":"hello"' "$R/marks.dump" &&
	grep -q 'duration begin: [0-9/]* "build":"compile"' "$R/marks.dump" &&
	grep -q 'duration end: [0-9/]* "build":"compile"' "$R/marks.dump" &&
	grep -q 'counter: [0-9/]* "mark":"depth" id=0 value=42' "$R/marks.dump"
ok $? "ktrace mark: instant, duration begin/end and counter land in the trace on the marking thread"

# A SCHED_FIFO hog on the reader's CPU: the recording completes, every loss
# is counted, and what the workload's records lack, lost records explain.
for name in kmod_hog bpf_hog kmod_hog32K bpf_hog32K; do
	b=${name%%_*} size=${name#*_hog}
	what="FIFO hog on the reader's CPU, $b, ${size:-default} buffers"
	secs=$(awk 'NR == 1 {a = $1} NR == 2 {printf "%.1f", $1 - a}' "$R/$name.time" 2>/dev/null)
	[ "$(status $name)" = 0 ] && [ "$(cat "$R/$name.hogrc" 2>/dev/null)" = 0 ] &&
		"$ktrace" dump --strict --quiet "$R/$name.fxt" >/dev/null 2>"$R/$name.strict"
	okb $b $? "$what: the recording completes ($secs s) and is valid FXT" ||
		sed 's/^/# /' "$R/$name.err" "$R/$name.strict" | head -5
	reported=$(sed -n 's/.* \([0-9]*\) dropped.*/\1/p' "$R/$name.err")
	in_trace=$("$ktrace" dump --stats --quiet "$R/$name.fxt" 2>/dev/null | sed -n 's/^dropped: \([0-9]*\) records.*/\1/p')
	[ -n "$reported" ] && [ "$reported" = "$in_trace" ]
	okb $b $? "$what: ${reported:-no} losses reported, ${in_trace:-none} in the trace's loss records"
	tests/vm/check_losses.py "$ktrace" "$build/tests/check_trace" "$R/$name.fxt" "$R/$name.expect" \
		>"$R/$name.check" 2>&1
	okb $b $? "$what: the workload's records check out, or lost records explain what they lack"
	sed 's/^/#   /' "$R/$name.check"
done

before=$(cat "$R/refcnt.before") open=$(cat "$R/refcnt.open") after=$(cat "$R/refcnt.after")
[ "$open" -ge 1 ] 2>/dev/null && [ "$open" -gt "$before" ] && [ "$after" = "$before" ]
ok $? "/sys/module/ktrace/refcnt: $before, $open while /dev/ktrace is open (rmmod refuses), $after after close"
[ "$(status cycles)" = 0 ] && [ "$(status cycle_trace)" = 0 ]
ok $? "20 rmmod/insmod/record cycles ($(status cycles) failures)"
grep -v 'wrote' "$R/cycles.err" | sed 's/^/# /' | head -5
[ "$(status rmmod_final)" = 0 ]
ok $? "the module unloads at the end"

# Where threads blocked and the critical path, with the module.
if [ -x "$build/tests/chain_workload" ]; then
	[ "$(status kmod_chain)" = 0 ] &&
		tests/check_critical_path.py "$ktrace" "$R/kchain.fxt" "$R/kchain.expect" >"$R/kchain.check" 2>&1
	ok $? "kmod: where each thread blocked, and the critical path of the pipe <- mutex <- hog chain and the timer chain" ||
		{ sed 's/^/# /' "$R/kmod_chain.err" | head -5; grep -E '^not ok|^#' "$R/kchain.check" | sed 's/^/#   /'; }
	[ "$(status kmod_dchain)" = 0 ] &&
		tests/check_critical_path.py "$ktrace" "$R/kdchain.fxt" "$R/kdchain.expect" >"$R/kdchain.check" 2>&1
	ok $? "kmod, default options: the critical path names pipe_read, the futex wait and the timer" ||
		{ sed 's/^/# /' "$R/kmod_dchain.err" | head -5; grep -E '^not ok|^#' "$R/kdchain.check" | sed 's/^/#   /'; }
	[ "$(status kmod_dchain)" = 0 ] &&
		tests/check_blocked_in.py "$ktrace" "$R/kdchain.fxt" 100000 >"$R/kdchain.blocked" 2>&1
	ok $? "kmod, default options: every block of 100 us or more is named at its switch-in ($(head -1 "$R/kdchain.blocked"))" ||
		sed 's/^/# /' "$R/kdchain.blocked" | head -12
fi

# CPU hotplug while recording (the 4-CPU boot): each CPU's offline and
# online records, no thread running on an offline CPU, records read from
# CPUs that came back, the workload's records, every timeline, a clean dmesg.
[ $hotplug_rc = 0 ] && [ "$(cat "$H/nproc" 2>/dev/null)" = 4 ] && [ "$(hstatus insmod)" = 0 ]
ok $? "the 4-CPU VM booted $krel for the hotplug recordings and brought the results back" ||
	tail -20 "$build/vm/$krel.hotplug.log" | sed 's/^/# /'
for name in hotplug_kmod hotplug_bpf hotplug_kmodring hotplug_bpfring; do
	[ "$(hstatus $name)" = 0 ] &&
		tests/check_hotplug.py "$ktrace" "$H/$name.fxt" 5 1,2,3 >"$H/$name.check" 2>&1 &&
		"$build/tests/check_trace" "$H/$name.fxt" "$H/$name.expect" >"$H/$name.wcheck" 2>&1
	okb "$(case $name in *bpf*) echo bpf ;; esac)" $? "$name: CPUs 1-3 off and on line five times while recording: the records, the JSON and the workload check out" ||
		{ sed 's/^/# /' "$H/$name.err" 2>/dev/null | head -5
		  grep -hE '^not ok|^#' "$H/$name.check" "$H/$name.wcheck" 2>/dev/null | sed 's/^/#   /' | head -20; }
	# Every timeline, with no exception for PREEMPT_RT: a blocked thread
	# the kernel woke without a sched_waking the recorder saw is marked
	# by its untraced_wakeup record, which the check counts and accepts.
	[ -s "$H/$name.fxt" ] && check_timeline "$H/$name.fxt" "$name.fxt, recorded in the VM"
done
[ "$(hstatus rmmod)" = 0 ]
ok $? "the module unloads after the hotplug recordings"
bad=$(grep -E "$DMESG_BAD" "$H/dmesg.txt" 2>/dev/null)
[ -s "$H/dmesg.txt" ] && [ -z "$bad" ]
ok $? "dmesg of the hotplug run has no warning, BUG, oops, lockdep or atomic-context report"
[ -n "$bad" ] && echo "$bad" | head -20 | sed 's/^/# /'

# 32 CPUs: every recording complete, nothing lost, every timeline whole,
# the default buffers as ktrace record chose them for 32 CPUs, clean dmesg.
if [ $many = 1 ]; then
	mstatus() { status_in "$M" "$1"; }
	[ $many_rc = 0 ] && [ "$(cat "$M/nproc" 2>/dev/null)" = 32 ] && [ "$(mstatus insmod)" = 0 ]
	ok $? "the 32-CPU VM booted $krel and brought the results back ($many_secs s)" ||
		tail -20 "$build/vm/$krel.many.log" | sed 's/^/# /'
	for b in kmod bpf; do
		stats=$("$ktrace" dump --stats --quiet "$M/${b}_many.fxt" 2>/dev/null)
		recs=$(echo "$stats" | sed -n 's/^records: \([0-9]*\).*/\1/p')
		dropped=$(echo "$stats" | sed -n 's/^dropped: \([0-9]*\) records.*/\1/p')
		cpus=$("$ktrace" dump "$M/${b}_many.fxt" 2>/dev/null | sed -n 's/.* \[\([0-9]*\)\] switch:.*/\1/p' | sort -u | wc -l)
		# One emulated thread runs all 32 CPUs: the reader may fall behind, but every loss is counted.
		reported=$(sed -n 's/.* \([0-9]*\) dropped.*/\1/p' "$M/${b}_many.err")
		[ "$(mstatus ${b}_many)" = 0 ] && [ -n "$dropped" ] && [ "$dropped" = "$reported" ] &&
			[ "${recs:-0}" -gt 0 ] && [ "$cpus" -ge 8 ] &&
			grep -q 'buffers: 4096 KiB per CPU for 32 CPUs, 128 MiB in all' "$M/${b}_many.err"
		okb $b $? "$b on 32 CPUs, eight ping-pongs for 3 s: ${recs:-no} records, switches on $cpus CPUs, ${reported:-?} losses reported and ${dropped:-?} in the trace, 4 MiB buffers each (128 MiB)" ||
			sed 's/^/# /' "$M/${b}_many.err" | head -5
		[ -s "$M/${b}_many.fxt" ] && check_timeline "$M/${b}_many.fxt" "${b}_many.fxt, 32 CPUs"
		[ "$(mstatus ${b}_many_workload)" = 0 ] &&
			"$build/tests/check_trace" "$M/${b}_many_workload.fxt" "$M/${b}_many_workload.expect" \
				>"$M/${b}_many_workload.check" 2>&1
		okb $b $? "$b on 32 CPUs: the workload's records check out" ||
			grep -E '^not ok' "$M/${b}_many_workload.check" 2>/dev/null | sed 's/^/#   /'
	done
	bad=$(grep -E "$DMESG_BAD" "$M/dmesg.txt" 2>/dev/null)
	[ -s "$M/dmesg.txt" ] && [ -z "$bad" ]
	ok $? "dmesg of the 32-CPU run has no warning, BUG, oops, lockdep or atomic-context report"
	[ -n "$bad" ] && echo "$bad" | head -20 | sed 's/^/# /'
fi

# 72 CPUs: masks above CPU 63 in every record that carries one (the state
# dump's, a new thread's, a wakeup's, an affinity change's), and the waits
# of a thread that pins itself to CPU 65 and frees itself (CPUs 64 and 65)
# while CPUs 0 to 63 idle, each checked against the records and the
# workload's own log (tests/check_placement.py): never blamed on a CPU it
# may not use, always on CPU 64 when it may use it and it idled.
if [ $wide = 1 ]; then
	wstatus() { status_in "$W" "$1"; }
	[ $wide_rc = 0 ] && [ "$(cat "$W/nproc" 2>/dev/null)" = 72 ] && [ "$(wstatus insmod)" = 0 ]
	ok $? "the 72-CPU VM booted $krel and brought the results back ($wide_secs s)" ||
		tail -20 "$build/vm/$krel.wide.log" | sed 's/^/# /'
	sleeper=$(sed -n 's/^pinned=//p' "$W/pinned.expect" 2>/dev/null)
	for b in kmod bpf; do
		for p in pinned-running running; do
			t=$W/${b}_wide_$p
			[ "$(wstatus ${b}_wide_$p)" = 0 ] &&
				tests/check_placement.py "$ktrace" "$t.fxt" "$t.expect" 1 quiet >"$t.check"
			okb $b $? "$b on 72 CPUs: placement ($p) on CPUs 64 and 65: each wait's run queues, causes and idle_allowed_elsewhere match the records" ||
				{ sed 's/^/# /' "$t.err" 2>/dev/null | head -5; grep -E '^not ok|^#' "$t.check" | sed 's/^/#   /'; }
			[ -s "$t.fxt" ] && check_timeline "$t.fxt" "${b}_wide_$p.fxt, 72 CPUs"
		done
		t=$W/${b}_wide_pinned-running
		victim=$(sed -n 's/^victim=//p' "$t.expect" 2>/dev/null)
		"$ktrace" dump "$t.fxt" >"$t.dump" 2>&1
		grep -q "kernel_object: thread koid=$sleeper name=\"sleep\" .*cpus=0 cpus1=64\b" "$t.dump" &&
			grep -q "kernel_object: thread koid=$victim .*cpus=0 cpus1=1\b" "$t.dump" &&
			grep -q "wakeup: tid=$victim .*cpus=0 cpus1=3\b" "$t.dump" &&
			grep -q "instant: [0-9]*/$victim \"ktrace:sched\":\"affinity\" cpus=0 cpus1=2\b" "$t.dump"
		okb $b $? "$b on 72 CPUs: a thread pinned to CPU 70 before the recording, a new thread on CPU 64, a wakeup allowing 64-65 and a pin to 65 while running each carry their CPUs above 63" ||
			grep -E "koid=($sleeper|$victim) |tid=$victim |/$victim \"ktrace:sched\":\"affinity\"" "$t.dump" | head -8 | sed 's/^/# /'
		tests/check_perfetto_rules.py "$t.fxt" >"$t.pf" 2>&1
		okb $b $? "$b on 72 CPUs: Perfetto's importer would read the recording without an error" ||
			grep -E '^not ok|^#' "$t.pf" | head -5 | sed 's/^/# /'
	done
	bad=$(grep -E "$DMESG_BAD" "$W/dmesg.txt" 2>/dev/null)
	[ -s "$W/dmesg.txt" ] && [ -z "$bad" ]
	ok $? "dmesg of the 72-CPU run has no warning, BUG, oops, lockdep or atomic-context report"
	[ -n "$bad" ] && echo "$bad" | head -20 | sed 's/^/# /'
fi

# Started in a switch storm: the timelines check out from the first record.
for b in kmod bpf; do
	[ "$(status ${b}_storm)" = 0 ] && [ -s "$R/${b}_storm.fxt" ]
	okb $b $? "$b: a recording started in a ping-pong storm completes" ||
		sed 's/^/# /' "$R/${b}_storm.err" | head -5
	[ -s "$R/${b}_storm.fxt" ] && check_timeline "$R/${b}_storm.fxt" "${b}_storm.fxt, started in a switch storm"
	# Every kind of record starts and stops at the span's edges on every CPU.
	what="$b: ${b}_storm.fxt: the span bounds every record; on every CPU the pairs' wakeups and the switches start and stop together"
	if [ ! -s "$R/${b}_storm.tids" ]; then
		skip "$what" "the ping-pong pairs were not running when the recording ended (no tids in ${b}_storm.tids)"
		continue
	fi
	# shellcheck disable=SC2046 # the tids, one word each
	[ -s "$R/${b}_storm.fxt" ] &&
		tests/check_edges.py "$ktrace" "$R/${b}_storm.fxt" $(cat "$R/${b}_storm.tids") >"$R/${b}_storm.edges"
	okb $b $? "$what" || grep -E '^not ok|^#' "$R/${b}_storm.edges" 2>/dev/null | sed 's/^/# /'
	grep '^# CPU' "$R/${b}_storm.edges" 2>/dev/null | sed 's/^/#  /'
done

# Every recording made in the VM, checked as whole timelines (ktrace dump --check).
for f in kmod bpf small ring bpfring kmod_lat bpf_lat kmod_trig bpf_trig api bpfprobe marks cycle \
	kmod_throttle bpf_throttle kmod_cgroups bpf_cgroups kmod_place bpf_place kmod_pinned bpf_pinned \
	kmod_runfree bpf_runfree kmod_runpin bpf_runpin kmod_preempt bpf_preempt \
	kchain kdchain kmod_witness bpf_witness kmod_churn bpf_churn kmod_churntrig bpf_churntrig cyc \
	kmod_hog bpf_hog kmod_hog32K bpf_hog32K kmod_irq bpf_irq kmod_irqft bpf_irqft; do
	[ -s "$R/$f.fxt" ] || continue
	check_timeline "$R/$f.fxt" "$f.fxt, recorded in the VM"
done

# The module's interface fuzzed for 30 s (tests/fuzz-kmod).
if [ -d "$R/fuzz" ]; then
	source tests/fuzz-kmod/check-results.sh
	fuzz_kmod_check "$R/fuzz"
fi

bad=$(grep -E "$DMESG_BAD" "$R/dmesg.txt")
[ -z "$bad" ]
ok $? "dmesg has no warning, BUG, oops, lockdep or atomic-context report"
[ -n "$bad" ] && echo "$bad" | head -20 | sed 's/^/# /'

# ktrace watch's known spikes of other causes and the module unloaded under
# it, in a boot of their own (tests/suites/watch-vm.sh).
tap_include < <(KREL=$krel tests/suites/watch-vm.sh "$build")
# ktrace-watch.service under systemd as PID 1 (tests/suites/watch-systemd.sh),
# on one kernel only (KTRACE_VM_SYSTEMD_KREL, by default bookworm's generic
# 6.1, whose systemd the guest runs): the unit does not depend on the
# kernel, and each boot costs a minute or more under emulation.
systemd_krel=${KTRACE_VM_SYSTEMD_KREL-$(scripts/pick-kernel.sh --matrix | grep -m 1 '^6\.1\.[0-9.-]*-amd64$')}
if [ "$krel" = "$systemd_krel" ]; then
	tap_include < <(KREL=$krel tests/suites/watch-systemd.sh "$build")
fi

finish
