#!/bin/bash
# The BPF backend on this machine's kernel: the known workload recorded and
# checked record by record, every recording checked as a whole timeline
# (ktrace dump --check), JSON output read by DevTools' trace engine, exact
# loss accounting with a tiny buffer, and the errors a user can hit.
# usage: tests/suites/bpf.sh BUILD_DIR.  TAP output; SKIPs without root.
set -u
build=${1:-build}
ktrace=$build/ktrace
tmp=$(mktemp -d)
trap 'umount "$tmp/full" 2>/dev/null; rm -rf "$tmp"' EXIT
source "$(dirname "$0")/../lib/tap.sh"

echo "TAP version 13"
need_host_bpf "BPF backend"

run "$ktrace" record --backend bpf -o "$tmp/w.fxt" -- "$build/tests/known_workload" "$tmp/expect" 2000
ok $rc "record --backend bpf -- known_workload"
[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/err"
said=$(sed -n "s|.*wrote $tmp/w.fxt: \([0-9]*\) records (\([0-9]*\) from the recorder.*|\1 \2|p" "$tmp/err")
counted=$("$ktrace" dump --stats "$tmp/w.fxt" | sed -n 's/^records: \([0-9]*\) .*/\1/p')
[ -n "$said" ] && [ "${said% *}" = "$counted" ] && [ "${said#* }" -le "$counted" ]
ok $? "record reports what it wrote: the same record count as dump --stats ($said; $counted)" ||
	diag "$tmp/err"
if [ -s "$tmp/expect" ]; then
	"$build/tests/check_trace" "$tmp/w.fxt" "$tmp/expect" >"$tmp/check"
	ok $? "the workload's records check out (names, states, CPUs, timelines, wakeups, counts)"
	grep -E '^(not )?ok' "$tmp/check" | sed 's/^/#   /'
else
	ok 1 "the workload ran"
fi
check_timeline "$tmp/w.fxt" "record --backend bpf -- known_workload"

run "$ktrace" record -o "$tmp/w.json" -- "$build/tests/known_workload" "$tmp/expect2" 200
ok $rc "record to JSON (default backend)" ||
	diag "$tmp/err"
if need_trace_engine "DevTools' trace engine finds ping and pong, their running slices and wakeup flows"; then
	(cd tests/js && node check_recorded.mjs "$tmp/w.json" "$tmp/expect2") >"$tmp/js" 2>&1
	ok $? "DevTools' trace engine finds ping and pong, their running slices and wakeup flows"
	grep -E '^not ok|^#' "$tmp/js" | sed 's/^/# /'
fi

# An 8 KiB buffer per CPU (the smallest), its reader stopped while the workload runs:
# losses are counted, written into the trace, add up to what record
# reports, and every record the programs reserved reached the file.
# The error file emptied first, and appended to: the background job's own
# redirection may come after wait_for has read an earlier run's start line.
: >"$tmp/err"
"$ktrace" record -b 8K -o "$tmp/small.fxt" -d 3 >"$tmp/out" 2>>"$tmp/err" &
pid=$!
wait_for "$tmp/err" 'recording with'
kill -STOP $pid
"$build/tests/known_workload" "$tmp/expect3" 2000
kill -CONT $pid
wait $pid
rc=$?
reported=$(sed -n 's/.* \([0-9]*\) dropped.*/\1/p' "$tmp/err")
in_trace=$("$ktrace" dump --stats --quiet "$tmp/small.fxt" | sed -n 's/^dropped: \([0-9]*\) records.*/\1/p')
[ $rc -eq 0 ] && [ "${reported:-0}" -gt 0 ] && [ "$reported" = "$in_trace" ]
ok $? "a tiny buffer drops records; loss records in the trace add up to the reported ${reported:-0} (trace: $in_trace)" ||
	diag "$tmp/err"
! grep -q 'never published' "$tmp/err"
ok $? "every record the BPF programs reserved was published and read" ||
	diag "$tmp/err"
"$ktrace" dump --strict --quiet "$tmp/small.fxt" 2>"$tmp/err2"
ok $? "the trace with losses is still valid FXT" ||
	diag "$tmp/err2"
check_timeline "$tmp/small.fxt" "an 8 KiB buffer with losses"

# Ring mode, a flight recorder: the newest 1 MiB per CPU survive, so
# ping's exit is there and many of its 20000 switch-ins (some 4 MB) are
# not; the ring holds about a second of a busy machine's other threads
# (a build beside it), so they do not push all of ping's out while the
# workload ends.  ftrace's instance keeps its newest events the same way,
# and that is no loss.
run "$ktrace" record --backend bpf --ring -b 1M --ftrace 'sched:sched_switch,sched:sched_process_exit' \
	-o "$tmp/ring.fxt" -- "$build/tests/known_workload" "$tmp/ring.expect" 20000
ping=$(sed -n 's/^ping=//p' "$tmp/ring.expect")
"$ktrace" dump --strict "$tmp/ring.fxt" >"$tmp/ring.dump"
ins=$(grep -cE "==> tid=${ping:-none} " "$tmp/ring.dump")
[ $rc -eq 0 ] && grep -q 'ring mode kept the newest data; .* MB of older records were overwritten' "$tmp/err" &&
	grep -qE "switch: tid=$ping (dead|dying)" "$tmp/ring.dump" && [ "$ins" -gt 0 ] && [ "$ins" -lt 20000 ] &&
	awk '$2 ~ /^[0-9]+\.[0-9]+$/ { if ($2 < last) bad++; last = $2 } END { exit bad > 0 }' "$tmp/ring.dump"
ok $? "ring mode, 1 MiB buffers: valid, in time order, ping's exit (the newest data) kept, $ins of its 20000 switch-ins remain" ||
	diag "$tmp/err"
fins=$(grep -c "\"sched\":\"sched_switch\".* next_pid=${ping:-none} " "$tmp/ring.dump")
grep -q "\"sched\":\"sched_process_exit\" comm=\"ping\" pid=$ping " "$tmp/ring.dump" &&
	[ "$fins" -gt 0 ] && [ "$fins" -lt 20000 ] && ! grep -q 'ftrace lost' "$tmp/err"
ok $? "ring mode with --ftrace: ftrace keeps its newest events too ($fins of ping's 20000 switch-ins, its exit), no loss reported" ||
	diag "$tmp/err"
check_timeline "$tmp/ring.fxt" "ring mode"

run "$ktrace" record -o "$tmp/d.fxt" -d 0.5
ok $rc "record -d 0.5 stops by itself" ||
	diag "$tmp/err"
"$ktrace" dump --strict --quiet --stats "$tmp/d.fxt" >"$tmp/stats"
grep -q '^cpus: [1-9]' "$tmp/stats"
ok $? "a system-wide recording has context switches with CPUs" ||
	diag "$tmp/stats"
check_timeline "$tmp/d.fxt" "record -d 0.5"

# The recording's edges, while a ping-pong pair pinned to each CPU runs
# through its start and past its end: every kind of record starts and
# stops at one instant on every CPU (trace_info's span), which the
# timeline check holds the recording to as well.
pids=
for cpu in $(seq 0 $(($(nproc) - 1))); do
	"$build/bench/pingpong" 2000000000 "$cpu" >/dev/null &
	pids="$pids $!"
done
sleep 0.2
tids=$(for p in $pids; do ls /proc/"$p"/task; done)
run "$ktrace" record --backend bpf -o "$tmp/edges.fxt" -d 1
# shellcheck disable=SC2086 # the pids, one word each
kill $pids
wait $pids 2>/dev/null
ok $rc "record -d 1 beside a ping-pong pair on each CPU" || diag "$tmp/err"
# shellcheck disable=SC2086 # the tids, one word each
tests/check_edges.py "$ktrace" "$tmp/edges.fxt" $tids >"$tmp/check"
ok $? "the span bounds every record; on every CPU the pair's wakeups and the switches start and stop together" ||
	grep -E '^not ok|^#' "$tmp/check" | diag /dev/stdin
grep '^# CPU' "$tmp/check" | sed 's/^/#  /'
check_timeline "$tmp/edges.fxt" "record -d 1 beside a ping-pong pair on each CPU"

# Ctrl-C (SIGINT), and SIGHUP when the terminal goes away, stop cleanly and
# still write the file.
for sig in INT HUP; do
	# Emptied here, as above.
	: >"$tmp/err"
	"$ktrace" record -o "$tmp/$sig.fxt" >"$tmp/out" 2>>"$tmp/err" &
	pid=$!
	wait_for "$tmp/err" 'recording with .*Ctrl-C stops'
	kill -$sig $pid
	wait $pid
	rc=$?
	[ $rc -eq 0 ] && "$ktrace" dump --strict --quiet "$tmp/$sig.fxt"
	ok $? "SIG$sig stops the recording and the trace is written" ||
		{ echo "# exit status $rc"; diag "$tmp/err"; }
	check_timeline "$tmp/$sig.fxt" "stopped by SIG$sig"
done

# ftrace's own buffers overflow (8 KiB per CPU): what it lost is said and
# is in the trace as loss records from ftrace, per CPU.
run "$ktrace" record --ftrace 'sched:*,irq:*,timer:*' -b 8K -o "$tmp/fl.fxt" -- "$build/tests/known_workload" "$tmp/fl.expect" 3000
lost=$(sed -n 's/.*ftrace lost \([0-9]*\) events in its buffers.*/\1/p' "$tmp/err")
in_trace=$("$ktrace" dump --strict "$tmp/fl.fxt" |
	awk '/"ktrace:meta":"dropped".*source="ftrace"/ { for (i = 1; i <= NF; i++) if ($i ~ /^count=/) n += substr($i, 7) } END { print n + 0 }')
[ $rc -eq 0 ] && [ "${lost:-0}" -gt 0 ] && [ "$lost" = "$in_trace" ]
ok $? "ftrace's losses are reported (${lost:-0}) and in the trace as loss records ($in_trace)" || diag "$tmp/err"
check_timeline "$tmp/fl.fxt" "--ftrace with ftrace's losses"

# A thread alive at the start that exits (and is reaped) during the
# recording keeps its name: the state dump is taken at the start.
cp /bin/sleep "$tmp/kt-early-exit"
"$tmp/kt-early-exit" 60 &
sp=$!
: >"$tmp/err"
"$ktrace" record -o "$tmp/early.fxt" -d 2 >"$tmp/out" 2>>"$tmp/err" &
pid=$!
wait_for "$tmp/err" 'recording with'
kill $sp
wait $sp 2>/dev/null
wait $pid
rc=$?
[ $rc -eq 0 ] && [ ! -d /proc/$sp ] &&
	"$ktrace" dump --strict "$tmp/early.fxt" | grep -q "kernel_object: thread koid=$sp name=\"kt-early-exit\""
ok $? "a thread that exits during the recording is named (state dump at the start)" ||
	diag "$tmp/err"
check_timeline "$tmp/early.fxt" "record -d 2 beside an exiting thread"

# A real ftrace capture (irq and timer events, the top-level instance, its
# state restored) while ktrace records: merged, clocks aligned by markers.
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
if [ -w $T/trace_marker ]; then
	was_on=$(cat $T/tracing_on)
	irq_was=$(cat $T/events/irq/enable)
	timer_was=$(cat $T/events/timer/hrtimer_expire_entry/enable)
	echo 0 >$T/tracing_on; echo >$T/trace
	echo 1 >$T/events/irq/enable; echo 1 >$T/events/timer/hrtimer_expire_entry/enable
	echo 1 >$T/tracing_on
	"$ktrace" record -o "$tmp/live.fxt" -d 1 2>/dev/null
	live_rc=$?
	echo 0 >$T/tracing_on
	cp $T/trace "$tmp/live.txt"
	echo >$T/trace
	echo "$irq_was" | grep -q 1 || echo 0 >$T/events/irq/enable
	echo "$timer_was" >$T/events/timer/hrtimer_expire_entry/enable
	echo "$was_on" >$T/tracing_on
	run "$ktrace" merge "$tmp/live.fxt" "$tmp/live.txt" -o "$tmp/live-merged.fxt"
	residual=$(sed -n 's/.*residual \([0-9]*\) ns.*/\1/p' "$tmp/err")
	[ $rc -eq 0 ] && grep -q 'aligned by 2 sync markers' "$tmp/err" && [ "${residual:-999999}" -le 2000 ] &&
		"$ktrace" dump --strict --quiet "$tmp/live-merged.fxt"
	ok $? "real ftrace output captured meanwhile merges, aligned by 2 markers (residual ${residual:-?} ns, text has us precision)" ||
		sed 's/^/# /' "$tmp/err"
	ok $live_rc "record -d 1 beside the top-level ftrace instance"
	check_timeline "$tmp/live.fxt" "record -d 1 beside the top-level ftrace instance"
else
	skip "merging a live ftrace capture" "$T/trace_marker is not writable"
fi

# Live capture from a private instance: typed events, durations, time order,
# and tracefs left as it was (the instance removed), also on errors.
# A recording's tracefs instances left behind: those named after a ktrace
# that has exited (others on this machine may be recording meanwhile).
leaked_instances() {
	local d pid
	for d in /sys/kernel/tracing/instances/ktrace-*; do
		pid=${d##*/ktrace-}
		case $pid in ''|*[!0-9]*) continue ;; esac
		[ -d "/proc/$pid" ] || echo "$d"
	done
}
run "$ktrace" record --ftrace 'irq:*,timer:hrtimer_expire_entry,sched:sched_process_exec' \
	-o "$tmp/ft.fxt" -- sh -c 'sleep 0.3; /bin/true'
"$ktrace" dump --strict "$tmp/ft.fxt" >"$tmp/ft.dump"
[ $rc -eq 0 ] && grep -q 'ftrace: [0-9]* events, clock mono, offset -\?[0-9]* ns from 2 sync markers' "$tmp/err" &&
	grep -q '"sched":"sched_process_exec" filename="/bin/true"' "$tmp/ft.dump" &&
	grep -q '"timer":"hrtimer_expire_entry" hrtimer=0x' "$tmp/ft.dump"
ok $? "record --ftrace: events with typed arguments from their formats (exec filename, hrtimer pointer)" ||
	diag "$tmp/err"
awk '$2 ~ /^[0-9]+\.[0-9]+$/ { if ($2 < last) { if (bad++ < 3) print "# " prev "\n# " $0 }
	last = $2; prev = $0 } END { exit bad > 0 }' "$tmp/ft.dump" >"$tmp/order"
