# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""unittest base for the symbols-only suites (a kernel's, a module's):
`symprov find` through the debuginfod provider, the server's section
traffic, the client cache, what -v says was found."""
import os
import subprocess

from debuginfod_server import metric
from elf_fixtures import read_build_id, read_sections
from server_testcase import ServerTestCase

BUILD = 'build'
TIMEOUT = 120
# the provider's symbols-only file in libdebuginfod's cache
SYMBOLS_FILE = 'source-symprov-symbols'


def symprov():
    return os.path.join(BUILD, 'bin', 'symprov')


def symbols(path):
    """readelf's symbol table of PATH, without its header line."""
    out = subprocess.run(['readelf', '-sW', path], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    return out.split('\n', 1)[1]


class SymbolsTestCase(ServerTestCase):
    # the sections a symbols-only file is made of, set by each suite
    TABLES = ()

    def find(self, *args, env=None, providers='libdebuginfodprov.so'):
        cmd = [symprov(), '-v', 'find']
        if providers is not None:
            cmd += ['--providers', providers]
        cmd += list(args)
        return subprocess.run(cmd, env=env or self.env(), text=True,
                              capture_output=True, timeout=TIMEOUT)

    def table_bytes(self, path):
        secs = read_sections(path)
        return sum(secs[n][4] for n in self.TABLES)

    def section_traffic(self):
        m = self.server.metrics()
        return (metric(m, 'http_responses_transfer_bytes_count',
                       type='section'),
                metric(m, 'http_responses_transfer_bytes_sum',
                       type='section'))

    def cache_entries(self, bid):
        d = os.path.join(self.cache, bid)
        return {f: os.path.getsize(os.path.join(d, f))
                for f in os.listdir(d)} if os.path.isdir(d) else {}

    def assert_found(self, res, bid, content):
        self.assertEqual(res.returncode, 0, res.stderr)
        path = res.stdout.strip()
        self.assertEqual(read_build_id(path), bid)
        self.assertIn('the symbols only' if content == 'symbols'
                      else 'the whole file', res.stderr)
        return path
