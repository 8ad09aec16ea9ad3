#!/bin/bash
# ktrace watch on this machine's kernel with the BPF backend: spikes of a
# known cause at known times (tests/spike_workload.c: bursts of a
# SCHED_FIFO hog on the victim's CPU, quiet between them) are each saved
# and explained (tests/check_spikes.py), by its name or as any real-time
# thread's (--rt) or as its cgroup's (--cgroup), the rate limit counts the
# rest, spikes inside one window are merged, a window that reaches back
# past the last re-arm marks what was not recorded as loss records
# (tests/check_spike_windows.py), a window that starts while the hog runs
# still puts the wait down to it, a throttled cgroup's spinner is caught
# by its preemptions (tests/check_spike_causes.py), and faults end cleanly: a threshold of 0, a --pid that does not run, a
# directory that cannot be written, a full disk, SIGTERM while a window is
# taken, and kill -9 then a restart in the same directory.
# usage: tests/suites/watch.sh BUILD_DIR.  TAP output; SKIPs without root or BTF.
set -u
build=${1:-build}
ktrace=$build/ktrace
workload=$build/tests/spike_workload
tmp=$(mktemp -d)
mnt=
cleanup() {
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
source "$(dirname "$0")/../lib/tap.sh"

echo "TAP version 13"
need_host_bpf "ktrace watch"

# watch_bg NAME DIR ARGS...: a watch of kt_victim in the background, once it records.
watch_bg() {
	local name=$1 dir=$2
	shift 2
	"$ktrace" watch --threshold 10ms --comm kt_victim -o "$dir" --before 100ms --after 10ms \
		"$@" >"$tmp/$name.log" 2>&1 &
	wpid=$!
	wait_for "$tmp/$name.log" 'watching with' || { kill -9 $wpid; return 1; }
}
# watch_end: SIGTERM, and its exit status in $wrc.
watch_end() {
	kill -TERM $wpid 2>/dev/null
	wait $wpid
	wrc=$?
}

# Five bursts of 20 ms, a second apart: five spikes, each saved and explained.
watch_bg known "$tmp/known"
rc=$?
[ $rc -eq 0 ] && "$workload" "$tmp/known.expect" 5 20000 1000 >/dev/null 2>&1
rc=$((rc + $?))
sleep 1
watch_end
[ $rc -eq 0 ] && [ $wrc -eq 0 ]
ok $? "watch beside five bursts of a SCHED_FIFO hog: recorded, and SIGTERM ends it with 0" ||
	diag "$tmp/known.log"
tap_include < <(tests/check_spikes.py "$ktrace" "$tmp/known" "$tmp/known.expect" 5)
sed -n 's/^ktrace: \(watch: .*\)/#   \1/p' "$tmp/known.log"

# A victim gone before its window is taken, past the window's end (the
# watch stopped meanwhile): no record of its exit is in the window, and
# /proc no longer lists it; the window before named it, and so does this.
watch_bg gone "$tmp/gone"
rc=$?
if [ $rc -eq 0 ]; then
	"$workload" "$tmp/gone.expect" 2 20000 3000 >/dev/null 2>&1 &
	load=$!
	wait_for "$tmp/gone/spikes.jsonl" '"tid"' || rc=1
	kill -STOP $wpid
	lines=$(wc -l <"$tmp/gone/spikes.jsonl")
	wait $load
	kill -CONT $wpid
	for i in $(seq 600); do
		[ "$(wc -l <"$tmp/gone/spikes.jsonl")" -ge 2 ] && break
		sleep 0.1
	done
fi
watch_end
victim=$(sed -n 's/^victim=//p' "$tmp/gone.expect" 2>/dev/null)
second=$(sed -n 2p "$tmp/gone/spikes.jsonl" 2>/dev/null)
if [ $rc -ne 0 ]; then
	ok 1 "a victim gone before its window is taken: the watch recorded and saved the first spike" ||
		diag "$tmp/gone.log"
elif [ "${lines:-0}" -ne 1 ] || [ -z "$second" ]; then
	# The second burst came before the first window was read and the
	# trigger armed again: the machine, not the watch.
	skip "a victim gone before its window is taken" \
		"the second spike was not caught while the watch was stopped (${lines:-0} saved before, busy machine)"
else
	[ -n "$victim" ] && [ ! -d /proc/$victim ] && case $second in *"\"verdict\":\""*" latency of kt_victim $victim on CPU"*) true ;; *) false ;; esac
	ok $? "a victim gone before its window is taken is named from the window before (kt_victim $victim)" ||
		echo "$second" | cut -c1-400 | diag /dev/stdin
