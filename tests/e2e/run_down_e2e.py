#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""End-to-end: a debuginfod server that does not answer costs perf one
wait, not one per file, and the next perf none.

    run_down_e2e.py [--perf PERF] [--workdir DIR] [--duration 2]

Needs root (perf record -a), gcc, objcopy, strip, debuginfod and `make`
(build/lib, build/bin/symprov); without them it says so loudly and exits
2.  The profile: a program and eight shared objects built here, recorded
system-wide, then taken away, the kernel moved to a build ID of its own:
perf asks for the kernel and nine user objects.  A local debuginfod
serves the stand-in vmlinux, the stripped objects and their debug files
(the live server); a server of the test's accepts connections and never
answers (the dead one, tests/lib/fault_server.py), DEBUGINFOD_TIMEOUT=10.
Every request is counted at the server that got it.  Checks:

  live            the live server alone: the report names the kernel and
                  the nine objects (the control)
  dead            the dead server alone: the report ends within 15 s and
                  one stderr line names the server, with how long it is
                  not asked
  dead again      the next report, same client cache: within 3 s, not a
                  request at the dead server, one line naming it
  script          perf script: within 15 s, one line
  annotate        perf annotate of an object's function, the server known
                  down: within 3 s
  dead and live   both servers: the report of the live server alone,
                  within 15 s
  remembered time symprov.debuginfod.server-down-s=5 ($HOME/.perfconfig):
                  the server known down for 5 s, then asked again
  refused         a server that refuses connections: the report within
                  2 s of the same report without providers
  prefetch        symprov prefetch: the dead server within 15 s and then
                  within 3 s; with the live one, what the live one alone
                  gives; --perf-cache within 15 s; refused within 2 s
  tui             perf report's TUI, the server known down: the browser
                  within 3 s, the line naming the server written to the
                  terminal (its help line)

