#!/bin/sh
# Runs inside the test VM (busybox, Debian's kernel): loads ktrace.ko, runs
# the kselftests and the recordings the host checks, and leaves everything
# in /results.  Each step's exit status goes to /results/status.  The
# console gets one line per step ("ktrace-vm: step NAME"), nothing else: the
# host's watchdog reads them, and the results go back on a disk.
. /ktrace/steps.sh

uname -r >"$R/uname"
nproc >"$R/nproc"
step insmod insmod ./ktrace.ko
step selftest ./ktrace_test
step kmod_workload ktrace record --backend kmod -o $R/kmod.fxt -- known_workload $R/kmod.expect 2000
step bpf_workload ktrace record --backend bpf -o $R/bpf.fxt -- known_workload $R/bpf.expect 2000
# Recordings that start in the middle of a switch storm (a ping-pong on
# each CPU): every probe starts at once, so no thread is seen to block and
# then run again without its wakeup; and stops at once, which the pairs'
# threads (their tids kept) show on the host.  The ping-pongs run at nice
# 19: at nice 0 they left the recorder a third of a CPU to start in, which
# under emulation took minutes.
for b in kmod bpf; do
	nice -n 19 pingpong 1000000000 0 >/dev/null 2>&1 &
	pp0=$!
	nice -n 19 pingpong 1000000000 1 >/dev/null 2>&1 &
	pp1=$!
	step ${b}_storm ktrace record --backend $b -o $R/${b}_storm.fxt -d 1
	ls /proc/$pp0/task /proc/$pp1/task | grep -x '[0-9]*' >$R/${b}_storm.tids
	kill $pp0 $pp1
	wait $pp0 $pp1 2>/dev/null
done
# ftrace's own sched_switch events recorded alongside, as the witness of
# what the kernel traced and what ktrace lost.
for b in kmod bpf; do
	step ${b}_witness ktrace record --backend $b --ftrace 'sched:sched_switch' -o $R/${b}_witness.fxt -- \
		known_workload $R/${b}_witness.expect 2000
done
# Interrupt handlers, recorded by default, under a timer storm (a shell
# sleeping 1 ms at a time); again with ftrace's irq events beside them.
irqft='irq:*'
[ -d /sys/kernel/tracing/events/irq_vectors ] &&
	irqft='irq:*,irq_vectors:local_timer_entry,irq_vectors:local_timer_exit'
storm='i=0; while [ $i -lt 300 ]; do usleep 1000; i=$((i + 1)); done'
for b in kmod bpf; do
	step ${b}_irq ktrace record --backend $b -o $R/${b}_irq.fxt -- sh -c "$storm"
	step ${b}_irqft ktrace record --backend $b --ftrace "$irqft" -o $R/${b}_irqft.fxt -- sh -c "$storm"
done
# The reader is stopped while the workload runs: the 8 KiB buffers overflow.
mark kmod_small
ktrace record --backend kmod -b 8K -o $R/small.fxt -d 4 >"$R/kmod_small.out" 2>"$R/kmod_small.err" &
pid=$!
i=0
while [ $i -lt 300 ] && ! grep -q 'recording with' "$R/kmod_small.err"; do
	sleep 0.1
	i=$((i + 1))
done
kill -STOP $pid
known_workload $R/small.expect 1000 >/dev/null 2>&1
kill -CONT $pid
wait $pid
echo "kmod_small $?" >>"$R/status"
step kmod_ring ktrace record --backend kmod --ring -b 64K -o $R/ring.fxt -- known_workload $R/ring.expect 3000
step bpf_ring ktrace record --backend bpf --ring -b 64K -o $R/bpfring.fxt -- known_workload $R/bpfring.expect 3000
step kmod_json ktrace record -o $R/kmod.json -- known_workload $R/json.expect 200
# Waits of known length behind a SCHED_FIFO hog (20 ms: TCG is slow), then
# the same waits stopping a flight recorder in the kernel, with each backend.
for b in kmod bpf; do
	step ${b}_lat ktrace record --backend $b -o $R/${b}_lat.fxt -- \
		latency_workload $R/${b}_lat.expect 5 20000
	step ${b}_trig ktrace record --backend $b --stop-on-latency 10ms --after 50ms --comm victim \
		-o $R/${b}_trig.fxt -- latency_workload $R/${b}_trig.expect 5 20000