fi

# --max-rate 2/min: four bursts, two saved, two counted.
watch_bg rate "$tmp/rate" --max-rate 2/min
rc=$?
[ $rc -eq 0 ] && "$workload" "$tmp/rate.expect" 4 20000 700 >/dev/null 2>&1
sleep 1
watch_end
tap_include < <(tests/check_spikes.py "$ktrace" "$tmp/rate" "$tmp/rate.expect" 2 2)

# --rt, with no --comm: any real-time thread's wait (the victim is SCHED_FIFO 5).
"$ktrace" watch --rt --threshold 10ms -o "$tmp/rt" --before 100ms --after 10ms >"$tmp/rt.log" 2>&1 &
wpid=$!
rc=0
wait_for "$tmp/rt.log" 'watching with' || rc=1
[ $rc -eq 0 ] && "$workload" "$tmp/rt.expect" 3 20000 700 >/dev/null 2>&1
sleep 1
watch_end
if [ $rc -eq 0 ] && [ -s "$tmp/rt/spikes.jsonl" ]; then
	tap_include < <(tests/check_spikes.py "$ktrace" "$tmp/rt" "$tmp/rt.expect" 3)
else
	ok 1 "--rt with no --comm: the bursts are spikes" || diag "$tmp/rt.log"
fi

# Bursts 120 ms apart, closer than a window and its re-arm take: windows
# reach back past the last re-arm, and mark what was not recorded as loss
# records (tests/check_spike_windows.py).
watch_bg close "$tmp/close"
rc=$?
[ $rc -eq 0 ] && "$workload" "$tmp/close.expect" 8 20000 120 >/dev/null 2>&1
sleep 1
watch_end
tap_include < <(tests/check_spike_windows.py "$ktrace" "$tmp/close")

# Windows that start while the hog runs (--before 1us: the hog is switched
# in before the victim is woken): the hog's CPU has no record until its
# switch-out, and nothing was lost; each wait is still put down to the
# hog, not to a CPU without history (tests/check_spike_windows.py).
watch_bg late "$tmp/late" --before 1us
rc=$?
[ $rc -eq 0 ] && "$workload" "$tmp/late.expect" 3 20000 300 >/dev/null 2>&1
sleep 1
watch_end
tap_include < <(tests/check_spike_windows.py "$ktrace" "$tmp/late" "$tmp/late.expect" late)

# Four bursts 30 ms apart inside one window (--after 400ms): one spike
# saved, the three others merged into it (same thread, same main cause).
watch_bg merge "$tmp/merge" --after 400ms
rc=$?
[ $rc -eq 0 ] && "$workload" "$tmp/merge.expect" 4 20000 30 >/dev/null 2>&1
sleep 1
watch_end
tap_include < <(tests/check_spike_windows.py "$ktrace" "$tmp/merge" "$tmp/merge.expect" merged)

