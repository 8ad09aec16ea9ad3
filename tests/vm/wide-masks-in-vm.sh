#!/bin/sh
# Runs inside a test VM of more than 64 CPUs (tests/suites/vm.sh boots one
# with 72 for one kernel): with each backend, a thread pinned to CPU 70
# before the recording (the state dump names it with its mask), and the
# placement workload on CPUs 64 and 65, its victim pinning itself there
# and freeing itself while it runs, so that every mask it has is above
# CPU 63 and every other idle CPU is one it may not use.  Leaves the
# traces, each step's status and dmesg in /results.
. /ktrace/steps.sh

uname -r >"$R/uname"
nproc >"$R/nproc"
taskset -c 70 sleep 1000 &
echo "pinned=$!" >"$R/pinned.expect"
step insmod insmod ./ktrace.ko
for b in kmod bpf; do
	for p in pinned-running running; do
		step ${b}_wide_$p ktrace record --backend $b -o $R/${b}_wide_$p.fxt -- \
			placement_workload $R/${b}_wide_$p.expect 6 20000 $p 64 65
	done
done
step rmmod rmmod ktrace
kill %1
mark dmesg
dmesg >"$R/dmesg.txt"
