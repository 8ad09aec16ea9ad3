#!/bin/sh
# Prints the release of the kernel to build ktrace.ko for: the running one
# when its build tree is installed (the kernel insmod will load into), else
# the newest generic (not RT, not cloud) Debian headers under /usr/src, as
# on machines whose own kernel has no module support.  Prints nothing when
# there are no headers at all.
# With --matrix: the kernels the VM suite boots, one a line: the newest of
# each series and flavour that scripts/install-deps.sh --test installed
# (scripts/kernel-paths.sh says where each suite's kernels are).
# usage: scripts/pick-kernel.sh [--matrix]
if [ "${1:-}" = --matrix ]; then
	. "$(dirname "$0")/kernel-paths.sh"
	kernels_matrix
	exit 0
fi
running=$(uname -r)
if [ -f "/lib/modules/$running/build/Makefile" ]; then
	echo "$running"
	exit 0
fi
ls -d /usr/src/linux-headers-*-amd64 /usr/src/linux-headers-*-arm64 2>/dev/null |
	sed 's|.*/linux-headers-||' | grep -vE -- '-(rt|cloud)-' | sort -V | tail -n 1
