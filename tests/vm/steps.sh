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
step() {	# step NAME COMMAND... : run, keep output and status
	name=$1
	shift
	mark "$name"
	"$@" >"$R/$name.out" 2>"$R/$name.err"
	echo "$name $?" >>"$R/status"
}
