#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""symprov and libdebuginfodprov.so under faults: servers that hang,
stall, trickle, fail, lie or loop; caches that are read-only, full,
shared or tampered with; a missing HOME; races; Ctrl-C.

A real debuginfod on 127.0.0.1 serves the good files; the fault server
(tests/lib/fault_server.py), on 127.0.0.1 too, plays the bad ones.  Each
`symprov find` runs with a small DEBUGINFOD_TIMEOUT and a subprocess
timeout: a hang fails the test instead of stalling the run.  For each
fault a test checks the exit code, a wall-time bound, that no wrong or
partial file is returned or left servable in the cache, and where the
failure is transient that a second process, against a good server, finds
the file.

Tests marked @product_bug assert the right behaviour where symprov (with
libdebuginfod 0.188) does not have it yet; they count as expected
failures, and as failures once they pass (remove the mark then).
docs/RELIABILITY.md has the measured outcome of every case.

Needs root for the tmpfs mounts and to run symprov as an unprivileged
user (setpriv); without it those tests are skipped, which fails the run.
"""
import argparse
import contextlib
import errno
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))

from debuginfod_server import free_port  # noqa: E402
from elf_fixtures import make_elf, make_module, read_build_id  # noqa: E402
from fault_server import FaultServer  # noqa: E402
from server_testcase import (ServerTestCase, copy_for_nobody,  # noqa: E402
                             run_stderr_on_pty, run_suite, summarize)

BUILD = 'build'

# DEBUGINFOD_TIMEOUT of the fault tests: seconds with less than 100 KB
# received before libdebuginfod gives up on a server.
T = 2
# Hang guard added to every expected duration: not a speed test.
SLACK = 10
# Ctrl-C to exit: libdebuginfod calls the progress callback at least once
# a second (the signal also cuts its wait short).
CANCEL_BOUND = 3.0

BID_DEBUG = 'fa170000000000000000000000000000000000d1'  # with DWARF
BID_EXEC = 'fa170000000000000000000000000000000000e1'  # without DWARF
BID_BIG = 'fa170000000000000000000000000000000000b1'  # 4 MiB, DWARF
BID_OTHER = 'fa170000000000000000000000000000000000f1'  # never served
BID_MODULE = 'fa170000000000000000000000000000000000c1'  # a .ko, fault server
BIG_SIZE = 4 << 20
# Bytes a second of an endless body: over the 100 KB/s low-speed limit,
# and little enough not to fill the disk of the machine running this.
STREAM_RATE = 1 << 20

# LD_PRELOAD shim: hold a download between libdebuginfod's miss marker
# and its rename() over it.
RENAME_PAUSE_C = r'''
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int rename(const char *from, const char *to)
{
	static int (*real)(const char *, const char *);
	const char *hold = getenv("SYMPROV_TEST_HOLD");
	size_t n = strlen(to);

	if (!real)
		real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT,
								  "rename");
	if (hold && n > 10 && !strcmp(to + n - 10, "/debuginfo")) {
		char held[4096];
		int i, fd;

		snprintf(held, sizeof(held), "%s.held", hold);
		fd = open(held, O_CREAT | O_WRONLY, 0600);
		if (fd >= 0)
			close(fd);
		for (i = 0; i < 1000 && access(hold, F_OK) == 0; i++)
			usleep(10000);
	}
	return real(from, to);
}
'''

# --measure: (test, what was measured) of every symprov find and race.
MEASURED = None

# Known product bugs, by test name: see @product_bug.
PRODUCT_BUGS = {}


def product_bug(why):
    """The test asserts what symprov should do and does not yet: an
    expected failure (run with --show-bugs to see how it fails)."""
    def mark(fn):
        PRODUCT_BUGS[fn.__name__] = why
        return unittest.expectedFailure(fn)
    return mark


def symprov(build=None):
    return os.path.join(build or BUILD, 'bin', 'symprov')


def make_big_elf(path, build_id, size):
    """An ELF with DWARF and a SIZE-byte .rodata array, as make_elf."""
    src = path + '.c'
    obj = path + '.o'
    with open(src, 'w') as f:
        f.write('const char symprov_blob[%d] = { 1 };\n'
                'int symprov_fixture(void) { return symprov_blob[0]; }\n'
                % size)
    subprocess.run(['gcc', '-g', '-c', '-O0', src, '-o', obj], check=True,
                   timeout=60)
    subprocess.run(['ld', '--build-id=0x' + build_id, '-e',
                    'symprov_fixture', '-o', path, obj], check=True,
                   timeout=60)
    os.unlink(src)
    os.unlink(obj)
    return path


def read(path):
    with open(path, 'rb') as f:
        return f.read()


class Result:
    def __init__(self, rc, out, err, elapsed):
        self.returncode = rc
        self.stdout = out
        self.stderr = err
        self.elapsed = elapsed

    def __repr__(self):
        return 'exit %s after %.2f s, stdout %r, stderr %r' % (
            self.returncode, self.elapsed, self.stdout, self.stderr[-2000:])


@contextlib.contextmanager
def tmpfs(path, size='64k', mode='0755'):
    """A small tmpfs on PATH for the duration; skips without the right."""
    os.makedirs(path, exist_ok=True)
    res = subprocess.run(['mount', '-t', 'tmpfs', '-o',
                          'size=%s,mode=%s' % (size, mode), 'tmpfs', path],
                         capture_output=True, text=True, timeout=30)
    if res.returncode:
        raise unittest.SkipTest('cannot mount a tmpfs: ' + res.stderr.strip())
    try:
        yield path
    finally:
        if subprocess.run(['umount', path], capture_output=True,
                          timeout=30).returncode:
            subprocess.run(['umount', '-l', path], capture_output=True,
                           timeout=30)


def remount(path, opt):
    subprocess.run(['mount', '-o', 'remount,' + opt, path], check=True,
                   capture_output=True, timeout=30)


class FaultTest(ServerTestCase):
    @classmethod
    def make_fixtures(cls, srv):
        cls.files = {
            BID_DEBUG: make_elf(os.path.join(srv, 'debug.elf'), BID_DEBUG,
                                debuginfo=True, seed=2),
            BID_EXEC: make_elf(os.path.join(srv, 'exec.elf'), BID_EXEC,
                               debuginfo=False, seed=3),
            BID_BIG: make_big_elf(os.path.join(srv, 'big.elf'), BID_BIG,
                                  BIG_SIZE),
        }
        other = make_elf(os.path.join(cls.tmp, 'other.elf'), BID_OTHER,
                         seed=4)
        module = make_module(os.path.join(cls.tmp, 'module.ko'), BID_MODULE)
        cls.body = {bid: read(p) for bid, p in cls.files.items()}
        cls.body[BID_OTHER] = read(other)
        cls.body[BID_MODULE] = read(module)

    # -- running symprov ------------------------------------------------

    def env(self, urls=None, **extra):
        """Our HOME and cache, timeout T, no retry; EXTRA as the base."""
        return super().env(urls, **dict(
            {'DEBUGINFOD_TIMEOUT': T, 'DEBUGINFOD_RETRY_LIMIT': 0},
            **extra))

    def find(self, bid, env=None, kind=None, bound=T + SLACK, prefix=(),
             build=None):
        """symprov find BID; fails the test if it runs past BOUND s."""
        cmd = list(prefix) + [symprov(build), 'find', '--providers',
                              'libdebuginfodprov.so']
        if kind:
            cmd += ['--kind', kind]
        cmd.append(bid)
        start = time.monotonic()
        try:
            res = subprocess.run(cmd, env=env or self.env(), text=True,
                                 capture_output=True, timeout=bound)
        except subprocess.TimeoutExpired as e:
            self.fail('symprov find ran past %.0f s (killed): %s' % (
                bound, (e.stderr or b'')[-2000:]))
        res = Result(res.returncode, res.stdout, res.stderr,
                     time.monotonic() - start)
        self.measured('exit %d after %.2f s' % (res.returncode, res.elapsed))
        self.assertLessEqual(res.elapsed, bound, res)
        return res

    def measured(self, what):
        if MEASURED is not None:
            MEASURED.append((self.id().rsplit('.', 1)[-1], what))

    # -- what is in the cache -----------------------------------------

    def entries(self, bid, cache=None):
        """{name: size} of the files under CACHE/BID."""
        d = os.path.join(cache or self.cache, bid)
        if not os.path.isdir(d):
            return {}
        return {f: os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)}

    def assert_nothing_servable(self, bid, cache=None):
        """No file a later lookup would be given, no download left over:
        at most the empty files libdebuginfod keeps as misses."""
        left = {f: n for f, n in self.entries(bid, cache).items()
                if n or f not in ('debuginfo', 'executable')}
        self.assertEqual(left, {}, 'left in the cache')

    def assert_no_miss(self, bid, cache=None):
        """The failure was not written down as "this file does not exist"."""
        misses = [f for f, n in self.entries(bid, cache).items() if not n]
        self.assertEqual(misses, [], 'remembered as a miss')

    def assert_found(self, res, bid, cache=None):
        """Exit 0 and a path in the cache to the complete file of BID."""
        self.assertEqual(res.returncode, 0, res)
        path = res.stdout.strip()
        self.assertTrue(path.startswith((cache or self.cache) + '/'), path)
        self.assertEqual(read_build_id(path), bid)
        self.assertEqual(read(path), self.body[bid], 'not the whole file')
        return path

    def assert_failed(self, res, rc):
        self.assertEqual(res.returncode, rc, res)
        self.assertEqual(res.stdout, '')

    def assert_next_process_finds(self, bid=BID_DEBUG, cache=None):
        """A transient failure did not stick: against the good server a
        new process gets the file."""
        env = self.env()
        if cache:
            env['DEBUGINFOD_CACHE_PATH'] = cache
        self.assert_found(self.find(bid, env=env), bid, cache)

    # -- a server that never answers, or too slowly ---------------------

    def test_accepts_never_answers(self):
        with FaultServer('hang', hang_s=60) as fault:
            res = self.find(BID_DEBUG, env=self.env(fault.url))
            self.assertEqual(len(fault.hits), 1)
        self.assert_failed(res, 4)
        self.assertIn('unavailable', res.stderr)
        self.assertGreaterEqual(res.elapsed, T - 0.5)  # it did wait
        self.assert_nothing_servable(BID_DEBUG)
        self.assert_no_miss(BID_DEBUG)
        self.assert_next_process_finds()

    def test_hang_waited_for_once(self):
        """libdebuginfod retries a timeout DEBUGINFOD_RETRY_LIMIT (2)
        times, 3 x DEBUGINFOD_TIMEOUT; the server is down after the first:
        its retry is cut short, one line names it."""
        with FaultServer('hang', hang_s=60) as fault:
            res = self.find(BID_DEBUG, env=self.env(
                fault.url, DEBUGINFOD_RETRY_LIMIT=None), bound=3 * T + SLACK)
            self.assertIn(len(fault.hits), (1, 2))  # the retry's, if sent
        self.assert_failed(res, 4)
        self.assertGreaterEqual(res.elapsed, T - 0.5)
        self.assertLess(res.elapsed, 2 * T)
        self.assert_down_named(res, fault.url, 'sent nothing in %d s' % T)
        self.assert_nothing_servable(BID_DEBUG)
        self.assert_no_miss(BID_DEBUG)

    # -- servers that do not answer: one wait, remembered for a while ------

    def server_entries(self):
        """{name: text} of the servers the cache holds as down."""
        d = os.path.join(self.cache, 'symprov-servers-down')
        if not os.path.isdir(d):
            return {}
        return {f: read(os.path.join(d, f)).decode() for f in os.listdir(d)}

    def assert_down_named(self, res, url, why):
        """One stderr line names URL, as down for WHY."""
        lines = [line for line in res.stderr.splitlines() if url in line]
        self.assertEqual(len(lines), 1, res)
        self.assertIn(why, lines[0])

    def test_down_server_not_asked_by_the_next_process(self):
        with FaultServer('hang', hang_s=60) as fault:
            first = self.find(BID_DEBUG, env=self.env(fault.url))
            self.assertEqual(len(fault.hits), 1)
            # what it did, libdebuginfod's errno of it (ETIME)
            self.assertEqual(list(self.server_entries().values()),
                             ['sent nothing in %d s\n%d\n' % (
                                 T, errno.ETIME)])
            again = self.find(BID_EXEC, env=self.env(fault.url))
            self.assertEqual(len(fault.hits), 1)  # not asked
            # no longer remembered than the setting says: 0 s, asked
            now = self.find(BID_EXEC, env=self.env(
                fault.url, SYMPROV_DEBUGINFOD_SERVER_DOWN_S=0))
            self.assertEqual(len(fault.hits), 2)
        self.assert_down_named(first, fault.url,
                               'sent nothing in %d s: not asked for 300 s' %
                               T)
        self.assert_failed(again, 4)
        self.assertLess(again.elapsed, 1)
        self.assert_down_named(again, fault.url, 'not asked until')
        # each file's line says how the server failed
        self.assertIn('unavailable', again.stderr)
        self.assert_failed(now, 4)
        self.assertGreaterEqual(now.elapsed, T - 0.5)
        self.assertNotIn(fault.url, now.stderr)
        self.assert_no_miss(BID_EXEC)

    def test_down_server_asked_again_after_its_time(self):
        with FaultServer('hang', hang_s=60) as fault:
            env = self.env(fault.url, SYMPROV_DEBUGINFOD_SERVER_DOWN_S=3)
            first = self.find(BID_DEBUG, env=env)
            found = time.monotonic()
            self.find(BID_EXEC, env=env)
            self.assertEqual(len(fault.hits), 1)
            time.sleep(max(0, found + 4 - time.monotonic()))
            later = self.find(BID_EXEC, env=env)
            self.assertEqual(len(fault.hits), 2)
        self.assert_down_named(first, fault.url, 'not asked for 3 s')
        self.assert_down_named(later, fault.url, 'not asked for 3 s')

    def test_down_setting_not_a_number(self):
        with FaultServer('hang', hang_s=60) as fault:
            res = self.find(BID_DEBUG, env=self.env(
                fault.url, SYMPROV_DEBUGINFOD_SERVER_DOWN_S='soon'))
        self.assertIn('SYMPROV_DEBUGINFOD_SERVER_DOWN_S=soon: not a number '
                      'of seconds; 300 s it is', res.stderr)
        self.assert_down_named(res, fault.url, 'not asked for 300 s')

    def test_refused_and_reset_servers_are_down(self):
        refused = 'http://127.0.0.1:%d' % free_port()
        with FaultServer('reset') as reset:
            env = self.env(refused + ' ' + reset.url)
            first = self.find(BID_DEBUG, env=env)
            hits = len(reset.hits)
            again = self.find(BID_EXEC, env=env)
            self.assertEqual(len(reset.hits), hits)
        self.assert_failed(first, 4)
        self.assertLess(first.elapsed, SLACK)
        self.assert_down_named(first, refused, 'refused the connection')
        self.assert_down_named(first, reset.url,
                               'closed the connection without a reply')
        self.assertLess(again.elapsed, 1)
        self.assert_down_named(again, refused, 'not asked until')
        self.assert_nothing_servable(BID_DEBUG)

    def test_live_server_beside_a_down_one(self):
        """A hang beside the real server: a file it has comes at once, a
        miss of it waits for the hang once, and is a miss; then neither
        waits."""
        with FaultServer('hang', hang_s=60) as hang:
            env = self.env(hang.url + ' ' + self.server.url,
                           DEBUGINFOD_TIMEOUT=5, DEBUGINFOD_RETRY_LIMIT=None)
            found = self.find(BID_DEBUG, env=env)
            miss = self.find(BID_OTHER, env=env, bound=5 + SLACK)
            hits = len(hang.hits)
            found_again = self.find(BID_EXEC, env=env)
            self.assertEqual(len(hang.hits), hits)
        self.assert_found(found, BID_DEBUG)
        self.assertLess(found.elapsed, SLACK)
        self.assertEqual(miss.returncode, 2, miss)  # the live server's 404
        self.assertLess(miss.elapsed, 2 * 5)
        self.assert_down_named(miss, hang.url, 'sent nothing in 5 s')
        self.assert_found(found_again, BID_EXEC)
        self.assertLess(found_again.elapsed, 1)

    def test_down_server_cached_file_still_found(self):
        """Every server down: what the client cache holds is the answer."""
        self.assert_found(self.find(BID_DEBUG), BID_DEBUG)
        with FaultServer('hang', hang_s=60) as hang:
            env = self.env(hang.url)
            self.find(BID_EXEC, env=env)
            cached = self.find(BID_DEBUG, env=env)
        self.assert_found(cached, BID_DEBUG)
        self.assertLess(cached.elapsed, 1)

    def test_libdw_lookups_skip_a_down_server(self):
        """A host's libdw asks DEBUGINFOD_URLS on its own: once the
        provider knows a server down, libdw no longer waits for it."""
        driver = os.path.join(BUILD, 'tests', 'dwfl_after_find')
        stripped = os.path.join(self.home, 'stripped.elf')
        shutil.copy(self.files[BID_EXEC], stripped)

        def dwfl(providers, env):
            res = subprocess.run([driver, providers, BID_DEBUG, stripped],
                                 env=env, text=True, capture_output=True,
                                 timeout=T + SLACK)
            self.assertEqual(res.returncode, 0, res)
            return res
        with FaultServer('hang', hang_s=60) as hang:
            dwfl('-', self.env(hang.url))
            control = len(hang.hits)
            res = dwfl('libdebuginfodprov.so', self.env(hang.url))
            after = len(hang.hits) - control
        self.assertEqual(control, 1)  # libdw asked it, alone
        self.assertEqual(after, 1)  # the provider's query, not libdw's
        self.assertEqual(res.stdout.split(), ['not', 'found', 'no', 'dwarf'])

    def check_stall_once(self, bid, kind, what, stall_at=200 << 10,
                         **server):
        """The first answer for the file stalls after STALL_AT bytes of
        body, the retry (DEBUGINFOD_RETRY_LIMIT's default) is whole:
        found, whole, alone in the cache, after two transfers."""
        body = self.body[bid]
        with FaultServer('stall-once', body=body, stall_at=stall_at,
                         hang_s=60, **server) as fault:
            res = self.find(bid, kind=kind, env=self.env(
                fault.url, DEBUGINFOD_RETRY_LIMIT=None), bound=3 * T + SLACK)
            transfers = fault.transfers('/buildid/%s/%s' % (bid, what))
        self.assert_found(res, bid)
        self.assertEqual(self.entries(bid), {what: len(body)})
        self.assertEqual(transfers, 2)
        # it answered, if slowly: not down
        self.assertEqual(self.server_entries(), {})

    def test_retried_download_is_whole(self):
        # the connection stalls 100 bytes before the end
        body = self.body[BID_BIG]
        self.check_stall_once(BID_BIG, 'debuginfo', 'debuginfo',
                              stall_at=len(body) - 100, size_header=True)

    def test_stalled_once_kernel_is_found(self):
        self.check_stall_once(BID_BIG, None, 'debuginfo', size_header=True)

    def test_stalled_once_without_size_header_is_found(self):
        # only Content-Length tells where the retried body begins
        self.check_stall_once(BID_BIG, 'executable', 'executable')

    def test_progress_says_the_server_prepares_the_file(self):
        """No byte for a while, as from a server extracting the file from
        a package: the progress says so, then the file is found, once."""
        bid = BID_DEBUG
        with FaultServer('late', body=self.body[bid], delay_s=T / 2,
                         size_header=True) as fault:
            proc, seen = run_stderr_on_pty(
                [symprov(), 'find', '--providers', 'libdebuginfodprov.so',
                 '--kind', 'debuginfo', bid], env=self.env(fault.url),
                timeout=T + SLACK)
            self.assertEqual(len(fault.hits), 1)
        self.assertEqual(proc.returncode, 0, seen[-2000:])
        self.assertIn(b'the server is preparing it', seen)
        self.assertEqual(self.entries(bid), {'debuginfo': len(self.body[bid])})

    def test_stalls_every_time_within_the_retry_limit(self):
        # a retry of ours takes the place of one libdebuginfod dropped:
        # never more than DEBUGINFOD_RETRY_LIMIT + 1 transfers
        with FaultServer('stall', body=self.body[BID_BIG], size_header=True,
                         hang_s=60) as fault:
            res = self.find(BID_BIG, kind='debuginfo', env=self.env(
                fault.url, DEBUGINFOD_RETRY_LIMIT=None), bound=3 * T + SLACK)
            self.assertEqual(len(fault.hits), 3)
        self.assert_failed(res, 4)
        self.assert_nothing_servable(BID_BIG)
        self.assert_no_miss(BID_BIG)

    def test_maxtime_bounds_the_retries(self):
        # libdebuginfod gives each attempt DEBUGINFOD_MAXTIME anew; the
        # provider bounds the whole fetch, retries of its own included:
        # the first attempt times out after 4 s, the second is cut at 5
        with FaultServer('stall', body=self.body[BID_BIG], size_header=True,
                         hang_s=60) as fault:
            res = self.find(BID_BIG, kind='debuginfo', env=self.env(
                fault.url, DEBUGINFOD_RETRY_LIMIT=None, DEBUGINFOD_TIMEOUT=4,
                DEBUGINFOD_MAXTIME=5), bound=5 + SLACK)
            self.assertLessEqual(len(fault.hits), 2)
        self.assert_failed(res, 4)
        self.assert_nothing_servable(BID_BIG)
        self.assert_no_miss(BID_BIG)

    def test_stalled_once_module_is_found(self):
        self.check_stall_once(BID_MODULE, 'module', 'debuginfo',
                              stall_at=len(self.body[BID_MODULE]) // 2,
                              size_header=True)

    def test_maxtime_cuts_a_hang_short(self):
        with FaultServer('hang', hang_s=60) as fault:
            res = self.find(BID_DEBUG, env=self.env(
                fault.url, DEBUGINFOD_TIMEOUT=60, DEBUGINFOD_MAXTIME=T),
                bound=T + SLACK)
            self.assertTrue(fault.hits)
        self.assert_failed(res, 4)
        self.assert_nothing_servable(BID_DEBUG)
        self.assert_no_miss(BID_DEBUG)

    def check_slow_body(self, mode, **kw):
        with FaultServer(mode, body=self.body[BID_BIG], hang_s=60,
                         **kw) as fault:
            res = self.find(BID_BIG, env=self.env(fault.url))
            self.assertEqual(len(fault.hits), 1)
        self.assert_failed(res, 4)
        self.assert_nothing_servable(BID_BIG)
        self.assert_no_miss(BID_BIG)
        self.assert_next_process_finds(BID_BIG)
        return res

    def test_headers_then_stall(self):
        self.check_slow_body('stall')

    def test_slow_trickle(self):
        # 2 bytes a second: far under the 100 KB per DEBUGINFOD_TIMEOUT
        self.check_slow_body('trickle', trickle_s=0.5)

    def test_maxtime_bounds_a_trickle(self):
        with FaultServer('trickle', body=self.body[BID_BIG], hang_s=60,
                         trickle_s=0.2) as fault:
            res = self.find(BID_BIG, env=self.env(
                fault.url, DEBUGINFOD_TIMEOUT=60, DEBUGINFOD_MAXTIME=T))
            self.assertTrue(fault.hits)
        self.assert_failed(res, 4)
        self.assert_nothing_servable(BID_BIG)
        self.assert_no_miss(BID_BIG)

    def test_maxtime_bounds_an_endless_body(self):
        # a body without length, faster than the low-speed limit: only
        # DEBUGINFOD_MAXTIME ends it (see test_maxsize_bounds_...)
        with FaultServer('stream', hang_s=60, rate=STREAM_RATE) as fault:
            res = self.find(BID_BIG, env=self.env(
                fault.url, DEBUGINFOD_MAXTIME=T))
            self.assertTrue(fault.hits)
        self.assert_failed(res, 4)
        self.assert_nothing_servable(BID_BIG)
        self.assert_no_miss(BID_BIG)

    def test_maxsize_bounds_a_body_without_length(self):
        maxsize = 256 << 10
        with FaultServer('stream', hang_s=60, rate=STREAM_RATE) as fault:
            res = self.find(BID_BIG, env=self.env(
                fault.url, DEBUGINFOD_MAXSIZE=maxsize,
                DEBUGINFOD_MAXTIME=3 * T))
            sent = fault.sent
        self.assert_failed(res, 4)
        self.assert_nothing_servable(BID_BIG)
        # what went to the disk, give or take a second or two of transfer
        self.assertLess(sent, maxsize + 2 * STREAM_RATE)

    # -- HTTP errors ------------------------------------------------------

    def test_404_is_a_remembered_miss(self):
        with FaultServer('status', status=404) as fault:
            res = self.find(BID_DEBUG, env=self.env(fault.url))
            # kernel: debuginfo, then executable
            self.assertEqual(len(fault.hits), 2)
        self.assert_failed(res, 2)
        self.assertIn('not found', res.stderr)
        self.assertEqual(self.entries(BID_DEBUG),
                         {'debuginfo': 0, 'executable': 0})
        # authoritative: the next process does not ask, for cache_miss_s
        with FaultServer('status', status=404) as fault:
            res = self.find(BID_DEBUG, env=self.env(fault.url))
            self.assertEqual(fault.hits, [])
        self.assert_failed(res, 2)

    def test_5xx_never_leaves_a_file(self):
        for status in (500, 503):
            self.cache = os.path.join(self.home, 'cache%d' % status)
            with FaultServer('status', status=status) as fault:
                res = self.find(BID_DEBUG, env=self.env(fault.url))
                self.assertTrue(fault.hits)
            self.assertIn(res.returncode, (2, 4), res)  # 0.188: 2
            self.assertEqual(res.stdout, '')
            self.assert_nothing_servable(BID_DEBUG)

    def test_5xx_is_unavailable_not_a_miss(self):
        for status in (500, 503):
            self.cache = os.path.join(self.home, 'cache%d' % status)
            with FaultServer('status', status=status) as fault:
                res = self.find(BID_DEBUG, env=self.env(fault.url))
            self.assert_failed(res, 4)
            self.assert_no_miss(BID_DEBUG)
            self.assert_next_process_finds()

    def test_5xx_with_verbose_log(self):
        # the user reads libdebuginfod's log: still a failure, not a miss
        with FaultServer('status', status=503) as fault:
            res = self.find(BID_DEBUG, env=self.env(fault.url,
                                                    DEBUGINFOD_VERBOSE=1))
        self.assert_failed(res, 4)
        self.assertIn('server response', res.stderr)
        self.assert_no_miss(BID_DEBUG)

    def test_406_too_large(self):
        # what debuginfod answers over DEBUGINFOD_MAXSIZE: the real one
        size = len(self.body[BID_BIG])
        before = self.server.responses(type='debuginfo', code=406)
        res = self.find(BID_BIG, env=self.env(DEBUGINFOD_MAXSIZE=size // 2))
        self.assert_failed(res, 4)
        self.assertIn('unavailable', res.stderr)
        self.assertEqual(self.server.responses(type='debuginfo', code=406), before + 1)
        self.assert_nothing_servable(BID_BIG)
        self.assert_no_miss(BID_BIG)
        # a limit, not a miss: without it the file comes
        self.assert_next_process_finds(BID_BIG)

    def test_oversized_content_length_aborted(self):
        # a server that ignores X-DEBUGINFOD-MAXSIZE: the client stops at
        # the first bytes of a body whose Content-Length is over the limit
        big = self.body[BID_BIG]
        with FaultServer('file', body=big) as fault:
            res = self.find(BID_BIG, kind='debuginfo', env=self.env(
                fault.url, DEBUGINFOD_MAXSIZE=len(big) // 2))
            self.assertEqual(len(fault.hits), 1)
        self.assert_failed(res, 4)
        self.assert_nothing_servable(BID_BIG)
        self.assert_no_miss(BID_BIG)

    def test_kernel_too_large_debuginfo_falls_back_to_executable(self):
        with FaultServer('status', status=406,
                         by_type={'executable': 'file'},
                         body=self.body[BID_DEBUG]) as fault:
            res = self.find(BID_DEBUG, env=self.env(fault.url))
            hits = list(fault.hits)
        self.assertEqual([h.rsplit('/', 1)[1] for h in hits],
                         ['debuginfo', 'executable'])
        self.assert_found(res, BID_DEBUG)

    # -- broken bodies ------------------------------------------------------

    def test_truncated_body_never_cached(self):
        # Content-Length larger than what comes before the connection
        # closes: curl knows the body is short
        with FaultServer('truncated', body=self.body[BID_DEBUG]) as fault:
            res = self.find(BID_DEBUG, env=self.env(fault.url))
            self.assertTrue(fault.hits)
        self.assertIn(res.returncode, (2, 4), res)  # 0.188: 2
        self.assertEqual(res.stdout, '')
        self.assert_nothing_servable(BID_DEBUG)

    def test_truncated_body_is_not_a_miss(self):
        with FaultServer('truncated', body=self.body[BID_DEBUG]) as fault:
            res = self.find(BID_DEBUG, env=self.env(fault.url))
        self.assert_failed(res, 4)
        self.assert_no_miss(BID_DEBUG)
        self.assert_next_process_finds()

    def test_truncated_body_without_length_rejected(self):
        with FaultServer('truncated-nolen',
                         body=self.body[BID_DEBUG]) as fault:
            res = self.find(BID_DEBUG, env=self.env(fault.url))
        self.assertNotEqual(res.returncode, 0, res)
        self.assert_nothing_servable(BID_DEBUG)
        self.assert_next_process_finds()

    def test_empty_reply_never_cached(self):
        with FaultServer('reset') as fault:
            res = self.find(BID_DEBUG, env=self.env(fault.url))
            self.assertTrue(fault.hits)
        self.assertIn(res.returncode, (2, 4), res)  # 0.188: 2
        self.assertEqual(res.stdout, '')
        self.assert_nothing_servable(BID_DEBUG)

    def test_empty_reply_is_not_a_miss(self):
        with FaultServer('reset') as fault:
            res = self.find(BID_DEBUG, env=self.env(fault.url))
        self.assert_failed(res, 4)
        self.assert_no_miss(BID_DEBUG)
        self.assert_next_process_finds()

    def check_rejected(self, mode, body, why):
        with FaultServer(mode, body=body) as fault:
            res = self.find(BID_DEBUG, env=self.env(fault.url))
            # kernel: a bad debuginfo does not stop the executable
            self.assertEqual(len(fault.hits), 2)
        self.assert_failed(res, 4)
        self.assertIn(why, res.stderr)
        self.assert_nothing_servable(BID_DEBUG)
        self.assert_no_miss(BID_DEBUG)
        self.assert_next_process_finds()

    # -- the size the server announces (X-DEBUGINFOD-SIZE) -----------------

    def find_announced(self, announce):
        """BID_DEBUG whole, its Content-Length right, X-DEBUGINFOD-SIZE
        ANNOUNCE."""
        with FaultServer('file', body=self.body[BID_DEBUG], size_header=True,
                         announce={'debuginfo': announce}) as fault:
            res = self.find(BID_DEBUG, kind='debuginfo',
                            env=self.env(fault.url))
            self.assertEqual(len(fault.hits), 1)
        return res, fault.url

    def check_size_rejected(self, announce):
        res, url = self.find_announced(announce)
        self.assert_failed(res, 4)
        self.assertIn('build ID %s: debuginfo from %s rejected: size differs '
                      'from the one the server announced; removed from the '
                      'cache' % (BID_DEBUG, url), res.stderr)
        self.assert_nothing_servable(BID_DEBUG)
        self.assert_no_miss(BID_DEBUG)
        self.assert_next_process_finds()

    def test_body_shorter_than_announced_rejected(self):
        self.check_size_rejected(len(self.body[BID_DEBUG]) + 100)

    def test_body_longer_than_announced_rejected(self):
        self.check_size_rejected(len(self.body[BID_DEBUG]) - 100)

    def test_announced_size_not_a_number_ignored(self):
        """A size that is no number says nothing: the Content-Length
        checks the body, which is whole."""
        for announce in ('12abc', 'lots', '-5', ''):
            with self.subTest(announce=announce):
                self.cache = os.path.join(self.home, 'c-' + announce)
                res, _ = self.find_announced(announce)
                self.assert_found(res, BID_DEBUG)

    def test_other_build_id_rejected(self):
        self.check_rejected('file', self.body[BID_OTHER],
                            'build ID differs')

    def test_not_elf_rejected(self):
        self.check_rejected('not-elf', b'', 'not an ELF file')

    def test_redirect_loop(self):
        # curl 7.88 follows redirects without limit; it stops at 300 KB of
        # response headers in all
        with FaultServer('redirect-loop') as fault:
            res = self.find(BID_DEBUG, env=self.env(fault.url))
            self.assertGreater(len(fault.hits), 50)
        self.assert_failed(res, 4)
        self.assert_nothing_servable(BID_DEBUG)
        self.assert_no_miss(BID_DEBUG)
        self.assert_next_process_finds()

    def test_maxtime_bounds_a_slow_redirect_loop(self):
        with FaultServer('redirect-loop', delay_s=0.3) as fault:
            res = self.find(BID_DEBUG, env=self.env(
                fault.url, DEBUGINFOD_MAXTIME=T))
            self.assertGreater(len(fault.hits), 2)
        self.assert_failed(res, 4)
        self.assert_nothing_servable(BID_DEBUG)
        self.assert_no_miss(BID_DEBUG)

    @product_bug('a slow redirect loop is not bounded by DEBUGINFOD_TIMEOUT '
                 '(each hop is a new transfer, under the low-speed window): '
                 'without DEBUGINFOD_MAXTIME, ~1600 hops at the delay the '
                 'server picks; the provider has no deadline of its own')
    def test_timeout_bounds_a_slow_redirect_loop(self):
        with FaultServer('redirect-loop', delay_s=0.3) as fault:
            res = self.find(BID_DEBUG, env=self.env(fault.url))
        self.assert_failed(res, 4)

    # -- down servers, bad URLs, lists ------------------------------------

    def test_connection_refused(self):
        down = 'http://127.0.0.1:%d' % free_port()
        res = self.find(BID_DEBUG, env=self.env(down,
                                                DEBUGINFOD_RETRY_LIMIT=None))
        self.assert_failed(res, 4)
        self.assertLess(res.elapsed, SLACK)
        self.assert_nothing_servable(BID_DEBUG)
        self.assert_no_miss(BID_DEBUG)
        self.assert_next_process_finds()

    def test_malformed_urls(self):
        for bad in ('http://127.0.0.1:99999', 'http://[::1'):
            self.cache = os.path.join(self.home, 'c%d' % len(bad))
            res = self.find(BID_DEBUG, env=self.env(bad))
            self.assert_failed(res, 4)
            self.assert_nothing_servable(BID_DEBUG)
            self.assert_no_miss(BID_DEBUG)

    def test_good_server_wins_over_bad_entries(self):
        with FaultServer('status', status=404) as f404, \
                FaultServer('status', status=500) as f500, \
                FaultServer('reset') as freset:
            urls = ['http://127.0.0.1:99999',  # malformed
                    'gopher://127.0.0.1:%d' % free_port(),  # not HTTP
                    'http://127.0.0.1:%d' % free_port(),  # refused
                    f404.url, f500.url, freset.url, self.server.url]
            res = self.find(BID_DEBUG, env=self.env(' '.join(urls)))
        self.assert_found(res, BID_DEBUG)
        self.assertEqual(self.entries(BID_DEBUG),
                         {'debuginfo': len(self.body[BID_DEBUG])})

    def test_good_server_wins_over_a_hang(self):
        with FaultServer('hang', hang_s=60) as hang:
            res = self.find(BID_DEBUG, env=self.env(
                hang.url + ' ' + self.server.url, DEBUGINFOD_TIMEOUT=60),
                bound=60 + SLACK)
            self.assertTrue(hang.wait_connected())  # both were asked
        self.assert_found(res, BID_DEBUG)
        self.assertLess(res.elapsed, SLACK)  # did not wait for the hang

    def test_bad_body_racing_a_good_server(self):
        # the first server to send a byte wins in libdebuginfod, good or
        # bad: the outcome is a race, but never a wrong file
        cases = (('stall', self.body[BID_DEBUG]),
                 ('file', self.body[BID_OTHER]),
                 ('truncated', self.body[BID_DEBUG]))
        for mode, body in cases:
            with self.subTest(mode=mode):
                self.cache = os.path.join(self.home, 'race-' + mode)
                with FaultServer(mode, body=body, hang_s=60) as fault:
                    res = self.find(BID_DEBUG, env=self.env(
                        fault.url + ' ' + self.server.url))
                if res.returncode == 0:
                    self.assert_found(res, BID_DEBUG)
                else:
                    self.assertIn(res.returncode, (2, 4), res)
                    self.assert_nothing_servable(BID_DEBUG)

    # -- the local cache ----------------------------------------------------

    def nobody_build(self):
        """BUILD's symprov and provider where user nobody can run them."""
        return copy_for_nobody(BUILD, os.path.join(self.tmp, 'nobody-build'),
                               ('bin/symprov', 'lib/libdebuginfodprov.so'))

    def find_as_nobody(self, bid, env):
        if shutil.which('setpriv') is None or os.geteuid() != 0:
            self.skipTest('needs root and setpriv to drop privileges')
        return self.find(bid, env=env, build=self.nobody_build(),
                         prefix=('setpriv', '--reuid=nobody',
                                 '--regid=nogroup', '--clear-groups', '--'))

    def test_cache_not_writable_by_user(self):
        # root ignores permissions: run symprov as nobody against a cache
        # directory owned by root
        os.mkdir(self.cache, 0o755)
        before = self.server.responses()
        res = self.find_as_nobody(BID_DEBUG, self.env())
        self.assert_failed(res, 4)
        self.assertLess(res.elapsed, SLACK)
        self.assertEqual(os.listdir(self.cache), [])
        # libdebuginfod gives up before the network
        self.assertEqual(self.server.responses(), before)

    def test_cache_read_only_mount(self):
        with tmpfs(self.cache):
            remount(self.cache, 'ro')
            res = self.find(BID_DEBUG)
            self.assert_failed(res, 4)
            self.assertEqual(os.listdir(self.cache), [])
            # a file already there: libdebuginfod 0.188 opens its
            # configuration files read-write first and fails
            remount(self.cache, 'rw')
            self.assert_found(self.find(BID_DEBUG), BID_DEBUG)
            remount(self.cache, 'ro')
            res = self.find(BID_DEBUG)
            if res.returncode:
                self.assert_failed(res, 4)  # 0.188
            else:
                self.assert_found(res, BID_DEBUG)

    def test_cache_filesystem_full(self):
        with tmpfs(self.cache, size='64k'):
            # a 4 MiB download into 64 KiB.  No retry: with retries this
            # is test_retried_download_is_whole
            res = self.find(BID_BIG)
            self.assert_failed(res, 4)
            self.assert_nothing_servable(BID_BIG)
            self.assert_no_miss(BID_BIG)
            # the partial download was removed: a small file fits
            self.assert_found(self.find(BID_DEBUG), BID_DEBUG)
            # nothing free at all
            filler = os.path.join(self.cache, 'filler')
            fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                with contextlib.suppress(OSError):
                    while os.write(fd, b'\0' * 4096):
                        pass
            finally:
                os.close(fd)
            res = self.find(BID_EXEC, kind='executable')
            self.assert_failed(res, 4)
            self.assert_nothing_servable(BID_EXEC)
            self.assert_no_miss(BID_EXEC)
            os.unlink(filler)
            self.assert_next_process_finds(BID_EXEC)

    def test_cached_file_deleted(self):
        path = self.assert_found(self.find(BID_DEBUG), BID_DEBUG)
        before = self.server.responses(type='debuginfo', code=200)
        os.unlink(path)
        self.assertEqual(self.assert_found(self.find(BID_DEBUG), BID_DEBUG),
                         path)
        self.assertEqual(self.server.responses(type='debuginfo', code=200), before + 1)
        shutil.rmtree(os.path.dirname(path))
        self.assert_found(self.find(BID_DEBUG), BID_DEBUG)

    def test_cached_file_replaced_by_another(self):
        path = self.assert_found(self.find(BID_DEBUG, kind='debuginfo'),
                                 BID_DEBUG)
        os.chmod(path, 0o600)
        with open(path, 'wb') as f:
            f.write(self.body[BID_OTHER])
        before = self.server.responses(type='executable', code=200)
        # kernel: the bad debuginfo is dropped, the executable comes
        res = self.find(BID_DEBUG)
        self.assertIn('build ID differs', res.stderr)
        self.assertTrue(self.assert_found(res, BID_DEBUG).endswith(
            '/executable'))
        self.assertEqual(self.server.responses(type='executable', code=200),
                         before + 1)
        self.assertNotIn('debuginfo', self.entries(BID_DEBUG))
        self.assert_found(self.find(BID_DEBUG, kind='debuginfo'), BID_DEBUG)

    def test_cached_file_truncated(self):
        path = self.assert_found(self.find(BID_DEBUG, kind='debuginfo'),
                                 BID_DEBUG)
        os.truncate(path, len(self.body[BID_DEBUG]) // 2)
        res = self.find(BID_DEBUG, kind='debuginfo')
        if res.returncode == 0:
            self.assert_found(res, BID_DEBUG)  # fetched again: fine
        else:
            self.assert_failed(res, 4)
            self.assert_nothing_servable(BID_DEBUG)
        self.assert_next_process_finds()

    def test_home_unset(self):
        # DEBUGINFOD_CACHE_PATH does not need HOME
        env = self.env(HOME=None)
        self.assert_found(self.find(BID_DEBUG, env=env), BID_DEBUG)
        # nor does XDG_CACHE_HOME
        xdg = os.path.join(self.home, 'xdg')
        env = self.env(HOME=None, DEBUGINFOD_CACHE_PATH=None,
                       XDG_CACHE_HOME=xdg)
        self.assert_found(self.find(BID_DEBUG, env=env), BID_DEBUG,
                          cache=os.path.join(xdg, 'debuginfod_client'))

    def test_home_unset_no_cache_variable(self):
        # libdebuginfod then puts its cache under "/": an ordinary user
        # cannot, and gets a prompt failure
        env = self.env(HOME=None, DEBUGINFOD_CACHE_PATH=None)
        fallback = os.path.join('/', '.cache')
        existed = os.path.exists(fallback)
        res = self.find_as_nobody(BID_DEBUG, env)
        self.assert_failed(res, 4)
        self.assertLess(res.elapsed, SLACK)
        if not existed:
            self.assertFalse(os.path.exists(fallback))

    # -- many at once --------------------------------------------------------

    def test_processes_and_threads_race_for_one_file(self):
        bid, size = BID_BIG, len(self.body[BID_BIG])
        final = os.path.join(self.cache, bid, 'debuginfo')
        seen, bad, stop = [], [], threading.Event()

        def watch():
            # the final name never shows part of the file.  It may show
            # an empty one for a moment: libdebuginfod 0.188 writes its
            # miss marker there before it renames a download over it (see
            # docs/RELIABILITY.md)
            while not stop.wait(0.0005):
                try:
                    n = os.stat(final).st_size
                except FileNotFoundError:
                    continue
                seen.append(n)
                if n not in (0, size):
                    bad.append(n)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        start = time.monotonic()
        driver = os.path.join(BUILD, 'tests', 'concurrent_find')
        procs = []
        try:
            for _ in range(8):
                procs.append(subprocess.Popen(
                    [symprov(), 'find', '--providers',
                     'libdebuginfodprov.so', bid], env=self.env(),
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    text=True))
            procs.append(subprocess.Popen(
                [driver, os.path.join(BUILD, 'lib', 'libdebuginfodprov.so'),
                 '8', bid], env=self.env(), stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True))
            outs = [p.communicate(timeout=T + SLACK) for p in procs]
        finally:
            stop.set()
            watcher.join(timeout=10)
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.communicate()
        for p, (out, err) in zip(procs, outs):
            self.assertEqual(p.returncode, 0, err)
        paths = [o.strip() for o, _ in outs[:-1]]
        paths += [line.split()[-1] for line in outs[-1][0].splitlines()]
        self.measured('all done after %.2f s; %d of %d lookups given the '
                      'executable; an empty file seen %d times' % (
                          time.monotonic() - start,
                          sum(p.endswith('/executable') for p in paths),
                          len(paths), seen.count(0)))
        self.assertEqual(len(paths), 16, outs[-1])
        # the debuginfo; or, for a process that looked at the moment
        # libdebuginfod's empty miss marker was there (see
        # test_landing_download_is_not_a_miss), the executable
        self.assertLessEqual(set(paths), {final, final[:-len('debuginfo')] +
                                          'executable'})
        for path in set(paths):
            self.assertEqual(read(path), self.body[bid], path)
        self.assertEqual(bad, [], 'a partial file under the final name')
        self.assertEqual(read(final), self.body[bid])
        self.assertEqual(self.entries(bid).get('debuginfo'), size)
        self.assertEqual([f for f in self.entries(bid)
                          if f not in ('debuginfo', 'executable')], [])

    def find_all(self, bid, n, env, kind='debuginfo'):
        """N symprov find --kind KIND BID at once: [(exit, stdout)]."""
        cmd = [symprov(), 'find', '--providers', 'libdebuginfodprov.so',
               '--kind', kind, bid]
        procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
                 for _ in range(n)]
        try:
            outs = [p.communicate(timeout=T + SLACK) for p in procs]
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.communicate()
        for p, (_, err) in zip(procs, outs):
            self.assertEqual(p.returncode, 0, err)
        return [out.strip() for out, _ in outs]

    def test_processes_share_one_transfer(self):
        # a 4 s download: all 8 ask while the first one is at it
        bid, body = BID_BIG, self.body[BID_BIG]
        with FaultServer('slow', body=body, rate=1 << 20, size_header=True,
                         hang_s=60) as fault:
            start = time.monotonic()
            paths = self.find_all(bid, 8, self.env(fault.url))
            hits, sent = list(fault.hits), fault.sent
        self.measured('8 processes: %d transfers, %d bytes, %.2f s' % (
            len(hits), sent, time.monotonic() - start))
        self.assertEqual(hits, ['/buildid/%s/debuginfo' % bid])
        self.assertEqual(sent, len(body))
        self.assertEqual(set(paths), {os.path.join(self.cache, bid,
                                                   'debuginfo')})
        self.assertEqual(read(paths[0]), body)
        self.assertEqual(self.entries(bid), {'debuginfo': len(body)})

    @contextlib.contextmanager
    def lock_holder(self, bid):
        """symprov find BID against a server that stalls after 64 bytes:
        it holds the lock on BID's debuginfo until it is killed."""
        cmd = [symprov(), 'find', '--providers', 'libdebuginfodprov.so',
               '--kind', 'debuginfo', bid]
        with FaultServer('stall', body=self.body[bid], hang_s=60) as fault:
            proc = subprocess.Popen(cmd, env=self.env(
                fault.url, DEBUGINFOD_TIMEOUT=60),
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                deadline = time.monotonic() + SLACK
                while not fault.hits and time.monotonic() < deadline:
                    time.sleep(0.02)
                self.assertTrue(fault.hits, 'the holder never asked')
                yield proc
            finally:
                if proc.poll() is None:
                    proc.kill()
                proc.communicate()

    def waiter(self, bid, verbose=False, **env):
        return subprocess.Popen(
            [symprov()] + (['-v'] if verbose else []) +
            ['find', '--providers', 'libdebuginfodprov.so', '--kind',
             'debuginfo', bid], env=self.env(**env),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def test_lock_of_a_killed_process_is_gone(self):
        # flock() goes with its process: SIGKILL frees it at once
        bid = BID_DEBUG
        before = self.server.responses(type='debuginfo')
        with self.lock_holder(bid) as holder:
            proc = self.waiter(bid, DEBUGINFOD_TIMEOUT=60)
            try:
                time.sleep(1.5)
                self.assertIsNone(proc.poll(), 'did not wait for the lock')
                self.assertEqual(self.server.responses(type='debuginfo'),
                                 before)
                holder.kill()
                start = time.monotonic()
                out, err = proc.communicate(timeout=SLACK)
                elapsed = time.monotonic() - start
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate()
        self.measured('found %.2f s after the holder was killed' % elapsed)
        self.assertEqual(proc.returncode, 0, err)
        self.assertLess(elapsed, 1.0)
        self.assert_found(Result(0, out, err, elapsed), bid)
        self.assertEqual(self.server.responses(type='debuginfo'), before + 1)

    def test_lock_holder_without_progress_is_given_up(self):
        # the holder writes nothing for DEBUGINFOD_TIMEOUT: fetched here
        bid = BID_DEBUG
        with self.lock_holder(bid):
            start = time.monotonic()
            proc = self.waiter(bid, verbose=True)
            out, err = proc.communicate(timeout=T + SLACK)
            elapsed = time.monotonic() - start
        self.measured('found after %.2f s' % elapsed)
        self.assertGreaterEqual(elapsed, T)
        self.assert_found(Result(proc.returncode, out, err, elapsed), bid)
        self.assertIn('wrote nothing for %d s' % T, err)

    def test_ctrl_c_while_waiting_for_the_lock(self):
        bid = BID_DEBUG
        with self.lock_holder(bid):
            proc = self.waiter(bid, DEBUGINFOD_TIMEOUT=60)
            try:
                time.sleep(1)
                self.assertIsNone(proc.poll(), 'did not wait for the lock')
                start = time.monotonic()
                proc.send_signal(signal.SIGINT)
                out, err = proc.communicate(timeout=SLACK)
                elapsed = time.monotonic() - start
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate()
        self.assertEqual(proc.returncode, 5, err)
        self.assertEqual(out, '')
        self.assertLessEqual(elapsed, CANCEL_BOUND)
        # no file and no miss; the killed holder's partial download stays
        self.assertNotIn('debuginfo', self.entries(bid))

    def test_left_over_download_is_not_waited_for(self):
        # a killed download left its temporary file; a miss came later:
        # nothing is landing, the miss is answered at once
        d = os.path.join(self.cache, BID_OTHER)
        os.makedirs(d)
        with open(os.path.join(d, 'debuginfo.AbC123'), 'wb') as f:
            f.write(b'\x7fELF partial')
        time.sleep(2.5)  # ctime granularity is a second; slack is one
        open(os.path.join(d, 'debuginfo'), 'w').close()
        res = self.find(BID_OTHER, kind='debuginfo', bound=4)
        self.assert_failed(res, 2)

    def test_landing_download_is_not_a_miss(self):
        # rename() of the download paused while the marker is there: the
        # moment a concurrent process can hit, held open
        shim = self.rename_pause_shim()
        flag = os.path.join(self.home, 'hold')
        open(flag, 'w').close()
        env = self.env(LD_PRELOAD=shim, SYMPROV_TEST_HOLD=flag)
        # SAN=1 builds: the shim is preloaded before the ASan runtime
        env['ASAN_OPTIONS'] = ':'.join(filter(None, (
            'verify_asan_link_order=0', os.environ.get('ASAN_OPTIONS'))))
        final = os.path.join(self.cache, BID_DEBUG, 'debuginfo')
        cmd = [symprov(), 'find', '--providers', 'libdebuginfodprov.so',
               '--kind', 'debuginfo', BID_DEBUG]
        writer = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        reader = None
        try:
            deadline = time.monotonic() + SLACK
            while not os.path.exists(flag + '.held') and \
                    writer.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)
            self.assertTrue(os.path.exists(flag + '.held'), 'never held')
            self.assertEqual(os.path.getsize(final), 0)  # the marker
            reader = subprocess.Popen(cmd, env=self.env(),
                                      stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True)
            time.sleep(1)
            os.unlink(flag)  # let the download land
            out, err = writer.communicate(timeout=SLACK)
            self.assertEqual(writer.returncode, 0, err)
            rout, rerr = reader.communicate(timeout=SLACK)
        finally:
            for p in (writer, reader):
                if p and p.poll() is None:
                    p.kill()
                    p.communicate()
        self.assertEqual(reader.returncode, 0, rerr)
        self.assertEqual(rout.strip(), final)

    def rename_pause_shim(self):
        """An LD_PRELOAD library whose rename() to .../debuginfo waits
        while the file $SYMPROV_TEST_HOLD exists (10 s at most), after
        creating $SYMPROV_TEST_HOLD.held."""
        so = os.path.join(self.tmp, 'rename_pause.so')
        if os.path.exists(so):
            return so
        src = so[:-3] + '.c'
        with open(src, 'w') as f:
            f.write(RENAME_PAUSE_C)
        subprocess.run(['gcc', '-shared', '-fPIC', '-O2', '-o', so, src,
                        '-ldl'], check=True, timeout=60)
        return so

    # -- Ctrl-C ----------------------------------------------------------------

    def test_ctrl_c_during_a_transfer(self):
        # test_debuginfod.py cancels a server that never answers; here a
        # download has begun (a partial file is being written) or the
        # server redirects forever, where only Ctrl-C or MAXTIME help
        cases = (('trickle', dict(body=self.body[BID_BIG], trickle_s=0.1)),
                 ('redirect-loop', dict(delay_s=0.3)))
        for mode, kw in cases:
            with self.subTest(mode=mode):
                self.cache = os.path.join(self.home, 'cancel-' + mode)
                self.check_ctrl_c(mode, kw)

    def check_ctrl_c(self, mode, kw):
        bid = BID_BIG
        d = os.path.join(self.cache, bid)
        cmd = [symprov(), 'find', '--providers', 'libdebuginfodprov.so', bid]
        with FaultServer(mode, hang_s=60, **kw) as fault:
            proc = subprocess.Popen(cmd, env=self.env(
                fault.url, DEBUGINFOD_TIMEOUT=60),
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                deadline = time.monotonic() + SLACK
                while time.monotonic() < deadline and proc.poll() is None:
                    if mode == 'trickle':
                        # bytes are in a temporary file of the cache
                        if any(n for f, n in self.entries(bid).items()
                               if f.startswith('debuginfo.')):
                            break
                    elif len(fault.hits) > 2:
                        break
                    time.sleep(0.05)
                self.assertIsNone(proc.poll(), 'symprov ended early')
                self.assertLess(time.monotonic(), deadline, 'no progress')
                start = time.monotonic()
                proc.send_signal(signal.SIGINT)
                out, err = proc.communicate(timeout=SLACK)
                elapsed = time.monotonic() - start
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate()
        self.measured('%s: exit %d %.2f s after SIGINT' % (
            mode, proc.returncode, elapsed))
        self.assertEqual(proc.returncode, 5, err)
        self.assertEqual(out, '')
        self.assertLessEqual(elapsed, CANCEL_BOUND)
        self.assertEqual(os.listdir(d) if os.path.isdir(d) else [], [])
        self.assert_next_process_finds(bid)


def shard(names, k, n):
    """The Kth of N shares of the tests NAMES (all of them if empty): one
    in N, in the order of their names."""
    if not names:
        suite = unittest.TestLoader().loadTestsFromModule(
            sys.modules[__name__])
        names = [t.id().split('.', 1)[1] for s in suite for t in s]
    return sorted(names)[k - 1::n]


def main():
    global BUILD, MEASURED
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default='build')
    ap.add_argument('--show-bugs', action='store_true',
                    help='run the @product_bug tests as plain tests')
    ap.add_argument('--measure', action='store_true',
                    help='print the exit code and time of each symprov find')
    ap.add_argument('--shard', metavar='K/N',
                    help='the Kth of N shares of the tests, one in N by '
                    'name: make -j runs them side by side')
    ap.add_argument('tests', nargs='*')
    args = ap.parse_args()
    BUILD = os.path.abspath(args.build)
    if args.measure:
        MEASURED = []
    if args.shard:
        k, n = (int(x) for x in args.shard.split('/'))
        named = bool(args.tests)
        args.tests = shard(args.tests, k, n)
        if not args.tests:
            # of the tests named, none is in this share
            print('faults: shard %s: no test of those named' % args.shard)
            return 0 if named else 1
    if args.show_bugs:
        for name in PRODUCT_BUGS:
            getattr(FaultTest, name).__unittest_expecting_failure__ = False
    result = run_suite('faults', sys.modules[__name__], args.tests)
    if result is None:
        return 1
    for name, what in MEASURED or ():
        print('faults: measured: %s: %s' % (name, what))
    known = len(result.expectedFailures)
    for test, _ in result.expectedFailures:
        name = test.id().rsplit('.', 1)[-1]
        print('faults: known product bug: %s: %s' % (
            name, PRODUCT_BUGS.get(name, '?')))
    # a product bug fixed: drop its @product_bug mark
    for test in result.unexpectedSuccesses:
        print('faults: %s passes now: remove its @product_bug mark'
              % test.id().rsplit('.', 1)[-1])
    if known:
        print('faults: %d known product bugs (expected failures)' % known)
    return summarize('faults', result)


if __name__ == '__main__':
    sys.exit(main())