ok $? "record --ftrace: ftrace events and scheduler records are merged in time order"
cat "$tmp/order"
check_timeline "$tmp/ft.fxt" "record --ftrace -- sh"
[ -z "$(leaked_instances)" ]
ok $? "record --ftrace removes its tracefs instance" || leaked_instances | diag /dev/stdin
run "$ktrace" record --ftrace 'irq:*,nosuch:event' -o "$tmp/x.fxt" -d 1
[ $rc -ne 0 ] && grep -q "'nosuch:event': no such event in this kernel" "$tmp/err" &&
	[ -z "$(leaked_instances)" ]
ok $? "an unknown ftrace event is named before recording, and no instance is left" ||
	{ sed 's/^/# /' "$tmp/err"; ls /sys/kernel/tracing/instances | sed 's/^/# instance: /'; }
: >"$tmp/err"
"$ktrace" record --ftrace 'irq:*' -o "$tmp/ftint.fxt" >/dev/null 2>>"$tmp/err" &
pid=$!
wait_for "$tmp/err" 'recording with'
kill -INT $pid
wait $pid
rc=$?
# Its own instance: other recordings on this machine may have theirs.
[ $rc -eq 0 ] && [ ! -e /sys/kernel/tracing/instances/ktrace-$pid ] &&
	"$ktrace" dump --strict --quiet "$tmp/ftint.fxt"
