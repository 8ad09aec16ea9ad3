#!/bin/sh
# Runs inside a 4-CPU test VM (tests/suites/vm.sh boots it before the main
# run): CPU hotplug while recording, with each backend, stream and ring:
# CPUs 1 to 3 go offline and come back five times while the workload runs.
# Leaves the traces, each step's status and dmesg in /results.
. /ktrace/steps.sh

uname -r >"$R/uname"
nproc >"$R/nproc"
step insmod insmod ./ktrace.ko
write_hotplug_script
for c in kmod: bpf: kmod:--ring bpf:--ring; do
	b=${c%:*} mode=${c#*:}
	step hotplug_${b}${mode#--} ktrace record --backend $b $mode -o $R/hotplug_${b}${mode#--}.fxt -- \
		sh /tmp/hotplug.sh $R/hotplug_${b}${mode#--}.expect
done
step rmmod rmmod ktrace
mark dmesg
dmesg >"$R/dmesg.txt"
