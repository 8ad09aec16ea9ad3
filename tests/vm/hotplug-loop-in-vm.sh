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
hotplug_rounds 20
step rmmod rmmod ktrace
mark dmesg
dmesg >"$R/dmesg.txt"
