#!/bin/sh
# Runs inside a 32-CPU test VM (tests/suites/vm.sh boots it for one kernel):
# eight ping-pongs on CPUs spread over the machine, recorded for 3 s with
# each backend, and the known workload beside them; the buffers' default
# size for 32 CPUs is in the recorder's messages.  Leaves the traces, each
# step's status and dmesg in /results.
. /ktrace/steps.sh

uname -r >"$R/uname"
nproc >"$R/nproc"
step insmod insmod ./ktrace.ko
for b in kmod bpf; do
	pids=
	for c in 1 5 9 13 17 21 25 29; do
		pingpong 1000000000 $c >/dev/null 2>&1 &
		pids="$pids $!"
	done
	step ${b}_many ktrace record --backend $b -o $R/${b}_many.fxt -d 3
	kill $pids
	wait $pids 2>/dev/null
	step ${b}_many_workload ktrace record --backend $b -o $R/${b}_many_workload.fxt -- \
		known_workload $R/${b}_many_workload.expect 500
done
step rmmod rmmod ktrace
mark dmesg
dmesg >"$R/dmesg.txt"
