#!/bin/sh
# Runs inside the test VM booted with systemd as PID 1 (scripts/vm-run.sh
# with KTRACE_VM_INIT=systemd; the host checks with
# tests/suites/watch-systemd.sh): ktrace-watch.service as make install-cli
# installs it, its options from /etc/default/ktrace-watch, started with
# systemctl beside three known spikes and stopped; started again, killed
# with SIGKILL, restarted by systemd (Restart=on-failure) into the same
# directory, two more spikes, stopped.  What systemctl and the journal say
# at each point lands in /results for the host to judge.
. /ktrace/steps.sh
D=/var/lib/ktrace-test

uname -r >"$R/uname"
cat /proc/1/comm >"$R/pid1"
systemctl --version | head -n 1 >"$R/systemd-version"
# How each run of the watch ended: systemd logs "Main process exited,
# code=exited, status=0/SUCCESS" only at debug level, and once stopped the
# unit is unloaded, so that systemctl show no longer has its exit status.
systemctl log-level debug
step insmod insmod ./ktrace.ko
cat >/etc/default/ktrace-watch <<EOF
KTRACE_WATCH_DIR=$D
KTRACE_WATCH_OPTS="--threshold=10ms --comm=kt_victim --before=100ms --after=10ms"
EOF

# The unit's journal lines (all its runs) that match PATTERN.
jcount() { journalctl -q -u ktrace-watch -o cat 2>/dev/null | grep -c "$1"; }
# Waits until the unit's journal holds N lines matching PATTERN: each
# window takes seconds to write under emulation, and the watch records
# again only after.  At most 240 s, less than the host's stall limit
# (scripts/vm-run.sh), so that a line that never comes is a failed check
# with the journal to show, not a killed VM.
wait_journal() {	# wait_journal PATTERN N
	i=0
	while [ $i -lt 240 ] && [ "$(jcount "$1")" -lt "$2" ]; do
		sleep 1
		i=$((i + 1))
	done
}
show() {	# show NAME: the unit's state now, into $R/NAME.show
	systemctl show -p ActiveState,SubState,MainPID,NRestarts,ExecMainStatus,ExecMainCode,Result \
		ktrace-watch >"$R/$1.show" 2>&1
}

# Started, recording (its "watching with" line), the command line it runs.
step start systemctl start ktrace-watch
wait_journal 'watching with' 1
show started
pid=$(systemctl show -p MainPID --value ktrace-watch)
echo "$pid" >"$R/started.pid"
tr '\0' ' ' <"/proc/$pid/cmdline" >"$R/cmdline" 2>/dev/null
# Three bursts, four seconds apart, and their three lines.
step load1 spike_workload "$R/run1.expect" 3 20000 4000
wait_journal 'ktrace: spike: ' 3
step stop systemctl stop ktrace-watch
show stopped
journalctl -u ktrace-watch -o short-monotonic >"$R/journal1.txt" 2>&1
cp -a "$D" "$R/run1"

# Again, killed: systemd starts it again after RestartSec, into the same
# directory (its third "watching with" line).
step start2 systemctl start ktrace-watch
wait_journal 'watching with' 2
systemctl show -p MainPID --value ktrace-watch >"$R/killed.pid"
step kill systemctl kill -s KILL ktrace-watch
wait_journal 'watching with' 3
show restarted
systemctl show -p MainPID --value ktrace-watch >"$R/restarted.pid"
step load2 spike_workload "$R/run2.expect" 2 20000 4000
wait_journal 'ktrace: spike: ' 5
step stop2 systemctl stop ktrace-watch
show stopped2

journalctl -u ktrace-watch -o short-monotonic >"$R/journal.txt" 2>&1
journalctl -b -o short-monotonic >"$R/journal-boot.txt" 2>&1
systemctl list-units --failed --no-legend >"$R/failed-units" 2>&1
cp -a "$D" "$R/watch"
dmesg >"$R/dmesg"
