#!/bin/sh
# Runs inside a 2-CPU test VM: the placement recordings of run-in-vm.sh
# (a fair thread preempted on CPU 1 by a SCHED_FIFO one, free, pinned, and
# freeing or pinning itself while it runs) twenty times each with BPF and
# the module; tests/suites/placement-loop.sh checks each on the host with
# tests/check_placement.py, as the VM suite does.
# usage: KTRACE_VM_SCRIPT=tests/vm/placement-loop-in-vm.sh \
#        scripts/vm-run.sh build KREL   ->  results/{bpf,kmod}_VARIANT_N.fxt
. /ktrace/steps.sh

uname -r >"$R/uname"
step insmod insmod ./ktrace.ko
i=1
while [ $i -le 20 ]; do
	for b in bpf kmod; do
		for v in place:free pinned:pinned runfree:running runpin:pinned-running; do
			n=${b}_${v%:*}_$i
			step $n ktrace record --backend $b -o $R/$n.fxt -- \
				placement_workload $R/$n.expect 8 20000 ${v#*:}
		done
	done
	i=$((i + 1))
done
step rmmod rmmod ktrace
mark dmesg
dmesg >"$R/dmesg.txt"
