#!/bin/sh
# Runs inside the test VM for the package suite (tests/suites/deb.sh): the
# ktrace.ko DKMS built in a Debian root from the ktrace-dkms package, and
# the ktrace command from the ktrace package, record a workload.
. /ktrace/steps.sh

uname -r >"$R/uname"
step insmod insmod ./ktrace.ko
step devices ls /dev/ktrace /dev/ktrace-mark
step version ktrace --version
step record ktrace record --backend kmod -o $R/kmod.fxt -- known_workload $R/kmod.expect 500
step rmmod rmmod ktrace
