#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The CLI's source layers (README, "Source layout"), checked.

check_layers.py BUILD_DIR: TAP output.
 - every #include of a project header names its folder, and no folder
   includes a higher layer's header: lib < fxt < trace < cli < record,
   analyze < the commands (user/*.c); record and analyze do not include
   each other;
 - no two object files of user/ call each other in a circle (from nm: the
   symbols each defines and each uses).
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib'))
import tap  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
USER = os.path.join(ROOT, 'user')
RANK = {'lib': 0, 'fxt': 1, 'trace': 2, 'cli': 3, 'record': 4, 'analyze': 4, '': 5}


def layer_of(path):
    rel = os.path.relpath(path, USER)
    return os.path.dirname(rel)


def include_problems():
    problems = []
    for dirpath, _, files in os.walk(USER):
        for name in sorted(files):
            if not name.endswith(('.c', '.h')):
                continue
            path = os.path.join(dirpath, name)
            mine = layer_of(path)
            with open(path) as f:
                for no, line in enumerate(f, 1):
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if not m:
                        continue
                    inc = m.group(1)
                    where = '%s:%d' % (os.path.relpath(path, ROOT), no)
                    if not os.path.exists(os.path.join(USER, inc)):
                        continue
                    theirs = os.path.dirname(inc)
                    if mine != '' and theirs == '':
                        problems.append('%s: %s/ includes the commands\' "%s"' % (where, mine, inc))
                    elif RANK[theirs] > RANK[mine] or (RANK[theirs] == RANK[mine] and theirs != mine):
                        problems.append('%s: %s/ includes "%s" of a layer above or beside it'
                                        % (where, mine or 'user', inc))
    return problems


def symbols(obj):
    out = subprocess.run(['nm', obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == 'U':
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in 'TDBR':
            defined.add(parts[2])
    return defined, used


def call_cycles(build):
    objs = {}
    base = os.path.join(build, 'user')
    for dirpath, _, files in os.walk(base):
        for name in files:
            src = os.path.join(USER, os.path.relpath(os.path.join(dirpath, name), base))[:-2] + '.c'
            if name.endswith('.o') and os.path.exists(src):
                objs[os.path.relpath(os.path.join(dirpath, name), base)[:-2] + '.c'] = \
                    symbols(os.path.join(dirpath, name))
    owner = {}
    for f, (d, _) in objs.items():
        for s in d:
            owner[s] = f
    edges = {f: sorted({owner[s] for s in u if s in owner and owner[s] != f})
             for f, (_, u) in objs.items()}
    # Tarjan's strongly connected components: a circle is one of two files or more.
    index, low, stack, on, sccs, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return len(objs), sccs


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: check_layers.py BUILD_DIR')
    problems = include_problems()
    tap.ok(not problems, 'every include names its folder and no layer includes one above it',
         '\n'.join(problems))
    nobj, sccs = call_cycles(sys.argv[1])
    if nobj == 0:
        tap.skip('no circles between files', 'no object files of user/ in %s (build first)' % sys.argv[1])
    else:
        tap.ok(not sccs, 'no files of user/ call each other in a circle (%d files)' % nobj,
             '\n'.join('circle: ' + ' -> '.join(c) for c in sccs))
    tap.finish()


if __name__ == '__main__':
    main()
