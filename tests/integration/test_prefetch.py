#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""`symprov prefetch`: every file a profile's build ID table names, from a
real debuginfod, into the client cache and a tree that
libbuildiddirprov.so reads with no server.

The profile is a minimal perf.data made here (tests/lib/minimal_perfdata.py,
which perf reads), its build ID table filled with a kernel, a module,
user objects, a vDSO and duplicates; one test records a real one with
perf.  What went over the wire is read from the server's /metrics: the
prefetch asks what one `symprov find` of each file asks, and the finds
on the tree ask nothing.  Damaged profiles, cut at every byte or with
nonsense in each field, give one line and exit 1.
"""
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))

from debuginfod_server import DebuginfodServer, free_port  # noqa: E402
from elf_fixtures import (make_elf, make_kernel_elf, make_module,  # noqa
                          read_build_id)
from elf_fixtures import read_sections  # noqa: E402
from fault_server import FaultServer  # noqa: E402
from minimal_perfdata import minimal  # noqa: E402
from perfdata import HEADER_BUILD_ID, PerfData  # noqa: E402
from server_testcase import (ServerTestCase, run_main,  # noqa: E402
                             run_stderr_on_pty)

BUILD = 'build'
TIMEOUT = 120
PERF = '/usr/bin/perf'

BID_K = '9fe0000000000000000000000000000000000001'  # the kernel
BID_M = '9fe0000000000000000000000000000000000002'  # a module
BID_U = '9fe0000000000000000000000000000000000003'  # with DWARF
BID_L = '9fe0000000000000000000000000000000000004'  # without
BID_V = '9fe0000000000000000000000000000000000005'  # the vDSO
BID_GONE = '9fe00000000000000000000000000000000000ff'  # served by none

MODULE = '/lib/modules/6.12.0-test-amd64/kernel/fs/ext4/ext4.ko.xz'
USER = '/usr/bin/app'
LIB = '/usr/lib/x86_64-linux-gnu/libplain.so.1'

CPU_KERNEL, CPU_USER, CPU_GUEST_KERNEL = 1, 2, 4

# (build ID, name, cpumode, pid) of the profile's table, in order
ENTRIES = (
    (BID_K, '[kernel.kallsyms]', CPU_KERNEL, -1),
    (BID_M, MODULE, CPU_KERNEL, -1),
    (BID_V, '[vdso]', CPU_USER, 4242),
    (BID_U, USER, CPU_USER, 4242),
    (BID_L, LIB, CPU_USER, 4242),
    # the same files again: asked for once
    (BID_U, USER + '-hardlink', CPU_USER, 7),
    (BID_K, '[guest.kernel.kallsyms]', CPU_GUEST_KERNEL, -1),
)

# the lines prefetch prints for ENTRIES: kind, build ID, name
LINES = (
    ('kernel', BID_K, '[kernel.kallsyms]'),
    ('module', BID_M, MODULE),
    ('skipped', BID_V, '[vdso]'),
    ('executable', BID_U, USER),
    ('debuginfo', BID_U, USER),
    ('executable', BID_L, LIB),
    ('debuginfo', BID_L, LIB),
)

# where a debuginfod server keeps each, as --into does
TREE = {
    (BID_K, 'debuginfo'), (BID_M, 'debuginfo'), (BID_U, 'executable'),
    (BID_U, 'debuginfo'), (BID_L, 'executable'),
}

SUMMARY_RE = re.compile(
    r'^symprov: prefetch: (\d+) of (\d+) found, (\d+) bytes(?:, in (.*))?; '
    r'(\d+) needed not found, (\d+) skipped$')


def symprov():
    return os.path.join(BUILD, 'bin', 'symprov')


def profile_bytes(entries=ENTRIES):
    pd = PerfData(minimal())
    for bid, name, cpumode, pid in entries:
        pd.add_build_id(bytes.fromhex(bid), name, kernel=None,
                        cpumode=cpumode, pid=pid)
    return pd.bytes()


def write(path, data):
    with open(path, 'wb') as f:
        f.write(data)
    return path


def read(path):
    with open(path, 'rb') as f:
        return f.read()


def tree_files(tree):
    """{(build ID, name): path} of every file under TREE/buildid."""
    out = {}
    for root, _dirs, files in os.walk(os.path.join(tree, 'buildid')):
        for f in files:
            out[(os.path.basename(root), f)] = os.path.join(root, f)
    return out


def feature_table(data):
    """(offset of the table of feature sections, offset of the
    HEADER_BUILD_ID section, its size) of a profile made here."""
    data_off, data_size = struct.unpack_from('<QQ', data, 40)
    table = data_off + data_size
    off, size = struct.unpack_from('<QQ', data, table)
    return table, off, size


class PrefetchTest(ServerTestCase):
    @classmethod
    def make_fixtures(cls, srv):
        cls.kernel = make_kernel_elf(os.path.join(srv, 'vmlinux'), BID_K)
        make_module(os.path.join(srv, 'ext4.ko'), BID_M, seed=2)
        make_elf(os.path.join(srv, 'app'), BID_U, seed=3)
        make_elf(os.path.join(srv, 'libplain.so'), BID_L, debuginfo=False,
                 seed=4)
        cls.srv_dir = srv

    def setUp(self):
        super().setUp()
        self.profile = write(os.path.join(self.home, 'perf.data'),
                             profile_bytes())
        self.tree = os.path.join(self.home, 'tree')

    def prefetch(self, *args, env=None, providers='libdebuginfodprov.so',
                 profile=None, into=True, wrap=(), **kw):
        cmd = list(wrap) + [symprov(), 'prefetch', '-i',
                            profile or self.profile]
        # One request at a time unless a test is about several: what is
        # asked, in what order, is then the same in every run.
        if '--jobs' not in args:
            cmd += ['--jobs', '1']
        if providers is not None:
            cmd += ['--providers', providers]
        if into:
            cmd += ['--into', self.tree]
        return subprocess.run(cmd + list(args), env=env or self.env(),
                              text=True, capture_output=True,
                              timeout=TIMEOUT, **kw)

    def find(self, *args, env=None, providers='libdebuginfodprov.so'):
        return subprocess.run([symprov(), 'find', '--providers', providers]
                              + list(args), env=env or self.env(),
                              text=True, capture_output=True,
                              timeout=TIMEOUT)

    def lines(self, res):
        """[(kind, build ID, name, file or why)] of stdout."""
        return [tuple(line.split('\t')) for line in res.stdout.splitlines()]

    def summary(self, res):
        lines = res.stderr.strip().splitlines()
        self.assertTrue(lines, res.stderr)
        m = SUMMARY_RE.match(lines[-1])
        self.assertTrue(m, res.stderr)
        found, asked, size, into, missing, skipped = m.groups()
        return (int(found), int(asked), int(size), into, int(missing),
                int(skipped))

    # the fixture itself --------------------------------------------------
    def test_perf_reads_the_profile(self):
        """perf sees the table prefetch reads: the fixture is a real
        perf.data file."""
        if not os.access(PERF, os.X_OK):
            self.skipTest('%s is not installed (Debian package '
                          'linux-perf)' % PERF)
        res = subprocess.run([PERF, 'buildid-list', '-i', self.profile],
                             text=True, capture_output=True,
                             timeout=TIMEOUT)
        self.assertEqual(res.returncode, 0, res.stderr)
        listed = {tuple(line.split(None, 1))
                  for line in res.stdout.splitlines()}
        self.assertEqual(listed, {(bid, name)
                                  for bid, name, _, _ in ENTRIES})

    # a profile fetched --------------------------------------------------
    def test_double_close_stays_apart(self):
        """libdebuginfod 0.188 closes a descriptor twice at the start of
        each query, which closed a file another thread had just opened (a
        copy into the tree, now and then): every such close is in a
        thread with a file table of its own, the tree whole."""
        strace = shutil.which('strace')
        self.assertTrue(strace, 'strace is not installed (Debian package '
                        'strace): this test cannot run')
        log = os.path.join(self.home, 'strace.log')
        env = self.env()
        # LeakSanitizer cannot run under ptrace (make SAN=1)
        env['ASAN_OPTIONS'] = ':'.join(
            x for x in (env.get('ASAN_OPTIONS'), 'detect_leaks=0') if x)
        res = self.prefetch('--jobs', '3', env=env, wrap=[
            strace, '-f', '-qq', '-e', 'trace=close,unshare', '-o', log])
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertEqual(set(tree_files(self.tree)), TREE)

        apart, twice, calls = set(), [], {}
        with open(log) as f:
            for line in f:
                tid, call = line.split(None, 1)
                calls.setdefault(tid, []).append(call.strip())
                # unshare(CLONE_FILES) = 0, maybe cut in two by strace:
                # "unshare(CLONE_FILES <unfinished ...>", "<... unshare
                # resumed>) = 0"
                if re.match(r'(unshare\(|<\.\.\. unshare resumed).*= 0$',
                            call.strip()):
                    apart.add(tid)
                elif re.match(r'close\(\d+\)\s+= -1 EBADF', call):
                    twice.append(tid)
        shared = [t for t in twice if t not in apart]
        self.assertEqual(shared, [], 'closed twice in the shared table: '
                         + '; '.join(', '.join(calls[t]) for t in shared))
        version = subprocess.run(['pkg-config', '--modversion',
                                  'libdebuginfod'], text=True,
                                 capture_output=True).stdout.strip()
        if tuple(map(int, version.split('.'))) < (0, 190):
            self.assertTrue(twice, 'libdebuginfod %s closes twice, strace '
                            'saw none: this test saw nothing' % version)

    def test_into_a_tree_asks_each_file_once(self):
        # what one find of each file asks, in a cache of its own
        before = self.server.response_counts()
        other = self.env(DEBUGINFOD_CACHE_PATH=os.path.join(self.home, 'c2'))
        for args in (('--symbols-only', BID_K),
                     ('--symbols-only', '--kind', 'module', BID_M),
                     ('--kind', 'executable', BID_U),
                     ('--kind', 'debuginfo', BID_U),
                     ('--kind', 'executable', BID_L),
                     ('--kind', 'debuginfo', BID_L)):
            self.find(*args, env=other)
        middle = self.server.response_counts()
        res = self.prefetch('--jobs', '3')
        after = self.server.response_counts()
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)

        def delta(a, b):
            return {k: b.get(k, 0) - a.get(k, 0) for k in set(a) | set(b)
                    if b.get(k, 0) != a.get(k, 0)}
        self.assertEqual(delta(middle, after), delta(before, middle))
        self.assertEqual(delta(before, middle).get(('404', 'debuginfo')), 1)

        lines = self.lines(res)
        self.assertEqual([line[:3] for line in lines], list(LINES))
        files = tree_files(self.tree)
        self.assertEqual(set(files), TREE)
        for kind, bid, _name, what in lines:
            if kind == 'skipped':
                self.assertIn('vDSO', what)
            elif (bid, kind) == (BID_L, 'debuginfo'):
                self.assertEqual(what, 'not found')
            else:
                name = 'executable' if kind == 'executable' else 'debuginfo'
                self.assertEqual(what, files[(bid, name)])
        # the files are whole copies of the client cache's, for anyone
        for (bid, name), path in files.items():
            self.assertEqual(read_build_id(path), bid)
            self.assertEqual(os.stat(path).st_mode & 0o777, 0o644)
            cached = os.path.join(self.cache, bid, name)
            if bid in (BID_K, BID_M):
                cached = os.path.join(self.cache, bid,
                                      'source-symprov-symbols')
            self.assertEqual(read(path), read(cached), path)
        # the kernel's symbols only: its symbol table, not the whole file
        self.assertIn('.symtab', read_sections(files[(BID_K, 'debuginfo')]))
        self.assertLess(os.path.getsize(files[(BID_K, 'debuginfo')]),
                        os.path.getsize(self.kernel))
        found, asked, size, into, missing, skipped = self.summary(res)
        self.assertEqual((found, asked, into, missing, skipped),
                         (5, 6, self.tree, 0, 1))
        self.assertEqual(size, sum(os.path.getsize(p)
                                   for p in files.values()))

        # the tree answers, first in the list: nothing more is asked
        requests = self.server.responses()
        env = self.env(SYMPROV_BUILDIDDIR_DIRS=self.tree,
                       DEBUGINFOD_CACHE_PATH=os.path.join(self.home, 'c3'))
        both = 'libbuildiddirprov.so:libdebuginfodprov.so'
        for (bid, name), path in files.items():
            kind = {BID_K: 'kernel', BID_M: 'module'}.get(bid, name)
            res = self.find('--kind', kind, bid, env=env, providers=both)
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertEqual(res.stdout.strip(), os.path.realpath(path))
        self.assertEqual(self.server.responses(), requests)

    def test_offline_after_the_server_stopped(self):
        srv = DebuginfodServer(self.srv_dir,
                               log_path=os.path.join(self.home, 'd2.log'))
        srv.start()
        try:
            env = srv.client_env(self.home, self.cache)
            res = self.prefetch(env=env)
            self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
            self.assertGreater(srv.responses(), 0)
        finally:
            srv.stop()
        # no server, an empty cache: the tree alone
        env = dict(env, SYMPROV_BUILDIDDIR_DIRS=self.tree,
                   DEBUGINFOD_CACHE_PATH=os.path.join(self.home, 'c2'))
        for kind, bid, layout in (('kernel', BID_K, 'debuginfo'),
                                  ('module', BID_M, 'debuginfo'),
                                  ('executable', BID_U, 'executable'),
                                  ('debuginfo', BID_U, 'debuginfo'),
                                  ('executable', BID_L, 'executable')):
            res = self.find('--kind', kind, bid, env=env,
                            providers='libbuildiddirprov.so')
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertEqual(res.stdout.strip(), os.path.realpath(
                os.path.join(self.tree, 'buildid', bid, layout)))
            self.assertEqual(read_build_id(res.stdout.strip()), bid)
        # and the server is really gone: the network provider says so
        res = self.find('--kind', 'executable', BID_U, env=env)
        self.assertEqual(res.returncode, 4, res.stderr)

    def test_client_cache_filled(self):
        res = self.prefetch(into=False)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertFalse(os.path.exists(self.tree))
        # the paths printed are the client cache's
        for kind, _bid, _name, what in self.lines(res):
            if kind != 'skipped' and what != 'not found':
                self.assertTrue(what.startswith(self.cache + '/'), what)
        self.assertEqual(self.summary(res)[3], None)
        requests = self.server.responses()
        for args in (('--symbols-only', BID_K),
                     ('--symbols-only', '--kind', 'module', BID_M),
                     ('--kind', 'executable', BID_U),
                     ('--kind', 'debuginfo', BID_U),
                     ('--kind', 'executable', BID_L)):
            res = self.find(*args)
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertTrue(res.stdout.startswith(self.cache), res.stdout)
        self.assertEqual(self.server.responses(), requests)

    def test_full_and_symbols_only(self):
        kernel = os.path.join(self.tree, 'buildid', BID_K, 'debuginfo')
        res = self.prefetch()
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertNotEqual(read(kernel), read(self.kernel))
        # --full: the whole files replace the symbols only, the kernel's
        # and the module's
        whole = self.server.responses(type='debuginfo', code=200)
        res = self.prefetch('--full')
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(read(kernel), read(self.kernel))
        self.assertEqual(self.server.responses(type='debuginfo', code=200),
                         whole + 2)
        # but the symbols only, fetched again, do not replace it
        res = self.prefetch('--symbols-only', env=self.env(
            DEBUGINFOD_CACHE_PATH=os.path.join(self.home, 'c2')))
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(read(kernel), read(self.kernel))
        self.assertEqual(self.lines(res)[0][3], kernel)
        self.assertEqual([f for f in os.listdir(os.path.dirname(kernel))],
                         ['debuginfo'])

    def test_one_object_at_many_paths(self):
        """The same file (one build ID) at a path of this machine's and of
        containers' and chroots' of its release: asked for once, under its
        first name, however many paths and in whatever order."""
        twins = ['/var/lib/machines/c%d%s' % (i, USER) for i in range(4)]
        for names in ([USER] + twins, twins[:3], twins[::-1] + [USER]):
            entries = [(BID_U, name, CPU_USER, pid)
                       for pid, name in enumerate(names, 100)]
            profile = write(os.path.join(self.home, 'many.data'),
                            profile_bytes(entries))
            before = self.server.response_counts()
            res = self.prefetch(profile=profile, into=False)
            self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
            self.assertEqual([line[:3] for line in self.lines(res)],
                             [('executable', BID_U, names[0]),
                              ('debuginfo', BID_U, names[0])])
            self.assertEqual(self.summary(res)[:2], (2, 2))
            # what went over the wire: a cache hit asks nothing again
            after = self.server.response_counts()
            self.assertLessEqual(sum(after.values()) - sum(before.values()),
                                 2)

    def test_real_profile(self):
        """A profile perf records, every file in it served by stand-ins,
        with one object at three paths as a chroot and a container of this
        release map it: on every machine, not only on one that runs
        them."""
        if os.geteuid() != 0 or not os.access(PERF, os.X_OK):
            self.skipTest('needs root and %s' % PERF)
        data = os.path.join(self.home, 'real.data')
        # a loop in user space, and every object it maps in the table
        # (--buildid-all): the same entries on any machine, however busy.
        rec = subprocess.run([PERF, 'record', '-e', 'cpu-clock',
                              '--buildid-all', '-o', data, '--', 'sh', '-c',
                              'i=0; while [ $i -lt 300000 ]; do '
                              'i=$((i + 1)); done'], text=True,
                             capture_output=True, timeout=TIMEOUT)
        self.assertEqual(rec.returncode, 0, rec.stderr)
        pd = PerfData(read(data))
        user = [(bid, name) for cpumode, bid, name in pd.build_ids()
                if cpumode == CPU_USER and name.startswith('/')]
        self.assertTrue(user, pd.build_ids())
        bid, name = user[0]
        for pid, twin in enumerate(('root', 'container'), 1):
            pd.add_build_id(bid, os.path.join(self.home, twin) + name,
                            kernel=None, cpumode=CPU_USER, pid=pid)
        write(data, pd.bytes())
        entries = pd.build_ids()
        srv_dir = os.path.join(self.home, 'srv')
        os.mkdir(srv_dir)
        # one stand-in a build ID, the vDSO's too: not asked for all the
        # same
        names = {}
        for i, (_, bid, name) in enumerate(entries):
            if bid.hex() in names:
                continue
            names[bid.hex()] = name
            path = os.path.join(srv_dir, 'f%d' % i)
            if name == '[kernel.kallsyms]':
                make_kernel_elf(path, bid.hex(), seed=i)
            else:
                make_elf(path, bid.hex(), seed=i)
        with DebuginfodServer(srv_dir, log_path=os.path.join(
                self.home, 'd2.log')) as srv:
            res = self.prefetch(env=srv.client_env(self.home, self.cache),
                                profile=data)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        lines = self.lines(res)
        # each build ID asked for once a kind, under its first name
        self.assertEqual({line[1:3] for line in lines}, set(names.items()))
        requests = [line[:2] for line in lines]
        self.assertEqual(len(requests), len(set(requests)), res.stdout)
        for kind, _bid, name, what in lines:
            if kind == 'skipped':
                self.assertTrue(name.startswith('['), name)
            else:
                self.assertTrue(what.startswith(self.tree + '/'), what)
        self.assertIn('kernel', [line[0] for line in lines])
        found, asked, _, _, missing, _ = self.summary(res)
        self.assertEqual((found, missing), (asked, 0))

    # what it says and how it exits ---------------------------------------
    def test_needed_file_missing(self):
        entries = ENTRIES + ((BID_GONE, '[nf_tables]', CPU_KERNEL, -1),)
        profile = write(os.path.join(self.home, 'gone.data'),
                        profile_bytes(entries))
        res = self.prefetch(profile=profile)
        self.assertEqual(res.returncode, 2, res.stdout + res.stderr)
        self.assertIn(('module', BID_GONE, '[nf_tables]', 'not found'),
                      self.lines(res))
        self.assertEqual(self.summary(res)[4], 1)

    def test_exit_codes(self):
        before = self.server.responses()
        res = self.prefetch(providers='')
        self.assertEqual(res.returncode, 3, res.stderr)
        self.assertIn('no symbol provider loaded', res.stderr)
        res = self.prefetch('--no-debuginfod')
        self.assertEqual(res.returncode, 3, res.stderr)
        self.assertIn(('kernel', BID_K, '[kernel.kallsyms]', 'disabled'),
                      self.lines(res))
        self.assertEqual(self.server.responses(), before)
        self.assertFalse(tree_files(self.tree))
        down = 'http://127.0.0.1:%d' % free_port()  # nobody listens
        res = self.prefetch(env=self.env(urls=down))
        self.assertEqual(res.returncode, 4, res.stderr)
        for line in self.lines(res):
            if line[0] != 'skipped':
                self.assertRegex(line[3], r'^unavailable: debuginfod: ')

    def test_copy_failure(self):
        """A file found that cannot be put into the tree is not there,
        and is said so: the tree holds a file where its directory goes."""
        os.makedirs(os.path.join(self.tree, 'buildid'))
        write(os.path.join(self.tree, 'buildid', BID_K), b'in the way')
        res = self.prefetch()
        self.assertEqual(res.returncode, 4, res.stdout + res.stderr)
        kernel = self.lines(res)[0]
        self.assertEqual(kernel[0], 'kernel')
        self.assertRegex(kernel[3], r'^found %s/\S+, not copied into %s: '
                         r'writing the copy: Not a directory$'
                         % (re.escape(self.cache), re.escape(self.tree)))
        self.assertEqual(read(os.path.join(self.tree, 'buildid', BID_K)),
                         b'in the way')
        # the others are there
        self.assertEqual(set(tree_files(self.tree)),
                         TREE - {(BID_K, 'debuginfo')} | {('buildid', BID_K)})
        self.assertEqual(self.summary(res)[4], 1)

    def test_jobs_at_once_then_cancelled(self):
        """--jobs N requests under way at once, no more; Ctrl-C cancels
        them and the rest."""
        entries = [('9fe1%036x' % i, '/usr/bin/tool%d' % i, CPU_USER, 1)
                   for i in range(6)]
        profile = write(os.path.join(self.home, 'six.data'),
                        profile_bytes(entries))
        for jobs in (1, 3):
            with FaultServer('hang', hang_s=60) as fault:
                proc = subprocess.Popen(
                    [symprov(), 'prefetch', '-i', profile, '--jobs',
                     str(jobs), '--providers', 'libdebuginfodprov.so'],
                    env=self.env(urls=fault.url), stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, text=True)
                try:
                    deadline = time.monotonic() + 20
                    while len(fault.hits) < jobs and \
                            time.monotonic() < deadline:
                        time.sleep(0.05)
                    time.sleep(1.5)  # time for one more, if it came
                    self.assertEqual(len(fault.hits), jobs, fault.hits)
                    proc.send_signal(signal.SIGINT)
                    out, err = proc.communicate(timeout=20)
                finally:
                    if proc.poll() is None:
                        proc.kill()
                        proc.communicate()
            self.assertEqual(proc.returncode, 5, err)
            lines = out.splitlines()
            self.assertEqual(len(lines), 12, out)
            for line in lines:
                self.assertTrue(line.endswith('\tcancelled'), line)

    def test_a_down_server_costs_one_wait(self):
        """A server that never answers: the first requests, side by side,
        wait DEBUGINFOD_TIMEOUT once, the others are answered at once; so
        is the next prefetch.  Beside the live server, its files come."""
        entries = [('9fe2%036x' % i, '/usr/bin/tool%d' % i, CPU_USER, 1)
                   for i in range(8)] + list(ENTRIES)
        profile = write(os.path.join(self.home, 'many.data'),
                        profile_bytes(entries))
        timeout = 3
        with FaultServer('hang', hang_s=60) as fault:
            def prefetch(urls):
                start = time.monotonic()
                res = self.prefetch('--jobs', '4', profile=profile,
                                    into=False, env=self.env(
                                        urls, DEBUGINFOD_TIMEOUT=timeout))
                return res, time.monotonic() - start
            first, took = prefetch(fault.url)
            hits = len(fault.hits)
            again, again_took = prefetch(fault.url)
            self.assertEqual(len(fault.hits), hits)
            self.cache = os.path.join(self.home, 'both')
            both, both_took = prefetch(fault.url + ' ' + self.server.url)
        self.cache = os.path.join(self.home, 'live')
        live, _ = prefetch(self.server.url)
        self.assertEqual(first.returncode, 4, first.stderr)
        self.assertLessEqual(hits, 8)  # the first four, and their retries
        self.assertLess(took, 2 * timeout)
        self.assertLess(again_took, 1.5)
        self.assertEqual(again.returncode, 4, again.stderr)
        for res in (first, again, both):
            named = [line for line in res.stderr.splitlines()
                     if fault.url in line]
            self.assertEqual(len(named), 1, res.stderr)
        self.assertLess(both_took, 2 * timeout)

        def outcomes(res):
            return [line[:3] + ('found' if line[3].startswith('/') else
                                line[3],) for line in self.lines(res)]
        self.assertIn(('kernel', BID_K, '[kernel.kallsyms]', 'found'),
                      outcomes(live))
        self.assertEqual(outcomes(both), outcomes(live))

    def test_progress_only_on_a_terminal(self):
        res = self.prefetch()
        self.assertEqual(res.returncode, 0, res.stderr)
        # a pipe: the summary alone
        self.assertEqual(len(res.stderr.splitlines()), 1, res.stderr)
        shutil.rmtree(self.tree)
        proc, seen = run_stderr_on_pty(
            [symprov(), 'prefetch', '-i', self.profile, '--into',
             self.tree, '--providers', 'libdebuginfodprov.so', '--jobs',
             '1'], env=self.env(DEBUGINFOD_CACHE_PATH=os.path.join(
                 self.home, 'c2')), timeout=TIMEOUT)
        self.assertEqual(proc.returncode, 0, seen)
        self.assertRegex(seen, rb'\rsymprov: prefetch: \d+ of 7 done, ')
        self.assertIn(b'\rsymprov: prefetch: 7 of 7 done, ', seen)
        self.assertTrue(seen.endswith(b' skipped\r\n'), seen)
        self.assertEqual(len(proc.stdout.splitlines()), len(LINES))

    # bad input -----------------------------------------------------------
    def assert_refused(self, path, *words, args=()):
        res = subprocess.run([symprov(), 'prefetch', '-i', path,
                              '--providers', 'libdebuginfodprov.so',
                              '--into', self.tree] + list(args),
                             env=self.env(), text=True, capture_output=True,
                             timeout=TIMEOUT)
        self.assertEqual(res.returncode, 1, (path, res.stderr))
        self.assertEqual(res.stdout, '')
        lines = res.stderr.splitlines()
        self.assertEqual(len(lines), 1, res.stderr)
        self.assertTrue(lines[0].startswith('symprov: prefetch: %s: '
                                            % path), lines[0])
        for w in words:
            self.assertIn(w, lines[0])
        return lines[0]

    def damaged(self, name, data):
        return write(os.path.join(self.home, name), data)

    def test_cut_at_every_byte(self):
        before = self.server.responses()
        data = read(self.profile)
        path = os.path.join(self.home, 'cut.data')
        for n in range(len(data)):
            self.assert_refused(write(path, data[:n]))
        self.assertEqual(self.server.responses(), before)
        self.assertFalse(os.path.exists(self.tree))

    def test_damaged_header(self):
        data = read(self.profile)
        table, sec_off, sec_size = feature_table(data)

        def at(off, fmt, *values):
            d = bytearray(data)
            struct.pack_into(fmt, d, off, *values)
            return bytes(d)
        huge = 1 << 63
        cases = (
            (b'', 'too short'),
            (read(self.kernel), 'not a perf.data file'),
            (b'2ELIFREP' + data[8:], 'other byte order'),
            (b'PERFFILE' + data[8:], 'version 1'),
            (data[:8] + struct.pack('<Q', 16), 'written to a pipe'),
            (at(8, '<Q', 72), 'no build ID table'),
            (at(8, '<Q', 200), 'header size 200'),
            (at(40, '<Q', (1 << 64) - 1), 'data section'),
            (at(40, '<Q', 50), 'data section'),
            (at(48, '<Q', huge), 'data section'),
            (at(48, '<Q', len(data) - 248), 'feature sections'),
            (at(72, '<B', 0), 'no build ID table'),
            (at(table, '<Q', huge), 'build ID table'),
            (at(table + 8, '<Q', huge), 'build ID table'),
            (at(table, '<Q', len(data) - 10), 'build ID table'),
        )
        for i, (d, why) in enumerate(cases):
            self.assert_refused(self.damaged('h%d.data' % i, d), why)

    def test_damaged_entries(self):
        data = read(self.profile)
        _, sec, _ = feature_table(data)

        def entry(off, fmt, *values):
            d = bytearray(data)
            struct.pack_into(fmt, d, sec + off, *values)
            return bytes(d)
        first = struct.unpack_from('<H', data, sec + 6)[0]
        cases = (
            (entry(6, '<H', 0), 'size 0, too small'),
            (entry(6, '<H', 36), 'too small'),
            (entry(6, '<H', 0xffff), 'past the end of the table'),
            (entry(32, '<B', 21), 'build ID size 21'),
            (entry(32, '<B', 0), 'build ID size 0'),
            (entry(36, '%ds' % (first - 36), b'A' * (first - 36)),
             'not NUL-terminated'),
            # the last entry cut: the table ends inside it
            (data[:-1] + b'', 'build ID table'),
        )
        for i, (d, why) in enumerate(cases):
            self.assert_refused(self.damaged('e%d.data' % i, d), why)
        # the table shorter than an entry's header, at its end
        d = bytearray(data)
        table, _, size = feature_table(data)
        struct.pack_into('<Q', d, table + 8, size + 3)
        self.assert_refused(self.damaged('e-tail.data', bytes(d) + b'\0' * 3),
                            'cut after 3 bytes')

    def test_huge_table(self):
        """A table that the file holds but no profile has: refused before
        it is read (the file is sparse)."""
        data = bytearray(read(self.profile))
        table, off, _ = feature_table(data)
        struct.pack_into('<Q', data, table + 8, 17 << 20)
        path = self.damaged('huge.data', bytes(data))
        os.truncate(path, off + (17 << 20))
        self.assert_refused(path, 'more than 16 MiB')

    def test_not_files(self):
        self.assert_refused(os.path.join(self.home, 'missing.data'),
                            'No such file')
        self.assert_refused(self.home, 'not a regular file')
        fifo = os.path.join(self.home, 'fifo')
        os.mkfifo(fifo)
        self.assert_refused(fifo, 'not a regular file')
        write(os.path.join(self.home, 'tree'), b'a file, not a directory')
        res = self.prefetch()
        self.assertEqual(res.returncode, 1, res.stderr)
        self.assertEqual(res.stderr, 'symprov: prefetch: --into %s: Not a '
                         'directory\n' % self.tree)

    def test_old_entry_layout(self):
        """Entries without a pid (perf before 2.6.35), as perf reads them."""
        pd = PerfData(minimal())
        name = b'[kernel.kallsyms]\0'
        name += b'\0' * (-len(name) % 64)
        body = bytes.fromhex(BID_K) + b'\0' * 4 + name
        pd.features[HEADER_BUILD_ID] += struct.pack(
            '<IHH', 0, CPU_KERNEL, 8 + len(body)) + body
        profile = self.damaged('old.data', pd.bytes())
        res = self.prefetch(profile=profile)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual([line[:3] for line in self.lines(res)],
                         [('kernel', BID_K, '[kernel.kallsyms]')])

    def test_usage_errors(self):
        for args, word in ((('--jobs', '0'), "'0'"),
                           (('--jobs', '65'), "'65'"),
                           (('--jobs', '2x'), "'2x'"),
                           (('--bogus',), '--bogus'),
                           (('extra',), 'extra')):
            res = self.prefetch(*args)
            self.assertEqual(res.returncode, 1, res.stderr)
            self.assertEqual(res.stdout, '')
            self.assertEqual(len(res.stderr.splitlines()), 1, res.stderr)
            self.assertIn(word, res.stderr)


def main():
    return run_main('prefetch', sys.modules[__name__])


if __name__ == '__main__':
    sys.exit(main())
