#!/bin/bash
# ktrace-watch.service under a real systemd: a VM booting one of Debian's
# kernels (KREL, by default scripts/pick-kernel.sh) with this machine's
# systemd as PID 1 (scripts/vm-run.sh with KTRACE_VM_INIT=systemd) and the
# unit as make install-cli installs it (tests/vm/systemd-in-vm.sh): started
# with systemctl, its options from /etc/default/ktrace-watch, three known
# spikes each a line in its journal, stopped with exit status 0 and every
# spike whole; then killed with SIGKILL, restarted by Restart=on-failure
# into the same directory, two more spikes, the index still valid.
# usage: KREL=RELEASE tests/suites/watch-systemd.sh BUILD_DIR.  TAP output;
# the VM's results stay in BUILD_DIR/vm/RELEASE.systemd.
set -u
build=${1:-build}
krel=${KREL:-$(scripts/pick-kernel.sh)}
ktrace=$build/ktrace
S=$build/vm/$krel.systemd
R=$S/results
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/vm.sh"
status() { status_in "$R" "$1"; }
# prop FILE NAME: a property of a systemctl show that the guest kept.
prop() { sed -n "s/^$2=//p" "$R/$1.show" 2>/dev/null; }
D=/var/lib/ktrace-test
OPTS="--threshold=10ms --comm=kt_victim --before=100ms --after=10ms"

echo "TAP version 13"
[ -n "$krel" ] || skip_all "ktrace-watch.service under systemd in a VM" "no kernel headers to pick a kernel from"
. scripts/kernel-paths.sh
kernel_paths "$krel" || skip_all "ktrace-watch.service under systemd on $krel" "linux-image-$krel is not installed"
[ "$karch" = x86_64 ] || skip_all "ktrace-watch.service under systemd on $krel" "the guest runs this machine's systemd: x86_64 kernels only"
command -v qemu-system-x86_64 >/dev/null ||
	skip_all "ktrace-watch.service under systemd on $krel" "qemu is not installed"
[ -x /lib/systemd/systemd ] && command -v systemctl >/dev/null ||
	skip_all "ktrace-watch.service under systemd on $krel" "systemd is not installed (scripts/install-deps.sh --test)"
[ -f "$build/kmod/$krel/kmod/ktrace.ko" ] && [ -x "$build/tests/spike_workload" ] ||
	skip_all "ktrace-watch.service under systemd on $krel" "ktrace.ko or the spike workload is not built (make vm-check KREL=$krel)"

start=$(date +%s)
vm_boot "$build" "$krel" systemd KTRACE_VM_INIT=systemd KTRACE_VM_SCRIPT=tests/vm/systemd-in-vm.sh
rc=$?
[ $rc -eq 0 ] && [ "$(cat "$R/pid1" 2>/dev/null)" = systemd ]
ok $? "the VM booted $krel with systemd as PID 1 ($(cat "$R/systemd-version" 2>/dev/null)) and ran the steps ($(($(date +%s) - start)) s)" ||
	sed 's/^/# /' "$build/vm/$krel.systemd.log" | tail -20
[ -f "$R/status" ] || { echo "1..$n"; exit 1; }
echo "# steps (s): $(tr '\n' ' ' <"$S/steps.log")"
[ "$(status insmod)" = 0 ]
ok $? "insmod ktrace.ko on $(cat "$R/uname")" || diag "$R/insmod.err"

# 1. Started, with the options of /etc/default/ktrace-watch.
[ "$(status start)" = 0 ] && [ "$(prop started ActiveState)" = active ] && [ "$(prop started SubState)" = running ]
ok $? "systemctl start ktrace-watch: active (running)" || { diag "$R/start.err"; diag "$R/started.show"; }
cmdline=$(sed 's/ *$//' "$R/cmdline" 2>/dev/null)
[ "$cmdline" = "/usr/bin/ktrace watch -o $D $OPTS" ] &&
	grep -q "watching with the kmod backend: waits of 10.000 ms or more of kt_victim into $D;" "$R/journal1.txt"
ok $? "it runs ktrace watch with KTRACE_WATCH_DIR and KTRACE_WATCH_OPTS of /etc/default/ktrace-watch" ||
	{ echo "# command line: $cmdline"; grep 'watching with' "$R/journal1.txt" | diag /dev/stdin; }

