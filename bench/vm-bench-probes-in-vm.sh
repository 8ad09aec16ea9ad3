#!/bin/sh
# Runs inside the test VM: ns per call of a kprobed function and per API
# event, with nothing recording, with ktrace.ko (-p kprobe: and the API),
# and with an ftrace kprobe event, interleaved; to /results/probes.txt.
# A step line per round on the console feeds the host's watchdog (scripts/vm-run.sh).
R=/results
mkdir -p $R
cd /ktrace || exit 1
export PATH=/ktrace:$PATH
insmod ./ktrace.ko && insmod ./ktrace_api_test.ko || exit 1
P=/sys/module/ktrace_api_test/parameters/bench
T=/sys/kernel/tracing
N=${CALLS:-20000}
cat /sys/devices/system/clocksource/clocksource0/current_clocksource >$R/clocksource
# The recorder's clock for ftrace too, as in the context-switch benchmark.
echo mono >$T/trace_clock
echo 'p:ktrace_bench ktrace_api_test_target' >>$T/kprobe_events || echo "no kprobe_events" >>$R/probes.err
echo 'r:ktrace_bench_ret ktrace_api_test_target' >>$T/kprobe_events
r=0
while [ $r -lt ${ROUNDS:-7} ]; do
	vm-step round $r
	echo $N >$P
	dmesg | grep 'bench calls' | tail -1 | sed 's/.*bench/none/' >>$R/probes.txt
	ktrace record --backend kmod -p kprobe:ktrace_api_test_target -o /tmp/p.fxt -- \
		sh -c "echo $N >$P" 2>/dev/null
	dmesg | grep 'bench calls' | tail -1 | sed 's/.*bench/ktrace/' >>$R/probes.txt
	ktrace record --backend kmod -p duration:ktrace_api_test_target -o /tmp/p.fxt -- \
		sh -c "echo $N >$P" 2>/dev/null
	dmesg | grep 'bench calls' | tail -1 | sed 's/.*bench/ktrace-ret/' >>$R/probes.txt
	echo 1 >$T/events/kprobes/ktrace_bench/enable
	echo 1 >$T/tracing_on
	echo $N >$P
	echo 0 >$T/events/kprobes/ktrace_bench/enable
	dmesg | grep 'bench calls' | tail -1 | sed 's/.*bench/ftrace/' >>$R/probes.txt
	echo 1 >$T/events/kprobes/ktrace_bench_ret/enable
	echo $N >$P
	echo 0 >$T/events/kprobes/ktrace_bench_ret/enable
	dmesg | grep 'bench calls' | tail -1 | sed 's/.*bench/ftrace-ret/' >>$R/probes.txt
	r=$((r + 1))
done
echo '-:ktrace_bench' >>$T/kprobe_events
echo '-:ktrace_bench_ret' >>$T/kprobe_events
rmmod ktrace_api_test
dmesg >$R/dmesg.txt