# --cgroup, in cgroup v2 and in v1's cpu hierarchy: the workload's victim,
# in a child of the cgroup, is watched (with --comm: a wait of the
# workload's other threads on a busy machine would take a window); a watch
# of a sibling cgroup at the same time, with no --comm, sees nothing.
cgroup_case() {	# cgroup_case NAME MOUNT
	local name=$1 cg=$2/ktrace-watch-test-$$ out=$2/ktrace-watch-test-$$-other
	if ! mkdir -p "$cg/child" "$out"; then
		skip "--cgroup in $name" "cannot make a cgroup under $2"
		return
	fi
	# cgroup v1 with RT group scheduling gives a new cgroup no real-time time.
	[ -e "$cg/cpu.rt_runtime_us" ] && echo 200000 >"$cg/cpu.rt_runtime_us" &&
		echo 100000 >"$cg/child/cpu.rt_runtime_us"
	"$ktrace" watch --threshold 10ms --cgroup "$cg" --comm kt_victim -o "$tmp/cg-$name" --before 100ms \
		--after 10ms >"$tmp/cg-$name.log" 2>&1 &
	local win=$!
	"$ktrace" watch --threshold 10ms --cgroup "$out" -o "$tmp/cgout-$name" --before 100ms --after 10ms \
		>"$tmp/cgout-$name.log" 2>&1 &
	local wout=$!
	wait_for "$tmp/cg-$name.log" 'watching with' && wait_for "$tmp/cgout-$name.log" 'watching with'
	rc=$?
	[ $rc -eq 0 ] && sh -c "echo \$\$ >'$cg/child/cgroup.procs' && exec '$workload' '$tmp/cg-$name.expect' 3 20000 700" \
		>/dev/null 2>"$tmp/cg-$name.err"
	rc=$((rc + $?))
	sleep 1
	kill -TERM $win $wout
	wait $win
	local rin=$?
	wait $wout
	local rout=$?
	rmdir "$cg/child" "$cg" "$out" 2>/dev/null
	if [ $rc -ne 0 ] || [ $rin -ne 0 ] || [ $rout -ne 0 ]; then
		ok 1 "--cgroup in $name: the watches and the workload ran" ||
			{ diag "$tmp/cg-$name.log"; diag "$tmp/cg-$name.err"; diag "$tmp/cgout-$name.log"; }
		return
	fi
	tap_include < <(tests/check_spikes.py "$ktrace" "$tmp/cg-$name" "$tmp/cg-$name.expect" 3)
	victim=$(sed -n 's/^victim=//p' "$tmp/cg-$name.expect")
	others=$(grep -vc "\"tid\":$victim," "$tmp/cg-$name/spikes.jsonl")
	[ "$others" -eq 0 ] && [ ! -s "$tmp/cgout-$name/spikes.jsonl" ]
	ok $? "--cgroup in $name: the victim's bursts fire it ($others others); a sibling cgroup's watch saw nothing" ||
		{ diag "$tmp/cg-$name/spikes.jsonl"; diag "$tmp/cgout-$name/spikes.jsonl"; }
}
v2=$(awk '/ - cgroup2 / {print $5; exit}' /proc/self/mountinfo)
v1cpu=$(awk '/ - cgroup / && $NF ~ /(^|,)cpu(,|$)/ {print $5; exit}' /proc/self/mountinfo)
if [ -n "$v2" ]; then cgroup_case v2 "$v2"; else skip "--cgroup in cgroup v2" "no cgroup2 mounted"; fi
if [ -n "$v1cpu" ]; then cgroup_case v1-cpu "$v1cpu"; else skip "--cgroup in cgroup v1's cpu hierarchy" "no v1 cpu controller mounted"; fi
run "$ktrace" watch --threshold 5ms --cgroup /ktrace-no-such-cgroup -o "$tmp/nocg" -d 1
[ $rc -eq 2 ] && grep -q "cgroup '/ktrace-no-such-cgroup': no such cgroup" "$tmp/err" && [ ! -e "$tmp/nocg" ]
ok $? "a --cgroup that is none is refused (exit 2), nothing created" || diag "$tmp/err"

# A spinner in a cgroup whose CPU limit throttles it (10 ms of every
# 100 ms), watched by its cgroup: its preemptions are the spikes, each
# throttled in that cgroup.
tests/throttle_workload.sh "$ktrace" bpf "$tmp/thr/" "$tmp/thr.pid" 1.5 >"$tmp/thr.out" 2>&1
rc=$?
if [ $rc -eq $EXIT_CANNOT_RUN_HERE ]; then
	skip "a throttled cgroup's spikes" "$(cat "$tmp/thr.out")"
elif [ $rc -ne 0 ]; then
	ok 1 "a throttled cgroup's spikes: the watch and the spinner ran" || { diag "$tmp/thr.out"; diag "$tmp/thr.log"; }
else
	tap_include < <(tests/check_spike_causes.py "$ktrace" "$tmp/thr" "@$tmp/thr.pid" throttled \
		"throttled in cgroup /ktrace-throttle-test" 2)
fi

# Refused before anything records, each with what was wrong.
run "$ktrace" watch --threshold 0 -o "$tmp/zero" -d 1
[ $rc -eq 2 ] && grep -q 'threshold.*above 0' "$tmp/err" && [ ! -e "$tmp/zero" ]
ok $? "--threshold 0 is refused (exit 2), nothing created" || diag "$tmp/err"
run "$ktrace" watch -o "$tmp/none" -d 1
[ $rc -eq 2 ] && grep -q 'threshold is required' "$tmp/err"
ok $? "no --threshold is refused (exit 2)" || diag "$tmp/err"
pid=$(($(cat /proc/sys/kernel/pid_max) - 1))
while [ -e /proc/$pid ]; do pid=$((pid - 1)); done
run "$ktrace" watch --threshold 5ms --pid $pid -o "$tmp/nopid" -d 1
[ $rc -eq 1 ] && grep -q "pid $pid: no such thread" "$tmp/err"
ok $? "a --pid that does not run is refused (exit 1)" || diag "$tmp/err"
touch "$tmp/file"
run "$ktrace" watch --threshold 5ms -o "$tmp/file/dir" -d 1
[ $rc -eq 1 ] && grep -q "file/dir: cannot create the directory" "$tmp/err"
ok $? "a directory that cannot be made is refused, named (exit 1)" || diag "$tmp/err"