ok $? "Ctrl-C during --ftrace: the trace is written and the instance removed" ||
	{ echo "# exit status $rc"; sed 's/^/# /' "$tmp/err"; ls /sys/kernel/tracing/instances | sed 's/^/# instance: /'; }
check_timeline "$tmp/ftint.fxt" "Ctrl-C during --ftrace"

run "$ktrace" record --backend kmod -o "$tmp/x.fxt" -d 1
[ $rc -ne 0 ] && grep -q 'load the module (insmod ktrace.ko), or use --backend bpf' "$tmp/err"
ok $? "--backend kmod without the module says how to load it and names the alternative" ||
	diag "$tmp/err"
if [ ! -e /sys/kernel/tracing/kprobe_events ] && [ ! -e /sys/bus/event_source/devices/kprobe ]; then
	run "$ktrace" record --backend bpf -p duration:vfs_read -o "$tmp/noprobe.fxt" -d 1
	[ $rc -eq 1 ] && grep -q -- '-p needs kprobes, and this kernel (.*) has none: record on a kernel with CONFIG_KPROBES' "$tmp/err" &&
		[ ! -s "$tmp/noprobe.fxt" ]
	ok $? "-p on a kernel without kprobes is refused before recording, naming CONFIG_KPROBES" ||
		diag "$tmp/err"
