#!/bin/sh
# Runs inside the test VM: ktrace.ko's record path against ftrace's, timed
# in the kernel by KTRACE_IOC_BENCH (bench/kmod_bench.c), ROUNDS rounds of
# COUNT records each way on CPU 0; one line per round to /results/record.txt.
# ftrace writes into a private instance on the recorder's clock (mono), as
# in the context-switch benchmark.
# A step line per round on the console feeds the host's watchdog (scripts/vm-run.sh).
R=/results
mkdir -p $R
cd /ktrace || exit 1
export PATH=/ktrace:$PATH
insmod ./ktrace.ko || exit 1
T=/sys/kernel/tracing
I=$T/instances/bench-record
mkdir $I || exit 1
echo mono >$I/trace_clock
echo 1 >$I/events/ktrace_bench/ktrace_bench_switch/enable || exit 1
echo 1 >$I/tracing_on
r=0
while [ $r -lt ${ROUNDS:-15} ]; do
	vm-step round $r
	kmod_bench 1 ${COUNT:-100000} 0 >>$R/record.txt 2>>$R/record.err
	r=$((r + 1))
done
echo 0 >$I/tracing_on
# Both recorders read the clock once per record: under TCG the HPET (where
# the guest found its TSC unstable) costs far more than the TSC.
cat /sys/devices/system/clocksource/clocksource0/current_clocksource >$R/clocksource
grep -E '^(entries|overrun|bytes):' $I/per_cpu/cpu0/stats >$R/record-ftrace-stats
echo 0 >$I/events/ktrace_bench/ktrace_bench_switch/enable
rmdir $I
dmesg >$R/dmesg.txt
