#!/bin/sh
# Runs inside a 4-CPU test VM: the hotplug recording of hotplug-in-vm.sh
# (CPUs 1 to 3 offline and online five times while the workload runs)
# twenty times in a row with the module, stream and ring, and with BPF
# where the kernel has it, each checked as timelines in the VM (`ktrace
# dump --check`); a failing recording and its check are kept, a passing
# one is not.  Races that show in one recording of ten need this many.
# usage: KTRACE_VM_SMP=4 KTRACE_VM_SCRIPT=tests/vm/hotplug-loop-in-vm.sh \
#        scripts/vm-run.sh build KREL   ->  results/status, "NAME check RC" lines
. /ktrace/steps.sh

uname -r >"$R/uname"
step insmod insmod ./ktrace.ko
write_hotplug_script
modes="kmod: kmod:--ring"
# BPF where the kernel has it (its error, if not, in bpf-probe.err).
ktrace record --backend bpf -o /tmp/probe.fxt -d 0.1 >/dev/null 2>"$R/bpf-probe.err" &&
	modes="$modes bpf:"
i=1
while [ $i -le 20 ]; do
	for c in $modes; do
		b=${c%:*} mode=${c#*:}
		n=hotplug${i}_$b${mode#--}
		step $n ktrace record --backend $b $mode -o $R/$n.fxt -- sh /tmp/hotplug.sh $R/$n.expect
		ktrace dump --check $R/$n.fxt >$R/$n.check 2>&1
		rc=$?
		echo "$n check $rc" >>$R/status
		sed -n "s/^timeline: \([0-9]*\) untraced_wakeup.*/$n \1/p" $R/$n.check >>$R/untraced-wakeups
		[ $rc = 0 ] && rm -f $R/$n.fxt $R/$n.check
	done
	i=$((i + 1))
done
step rmmod rmmod ktrace
mark dmesg
dmesg >"$R/dmesg.txt"
