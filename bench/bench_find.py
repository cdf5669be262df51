#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""What the provider path costs on top of libdebuginfod itself.

Side by side, interleaved, on the same machine and the same warm client
cache: `symprov find` (loader + provider + build ID check) against
elfutils' own `debuginfod-find` (libdebuginfod alone, no check), for a
small file and a large one.  Reported as ratios of medians, with the peak
RSS of each; no network is involved once the cache is warm.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'tests', 'lib'))

from debuginfod_server import DebuginfodServer  # noqa: E402
from elf_fixtures import make_elf  # noqa: E402

ROUNDS = int(os.environ.get('BENCH_ROUNDS', '40'))
SMALL = 'be0c000000000000000000000000000000000001'
LARGE = 'be0c000000000000000000000000000000000002'
LARGE_MB = 256


def make_large(path, build_id):
    """An ELF with a large .data section, as big as a small vmlinux."""
    src = path + '.c'
    with open(src, 'w') as f:
        f.write('char blob[%d << 20] = { 1 };\n'
                'int symprov_fixture(void) { return blob[0]; }\n' % LARGE_MB)
    subprocess.run(['gcc', '-g', '-c', src, '-o', path + '.o'], check=True)
    subprocess.run(['ld', '--build-id=0x' + build_id, '-e',
                    'symprov_fixture', '-o', path, path + '.o'], check=True)
    os.unlink(src)
    os.unlink(path + '.o')


def timed(cmd, env):
    """Wall seconds and peak RSS (KiB) of one run.  GNU time measures the
    RSS: a child forked from Python would count Python's pages too."""
    with tempfile.NamedTemporaryFile(mode='r') as out:
        start = time.perf_counter()
        subprocess.run(['/usr/bin/time', '-o', out.name, '-f', '%M'] + cmd,
                       env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True, timeout=120)
        elapsed = time.perf_counter() - start
        return elapsed, int(out.read().split()[-1])


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else 'build')
    tmp = tempfile.mkdtemp(prefix='symprov-bench-')
    try:
        srv = os.path.join(tmp, 'srv')
        os.mkdir(srv)
        make_elf(os.path.join(srv, 'small.elf'), SMALL)
        make_large(os.path.join(srv, 'large.elf'), LARGE)
        with DebuginfodServer(srv) as server:
            env = server.client_env(tmp)
            print('%-6s %-28s %10s %8s %10s %8s' % (
                'file', 'command', 'median ms', 'min ms', 'peak KiB',
                'ratio'))
            for label, bid in (('small', SMALL), ('large', LARGE)):
                cmds = {
                    'debuginfod-find (baseline)':
                        ['debuginfod-find', 'debuginfo', bid],
                    'symprov find':
                        [os.path.join(build, 'bin', 'symprov'), 'find',
                         '--providers', 'libdebuginfodprov.so', bid],
                }
                for cmd in cmds.values():  # warm the cache
                    timed(cmd, env)
                times = {k: [] for k in cmds}
                rss = {k: 0 for k in cmds}
                for _ in range(ROUNDS):
                    for name, cmd in cmds.items():
                        t, r = timed(cmd, env)
                        times[name].append(t)
                        rss[name] = max(rss[name], r)
                base = statistics.median(times['debuginfod-find (baseline)'])
                for name in cmds:
                    med = statistics.median(times[name])
                    print('%-6s %-28s %10.2f %8.2f %10d %8.2f' % (
                        label, name, med * 1000, min(times[name]) * 1000,
                        rss[name], med / base))
            print('rounds: %d, interleaved; ratio = median / baseline median'
                  % ROUNDS)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
