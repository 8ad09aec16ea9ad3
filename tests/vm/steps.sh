# SPDX-License-Identifier: GPL-2.0
# Sourced by the scripts that run inside the test VM (scripts/vm-run.sh
# copies it to /ktrace): results in /results, the CLI and the test programs
# on PATH, and step(), which runs one step with its output and exit status
# kept and a step line on the console for the host's watchdog.
R=/results
mkdir -p $R
cd /ktrace || exit 1
export PATH=/ktrace:$PATH

mark() { vm-step "$1"; }	# the host's watchdog reads these
# watching LOG PID: until ktrace watch PID says in LOG that it records, or
# has ended (two minutes at most).
watching() {
	i=0
	while [ $i -lt 1200 ] && ! grep -q 'watching with' "$1" && kill -0 "$2" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
}
step() {	# step NAME COMMAND... : run, keep output and status
	name=$1
	shift
	mark "$name"
	"$@" >"$R/$name.out" 2>"$R/$name.err"
	echo "$name $?" >>"$R/status"
}

# /tmp/hotplug.sh EXPECT: the known workload while CPUs 1 to 3 go offline and
# come back five times (hotplug-in-vm.sh, hotplug-loop-in-vm.sh).
write_hotplug_script() {
	cat >/tmp/hotplug.sh <<'HOTPLUG'
known_workload "$1" 3000 >/dev/null 2>&1 &
w=$!
i=0
while [ $i -lt 5 ]; do
	for c in 1 2 3; do echo 0 >/sys/devices/system/cpu/cpu$c/online || exit 1; done
	sleep 0.2
	for c in 1 2 3; do echo 1 >/sys/devices/system/cpu/cpu$c/online || exit 1; done
	sleep 0.2
	i=$((i + 1))
done
wait $w
HOTPLUG
}

# hotplug_rounds N: the hotplug recording N times in a row with the module,
# stream and ring, and with BPF where the kernel has it (its error, if
# not, in bpf-probe.err), each checked as timelines in the VM (`ktrace dump
# --check`): a "NAME check RC" line in status, the untraced_wakeup count in
# untraced-wakeups; a failing recording and its check are kept, a passing
# one is not.  With WITNESS, a tracefs instance's directory, that instance
# records beside each, and its trace is kept with a failing one.
hotplug_rounds() {
	modes="kmod: kmod:--ring"
	ktrace record --backend bpf -o /tmp/probe.fxt -d 0.1 >/dev/null 2>"$R/bpf-probe.err" &&
		modes="$modes bpf:"
	i=1
	while [ $i -le "$1" ]; do
		for c in $modes; do
			b=${c%:*} mode=${c#*:}
			n=hotplug${i}_$b${mode#--}
			if [ -n "$WITNESS" ]; then
				echo >"$WITNESS/trace"
				echo 1 >"$WITNESS/tracing_on"
			fi
			step $n ktrace record --backend $b $mode -o $R/$n.fxt -- sh /tmp/hotplug.sh $R/$n.expect
			[ -n "$WITNESS" ] && echo 0 >"$WITNESS/tracing_on"
			ktrace dump --check $R/$n.fxt >$R/$n.check 2>&1
			rc=$?
			echo "$n check $rc" >>$R/status
			sed -n "s/^timeline: \([0-9]*\) untraced_wakeup.*/$n \1/p" $R/$n.check >>$R/untraced-wakeups
			if [ $rc = 0 ]; then
				rm -f $R/$n.fxt $R/$n.check $R/$n.out $R/$n.err $R/$n.expect
			elif [ -n "$WITNESS" ]; then
				cat "$WITNESS/trace" >$R/$n.witness
			fi
		done
		i=$((i + 1))
	done
}
