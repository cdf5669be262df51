# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""valgrind for the benchmarks: instructions by callgrind (the same count
for the same binary and input, whatever else the machine does), heap by
massif and memcheck.
"""
import os
import re
import subprocess

from benchlib import REPO, BenchError


def callgrind_ir(cmd, env, out, wrapper=(), only=None):
    """Instructions executed by CMD, counted by callgrind into OUT;
    WRAPPER runs valgrind.  ONLY: those in the function of that name and
    what it calls, every copy of it (a host's and a provider's)."""
    opts = ['--toggle-collect=' + only] if only else []
    subprocess.run(list(wrapper) + ['valgrind', '--tool=callgrind',
                                    '--callgrind-out-file=' + out] + opts +
                   cmd,
                   env=env, check=True, timeout=3600,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        for line in f:
            if line.startswith('summary:') or line.startswith('totals:'):
                return int(line.split()[1])
    raise BenchError('no instruction count in ' + out)


def callgrind_functions(out):
    """{'file:function [object]': instructions in it alone} of OUT."""
    text = subprocess.run(['callgrind_annotate', '--auto=no',
                           '--threshold=100', out], capture_output=True,
                          text=True, check=True, timeout=600).stdout
    fns = {}
    for line in text.splitlines():
        m = re.match(r'\s*([\d,]+) \([ \d.]+%\)  (\S.*)$', line)
        if m and m.group(2) != 'PROGRAM TOTALS':
            fns[m.group(2)] = int(m.group(1).replace(',', ''))
    return fns


def by_function(out, binary):
    """{'function [object]': instructions} of OUT, BINARY named 'perf';
    without source file names, which debug information may not give."""
    fns = {}
    for f, n in callgrind_functions(out).items():
        name, _, obj = f.rpartition(' [')
        key = '%s [%s' % (name.rpartition(':')[2] if '(' not in name
                          else name,
                          obj.replace(binary, 'perf') if binary else obj)
        fns[key] = fns.get(key, 0) + n
    return fns


def largest_change(a, b):
    """The function whose instructions differ most from A to B."""
    fn = max(set(a) | set(b), key=lambda f: abs(b.get(f, 0) - a.get(f, 0)))
    # the tree's own objects by their paths in it
    return '%s %+d' % (fn.split(':')[-1].replace(REPO + os.sep, ''),
                       b.get(fn, 0) - a.get(fn, 0))


def massif_peak(cmd, env, out):
    """Peak heap bytes, requested and allocator overhead, of CMD."""
    subprocess.run(['valgrind', '--tool=massif', '--massif-out-file=' + out] +
                   cmd, env=env, check=True, timeout=3600,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak, cur = 0, 0
    with open(out) as f:
        for line in f:
            key, _, val = line.strip().partition('=')
            if key == 'mem_heap_B':
                cur = int(val)
            elif key == 'mem_heap_extra_B':
                peak = max(peak, cur + int(val))
    return peak


def memcheck_in_use(cmd, env):
    """Heap bytes still allocated when CMD exits, by memcheck."""
    r = subprocess.run(['valgrind', '--leak-check=no'] + cmd, env=env,
                       capture_output=True, text=True, timeout=3600)
    m = re.search(r'in use at exit: ([\d,]+) bytes', r.stderr)
    if r.returncode or not m:
        raise BenchError('valgrind %s: %s' % (cmd[0], r.stderr[-2000:]))
    return int(m.group(1).replace(',', ''))
