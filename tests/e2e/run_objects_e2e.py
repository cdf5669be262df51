#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""End-to-end: every sample of a moved profile, kernel modules and
user-space objects included, through the symbol providers.

    run_objects_e2e.py [--perf PERF] [--workdir DIR] [--duration 2]
                       [--real-deb DEB] [--libc-debs DIR]

Needs root (perf record -a), gcc, ld, objcopy, strip, debuginfod and
`make` (build/lib, build/bin/symprov); without them it says so loudly and
exits 2.  The profile: a program and a shared object built here (with
static functions), recorded system-wide, then taken away; four kernel
modules spliced in (tests/e2e/objects_fixture.py: made with the toolchain
as kbuild makes them, or, with --real-deb, real .ko files of Debian's
linux-image-*-dbg package), their MMAP records, build IDs and a share of
the kernel samples; the kernel moved to a build ID of its own, served as a
stand-in vmlinux.  A local debuginfod serves the stand-in, the modules,
the stripped objects and their debug files.  Checks:

  modules         the samples in each module are where the .ko's own
                  symbol table puts them; a control with the .ko files in
                  perf's build-id cache (perf buildid-cache -a), no
                  provider, says the same
  objects         the user-space lines (static functions included) are
                  those of a control with the files under --symfs
  annotate        perf annotate of the program's static function: the
                  instructions of the file the provider gave, as the
                  --symfs control shows them
  side by side    behind a server that holds every request HOLD seconds,
                  the report needing the kernel, four modules and the
                  objects (the kernel and the modules: .shstrtab, then
                  their other sections side by side) takes at most half
                  the time of its requests one after the other; each
                  file asked once; the same report
  script side by side
                  the same for perf script (what flame-graph pipelines
                  run): the samples' symbols as with a fast server, each
                  file asked once, at most half the time of its requests
                  one after the other
  processes       8 perf reports at once on one cold profile: each file
                  sent once by the server
  offline         symprov prefetch --into DIR, the server stopped, then
                  libbuildiddirprov.so on DIR: the same report
  stripped local  the objects stripped in perf's build-id cache: their
                  debug info asked once each, nothing else of theirs, the
                  lines of the --symfs control; unstripped: nothing asked
  module tree     libbuildiddirprov.so on a tree laid out as Debian's
                  -dbg package (lib/modules/<release>/kernel/**.ko, no
                  .build-id links): the modules' lines of the same report
  debug-only .ko  a module whose text is NOBITS (objcopy --only-keep-debug)
                  served: its symbols only are its tables, the same
                  report; asked whole (symprov.content=full): refused,
                  one line, raw, perf ends normally
  tui             perf report's TUI behind the holding server: one
                  progress box for all the objects, then the browser with
                  a module's symbols
  tui annotate    the TUI with a module's symbols only, then its annotate
                  action on a module function: the whole .ko asked once,
                  its code on the screen

--libc-debs DIR (DIR has libc6_*.deb and libc6-dbg_*.deb of another
release, e.g. 2.36-9+deb12u7; not in make check) also records the program
run with that libc (its ld.so --library-path), takes the libc away, and
compares the libc lines of the report through the providers with a
--symfs control holding its executable and debug file: with the libc
gone (its executable and debug info fetched), and with it stripped in
the recording's build-id cache (its debug info alone fetched).

Ends with "N passed, N failed"; exit 0 when all passed.
"""

import collections
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))
import debfiles  # noqa: E402
import make_profile  # noqa: E402
import make_standin  # noqa: E402
import objects_fixture  # noqa: E402
import run_e2e  # noqa: E402
from compare_reports import parse_report  # noqa: E402
from debuginfod_server import DebuginfodServer  # noqa: E402
from e2elib import (Checks, E2EError, clean_env, log,  # noqa: E402
                    checks_parser, run, run_checks)
from elf_fixtures import read_build_id  # noqa: E402
from elf_mutate import ElfImage  # noqa: E402
from link_proxy import ThrottleProxy  # noqa: E402
from tui import Terminal  # noqa: E402

PROVIDER = 'libdebuginfodprov.so'
NEW_KERNEL = '5e1f00000000000000000000000000000e2e0b7e'
HOLD = 1.5
REAL_MODULES = ('xfs.ko', 'dm-crypt.ko', 'aesni-intel.ko', 'btrfs.ko')
REPORT = ['report', '--stdio', '--sort', 'dso,sym', '-F',
          'overhead,sample,dso,sym']


def expect_side_by_side(took, asked):
    """Each file asked once, in at most half the time of the requests one
    after the other (the kernel and each module: .shstrtab, then the
    others at once)."""
    twice = [r for r, n in collections.Counter(asked).items() if n > 1]
    if twice:
        raise E2EError('asked more than once: %s' % twice)
    if not asked or took > 0.5 * len(asked) * HOLD:
        raise E2EError('%.1f s for %d requests held %.1f s each: not side '
                       'by side' % (took, len(asked), HOLD))


class Runner(Checks):
    def __init__(self, args):
        super().__init__(args, 'symprov-obj-')
        self.server = None

    def preflight(self):
        return self.missing(('gcc', 'ld', 'objcopy', 'strip', 'readelf',
                             'debuginfod', 'tmux'),
                            (self.symprov,
                             os.path.join(self.build, 'lib', PROVIDER)))

    # the profile ----------------------------------------------------------
    def step_profile(self):
        shutil.rmtree(self.p('objs'), ignore_errors=True)
        objs = self.p('objs', 'usr', 'lib', 'symprov-e2e')
        self.prog, self.lib = objects_fixture.build_user_object(objs)
        home = self.fresh('home-record')
        # the program, and kernel work for the modules' share
        d = str(self.args.duration)
        # The perf's own default: perf 7.x writes the build IDs in the
        # MMAP2 records, 6.x in the header's table; perf's prefetch before
        # the events, which side by side and tui check, reads both.
        cmd = [self.perf, 'record', '-e', 'cpu-clock', '-a', '-N',
               '-o', self.p('orig.data'), '--',
               'sh', '-c',
               '"$1" %s & timeout %s dd if=/dev/zero of=/dev/null bs=512 '
               'status=none & wait' % (d, d), 'sh', self.prog]
        run(cmd, self.args.duration + 60, env=clean_env(home),
            soft_signal=signal.SIGINT)
        with open('/proc/kallsyms', 'rb') as fi, \
                open(self.p('kallsyms'), 'wb') as fo:
            fo.write(fi.read())
        # the objects as a distribution ships them, served; then gone
        srv = self.fresh('srv')
        self.objects = {}
        for path in (self.prog, self.lib):
            base = os.path.basename(path)
            objects_fixture.split_debug(path, os.path.join(srv, base),
                                        os.path.join(srv, base + '.debug'))
            self.objects[path] = read_build_id(path)
        shutil.rmtree(self.p('objs-gone'), ignore_errors=True)
        shutil.move(self.p('objs'), self.p('objs-gone'))

    def step_modules(self):
        srv = self.p('srv')
        if self.args.real_deb:
            names = debfiles.members(self.args.real_deb,
                                     './usr/lib/debug/lib/modules/')
            want = [n for n in names if os.path.basename(n) in REAL_MODULES]
            kos = debfiles.extract(self.args.real_deb, want,
                                   self.fresh('deb-files'))
        else:
            d = self.fresh('modules/kernel/fs/symprov')
            # one with static-call trampolines, sampled too; one laid
            # out as 7.3's modules, tables before .text, with trampolines
            kos = [objects_fixture.build_module(
                os.path.join(d, 'symprov_m%d.ko' % i), 'symprov_m%d' % i,
                trampolines={1: 3, 2: 2}.get(i, 0), data_first=i == 2)
                for i in range(4)]
        self.kos = kos
        for ko in kos:
            shutil.copy(ko, srv)
        self.mods = [objects_fixture.Module(ko) for ko in kos]
        self.want = objects_fixture.splice_modules(
            self.p('orig.data'), self.p('mods.data'), self.mods,
            trampolines=True)
        make_profile.move_profile(self.p('mods.data'),
                                  self.p('moved.data'), NEW_KERNEL)
        make_profile.move_profile(self.p('orig.data'),
                                  self.p('kernel-only.data'), NEW_KERNEL)
        make_standin.build(self.p('kallsyms'), NEW_KERNEL,
                           os.path.join(srv, 'vmlinux'), self.work)
        log('modules: %s; %d samples moved into them' % (
            ', '.join('%s %s' % (m.short, m.build_id[:12])
                      for m in self.mods), sum(self.want.values())))

    # running perf ---------------------------------------------------------
    def env(self, url, cache, **kw):
        env = clean_env(self.fresh('home-%s' % os.path.basename(cache)), {
            'DEBUGINFOD_URLS': url, 'DEBUGINFOD_CACHE_PATH': cache,
            'PERF_SYMBOL_PROVIDERS': PROVIDER, 'DEBUGINFOD_TIMEOUT': '30'})
        env.pop('LD_LIBRARY_PATH', None)
        env.update(kw)
        return env

    def report(self, data, env, extra=(), timeout=600):
        res = run([self.perf] + REPORT + ['-i', self.p(data)] + list(extra),
                  timeout, env=env, check=False)
        if res.returncode != 0:
            raise E2EError('perf report exit %d: %s' % (
                res.returncode, res.stderr[-2000:]))
        return res

    @staticmethod
    def samples(text):
        """{(dso, symbol): samples} of a -F overhead,sample,dso,sym one."""
        out = collections.Counter()
        for e in parse_report(text):
            out[(e.dso, e.sym)] += e.nums[0] if e.nums else 0
        return out

    def expect_modules(self, got, what):
        mods = {m.short for m in self.mods}
        mine = {k: v for k, v in got.items() if k[0] in mods}
        if mine != dict(self.want):
            bad = sorted(set(mine.items()) ^ set(self.want.items()))[:5]
            raise E2EError('%s: module samples not where the .ko files '
                           'put them: %s' % (what, bad))

    # checks -------------------------------------------------------------
    def step_modules_check(self):
        res = self.report('moved.data', self.env(self.server.url,
                                                 self.fresh('cache-a')))
        self.direct = res.stdout
        self.expect_modules(self.samples(res.stdout), 'providers')
        home = self.fresh('home-control')
        env = clean_env(home)
        for ko in self.kos:
            run([self.perf, 'buildid-cache', '-a', ko], 120, env=env)
        ctl = self.report('moved.data', env)
        self.expect_modules(self.samples(ctl.stdout), 'build-id cache')
        log('modules: %d lines of %d modules, as their .ko files and the '
            'build-id cache say' % (len(self.want), len(self.mods)))

    def step_objects(self):
        symfs = self.fresh('symfs')
        for path, bid in self.objects.items():
            base = os.path.basename(path)
            dst = symfs + path
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(os.path.join(self.p('srv'), base), dst)
            dbg = os.path.join(symfs, 'usr', 'lib', 'debug', '.build-id',
                               bid[:2], bid[2:] + '.debug')
            os.makedirs(os.path.dirname(dbg), exist_ok=True)
            shutil.copy(os.path.join(self.p('srv'), base + '.debug'), dbg)
        self.symfs = symfs
        ctl = self.report('moved.data', clean_env(self.fresh('home-symfs')),
                          ['--symfs=' + symfs])
        mine = self.object_lines(self.direct)
        theirs = self.object_lines(ctl.stdout)
        if not mine or mine != theirs:
            raise E2EError('objects: %s, --symfs control %s' % (
                sorted(mine.items())[:6], sorted(theirs.items())[:6]))
        names = {k[1] for k in mine}
        for static in ('objs_static_spin', 'prog_static_loop'):
            if static not in names:
                raise E2EError('objects: no static function %s in %s' % (
                    static, sorted(names)))
        log('objects: %d lines, as with --symfs, static functions named' %
            len(mine))

    def step_annotate_objects(self):
        """perf annotate of a program's function disassembles the file a
        provider gave, as the --symfs control does: not the missing one."""
        args = [self.perf, 'annotate', '--stdio', '-i', self.p('moved.data'),
                'prog_static_loop']
        got = run(args, 600, env=self.env(self.server.url,
                                           self.fresh('cache-annotate')),
                  check=False)
        ctl = run(args + ['--symfs=' + self.symfs], 600,
                  env=clean_env(self.fresh('home-annotate-symfs')),
                  check=False)

        def insns(res):
            # "  0.00 :   401136:  push   %rbp": the address and the code
            return [m.group(1) for m in re.finditer(
                r'^\s*[\d.]+\s*:\s+([0-9a-f]+:\s+\S.*)$', res.stdout,
                re.M)]
        want = insns(ctl)
        if ctl.returncode or not want:
            raise E2EError('annotate: the --symfs control shows no code '
                           '(exit %d): %s' % (ctl.returncode,
                                              ctl.stderr[-800:]))
        if got.returncode or insns(got) != want:
            raise E2EError('annotate: through the providers (exit %d) not '
                           'the code of the --symfs control: %s' % (
                               got.returncode,
                               (got.stdout + got.stderr)[-800:]))
        log('annotate: %d instructions of prog_static_loop, as with '
            '--symfs' % len(want))

    def timed(self, data, url, cache):
        t = time.monotonic()
        res = self.report(data, self.env(url, cache))
        return time.monotonic() - t, res.stdout

    def step_side_by_side(self):
        with ThrottleProxy(self.server.port, hold=HOLD,
                           max_seconds=900) as slow:
            alone, _ = self.timed('kernel-only.data', slow.url,
                                  self.fresh('cache-alone'))
            before = len(slow.requests)
            many, text = self.timed('moved.data', slow.url,
                                    self.fresh('cache-many'))
            asked = slow.requests[before:]
        log('side by side: kernel alone %.1f s; kernel, %d modules and '
            'objects %.1f s (x%.2f); %d requests, each held %.1f s' % (
                alone, len(self.mods), many, many / alone, len(asked),
                HOLD))
        if text != self.direct:
            raise E2EError('the report differs from the one without a '
                           'slow server')
        expect_side_by_side(many, asked)

    def step_script_side_by_side(self):
        cmd = [self.perf, 'script', '-F', 'ip,sym,dso', '-i',
               self.p('moved.data')]
        direct = run(cmd, 600, env=self.env(
            self.server.url, self.fresh('cache-script-direct'))).stdout
        with ThrottleProxy(self.server.port, hold=HOLD,
                           max_seconds=900) as slow:
            t = time.monotonic()
            res = run(cmd, 600, env=self.env(slow.url,
                                             self.fresh('cache-script')))
            took = time.monotonic() - t
            asked = list(slow.requests)
        log('script side by side: %.1f s; %d requests, each held %.1f s'
            % (took, len(asked), HOLD))
        if res.stdout != direct:
            raise E2EError('perf script differs from the one without a '
                           'slow server')
        expect_side_by_side(took, asked)

    def step_processes(self):
        with ThrottleProxy(self.server.port, hold=HOLD,
                           max_seconds=900) as slow:
            cache = self.fresh('cache-procs')
            env = self.env(slow.url, cache)
            procs = [subprocess.Popen(
                [self.perf] + REPORT + ['-i', self.p('moved.data')],
                env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True) for _ in range(8)]
            outs = [p.communicate(timeout=600)[0] for p in procs]
            asked = list(slow.requests)
        files = [r for r in asked if '/section/' not in r]
        twice = [r for r, n in collections.Counter(files).items() if n > 1]
        log('processes: 8 reports, %d requests for %d files' % (
            len(asked), len(set(files))))
        if any(o != self.direct for o in outs):
            raise E2EError('a report differs')
        if twice:
            raise E2EError('files asked by several processes: %s' % twice)

    def step_offline(self):
        tree = self.fresh('offline')
        res = run([self.symprov, 'prefetch', '-i', self.p('moved.data'),
                   '--into', tree, '--providers', PROVIDER], 600,
                  env=self.env(self.server.url, self.fresh('cache-pre')),
                  check=False)
        if res.returncode not in (0, 2):
            raise E2EError('symprov prefetch: exit %d: %s' % (
                res.returncode, res.stderr[-2000:]))
        env = clean_env(self.fresh('home-offline'), {
            'PERF_SYMBOL_PROVIDERS': 'libbuildiddirprov.so',
            'SYMPROV_BUILDIDDIR_DIRS': tree, 'DEBUGINFOD_URLS': ''})
        out = self.report('moved.data', env).stdout
        if out != self.direct:
            raise E2EError('offline report differs from the online one')
        log('offline: %s; the same report from %s' % (
            res.stdout.strip().splitlines()[-1] if res.stdout.strip()
            else '', tree))

    def object_lines(self, text):
        """{(dso, symbol): samples} of the program and the library."""
        names = {os.path.basename(p) for p in self.objects}
        return {k: v for k, v in self.samples(text).items()
                if k[0] in self.objects or os.path.basename(k[0]) in names}

    def step_stripped_local(self):
        """The program and the library in perf's build-id cache (perf
        buildid-cache -a, as perf archive carries them), stripped as a
        distribution ships them: the providers are asked for their debug
        info, once each, and for nothing else of theirs; the lines are
        those of the --symfs control (step objects), static functions
        named.  With their symbol tables there: nothing asked for them."""
        want = self.object_lines(self.direct)
        for stripped in (True, False):
            how = 'stripped' if stripped else 'with symbols'
            home = self.fresh('home-local-%s' % how.replace(' ', '-'))
            for path in self.objects:
                src = os.path.join(self.p('srv'), os.path.basename(path)) \
                    if stripped else self.p('objs-gone') + \
                    path[len(self.p('objs')):]
                run([self.perf, 'buildid-cache', '-a', src], 120,
                    env=clean_env(home))
            with ThrottleProxy(self.server.port) as proxy:
                got = self.report('moved.data', self.env(
                    proxy.url, self.fresh('cache-local'), HOME=home)).stdout
                asked = sorted(r.split()[1] for r in proxy.requests
                               if any(b in r for b in self.objects.values()))
            expect = sorted('/buildid/%s/debuginfo' % b
                            for b in self.objects.values()) if stripped \
                else []
            if asked != expect:
                raise E2EError('%s local objects: asked %s, want %s' % (
                    how, asked, expect))
            if self.object_lines(got) != want:
                raise E2EError('%s local objects: %s, not the --symfs '
                               "control's %s" % (
                                   how, sorted(self.object_lines(got))[:6],
                                   sorted(want)[:6]))
        log('stripped local: %d lines as with --symfs, the debug info of '
            'each object asked once; with symbols: nothing asked' % len(want))

    def step_module_tree(self):
        tree = self.fresh('dbg-tree')
        rel = 'lib/modules/%s/kernel' % objects_fixture.RELEASE
        for ko in self.kos:
            sub = ko.split('/kernel/', 1)[1] if '/kernel/' in ko else \
                os.path.basename(ko)
            dst = os.path.join(tree, rel, sub)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(ko, dst)
        env = clean_env(self.fresh('home-tree'), {
            'PERF_SYMBOL_PROVIDERS': 'libbuildiddirprov.so',
            'SYMPROV_BUILDIDDIR_DIRS': tree})
        got = self.samples(self.report('moved.data', env).stdout)
        self.expect_modules(got, 'module tree')

    def plain_module(self):
        """The first module that comes as its symbols only with no code
        of its own in them: .text first, no trampolines (with --real-deb,
        aesni-intel comes whole)."""
        for m in self.mods:
            with open(m.path, 'rb') as f:
                if ElfImage(f.read()).names[1] == '.text' and \
                        not m.trampolines:
                    return m
        raise E2EError('no module with .text first and no trampolines')

    def step_debug_only(self):
        srv = self.fresh('srv-debug-only')
        m = self.plain_module()
        subprocess.run(['objcopy', '--only-keep-debug', m.path,
                        os.path.join(srv, os.path.basename(m.path))],
                       check=True, timeout=120)
        config = self.p('perfconfig-full')
        with open(config, 'w') as f:
            f.write('[symprov]\n\tcontent = full\n')
        with DebuginfodServer(srv, log_path=self.p('debuginfod-do.log')) \
                as bad:
            tables = self.report('mods.data', self.env(
                bad.url, self.fresh('cache-do-symbols')))
            res = self.report('mods.data', self.env(
                bad.url, self.fresh('cache-do'), PERF_CONFIG=config))
        # the symbols only: the tables of the debug-only copy are the .ko's
        got = self.samples(tables.stdout)
        if {k: v for k, v in got.items() if k[0] == m.short} != \
                {k: v for k, v in self.want.items() if k[0] == m.short}:
            raise E2EError('debug-only .ko: its symbols only do not name '
                           'the module as its .ko')
        said = [x for x in res.stderr.splitlines() if m.build_id in x and
                'rejected' in x]
        got = self.samples(res.stdout)
        named = [k for k in got if k[0] == m.short and
                 not k[1].startswith('0x')]
        if len(said) != 1 or named:
            raise E2EError('debug-only .ko: said %s, named %s' % (
                said or res.stderr[-1000:], named[:3]))
        log('debug-only .ko: ' + said[0])

    def step_tui(self):
        m = self.mods[0]
        # the top line: most samples, ties in name order as perf sorts
        sym = min((-n, s) for (d, s), n in self.want.items()
                  if d == m.short)[1]
        with ThrottleProxy(self.server.port, hold=HOLD,
                           max_seconds=900) as slow, \
                Terminal(self.work, 'objects-tui') as term:
            env = self.env(slow.url, self.fresh('cache-tui'))
            # the module alone, so that its symbols are on the screen
            term.start([self.perf, 'report', '-i', self.p('moved.data'),
                        '--sort', 'dso,sym', '--dsos', m.short], env)
            term.wait_for(lambda s: re.search(r'\d+ of \d+ objects', s), 60,
                          'one progress box for all the objects')
            term.wait_for(lambda s: 'Samples:' in s and sym in s, 120,
                          'the browser with ' + sym)
            run_e2e.Runner.quit_tui(term)

    def step_tui_annotate_module(self):
        """perf report's TUI reads a module's symbols only; its annotate
        action on a module function asks for the whole .ko, once, and
        shows its code."""
        m = self.plain_module()
        sym = min((-n, s) for (d, s), n in self.want.items()
                  if d == m.short)[1]
        whole = 'GET /buildid/%s/debuginfo' % m.build_id

        def asked(proxy):
            return [r for r in proxy.requests if r.startswith(whole)]
        with ThrottleProxy(self.server.port, max_seconds=900) as proxy, \
                Terminal(self.work, 'objects-tui-annotate') as term:
            env = self.env(proxy.url, self.fresh('cache-tui-annotate'))
            term.start([self.perf, 'report', '-i', self.p('moved.data'),
                        '--sort', 'sym', '--dsos', m.short], env)
            term.wait_for(lambda s: 'Samples:' in s and sym in s, 120,
                          'the browser with ' + sym)
            if asked(proxy):
                raise E2EError('the whole %s asked before annotate: %s' % (
                    m.short, proxy.requests))
            screen = run_e2e.Runner.annotate_in_tui(term, sym, lambda x: x)
            if len(asked(proxy)) != 1:
                raise E2EError('annotate asked the whole %s %d times' % (
                    m.short, len(asked(proxy))))
            if not re.search(r'\b(mov|imul|add|lea|cmp|ret)', screen):
                raise E2EError('annotate shows no code of %s:\n%s' % (
                    sym, screen))
            term.keys('q')
            term.wait_for(lambda s: sym in s and 'Percent' not in s, 10,
                          'back')
            run_e2e.Runner.quit_tui(term)
        log('tui annotate: %s of %s symbols only, then the whole .ko for '
            'its annotation' % (sym, m.short))

    # a libc of another release -------------------------------------------
    def step_libc(self):
        debs = self.args.libc_debs
        libc6 = glob.glob(os.path.join(debs, 'libc6_*.deb'))
        dbg = glob.glob(os.path.join(debs, 'libc6-dbg_*.deb'))
        if len(libc6) != 1 or len(dbg) != 1:
            raise E2EError('want one libc6_*.deb and one libc6-dbg_*.deb '
                           'in %s' % debs)
        root = self.fresh('libc-root')
        subprocess.run(['dpkg-deb', '-x', libc6[0], root], check=True,
                       timeout=300)
        # bookworm's libc6 has its files in /lib, not /usr/lib
        lib = os.path.join(root, 'lib', 'x86_64-linux-gnu')
        ldso = os.path.join(lib, 'ld-linux-x86-64.so.2')
        libc = os.path.join(lib, 'libc.so.6')
        if not os.path.isfile(libc) or not os.path.isfile(ldso):
            raise E2EError('%s has no %s and %s' % (libc6[0], libc, ldso))
        bid = read_build_id(libc)
        prog = objects_fixture.build_libc_program(
            os.path.join(self.fresh('libc-prog'), 'inlibc'))
        home = self.fresh('home-libc-record')
        run([self.perf, 'record', '-e', 'cpu-clock', '-N', '-o',
             self.p('libc.data'), '--', ldso, '--library-path', lib, prog,
             '2'], 120, env=clean_env(home))
        dbgroot = self.fresh('libc-dbg')
        subprocess.run(['dpkg-deb', '-x', dbg[0], dbgroot], check=True,
                       timeout=300)
        debug = os.path.join(dbgroot, 'usr', 'lib', 'debug', '.build-id',
                             bid[:2], bid[2:] + '.debug')
        if not os.path.exists(debug):
            raise E2EError('%s has no debug file for libc %s' % (dbg[0],
                                                                   bid))
        srv = self.fresh('srv-libc')
        shutil.copy(libc, srv)
        shutil.copy(debug, os.path.join(srv, 'libc.debug'))
        symfs = self.fresh('symfs-libc')
        os.makedirs(os.path.dirname(symfs + libc))
        shutil.copy(libc, symfs + libc)
        d = os.path.join(symfs, 'usr', 'lib', 'debug', '.build-id', bid[:2])
        os.makedirs(d)
        shutil.copy(debug, d)
        # the stripped libc in the recording's build-id cache, where perf
        # 6.x's record puts it (perf 7's, with the build IDs in the MMAP2
        # events, does not: perf archive carries it there)
        run([self.perf, 'buildid-cache', '-a', libc], 120,
            env=clean_env(home))
        shutil.rmtree(root)  # the libc is gone
        log_path = self.p('debuginfod-libc.log')
        with DebuginfodServer(srv, log_path=log_path) as s:
            gone = self.report('libc.data', self.env(
                s.url, self.fresh('cache-libc'))).stdout
            since = os.path.getsize(log_path)
            cached = self.report('libc.data', self.env(
                s.url, self.fresh('cache-libc-cached'), HOME=home)).stdout
        with open(log_path, errors='replace') as f:
            f.seek(since)
            asked = re.findall(r'GET /buildid/%s/(\w+)' % bid, f.read())
        if asked != ['debuginfo']:
            raise E2EError('libc in the build-id cache: asked %s, want its '
                           'debug info alone' % asked)
        theirs = self.report('libc.data', clean_env(
            self.fresh('home-libc-symfs')), ['--symfs=' + symfs]).stdout

        def libc_lines(text):
            return {k: v for k, v in self.samples(text).items()
                    if os.path.basename(k[0]) == 'libc.so.6'}
        b = libc_lines(theirs)
        for how, mine in (('gone', gone), ('in the build-id cache', cached)):
            a = libc_lines(mine)
            local = [k for k in a if k[1].startswith(('__memmove',
                                                      '__strlen', 'msort'))]
            if not a or a != b or not local:
                raise E2EError('libc %s: %s, --symfs %s' % (
                    how, sorted(a.items())[:5], sorted(b.items())[:5]))
            log('libc %s, %s: %d lines, as with --symfs, %d of functions '
                'libc keeps local (%s)' % (
                    bid[:12], how, len(a), len(local),
                    ', '.join(sorted(k[1] for k in local)[:4])))

    def run(self):
        if self.cannot_start('objects e2e'):
            return 2
        if not (self.check('profile', self.step_profile) and
                self.check('modules in the profile', self.step_modules)):
            return self.finish()
        with DebuginfodServer(self.p('srv'),
                              log_path=self.p('debuginfod.log')) as srv:
            self.server = srv
            if self.check('modules', self.step_modules_check):
                self.check('objects', self.step_objects)
                self.check('annotate', self.step_annotate_objects)
                self.check('side by side', self.step_side_by_side)
                self.check('script side by side',
                           self.step_script_side_by_side)
                self.check('processes', self.step_processes)
                self.check('offline', self.step_offline)
                self.check('stripped local', self.step_stripped_local)
                self.check('tui', self.step_tui)
                self.check('tui annotate', self.step_tui_annotate_module)
        self.check('module tree', self.step_module_tree)
        self.check('debug-only .ko', self.step_debug_only)
        if self.args.libc_debs:
            self.check('libc of another release', self.step_libc)
        return self.finish()

def main(argv=None):
    ap = checks_parser(__doc__)
    ap.add_argument('--duration', type=int, default=2)
    ap.add_argument('--real-deb', help="Debian's linux-image-*-dbg package: "
                    'real modules instead of ones made here')
    ap.add_argument('--libc-debs', help='a directory with libc6 and '
                    'libc6-dbg packages of another release')
    return run_checks(Runner, ap.parse_args(argv), 'objects e2e')


if __name__ == '__main__':
    sys.exit(main())