Ends with "N passed, N failed"; exit 0 when all passed.
"""

import collections
import os
import shutil
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))
import make_profile  # noqa: E402
import make_standin  # noqa: E402
import objects_fixture  # noqa: E402
import run_e2e  # noqa: E402
from compare_reports import parse_report  # noqa: E402
from debuginfod_server import DebuginfodServer, free_port  # noqa: E402
from e2elib import (Checks, E2EError, clean_env, log,  # noqa: E402
                    checks_parser, run, run_checks)
from elf_fixtures import read_build_id  # noqa: E402
from fault_server import FaultServer  # noqa: E402
from tui import Terminal  # noqa: E402

PROVIDER = 'libdebuginfodprov.so'
NEW_KERNEL = '5e1f00000000000000000000000000000d0a0d0a'
LIBS = 8
TIMEOUT = 10
# the bounds: one wait of TIMEOUT and the rest
ONE_WAIT = 15
NO_WAIT = 3
REFUSED_SLACK = 2
REPORT = ['report', '--stdio', '--sort', 'dso,sym', '-F',
          'overhead,sample,dso,sym']

LIB_SOURCE = r'''
int down_spin_%d(int n)
{
	volatile int x = 0;
	int k;

	for (k = 0; k < n; k++)
		x += k ^ %d;
	return x;
}
'''

PROG_SOURCE = r'''
#include <stdlib.h>
#include <time.h>
%s
static int __attribute__((noinline)) down_main_spin(int n)
{
	volatile int x = 0;
	int k;

	for (k = 0; k < n; k++)
		x += k;
	return x;
}

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 2);

	while (time(NULL) < end) {
		down_main_spin(400000);
%s	}
	return 0;
}
'''


def build_objects(d):
    """In D: libdown0.so ... and the program `down` calling each: every
    one with debug info and a build ID.  Returns their paths."""
    os.makedirs(d, exist_ok=True)
    libs = []
    for i in range(LIBS):
        lib = os.path.join(d, 'libdown%d.so' % i)
        with open(lib + '.c', 'w') as f:
            f.write(LIB_SOURCE % (i, i))
        run(['gcc', '-g', '-O1', '-shared', '-fPIC', '-Wl,--build-id',
             '-o', lib, lib + '.c'], 60)
        os.unlink(lib + '.c')
        libs.append(lib)
    prog = os.path.join(d, 'down')
    decls = ''.join('int down_spin_%d(int n);\n' % i for i in range(LIBS))
    calls = ''.join('\t\tdown_spin_%d(200000);\n' % i for i in range(LIBS))
    with open(prog + '.c', 'w') as f:
        f.write(PROG_SOURCE % (decls, calls))
    run(['gcc', '-g', '-O1', '-Wl,--build-id', '-o', prog, prog + '.c',
         '-L' + d, '-Wl,-rpath,' + d] +
        ['-ldown%d' % i for i in range(LIBS)], 60)
    os.unlink(prog + '.c')
    return [prog] + libs


class Runner(Checks):
    def __init__(self, args):
        super().__init__(args, 'symprov-down-')
        self.live = None
        self.dead = None

    def preflight(self):
        return self.missing(('gcc', 'ld', 'objcopy', 'strip', 'debuginfod',
                             'tmux'),
                            (self.symprov,
                             os.path.join(self.build, 'lib', PROVIDER)))

    # the profile ----------------------------------------------------------
    def step_profile(self):
        for d in os.listdir(self.work):
            if d.startswith(('cache-', 'home-', 'objs')):
                shutil.rmtree(self.p(d))
        objs = build_objects(self.p('objs', 'usr', 'lib', 'symprov-down'))
        d = str(self.args.duration)
        run([self.perf, 'record', '-e', 'cpu-clock', '-a', '-N',
             '-o', self.p('orig.data'), '--', 'sh', '-c',
             '"$1" %s & timeout %s dd if=/dev/zero of=/dev/null bs=512 '
             'status=none & wait' % (d, d), 'sh', objs[0]],
            self.args.duration + 60, env=clean_env(self.fresh('home-rec')),
            soft_signal=signal.SIGINT)
        with open('/proc/kallsyms', 'rb') as fi, \
                open(self.p('kallsyms'), 'wb') as fo:
            fo.write(fi.read())
        srv = self.fresh('srv')
        self.objects = {}
        for path in objs:
            base = os.path.basename(path)
            objects_fixture.split_debug(path, os.path.join(srv, base),
                                        os.path.join(srv, base + '.debug'))
            self.objects[base] = read_build_id(path)
        shutil.rmtree(self.p('objs-gone'), ignore_errors=True)
        shutil.move(self.p('objs'), self.p('objs-gone'))
        make_profile.move_profile(self.p('orig.data'), self.p('moved.data'),
                                  NEW_KERNEL)
        make_standin.build(self.p('kallsyms'), NEW_KERNEL,
                           os.path.join(srv, 'vmlinux'), self.work)

    # running perf and symprov ------------------------------------------------
    def env(self, name, urls, providers=True, **kw):
        """A fresh HOME, the client cache NAME (kept across calls: a
        check about the next process passes the same NAME)."""
        home = self.p('home-' + name)
        os.makedirs(home, exist_ok=True)
        env = clean_env(home, {
            'DEBUGINFOD_URLS': urls,
            'DEBUGINFOD_CACHE_PATH': self.p('cache-' + name),
            'DEBUGINFOD_TIMEOUT': str(TIMEOUT)})
        if providers:
            env['PERF_SYMBOL_PROVIDERS'] = PROVIDER
        env.pop('LD_LIBRARY_PATH', None)
        env.update(kw)
        return env

    def timed(self, argv, env, timeout=300):
        t = time.monotonic()
        res = run(argv, timeout, env=env, check=False)
        took = time.monotonic() - t
        if res.returncode != 0:
            raise E2EError('%s: exit %d after %.1f s: %s' % (
                ' '.join(argv[:2]), res.returncode, took,
                res.stderr[-2000:]))
        return took, res

    def report(self, env, extra=()):
        return self.timed([self.perf] + REPORT + ['-i', self.p('moved.data')]
                          + list(extra), env)

    def prefetch(self, env, *extra):
        t = time.monotonic()
        res = run([self.symprov, 'prefetch', '-i', self.p('moved.data')] +
                  list(extra), 300, env=env, check=False)
        took = time.monotonic() - t
        # 0: all found, 2: a file needed not found (the machine's own
        # stripped objects), 4: unavailable
        if res.returncode not in (0, 2, 4):
            raise E2EError('symprov prefetch: exit %d: %s' % (
                res.returncode, res.stderr[-2000:]))
        return took, res

    def naming(self, err, url):
        """The stderr lines that name the server at URL."""
        return [line for line in err.splitlines() if url in line]

    def expect_named_once(self, err, url, words, what):
        lines = self.naming(err, url)
        if len(lines) != 1 or words not in lines[0]:
            raise E2EError('%s: want one line naming %s with "%s", got %s' %
                           (what, url, words, lines or err[-1500:]))

    def expect_within(self, took, bound, what):
        if took > bound:
            raise E2EError('%s took %.1f s, more than %d s' % (
                what, took, bound))

    def dead_hits(self):
        return len(self.dead.hits)

    # checks -------------------------------------------------------------
    def step_live(self):
        took, res = self.report(self.env('live', self.live.url))
        self.control = res.stdout
        names = collections.Counter()
        kernel = 0
        for e in parse_report(res.stdout):
            if e.dso in self.objects and not e.sym.startswith('0x'):
                names[e.dso] += 1
            if e.dso == '[kernel.kallsyms]' and \
                    not e.sym.startswith('0xffff'):
                kernel += 1
        missing = sorted(set(self.objects) - set(names))
        if missing or not kernel:
            raise E2EError('the live server: objects not named %s, %d '
                           'kernel symbols' % (missing, kernel))
        log('live: %.1f s; the kernel and %d objects named' % (
            took, len(names)))

    def step_dead(self):
        before = self.dead_hits()
        took, res = self.report(self.env('dead', self.dead.url))
        self.expect_within(took, ONE_WAIT, 'the report, the server dead')
        self.expect_named_once(res.stderr, self.dead.url,
                               'sent nothing in %d s' % TIMEOUT, 'dead')
        if self.dead_hits() == before:
            raise E2EError('the dead server was never asked')
        log('dead: %.1f s, %d requests at the dead server' % (
            took, self.dead_hits() - before))

    def step_dead_again(self):
        before = self.dead_hits()
        took, res = self.report(self.env('dead', self.dead.url))
        self.expect_within(took, NO_WAIT, 'the next report')
        self.expect_named_once(res.stderr, self.dead.url, 'not asked until',
                               'dead again')
        if self.dead_hits() != before:
            raise E2EError('the next report asked the dead server %d '
                           'times' % (self.dead_hits() - before))
        log('dead again: %.1f s, no request' % took)

    def step_script(self):
        took, res = self.timed([self.perf, 'script', '-F', 'ip,sym,dso',
                                '-i', self.p('moved.data')],
                               self.env('script', self.dead.url))
        self.expect_within(took, ONE_WAIT, 'perf script, the server dead')
        self.expect_named_once(res.stderr, self.dead.url, 'sent nothing',
                               'script')
        log('script: %.1f s' % took)

    def step_annotate(self):
        before = self.dead_hits()
        t = time.monotonic()
        res = run([self.perf, 'annotate', '--stdio', '-i',
                   self.p('moved.data'), 'down_spin_0'], 300,
                  env=self.env('dead', self.dead.url), check=False)
        took = time.monotonic() - t
        self.expect_within(took, NO_WAIT, 'perf annotate, the server known '
                           'down')
        if self.dead_hits() != before or res.returncode not in (0, 255):
            raise E2EError('annotate: exit %d, %d requests at the dead '
                           'server' % (res.returncode,
                                       self.dead_hits() - before))
        log('annotate: %.1f s, no request' % took)

    def step_dead_and_live(self):
        took, res = self.report(self.env(
            'both', '%s %s' % (self.dead.url, self.live.url)))
        self.expect_within(took, ONE_WAIT, 'the report, a server dead')
        if res.stdout != self.control:
            raise E2EError('not the report of the live server alone')
        self.expect_named_once(res.stderr, self.dead.url, 'sent nothing',
                               'dead and live')
        log('dead and live: %.1f s, the live server\'s report' % took)

    def step_remembered_time(self):
        env = self.env('expiry', self.dead.url)
        # symprov.debuginfod.server-down-s; `perf config` writes a key of
        # three parts as a variable with a dot, which perf does not read
        with open(os.path.join(env['HOME'], '.perfconfig'), 'w') as f:
            f.write('[symprov "debuginfod"]\n\tserver-down-s = 5\n')
        first = self.dead_hits()
        self.report(env)
        found = time.monotonic()
        second = self.dead_hits()
        self.report(env)
        if second == first or self.dead_hits() != second:
            raise E2EError('asked %d times, then %d times within 5 s' % (
                second - first, self.dead_hits() - second))
        time.sleep(max(0, found + 6 - time.monotonic()))
        took, res = self.report(env)
        if self.dead_hits() == second:
            raise E2EError('not asked again after its 5 s')
        self.expect_named_once(res.stderr, self.dead.url, 'not asked for 5 s',
                               'remembered time')
        log('remembered time: not asked for 5 s, then asked again (%.1f s)'
            % took)

    def step_refused(self):
        none, _ = self.report(self.env('none', self.live.url,
                                       providers=False))
        url = 'http://127.0.0.1:%d' % free_port()
        took, res = self.report(self.env('refused', url))
        if took > none + REFUSED_SLACK:
            raise E2EError('%.1f s, without providers %.1f s' % (took, none))
        self.expect_named_once(res.stderr, url, 'refused the connection',
                               'refused')
        log('refused: %.1f s, without providers %.1f s' % (took, none))

    def step_prefetch(self):
        took, res = self.prefetch(self.env('pf-dead', self.dead.url))
        self.expect_within(took, ONE_WAIT, 'prefetch, the server dead')
        self.expect_named_once(res.stderr, self.dead.url, 'sent nothing',
                               'prefetch')
        before = self.dead_hits()
        again, res = self.prefetch(self.env('pf-dead', self.dead.url))
        self.expect_within(again, NO_WAIT, 'the next prefetch')
        if self.dead_hits() != before:
            raise E2EError('the next prefetch asked the dead server')
        _, live = self.prefetch(self.env('pf-live', self.live.url))
        both_took, both = self.prefetch(self.env(
            'pf-both', '%s %s' % (self.dead.url, self.live.url)))
        self.expect_within(both_took, ONE_WAIT, 'prefetch, a server dead')

        def found(res):
            return sorted(line.split('\t')[:3] for line in
                          res.stdout.splitlines()
                          if line.startswith(('kernel', 'executable',
                                              'debuginfo')) and
                          '\t/' in line)
        if not found(live) or found(both) != found(live):
            raise E2EError('prefetch found %s with a dead server beside the '
                           'live one, %s with the live one alone' % (
                               found(both), found(live)))
        cache_took, _ = self.prefetch(self.env('pf-cache', self.dead.url),
                                      '--perf-cache')
        self.expect_within(cache_took, ONE_WAIT, 'prefetch --perf-cache')
        url = 'http://127.0.0.1:%d' % free_port()
        refused, _ = self.prefetch(self.env('pf-refused', url))
        self.expect_within(refused, REFUSED_SLACK, 'prefetch, refused')
        log('prefetch: %.1f s, then %.1f s; with the live server %.1f s, '
            '%d files as from it alone; --perf-cache %.1f s; refused %.1f s'
            % (took, again, both_took, len(found(live)), cache_took,
               refused))

    def step_tui(self):
        env = self.env('dead', self.dead.url)
        before = self.dead_hits()
        with Terminal(self.work, 'down-tui') as term:
            term.start([self.perf, 'report', '-i', self.p('moved.data'),
                        '--sort', 'dso,sym'], env)
            t = time.monotonic()
            term.wait_for(lambda s: 'Samples:' in s, NO_WAIT + 30,
                          'the browser')
            took = time.monotonic() - t
            # on the help line, until the browser's own replaces it
            if 'server %s not asked until' % self.dead.url not in \
                    term.output():
                raise E2EError('perf wrote nothing naming %s to the '
                               'terminal' % self.dead.url)
            run_e2e.Runner.quit_tui(term)
        self.expect_within(took, NO_WAIT + 2, 'the TUI\'s browser')
        if self.dead_hits() != before:
            raise E2EError('the TUI asked the dead server')
        log('tui: the browser in %.1f s, the server named' % took)

    def run(self):
        if self.cannot_start('dead server e2e'):
            return 2
        if not self.check('profile', self.step_profile):
            return self.finish()
        with DebuginfodServer(self.p('srv'),
                              log_path=self.p('debuginfod.log')) as live, \
                FaultServer('hang', hang_s=600, lifetime=1800) as dead:
            self.live, self.dead = live, dead
            if self.check('live', self.step_live):
                self.check('dead', self.step_dead)
                self.check('dead again', self.step_dead_again)
                self.check('script', self.step_script)
                self.check('annotate', self.step_annotate)
                self.check('dead and live', self.step_dead_and_live)
                self.check('remembered time', self.step_remembered_time)
                self.check('refused', self.step_refused)
                self.check('prefetch', self.step_prefetch)
                self.check('tui', self.step_tui)
        return self.finish()


def main(argv=None):
    ap = checks_parser(__doc__)
    ap.add_argument('--duration', type=int, default=2)
    return run_checks(Runner, ap.parse_args(argv), 'dead server e2e')


if __name__ == '__main__':
    sys.exit(main())
