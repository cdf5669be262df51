# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""unittest base for the symbols-only suites (a kernel's, a module's):
`symprov find` through the debuginfod provider, the server's section
traffic, the client cache, what -v says was found."""
import os
import subprocess

from debuginfod_server import metric
from elf_fixtures import read_build_id, read_sections, section_bytes
from fault_server import FaultServer
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

    def assert_clean(self, bid, whole_ok=True):
        """No symbols-only file, no part of a section; a whole file the
        server sent may stay, and libdebuginfod's (empty) miss markers."""
        for name, size in self.cache_entries(bid).items():
            if whole_ok and name in ('debuginfo', 'executable'):
                continue
            self.assertFalse(name.startswith(SYMBOLS_FILE), name)
            self.assertEqual(size, 0, '%s left in the cache' % name)

    def hostile_find(self, why, path, bid, **changed):
        """A symbols-only find of BID from a server whose sections are
        PATH's but for CHANGED ({name: bytes} or {name: mode}), and whose
        debuginfo is PATH, the right file.  It must say WHY and leave the
        cache clean; returns its result."""
        bodies = {n: section_bytes(path, n) for n in self.TABLES}
        modes = {n: 'file' for n in self.TABLES}
        for name, what in changed.items():
            if isinstance(what, bytes):
                bodies[name] = what
                modes[name] = 'file'
            else:
                modes[name] = what
        modes['debuginfo'] = 'file'
        with open(path, 'rb') as f:
            body = f.read()
        with FaultServer('status', status=404, body=body, bodies=bodies,
                         by_type=modes, size_header=True,
                         hang_s=30) as fault:
            res = self.find('--symbols-only', bid,
                            env=self.env(urls=fault.url,
                                         DEBUGINFOD_TIMEOUT=5))
        self.assertIn(why, res.stderr)
        self.assert_clean(bid)
        return res
