#!/bin/sh
# Runs inside a 4-CPU test VM: the hotplug recording of hotplug-in-vm.sh
# sixty times with each backend, stream and ring (hotplug_rounds), each
# with a tracefs instance beside it as a witness: the scheduler's events,
# the hotplug states, and a kprobe on try_to_wake_up() (which fires on
# every CPU, online or not, unlike a tracepoint).  A recording whose
# `ktrace dump --check` fails is kept with the witness's trace; a passing
# one is not.
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
	echo 'p:witness/ttwu try_to_wake_up task=%di:x64 state=%si' >>$T/dynamic_events
for e in sched/sched_waking sched/sched_wakeup sched/sched_switch sched/sched_migrate_task \
	cpuhp/cpuhp_enter cpuhp/cpuhp_exit witness/ttwu; do
	echo 1 >$W/events/$e/enable 2>>"$R/witness.err"
done
WITNESS=$W
hotplug_rounds 60
step rmmod rmmod ktrace
mark dmesg
dmesg >"$R/dmesg.txt"
