#!/bin/sh
# Runs inside a 4-CPU test VM: the hotplug recording of hotplug-in-vm.sh
# sixty times with each backend, stream and ring, each with a tracefs instance beside it as
# a witness: the scheduler's events, the hotplug states, and a kprobe on
# try_to_wake_up() (which fires on every CPU, online or not, unlike a
# tracepoint).  A recording whose `ktrace dump --check` fails is kept with
# the witness's trace; a passing one is not.
# usage: KTRACE_VM_SMP=4 KTRACE_VM_SCRIPT=tests/vm/hotplug-witness-in-vm.sh \
#        scripts/vm-run.sh build KREL   ->  results/status, "NAME check RC" lines
. /ktrace/steps.sh

T=/sys/kernel/tracing
uname -r >"$R/uname"
step insmod insmod ./ktrace.ko
write_hotplug_script
mkdir $T/instances/witness
W=$T/instances/witness
echo 16384 >$W/buffer_size_kb
echo 'p:witness/ttwu try_to_wake_up pid=p->pid state=state' >>$T/dynamic_events 2>"$R/kprobe.err" ||
	echo 'p:witness/ttwu try_to_wake_up pid=+0(%di):u64 state=%si' >>$T/dynamic_events
for e in sched/sched_waking sched/sched_wakeup sched/sched_switch sched/sched_migrate_task \
	cpuhp/cpuhp_enter cpuhp/cpuhp_exit witness/ttwu; do
	echo 1 >$W/events/$e/enable 2>>"$R/witness.err"
done
modes="kmod: kmod:--ring"
ktrace record --backend bpf -o /tmp/probe.fxt -d 0.1 >/dev/null 2>"$R/bpf-probe.err" &&
	modes="$modes bpf:"
i=1
while [ $i -le 60 ]; do
	for c in $modes; do
		b=${c%:*} mode=${c#*:}
		n=hotplug${i}_$b${mode#--}
		echo >$W/trace
		echo 1 >$W/tracing_on
		step $n ktrace record --backend $b $mode -o $R/$n.fxt -- sh /tmp/hotplug.sh $R/$n.expect
		echo 0 >$W/tracing_on
		ktrace dump --check $R/$n.fxt >$R/$n.check 2>&1
		rc=$?
		echo "$n check $rc" >>$R/status
		sed -n "s/^timeline: \([0-9]*\) untraced_wakeup.*/$n \1/p" $R/$n.check >>$R/untraced-wakeups
		if [ $rc = 0 ]; then
			rm -f $R/$n.fxt $R/$n.check $R/$n.out $R/$n.err $R/$n.expect
		else
			cat $W/trace >$R/$n.witness
		fi
	done
	i=$((i + 1))
done
step rmmod rmmod ktrace
mark dmesg
dmesg >"$R/dmesg.txt"
