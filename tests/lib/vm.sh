# SPDX-License-Identifier: GPL-2.0
# What the VM suites share (sourced after tap.sh): a boot of their own,
# the exit statuses its steps left, and what the kernel says when
# something is wrong.

# What the kernel says when something is wrong.
DMESG_BAD='WARNING:|BUG:|Oops|general protection|lockdep|possible circular locking|INFO: task .* blocked|KASAN|UBSAN|sleeping function called from invalid context|scheduling while atomic|inconsistent lock state|Invalid wait context'

# status_in DIR STEP: the exit status step STEP left in DIR/status.
status_in() { awk -v k="$2" '$1 == k {print $2}' "$1/status" 2>/dev/null; }

# vm_boot BUILD KREL NAME [VAR=VALUE...]: scripts/vm-run.sh with those
# variables set, its log in BUILD/vm/KREL.NAME.log and its results in
# BUILD/vm/KREL.NAME; another boot's results, in BUILD/vm/KREL, are kept
# aside meanwhile (each boot starts afresh).  vm-run.sh's exit status.
vm_boot() {
	local build=$1 krel=$2 name=$3 rc
	shift 3
	mkdir -p "$build/vm"
	[ -d "$build/vm/$krel" ] && mv "$build/vm/$krel" "$build/vm/$krel.aside"
	env "$@" scripts/vm-run.sh "$build" "$krel" >"$build/vm/$krel.$name.log" 2>&1
	rc=$?
	rm -rf "$build/vm/$krel.$name"
	[ -d "$build/vm/$krel" ] && mv "$build/vm/$krel" "$build/vm/$krel.$name"
	[ -d "$build/vm/$krel.aside" ] && mv "$build/vm/$krel.aside" "$build/vm/$krel"
	return $rc
}