# 2. Each saved spike's line in the journal, naming its report.
journal_spikes() {	# journal_spikes FILE: the reports the journal's spike lines name
	sed -n "s|.*ktrace: spike: .* -> $D/\([^ ]*\.txt\)\$|\1|p" "$1" | tr -d '\r' | sort
}
index_spikes() {	# index_spikes DIR: the reports of the index's saved spikes
	python3 -c 'import json, sys
for l in open(sys.argv[1]):
    s = json.loads(l)
    if s["status"] == "saved": print(s["txt"])' "$1/spikes.jsonl" 2>/dev/null | sort
}
[ "$(status load1)" = 0 ]
ok $? "the spike workload ran its three bursts beside the service" || diag "$R/load1.err"
j=$(journal_spikes "$R/journal1.txt") i=$(index_spikes "$R/run1")
[ -n "$i" ] && [ "$j" = "$i" ]
ok $? "journalctl -u ktrace-watch has a spike line for each of the $(echo "$i" | grep -c .) saved spikes, naming its report" ||
	{ echo "# journal: $(echo $j)"; echo "# index: $(echo $i)"; }

# 3. Stopped: SIGTERM finishes the window under way, exit status 0, each
# saved spike whole.
# How systemd saw the last run of the watch in a journal FILE end (logged
# at debug level, which the guest turned on).
exited() {	# exited FILE
	grep -a 'ktrace-watch.service: Main process exited, ' "$1" | tail -n 1 | tr -d '\r' |
		sed -n 's/.*Main process exited, \(code=[a-z]*, status=[^ ]*\).*/\1/p'
}
first=$(exited "$R/journal1.txt")
[ "$(status stop)" = 0 ] && [ "$first" = "code=exited, status=0/SUCCESS" ] &&
	[ "$(prop stopped ActiveState)" = inactive ] && [ "$(prop stopped Result)" = success ]
ok $? "systemctl stop ktrace-watch: the watch exits with status 0, the unit inactive with result success" ||
	{ echo "# main process: ${first:-no exit logged}"; diag "$R/stop.err"; diag "$R/stopped.show"; }
grep -q 'ktrace: watch: 3 spikes in .*: 3 saved' "$R/journal1.txt"
ok $? "the watch's summary on stop is in the journal: 3 spikes, 3 saved" ||
	grep 'ktrace: watch: ' "$R/journal1.txt" | diag /dev/stdin
tap_include < <(tests/check_spikes.py "$ktrace" "$R/run1" "$R/run1.expect" 3 |
	sed 's/^\(\(not \)\?ok [0-9]* - \)/\1stopped: /')

# 4. Killed: Restart=on-failure starts it again (after RestartSec) into the
# same directory, which takes the spikes that follow.
[ "$(status start2)" = 0 ] && [ "$(status kill)" = 0 ] &&
	grep -q "ktrace-watch.service: Main process exited, code=killed, status=9/KILL" "$R/journal.txt" &&
	grep -q "ktrace-watch.service: Scheduled restart job, restart counter is at 1" "$R/journal.txt" &&
	[ "$(prop restarted ActiveState)" = active ] && [ "$(prop restarted NRestarts)" = 1 ] &&
	[ -n "$(cat "$R/restarted.pid")" ] && [ "$(cat "$R/restarted.pid")" != "$(cat "$R/killed.pid")" ]
ok $? "systemctl kill -s KILL ktrace-watch: systemd restarts it (Restart=on-failure), active again with a new pid" ||
	{ diag "$R/kill.err"; diag "$R/restarted.show"; grep -a 'Main process\|restart' "$R/journal.txt" | diag /dev/stdin; }
[ "$(status load2)" = 0 ]
ok $? "the spike workload ran its two bursts beside the restarted service" || diag "$R/load2.err"
j=$(journal_spikes "$R/journal.txt") i=$(index_spikes "$R/watch")
[ -n "$i" ] && [ "$j" = "$i" ] && [ "$(echo "$i" | grep -c .)" -eq 5 ]
ok $? "after the restart, five spikes in the same directory's index, each with its journal line" ||
	{ echo "# journal: $(echo $j)"; echo "# index: $(echo $i)"; }
second=$(exited "$R/journal.txt")
[ "$(status stop2)" = 0 ] && [ "$second" = "code=exited, status=0/SUCCESS" ] &&
	[ "$(prop stopped2 ActiveState)" = inactive ] && [ "$(prop stopped2 Result)" = success ]
ok $? "systemctl stop of the restarted service: exit status 0, inactive with result success" ||
	{ echo "# main process: ${second:-no exit logged}"; diag "$R/stop2.err"; diag "$R/stopped2.show"; }
# The spikes of both runs, whole, in one index.
tap_include < <(tests/check_spikes.py "$ktrace" "$R/watch" "$R/run1.expect" 3 |
	sed 's/^\(\(not \)\?ok [0-9]* - \)/\1restarted, the first run'"'"'s: /')
tap_include < <(tests/check_spikes.py "$ktrace" "$R/watch" "$R/run2.expect" 2 |
	sed 's/^\(\(not \)\?ok [0-9]* - \)/\1restarted, the second run'"'"'s: /')

! grep -E "$DMESG_BAD" "$R/dmesg" >/dev/null
ok $? "no warning in dmesg" || grep -E -A5 "$DMESG_BAD" "$R/dmesg" | head -20 | diag /dev/stdin
finish