# A full disk: the windows cannot be written; counted, said, nothing half
# written left, and the watch goes on (a later spike would be saved).  A
# window of a quiet machine takes about 20 KB: three do not fit in 32 KB.
mnt=$tmp/small
mkdir -p "$mnt"
if mount -t tmpfs -o size=32k ktrace-watch-test "$mnt" 2>/dev/null; then
	watch_bg full "$mnt"
	rc=$?
	[ $rc -eq 0 ] && "$workload" "$tmp/full.expect" 3 20000 700 >/dev/null 2>&1
	sleep 1
	watch_end
	unsaved=$(sed -n 's/.* \([0-9]*\) could not be saved.*/\1/p' "$tmp/full.log")
	# What fitted is whole and indexed (the index's own lines may not fit).
	whole=0
	for f in "$mnt"/*.fxt; do
		[ -e "$f" ] || continue
		grep -q "\"fxt\":\"$(basename "$f")\"" "$mnt/spikes.jsonl" && "$ktrace" dump --check "$f" >/dev/null 2>&1 &&
			whole=$((whole + 1)) || whole=-99
	done
	[ $wrc -eq 0 ] && [ "${unsaved:-0}" -ge 1 ] && grep -q 'cannot save the spike of kt_victim' "$tmp/full.log" &&
		! ls -a "$mnt" | grep -q '\.tmp$' && [ $whole -ge 0 ]
	ok $? "a full disk: spikes counted as not saved ($unsaved), said; no partial file, the $whole saved whole; exit 0" ||
		{ diag "$tmp/full.log"; ls -la "$mnt" | diag /dev/stdin; }
	umount "$mnt"
	mnt=
else
	skip "a full disk" "cannot mount a small tmpfs here"
fi

# SIGTERM while a window is still being recorded (--after 500ms): it is
# finished and saved, then the watch ends with 0.
watch_bg term "$tmp/term" --after 500ms
rc=$?
[ $rc -eq 0 ] && "$workload" "$tmp/term.expect" 1 20000 100 >/dev/null 2>&1 &
load=$!
wait_for "$tmp/term.log" 'latency trigger\|spike' || sleep 0.3
kill -TERM $wpid
wait $wpid
wrc=$?
wait $load
saved=$(grep -c '"status":"saved"' "$tmp/term/spikes.jsonl" 2>/dev/null)
[ $wrc -eq 0 ] && [ "${saved:-0}" -eq 1 ] && ! ls -a "$tmp/term" | grep -q '\.tmp$'
ok $? "SIGTERM during a window: the window is finished and saved, exit 0" ||
	{ diag "$tmp/term.log"; ls -la "$tmp/term" | diag /dev/stdin; }

# kill -9, a temporary file left as by a crash mid-write, then a restart in
# the same directory: the index goes on, every line whole, the leftover gone.
watch_bg crash1 "$tmp/crash"
rc=$?
[ $rc -eq 0 ] && "$workload" "$tmp/crash1.expect" 1 20000 300 >/dev/null 2>&1
# The spike in the index before the kill, however busy the machine.
wait_for "$tmp/crash/spikes.jsonl" '"status":"saved"' || rc=1
kill -9 $wpid
wait $wpid 2>/dev/null
echo partial >"$tmp/crash/.20000101T000000.000-kt_victim-1.fxt.tmp"
watch_bg crash2 "$tmp/crash"
rc=$((rc + $?))
[ $rc -eq 0 ] && "$workload" "$tmp/crash2.expect" 1 20000 300 >/dev/null 2>&1
wait_for "$tmp/crash2.log" 'spike:' || rc=1
watch_end
python3 -c "
import json, sys
lines = open('$tmp/crash/spikes.jsonl').read().splitlines()
sys.exit(0 if len(lines) == 2 and all(json.loads(l)['status'] == 'saved' for l in lines) else 1)"
[ $? -eq 0 ] && [ $wrc -eq 0 ] && ! ls -a "$tmp/crash" | grep -q '\.tmp$'
ok $? "kill -9, then a restart in the same directory: both spikes in the index, the leftover removed" ||
	{ diag "$tmp/crash2.log"; diag "$tmp/crash/spikes.jsonl"; }

finish
