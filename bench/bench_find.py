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
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'tests', 'lib'))

from debuginfod_server import DebuginfodServer  # noqa: E402
from elf_fixtures import make_elf  # noqa: E402
from benchlib import print_footer, print_header, side_by_side  # noqa

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
            print_header()
            for label, bid in (('small', SMALL), ('large', LARGE)):
                side_by_side(label, [
                    ('debuginfod-find (baseline)',
                     ['debuginfod-find', 'debuginfo', bid]),
                    ('symprov find',
                     [os.path.join(build, 'bin', 'symprov'), 'find',
                      '--providers', 'libdebuginfodprov.so', bid]),
                ], env, ROUNDS)
            print_footer(ROUNDS)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