else
	skip "-p on a kernel without kprobes" "this kernel has kprobes (the VM suite records probes)"
fi
bad=0
for b in 3000 4K 2G; do
	run "$ktrace" record -b $b -o "$tmp/x.fxt" -d 1
	[ $rc -eq 2 ] && grep -q 'give a power of two from 8K to 1G' "$tmp/err" || bad=1
done
ok $bad "a bad --buffer-size (3000, 4K, 2G) is refused, saying what is taken" ||
	diag "$tmp/err"
run "$ktrace" record -o "$tmp/x.fxt" -- /nonexistent/command
[ $rc -ne 0 ] && grep -q 'cannot run /nonexistent/command' "$tmp/err" && "$ktrace" dump --quiet "$tmp/x.fxt"
ok $? "a command that cannot run is named, and the trace is still written" ||
	diag "$tmp/err"
check_timeline "$tmp/x.fxt" "a command that cannot run"

run "$ktrace" record -o "$tmp/st.fxt" -- sh -c 'exit 3'
[ $rc -eq 3 ] && grep -q 'sh exited with status 3' "$tmp/err" && "$ktrace" dump --strict --quiet "$tmp/st.fxt"
ok $? "the command's exit status is ktrace's, and the trace is written" || diag "$tmp/err"
check_timeline "$tmp/st.fxt" "a command that exits 3"
run "$ktrace" record -o "$tmp/st.fxt" -d 0.3 -- sleep 30
[ $rc -eq 0 ] && ! grep -q 'killed' "$tmp/err"
ok $? "a command ktrace stops at the end of -d is not a failure" || diag "$tmp/err"
check_timeline "$tmp/st.fxt" "a command stopped at the end of -d"

