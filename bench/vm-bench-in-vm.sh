#!/bin/sh
# Runs inside the test VM: the pinned ping-pong with no tracing, with
# ftrace's sched_switch + sched_waking, and with ktrace.ko recording: by
# default (where threads blocked, for blocks of 100 us or more), with
# --no-blocked-in, and with --blocked-in=0 (a stack walk at the end of
# every block), interleaved round by round; ns per round trip to
# /results/bench.txt.
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
	echo "no-blocked-in $(ktrace record --backend kmod --ring -b 16M --no-blocked-in -o /tmp/n.fxt -- pingpong $trips 0 2>/dev/null)" >>$R/bench.txt
	echo "every-block $(ktrace record --backend kmod --ring -b 16M --blocked-in=0 -o /tmp/b.fxt -- pingpong $trips 0 2>/dev/null)" >>$R/bench.txt
	r=$((r + 1))
done
ktrace dump --stats --quiet /tmp/k.fxt >$R/kstats
# How many of the default's switches walked a stack (blocks of 100 us or more).
ktrace dump /tmp/k.fxt | awk '/switch:/ {n++} /incoming_kstack=/ {k++} END {print n + 0, k + 0}' >$R/walked
rmdir $I
dmesg >$R/dmesg.txt