done
# A fair thread preempted on CPU 1 by a SCHED_FIFO thread while CPU 0
# idles: free to move there, and pinned to CPU 1; then the same with the
# thread pinning and freeing itself while it runs, never sleeping.
for b in kmod bpf; do
	step ${b}_place ktrace record --backend $b -o $R/${b}_place.fxt -- \
		placement_workload $R/${b}_place.expect 8 20000
	step ${b}_pinned ktrace record --backend $b -o $R/${b}_pinned.fxt -- \
		placement_workload $R/${b}_pinned.expect 8 20000 pinned
	step ${b}_runfree ktrace record --backend $b -o $R/${b}_runfree.fxt -- \
		placement_workload $R/${b}_runfree.expect 8 20000 running
	step ${b}_runpin ktrace record --backend $b -o $R/${b}_runpin.fxt -- \
		placement_workload $R/${b}_runpin.expect 8 20000 pinned-running
done
# ktrace watch beside three bursts of a SCHED_FIFO hog on its victim's CPU,
# four seconds apart, with each backend, re-armed in place after each
# window (reading a window's rings takes more than a second under
# emulation on a busy machine).  SIGTERM ends it.
for b in kmod bpf; do
	mark ${b}_watch
	ktrace watch --backend $b --threshold 10ms --comm kt_victim -o $R/${b}_watch --before 100ms \
		--after 10ms -d 120 >"$R/${b}_watch.out" 2>"$R/${b}_watch.err" &
	pid=$!
	watching "$R/${b}_watch.err" $pid
	step ${b}_watchload spike_workload $R/${b}_watch.expect 3 20000 4000
	sleep 3
	kill -TERM $pid
	wait $pid
	echo "${b}_watch $?" >>"$R/status"
done
# CFS bandwidth throttling: a spinner in a cgroup (v2, mounted here if the
# kernel has not) with cpu.max "10000 100000", with each backend.
for b in kmod bpf; do
	step ${b}_throttle sh ./throttle_workload.sh ktrace $b $R/${b}_throttle.fxt \
		$R/${b}_throttle.pid 1.5
done
# Short-lived children in cgroups (v2) made for them, with each backend.
for b in kmod bpf; do
	step ${b}_cgroups sh ./cgroup_workload.sh ktrace $b $R/${b}_cgroups.fxt
done
# Short-lived processes under a flight recorder, and beside the latency
# trigger, with 200 pids for hundreds of children: pids are reused.
pid_max=$(cat /proc/sys/kernel/pid_max)
echo 500 >/proc/sys/kernel/pid_max
for b in kmod bpf; do
	step ${b}_churn ktrace record --backend $b --ring -b 64K -o $R/${b}_churn.fxt -- \
		churn_workload 3 300 $R/${b}_churn.pids
	churn_workload 60 300 $R/${b}_churntrig.pids >/dev/null 2>&1 &
	c=$!
	step ${b}_churntrig ktrace record --backend $b -b 128K --stop-on-latency 10ms --after 50ms \
		--comm victim -o $R/${b}_churntrig.fxt -- latency_workload $R/${b}_churntrig.expect 5 20000
	kill $c
	wait $c
done
echo "$pid_max" >/proc/sys/kernel/pid_max
# cyclictest's thread (SCHED_FIFO 80) under the module, with a busy loop
# on each CPU beside it; the host checks its numbers against ktrace's.
if [ -x ./cyclictest ]; then
	loads=
	for c in 0 1; do
		taskset -c $c sh -c 'while :; do :; done' &
		loads="$loads $!"
	done
	step kmod_cyclictest ktrace record --backend kmod -o $R/cyc.fxt -- \
		cyclictest -t1 -p80 -i1000 -l2000 -q -m -v -h 5000
	kill $loads
	wait $loads 2>/dev/null
fi

# The in-kernel API and dynamic probes, from a test module.
step api_insmod insmod ./ktrace_api_test.ko
step api ktrace record --backend kmod -p kprobe:ktrace_api_test_target \
	-p duration:ktrace_api_test_target -o $R/api.fxt -- \
	sh -c 'echo 10 >/sys/module/ktrace_api_test/parameters/run'
step api_idle sh -c 'echo 5 >/sys/module/ktrace_api_test/parameters/run'
step badprobe ktrace record --backend kmod -p kprobe:no_such_function_xyz -o $R/bad.fxt -d 1
# 1 GiB per CPU, more than the VM has: refused before anything is allocated.
step bigbuf ktrace record --backend kmod -b 1G -o $R/big.fxt -d 1
step bpf_probes ktrace record --backend bpf -p kprobe:ktrace_api_test_target \
	-p duration:ktrace_api_test_target -o $R/bpfprobe.fxt -- \
	sh -c 'echo 10 >/sys/module/ktrace_api_test/parameters/run'