# The output's file system fills up: the recording is kept elsewhere.
mkdir -p "$tmp/full" "$tmp/rescue"
if mount -t tmpfs -o size=64k tmpfs "$tmp/full"; then
	for f in x.fxt x.json; do
		rm -f "$tmp/rescue"/*
		echo "an earlier recording" >"$tmp/full/$f"
		TMPDIR=$tmp/rescue run "$ktrace" record -o "$tmp/full/$f" -- \
			sh -c "dd if=/dev/zero of=$tmp/full/fill bs=1k count=64 2>/dev/null; sleep 0.2"
		kept=$(ls "$tmp/rescue"/ktrace-*.fxt 2>/dev/null)
		[ $rc -eq 1 ] && grep -q "writing $tmp/full/$f: No space left on device" "$tmp/err" &&
			grep -q "the recording was kept in $kept" "$tmp/err" &&
			"$ktrace" dump --strict --quiet --stats "$kept" | grep -q '^cpus: [1-9]' &&
			[ "$(cat "$tmp/full/$f")" = "an earlier recording" ] && ! ls -A "$tmp/full" | grep -q '^\.'
		ok $? "$f on a full file system: the error names it, the recording is kept in ${kept:-nothing}, the earlier file is intact" ||
			{ sed 's/^/# /' "$tmp/err"; ls -A "$tmp/full" | diag /dev/stdin; }
		check_timeline "${kept:-$tmp/rescue/none.fxt}" "the recording kept from a full file system"
		rm -f "$tmp/full"/*
	done
	umount "$tmp/full"
else
	skip "recording onto a full file system" "cannot mount a tmpfs here"
fi
if command -v setpriv >/dev/null; then
	run setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$ktrace" record -o /tmp/ktrace-nobody.fxt -d 1
	[ $rc -ne 0 ] && grep -q 'needs root, or CAP_BPF and CAP_PERFMON' "$tmp/err"
	ok $? "without privileges the error names root or CAP_BPF and CAP_PERFMON" ||
		diag "$tmp/err"
	rm -f /tmp/ktrace-nobody.fxt
	# What that error advises is enough: nobody with just those two capabilities.
	nd=$(mktemp -d)
	chmod 777 "$nd"
	run setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+bpf,+perfmon \
		--ambient-caps=-all,+bpf,+perfmon "$ktrace" record --backend bpf -o "$nd/w.fxt" -- \
		"$build/tests/known_workload" "$nd/expect" 500
	[ $rc -eq 0 ] && "$build/tests/check_trace" "$nd/w.fxt" "$nd/expect" >"$tmp/check"
	ok $? "as nobody with only CAP_BPF and CAP_PERFMON, the workload's records check out" ||
		{ sed 's/^/# /' "$tmp/err"; grep '^not ok\|^# ' "$tmp/check" | sed 's/^/#   /'; }
	check_timeline "$nd/w.fxt" "recorded as nobody with CAP_BPF and CAP_PERFMON"
	rm -rf "$nd"
fi
# A failed recording leaves the file it was to replace as it was.
echo "an earlier recording" >"$tmp/keep.fxt"
chmod 777 "$tmp"
run setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$ktrace" record -o "$tmp/keep.fxt" -d 1
r1=$rc
run "$ktrace" record --ftrace 'sched:nope' -o "$tmp/keep.fxt" -d 1
[ $r1 -eq 1 ] && [ $rc -eq 1 ] && [ "$(cat "$tmp/keep.fxt")" = "an earlier recording" ] &&
	! ls -A "$tmp" | grep -q '^\.keep'
ok $? "without privileges, or with an unknown --ftrace event, the earlier file is intact and no temporary is left" ||
	diag "$tmp/err"
chmod 700 "$tmp"
run "$ktrace" record -o /dev/null -d 0.3
[ $rc -eq 0 ] && [ -c /dev/null ]
ok $? "record -o /dev/null writes into the device and leaves it one"
run "$ktrace" record -o "$tmp" -d 1
[ $rc -eq 1 ] && grep -q "cannot create $tmp: it is a directory" "$tmp/err"
ok $? "a directory as output is refused before recording"
# The UNAME26 personality makes this kernel report itself as 2.6.x.
if setarch "$(uname -m)" --uname-2.6 true 2>/dev/null && [ ! -e /dev/ktrace ]; then
	run setarch "$(uname -m)" --uname-2.6 "$ktrace" record -o "$tmp/old.fxt" -d 1
	[ $rc -eq 1 ] && grep -q 'is older than 5.12: the BPF backend needs Linux 5.12 or later' "$tmp/err" &&
		grep -q 'no backend can record here: /dev/ktrace does not exist' "$tmp/err" &&
		[ ! -e "$tmp/old.fxt" ]
	ok $? "on a kernel older than 5.12 the error names the version needed and the module" ||
		diag "$tmp/err"
fi

# Interrupt handlers are recorded by default: under a timer storm, each
# CPU's interrupt track holds them, named, and the latency analysis blames
# some waits on them; recorded again with ftrace's irq events (instants
# then), each handler run matches one of ftrace's.
irq_ftrace='irq:*,irq_vectors:local_timer_entry,irq_vectors:local_timer_exit'
[ -d /sys/kernel/tracing/events/irq_vectors ] || irq_ftrace='irq:*'
run "$ktrace" record --backend bpf -o "$tmp/irq.fxt" -- tests/timer_storm_workload.py 1.5
ok $rc "record -- a timer storm (interrupts recorded by default)" || diag "$tmp/err"
check_timeline "$tmp/irq.fxt" "record -- a timer storm"
run "$ktrace" record --backend bpf --ftrace "$irq_ftrace" -o "$tmp/irqft.fxt" -- tests/timer_storm_workload.py 1.5
ok $rc "record --ftrace '$irq_ftrace' -- a timer storm" || diag "$tmp/err"
tests/check_irq.py "$ktrace" "$tmp/irq.fxt" "$tmp/irqft.fxt" >"$tmp/check"
ok $? "recorded interrupt handlers: named tracks, blamed in ktrace latency, the same runs as ftrace's" ||
	grep -E '^not ok|^#' "$tmp/check" | sed 's/^/#   /'
grep -E '^# per CPU' "$tmp/check" | sed 's/^/#   /'
run "$ktrace" record --backend bpf --no-irq -o "$tmp/noirq.fxt" -d 0.5
[ $rc -eq 0 ] && ! "$ktrace" dump "$tmp/noirq.fxt" | grep -q '"ktrace:irq":' &&
	"$ktrace" latency "$tmp/noirq.fxt" --json | python3 -c 'import json,sys; sys.exit(json.load(sys.stdin)["irq_recorded"])'
ok $? "record --no-irq: no interrupt records, and ktrace latency says none were recorded" || diag "$tmp/err"

# Waits of known length behind a SCHED_FIFO hog, with interrupts recorded.
run "$ktrace" record --backend bpf --ftrace 'irq:*' -o "$tmp/lat.fxt" -- \
	"$build/tests/latency_workload" "$tmp/lat.expect" 10 5000
if [ $rc -eq $EXIT_CANNOT_RUN_HERE ]; then
	skip "ktrace latency on a known workload" "$(tail -1 "$tmp/err")"
else
	ok $rc "record --ftrace 'irq:*' -- latency_workload" || diag "$tmp/err"
	check_timeline "$tmp/lat.fxt" "record --ftrace 'irq:*' -- latency_workload"
	tests/check_latency.py "$ktrace" "$tmp/lat.fxt" "$tmp/lat.expect" >"$tmp/check"
	ok $? "ktrace latency finds each 5 ms wait behind the hog, its kind, waker and blame" ||
		grep -E '^not ok|^#' "$tmp/check" | sed 's/^/#   /'
	run "$ktrace" latency "$tmp/lat.fxt" --json --top 1
	python3 -c "import json,sys; r=json.load(open('$tmp/out')); sys.exit(0 if r['irq_recorded'] and 'hardirq_ns' in r['top'][0]['blame'] else 1)"
	ok $? "with --ftrace 'irq:*' the blame includes interrupt handler time"
	# A fair thread preempted on CPU 1 by a SCHED_FIFO thread, free to move
	# and pinned, and pinning and freeing itself while it runs: each wait's
	# queues, causes and idle CPUs from the records and the CPUs the thread
	# allowed itself.  On a busy machine the FIFO thread may never find it
	# on CPU 1: no wait behind it is required (0), and the checks of those
	# waits are then a SKIP that says so.
	for p in "" pinned running pinned-running; do
		: >"$tmp/check"
		run "$ktrace" record --backend bpf -o "$tmp/place.fxt" -- \
			"$build/tests/placement_workload" "$tmp/place.expect" 10 10000 $p
		[ $rc -eq 0 ] && tests/check_placement.py "$ktrace" "$tmp/place.fxt" "$tmp/place.expect" 0 >"$tmp/check"
		ok $? "placement${p:+ ($p)}: each wait's run queues, causes and idle_allowed_elsewhere match the records" ||
			{ diag "$tmp/err"; grep -E '^not ok|^#' "$tmp/check" | sed 's/^/#   /'; }
		while IFS='|' read -r what why; do
			skip "placement${p:+ ($p)}: $what" "$why"
		done < <(sed -n 's/^ok [0-9]* - \(.*\) # SKIP \(.*\)/\1|\2/p' "$tmp/check")
	done
	# The same waits stop a flight recorder, in the kernel.
	run "$ktrace" record --backend bpf --stop-on-latency 3ms --after 20ms --comm victim \
		-o "$tmp/trig.fxt" -- "$build/tests/latency_workload" "$tmp/trig.expect" 10 5000
	# The first wait past 3 ms: one behind the hog (5 ms), or longer on a busy machine.
	[ $rc -eq 0 ] && grep -q 'latency trigger: thread [0-9]* waited [0-9]*\.[0-9]* ms from its wakeup to running' "$tmp/err"
	ok $? "record --stop-on-latency 3ms stops on the victim's first wait and says so" || diag "$tmp/err"
	check_timeline "$tmp/trig.fxt" "record --stop-on-latency"
	tests/check_trigger.py "$ktrace" "$tmp/trig.fxt" "$tmp/trig.expect" 3000000 20000000 >"$tmp/check"
	ok $? "the snapshot marks that wait, which ktrace latency finds; nothing after --after; all named" ||
		grep -E '^not ok|^#' "$tmp/check" | sed 's/^/#   /'
fi
# Short-lived processes (500 a second, each under a millisecond) while a
# flight recorder keeps only its newest records, where most forks and
# renames are gone: every thread that ran is named, by the name it had.
run "$ktrace" record --backend bpf --ring -b 512K -o "$tmp/churn.fxt" -- \
	"$build/tests/churn_workload" 4 500 "$tmp/churn.pids"
[ $rc -eq 0 ] && grep -q 'older records were overwritten' "$tmp/err" &&
	grep -q 'wrote .* 0 threads without a name' "$tmp/err"
ok $? "record --ring over 500 short-lived processes a second: the ring wrapped, no thread without a name" ||
	diag "$tmp/err"
check_timeline "$tmp/churn.fxt" "record --ring over short-lived processes"
tests/check_names.py "$ktrace" "$tmp/churn.fxt" "$tmp/churn.pids" >"$tmp/check"
ok $? "every thread of the ring's window is named, each child by its own name" ||
	grep -E '^not ok|^#' "$tmp/check" | sed 's/^/#   /'
# The same beside a latency trigger's flight recorder.
if [ -s "$tmp/trig.expect" ]; then
	"$build/tests/churn_workload" 30 500 "$tmp/churn2.pids" >/dev/null &
	churn=$!
	run "$ktrace" record --backend bpf -b 128K --stop-on-latency 3ms --after 20ms --comm victim \
		-o "$tmp/trig2.fxt" -- "$build/tests/latency_workload" "$tmp/trig2.expect" 10 5000
	kill $churn 2>/dev/null
	wait $churn 2>/dev/null
	[ $rc -eq 0 ] && grep -q 'latency trigger: thread' "$tmp/err"
	ok $? "record --stop-on-latency beside 500 short-lived processes a second" || diag "$tmp/err"
	tests/check_trigger.py "$ktrace" "$tmp/trig2.fxt" "$tmp/trig2.expect" 3000000 20000000 >"$tmp/check" &&
		tests/check_names.py "$ktrace" "$tmp/trig2.fxt" "$tmp/churn2.pids" 1 >>"$tmp/check"
	ok $? "that snapshot: the trigger checks out, every thread that ran is named, each child by its own name" ||
		grep -E '^not ok|^#' "$tmp/check" | sed 's/^/#   /'
fi
run "$ktrace" record --backend bpf --stop-on-latency 10s --pid $$ -o "$tmp/none.fxt" -d 0.5
[ $rc -eq 0 ] && grep -q 'the latency trigger did not fire: no wait reached 10000.000 ms' "$tmp/err" &&
	"$ktrace" dump --strict "$tmp/none.fxt" >/dev/null
ok $? "a trigger that does not fire: the ring is written at the end of -d, and it says so" || diag "$tmp/err"
check_timeline "$tmp/none.fxt" "a latency trigger that does not fire"
# CFS bandwidth throttling: a spinner in a cgroup limited to 10 ms of every
# 100 ms (this kernel has the task-based throttle model of Linux 6.18).
tests/throttle_workload.sh "$ktrace" bpf "$tmp/thr.fxt" "$tmp/thr.pid" 1.5 >"$tmp/thr.out" 2>"$tmp/err"
rc=$?
if [ $rc -eq $EXIT_CANNOT_RUN_HERE ]; then
	skip "throttling: a spinner in a cgroup with cpu.max 10000 100000" "$(cat "$tmp/thr.out")"
else
	[ $rc -eq 0 ] && tests/check_throttle.py "$ktrace" "$tmp/thr.fxt" "$tmp/thr.pid" recorded >"$tmp/check"
	ok $? "throttling: a spinner in a cgroup ($(cat "$tmp/thr.fxt.cgroup" 2>/dev/null)) with cpu.max 10000 100000 waits >= 80% throttled, the cgroup named" ||
		{ diag "$tmp/err"; grep -E '^not ok|^#' "$tmp/check" | sed 's/^/#   /'; }
	grep -E '^# spinner' "$tmp/check" | sed 's/^/#   /'
	check_timeline "$tmp/thr.fxt" "the throttled spinner"
fi
# Each thread's cgroup (v2) from the recorders: children born and gone
# during the recording, one in a cgroup removed before it ends.
tests/cgroup_workload.sh "$ktrace" bpf "$tmp/cg.fxt" >"$tmp/cg.out" 2>"$tmp/err"
rc=$?
if [ $rc -eq $EXIT_CANNOT_RUN_HERE ]; then
	skip "cgroups: short-lived children named with their cgroups" "$(cat "$tmp/cg.out")"
else
	[ $rc -eq 0 ] && tests/check_cgroups.py "$ktrace" "$tmp/cg.fxt" >"$tmp/check"
	ok $? "cgroups: short-lived children named with their cgroups' ids and paths, in dump, the JSON and latency --by cgroup / --cgroup" ||
		{ diag "$tmp/err"; grep -E '^not ok|^#' "$tmp/check" | sed 's/^/#   /'; }
	check_timeline "$tmp/cg.fxt" "short-lived children in cgroups"
fi
bad=0
for args in "--after 5ms" "--comm victim" "--pid 1" "--stop-on-latency 0" "--stop-on-latency 5parsecs" \
	"--stop-on-latency 5ms --comm a-name-longer-than-15" "--stop-on-latency 5ms --pid x" \
	"--stop-on-latency 5ms --after 2h"; do
	# shellcheck disable=SC2086
	run "$ktrace" record -o "$tmp/bad.fxt" -d 1 $args
	if [ $rc -ne 2 ] || [ -e "$tmp/bad.fxt" ] || [ ! -s "$tmp/err" ]; then bad=1; echo "# '$args': $rc"; fi
done
ok $bad "bad trigger options exit 2 with a message, before anything records"

finish
