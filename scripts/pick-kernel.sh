#!/bin/sh
# Prints the release of the kernel to build ktrace.ko for: the running one
# when its build tree is installed (the kernel insmod will load into), else
# the newest generic (not RT, not cloud) Debian headers under /usr/src, as
# on machines whose own kernel has no module support.  Prints nothing when
# there are no headers at all.
# usage: scripts/pick-kernel.sh
running=$(uname -r)
if [ -f "/lib/modules/$running/build/Makefile" ]; then
	echo "$running"
	exit 0
fi
ls -d /usr/src/linux-headers-*-amd64 /usr/src/linux-headers-*-arm64 2>/dev/null |
	sed 's|.*/linux-headers-||' | grep -vE -- '-(rt|cloud)-' | sort -V | tail -n 1
