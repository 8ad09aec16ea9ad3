#!/bin/sh
# Runs inside the test VM: the pinned ping-pong with no tracing, with
# ftrace's sched_switch + sched_waking, and with ktrace.ko recording, by
# default and with --blocked-in (a stack walk at every switch-out in S or
# D), interleaved round by round; ns per round trip to /results/bench.txt.
# A step line per round on the console feeds the host's watchdog (scripts/vm-run.sh).
R=/results
mkdir -p $R
cd /ktrace || exit 1
export PATH=/ktrace:$PATH
insmod ./ktrace.ko || exit 1
T=/sys/kernel/tracing
I=$T/instances/bench
mkdir $I
echo 1 >$I/events/sched/sched_switch/enable
echo 1 >$I/events/sched/sched_waking/enable
echo mono >$I/trace_clock
echo 0 >$I/tracing_on
rounds=${ROUNDS:-15}
trips=${TRIPS:-20000}
r=0
while [ $r -lt $rounds ]; do
	vm-step round $r
	echo "none $(pingpong $trips 0)" >>$R/bench.txt
	echo >$I/trace
	echo 1 >$I/tracing_on
	echo "ftrace $(pingpong $trips 0)" >>$R/bench.txt
	echo 0 >$I/tracing_on
	grep '^bytes:' $I/per_cpu/cpu0/stats >$R/ftrace_bytes
	grep '^entries:' $I/per_cpu/cpu0/stats >$R/ftrace_entries
	# Flight-recorder mode: like ftrace here, no reader runs during the measurement.
	echo "ktrace-kmod $(ktrace record --backend kmod --ring -b 16M -o /tmp/k.fxt -- pingpong $trips 0 2>/dev/null)" >>$R/bench.txt
	echo "blocked-in $(ktrace record --backend kmod --ring -b 16M --blocked-in -o /tmp/b.fxt -- pingpong $trips 0 2>/dev/null)" >>$R/bench.txt
	r=$((r + 1))
done
ktrace dump --stats --quiet /tmp/k.fxt >$R/kstats
rmdir $I
dmesg >$R/dmesg.txt
