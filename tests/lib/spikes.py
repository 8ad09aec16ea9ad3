# SPDX-License-Identifier: GPL-2.0
"""What `ktrace watch` left in a directory, for the checks of it: the index
(spikes.jsonl) and `ktrace dump --check` of a saved window."""
import json
import os
import subprocess


def read_index(d):
    """spikes.jsonl's lines, the spikes they parse to, and the lines that do not."""
    path = os.path.join(d, 'spikes.jsonl')
    lines = open(path).read().splitlines() if os.path.exists(path) else []
    spikes, bad = [], []
    for line in lines:
        try:
            spikes.append(json.loads(line))
        except ValueError:
            bad.append(line[:200])
    return lines, spikes, bad


def dump_check(ktrace, fxt):
    """`ktrace dump --check` of a window: its exit status and what it said."""
    r = subprocess.run([ktrace, 'dump', '--check', fxt], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr
