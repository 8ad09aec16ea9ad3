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