step bpf_badprobe ktrace record --backend bpf -p kprobe:no_such_function_xyz -o $R/bpfbad.fxt -d 1
# A SCHED_FIFO thread woken where a fair thread spins in the kernel (the
# test module's spin parameter): not_preempted, or preempted at once.
for b in kmod bpf; do
	step ${b}_preempt ktrace record --backend $b -o $R/${b}_preempt.fxt -- \
		preempt_workload $R/${b}_preempt.expect 5 20000
done
step api_rmmod rmmod ktrace_api_test
step marks ktrace record --backend kmod -o $R/marks.fxt -- sh -c \
	'ktrace mark hello; ktrace mark -c build -b compile; ktrace mark -c build -e compile; ktrace mark -C 42 depth'
# Why was it blocked: a pipe <- mutex <- preempted holder chain, and one that
# ends in a timer, with where each thread blocked.
[ -x ./chain_workload ] &&
	step kmod_chain ktrace record --backend kmod --stacks -o $R/kchain.fxt -- chain_workload $R/kchain.expect
# The same with no option, as a first recording is made.
[ -x ./chain_workload ] &&
	step kmod_dchain ktrace record --backend kmod -o $R/kdchain.fxt -- chain_workload $R/kdchain.expect

# A SCHED_FIFO 50 hog on CPU 1, where the recorder reads, for 5 s while
# the workload runs on CPU 0: the reader gets only what RT throttling
# leaves it (on PREEMPT_RT its wakeup, an irq_work, runs in the starved
# irq_work/1 thread too, and it wakes on its 100 ms poll timeout).  With
# the default buffers and with 32 KiB ones (which overflow), each backend:
# the recording must complete with every loss accounted for.
for c in kmod: bpf: kmod:32K bpf:32K; do
	b=${c%:*} size=${c#*:}
	name=${b}_hog${size}
	mark $name
	cut -d' ' -f1 /proc/uptime >$R/$name.time
	taskset -c 1 ktrace record --backend $b ${size:+-b $size} -o $R/$name.fxt -- taskset -c 0 sh -c \
		"fifo_hog_workload 50 1 5000 & h=\$!; sleep 0.5; known_workload $R/$name.expect 2000; w=\$?
		wait \$h; echo \$? >$R/$name.hogrc; exit \$w" >$R/$name.out 2>$R/$name.err
	echo "$name $?" >>$R/status
	cut -d' ' -f1 /proc/uptime >>$R/$name.time
done

# An open /dev/ktrace holds a reference on the module (what makes rmmod
# refuse), and closing it drops the reference.
mark refcnt
cat /sys/module/ktrace/refcnt >$R/refcnt.before 2>&1
exec 3<>/dev/ktrace
cat /sys/module/ktrace/refcnt >$R/refcnt.open 2>&1
exec 3>&-
cat /sys/module/ktrace/refcnt >$R/refcnt.after 2>&1

# 20 load/record/unload cycles (each recording's start costs seconds
# under emulation: the kernel's BTF and kallsyms are read each time).
fails=0
i=0
while [ $i -lt 20 ]; do
	[ $((i % 10)) = 0 ] && mark "cycles $i"
	rmmod ktrace 2>>"$R/cycles.err" || fails=$((fails + 1))
	insmod ./ktrace.ko 2>>"$R/cycles.err" || fails=$((fails + 1))
	ktrace record --backend kmod -o /tmp/cycle.fxt -- true 2>>"$R/cycles.err" || fails=$((fails + 1))
	i=$((i + 1))
done
echo "cycles $fails" >>"$R/status"
ktrace dump --strict --quiet /tmp/cycle.fxt >/dev/null 2>&1
echo "cycle_trace $?" >>"$R/status"
cp /tmp/cycle.fxt $R/cycle.fxt
mark rmmod_final
rmmod ktrace
echo "rmmod_final $?" >>"$R/status"
# The interface fuzzer, 30 s (tests/fuzz-kmod; it loads and unloads the module).
if [ -x ./fuzz_kmod ]; then
	mark fuzz
	FUZZ_RESULTS=$R/fuzz FUZZ_ARGS="--seconds 30 --seed 1" sh ./fuzz-in-vm.sh
fi
mark dmesg
dmesg >"$R/dmesg.txt"
