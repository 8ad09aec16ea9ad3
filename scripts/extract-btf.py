#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Copies the kernel's BTF out of an uncompressed kernel image (Debian's
arm64 vmlinuz is a raw Image, and its System.map is only in the -dbg
package): the largest well-formed BTF blob in it, whose header gives its
size.  bpftool reads the result as a raw BTF file, for vmlinux.h.
usage: scripts/extract-btf.py IMAGE OUT"""
import struct
import sys

MAGIC = b'\x9f\xeb\x01\x00\x18\x00\x00\x00'	# magic, version 1, flags 0, header length 24


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.splitlines()[-1])
    data = open(sys.argv[1], 'rb').read()
    best = None
    i = data.find(MAGIC)
    while i >= 0:
        type_off, type_len, str_off, str_len = struct.unpack_from('<IIII', data, i + 8)
        size = 24 + str_off + str_len
        if type_off == 0 and str_off == type_len and i + size <= len(data) and \
           (best is None or size > best[1]):
            best = (i, size)
        i = data.find(MAGIC, i + 1)
    if best is None:
        sys.exit(f"extract-btf: {sys.argv[1]}: no BTF found (a compressed image, or a kernel without CONFIG_DEBUG_INFO_BTF)")
    with open(sys.argv[2], 'wb') as out:
        out.write(data[best[0]:best[0] + best[1]])


main()
