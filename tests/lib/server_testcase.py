# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""unittest base for tests against a real debuginfod, and their summary."""
import argparse
import os
import pty
import shutil
import subprocess
import sys
import tempfile
import unittest

from debuginfod_server import DebuginfodServer


class ServerTestCase(unittest.TestCase):
    """One debuginfod for the class, serving what make_fixtures() puts in
    its directory; a fresh HOME and client cache for every test."""

    server = None
    tmp = None

    @classmethod
    def make_fixtures(cls, srv):
        raise NotImplementedError

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='symprov-%s-' % cls.__name__)
        os.chmod(cls.tmp, 0o755)  # some tests run symprov as nobody
        srv = os.path.join(cls.tmp, 'srv')
        os.mkdir(srv)
        cls.make_fixtures(srv)
        cls.server = DebuginfodServer(
            srv, log_path=os.path.join(cls.tmp, 'd.log')).start()

    @classmethod
    def tearDownClass(cls):
        if cls.server:
            cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.home = tempfile.mkdtemp(dir=self.tmp, prefix='home-')
        os.chmod(self.home, 0o755)
        self.cache = os.path.join(self.home, 'cache')

    def env(self, urls=None, **extra):
        """The server's client environment; URLS replaces the server, a
        value of None in EXTRA removes a variable."""
        env = self.server.client_env(self.home, self.cache)
        if urls is not None:
            env['DEBUGINFOD_URLS'] = urls
        for k, v in extra.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = str(v)
        return env


def copy_for_nobody(build, dest, files):
    """FILES ('bin/symprov', 'lib/libx.so'...) of BUILD copied under DEST,
    where user nobody can run them (BUILD may be in a private home), with
    the libsymprov they link."""
    if not os.path.isdir(dest):
        for f in list(files) + ['lib/libsymprov.so.1']:
            os.makedirs(os.path.dirname(os.path.join(dest, f)), exist_ok=True)
            shutil.copy2(os.path.join(build, f), os.path.join(dest, f))
        for root, _dirs, _files in os.walk(dest):
            os.chmod(root, 0o755)
    return dest


def run_stderr_on_pty(cmd, **kw):
    """Run CMD with stderr on a pseudo-terminal, as a person sees it, and
    stdout a pipe: (the CompletedProcess, all that stderr got, bytes)."""
    master, slave = pty.openpty()
    seen = b''
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=slave,
                              text=True, **kw)
        os.close(slave)
        slave = None
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the other side is closed
                break
            if not chunk:
                break
            seen += chunk
    finally:
        if slave is not None:
            os.close(slave)
        os.close(master)
    return proc, seen


def run_suite(name, module, names=()):
    """Run the tests NAMES of MODULE (all by default); None, said loudly,
    when they cannot run."""
    if shutil.which('debuginfod') is None:
        print('%s: CANNOT RUN: debuginfod is not installed (Debian package '
              'debuginfod)' % name)
        print('%s: 0 passed, 1 failed' % name)
        return None
    loader = unittest.TestLoader()
    suite = (loader.loadTestsFromNames(names, module) if names
             else loader.loadTestsFromModule(module))
    return unittest.TextTestRunner(verbosity=2).run(suite)


def summarize(name, result):
    """The closing 'N passed, N failed' line; an exit code, non-zero also
    for a skipped test: what did not run did not pass."""
    failed = len(result.failures) + len(result.errors) + \
        len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped - \
        len(result.expectedFailures)
    print('%s: %d passed, %d failed, %d skipped' % (name, passed, failed,
                                                    skipped))
    sys.stdout.flush()
    return 1 if failed or skipped else 0


def run_main(name, module, debuginfod=True, options=()):
    """The command line of a test module: [--build DIR] [OPTION...]
    [TEST...].  Sets module.BUILD (absolute) and module.ARGS, runs the
    tests (all by default) and returns the exit code of summarize()."""
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default='build')
    for opt, kw in options:
        ap.add_argument(opt, **kw)
    ap.add_argument('tests', nargs='*')
    args = ap.parse_args()
    module.BUILD = os.path.abspath(args.build)
    module.ARGS = args
    if debuginfod:
        result = run_suite(name, module, args.tests)
        if result is None:
            return 1
    else:
        loader = unittest.TestLoader()
        suite = (loader.loadTestsFromNames(args.tests, module) if args.tests
                 else loader.loadTestsFromModule(module))
        result = unittest.TextTestRunner(verbosity=2).run(suite)
    return summarize(name, result)
