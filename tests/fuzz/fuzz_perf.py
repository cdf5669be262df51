#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Differential fuzz: mutants of a vmlinux the check accepts must not crash
perf; with --all, no mutant may.

    fuzz_perf.py --build B [--perf PERF] [--seconds S] [--mutants N]
                 [--seed N] [--jobs 2] [--base VMLINUX]... [--all]
                 [--workdir DIR]

Records a short profile with PERF (root) and builds the stand-in vmlinux
of its kernel (tests/lib/vmlinux_fixture.py); --base adds other vmlinux
files (a symbols-only copy of a distribution's, say), each with the
profile moved to its build ID.  Then, until S seconds have passed or N
mutants were made, takes one structured mutation of a base
(tests/lib/elf_mutate.py: one field of the ELF header, of a section
header, of a symbol or of a note, the last byte of a string table, or a
table broken whole: a string table cut short, a symbol table's
sh_entsize, a section made SHT_NOBITS), runs the check symprov runs on
every fetched file (B/tests/verify_elf) and, when it accepts the mutant,
`perf report --stdio --vmlinux=MUTANT` on the profile.  perf ending on a
signal, or running past its timeout, is a gap in the check: the mutant is
kept in build/fuzz/perf-gaps/ with the mutation that made it, and the run
fails.

--all runs perf on every mutant, the rejected ones too, and then any
signal or timeout is a failure: the fuzz pointed at perf's own reading of
a --vmlinux file, where each one is a perf bug; it is kept the same way.
--mutants N makes a run repeatable: with a fixed --seed, the same N
mutants whatever the machine's speed (S then only bounds a hang, and a
run it cuts short fails).  A base over 64 MiB is mutated as its
symbols-only copy (objcopy --only-keep-debug without .debug_*).

Ends with the counts (mutants, accepted, perf runs, signals) and a
"N passed, N failed" line; exit 0 when no mutant that counts crashed
perf, 1 when one did, 2 when it could not run.
"""
import argparse
import collections
import itertools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))

import vmlinux_fixture  # noqa: E402
from elf_mutate import ElfImage, ElfError, Mutator  # noqa: E402
from elf_fixtures import read_build_id  # noqa: E402
from vmlinux_fixture import E2EError, clean_env  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
PERF_TIMEOUT = 60
BASE_MAX = 64 << 20
NAME = 'fuzz-perf'
GAPS = os.path.join(REPO, 'build', 'fuzz', 'perf-gaps')


def say(msg):
    print('%s: %s' % (NAME, msg), flush=True)


class Base:
    """A vmlinux to mutate, and the profile moved to its build ID."""

    def __init__(self, path, profile, seed):
        with open(path, 'rb') as f:
            self.image = ElfImage(f.read())
        self.name = os.path.basename(path)
        self.profile = profile
        self.seed = seed
        self.mutator = Mutator(self.image, seed)


class Fuzzer:
    def __init__(self, args):
        self.args = args
        self.verify = os.path.join(args.build, 'tests', 'verify_elf')
        self.work = args.workdir or tempfile.mkdtemp(prefix='symprov-fuzz.')
        self.home = os.path.join(self.work, 'home')
        os.makedirs(self.home, exist_ok=True)
        self.counts = collections.Counter()
        self.reasons = collections.Counter()
        self.gaps = []
        self.lock = threading.Lock()

    def check(self, path):
        """None when the check accepts PATH, else its reason."""
        res = subprocess.run([self.verify, '-', path], capture_output=True,
                             text=True, timeout=60)
        out = res.stdout.strip()
        if res.returncode or not out:
            raise E2EError('verify_elf failed: %s' % res.stderr.strip())
        return None if out.startswith('ok ') else out.split(': ', 1)[1]

    def perf_report(self, path, profile):
        """perf's exit code, negative for a signal, or 'timeout'."""
        cmd = [self.args.perf, 'report', '--stdio', '--vmlinux=' + path,
               '-i', profile]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL,
                                stdin=subprocess.DEVNULL,
                                env=clean_env(self.home),
                                start_new_session=True)
        try:
            return proc.wait(PERF_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return 'timeout'

    def one(self, base, path):
        with self.lock:
            desc, data = base.mutator.mutant()
        vmlinux_fixture.write_sparse(path, data)
        why = self.check(path)
        with self.lock:
            self.counts['mutants'] += 1
            self.counts['accepted' if not why else 'rejected'] += 1
            if why:
                self.reasons[why] += 1
        if why and not self.args.all:
            return
        rc = self.perf_report(path, base.profile)
        with self.lock:
            self.counts['perf runs'] += 1
            if rc != 'timeout' and rc >= 0:
                return
            what = 'timeout' if rc == 'timeout' else \
                signal.Signals(-rc).name
            self.counts['signals'] += 1
            if why:
                self.counts['rejected, perf %s' % what] += 1
                if not self.args.all:
                    return
            # kept in build/, named with the mutation that made it
            os.makedirs(GAPS, exist_ok=True)
            keep = os.path.join(GAPS, 'gap-%d.elf' % len(self.gaps))
            shutil.copyfile(path, keep)
            verdict = 'rejected (%s)' % why if why else 'accepted'
            with open(keep + '.txt', 'w') as f:
                f.write('%s of %s (seed %d), %s by the check; perf report '
                        'ended with %s\n' % (desc, base.name, base.seed,
                                             verdict, what))
            self.gaps.append(keep)
            say('%s: %s %s of %s (seed %d), perf report ended with %s; '
                'mutant kept as %s' % ('PERF BUG' if why else 'GAP', verdict,
                                       desc, base.name, base.seed, what,
                                       keep))

    def run(self, bases):
        """ARGS.jobs workers, each one mutant and one perf at a time."""
        deadline = time.monotonic() + self.args.seconds
        turn = itertools.count()
        errors = []
        cut = []

        def work(job):
            path = os.path.join(self.work, 'mutant%d.elf' % job)
            try:
                while not errors:
                    with self.lock:
                        n = next(turn)
                        if self.args.mutants is not None and \
                                n >= self.args.mutants:
                            return
                        if time.monotonic() >= deadline:
                            if self.args.mutants is not None:
                                cut.append(n)
                            return
                        base = bases[n % len(bases)]
                    self.one(base, path)
            except (E2EError, OSError, subprocess.SubprocessError) as e:
                errors.append(e)

        workers = [threading.Thread(target=work, args=(j,))
                   for j in range(self.args.jobs)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        if errors:
            raise errors[0]
        c = self.counts
        say('%d mutants of %s in %d s: %d accepted by the check, %d perf '
            'runs%s, %d signals or timeouts (%d of accepted mutants)'
            % (c['mutants'], ', '.join(b.name for b in bases),
               time.monotonic() - deadline + self.args.seconds,
               c['accepted'], c['perf runs'],
               ' (every mutant: --all)' if self.args.all else '',
               c['signals'], c['signals'] - sum(
                   c[k] for k in c if k.startswith('rejected, perf'))))
        for k in sorted(k for k in c if k.startswith('rejected, perf')):
            say('%d rejected mutants: %s' % (c[k], k.split(', ', 1)[1]))
        for why, n in self.reasons.most_common():
            say('rejected %d: %s' % (n, why))
        if cut:
            say('FAILED: only %d of the %d mutants in %d s' % (
                c['mutants'], self.args.mutants, self.args.seconds))
        for keep in self.gaps:
            with open(keep + '.txt') as f:
                say('kept %s: %s' % (keep, f.read().strip()))
        return not self.gaps and not cut


def symbols_only(path, out):
    """PATH, or when it is large (a distribution's vmlinux with DWARF) a
    copy with only its tables and notes: mutants of that are written fast,
    and perf reads the same sections of both."""
    if os.path.getsize(path) <= BASE_MAX:
        return path
    subprocess.run(['objcopy', '--only-keep-debug', '--remove-section',
                    '.debug_*', path, out], check=True, timeout=600)
    say('%s: mutating its symbols-only copy (objcopy --only-keep-debug, '
        'no .debug_*)' % path)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--build', default='build')
    ap.add_argument('--perf', default=os.path.join(REPO, 'build', 'perf',
                                                   'perf'))
    ap.add_argument('--seconds', type=int, default=None,
                    help='stop after S seconds (default 60; with '
                    '--mutants, 3600: a bound on a hang, not the run)')
    ap.add_argument('--mutants', type=int, default=None,
                    help='stop after N mutants: a repeatable run')
    ap.add_argument('--seed', type=int, default=None,
                    help='default: from the time, printed (make check '
                    'passes a fixed one)')
    ap.add_argument('--base', action='append', default=[],
                    help='another vmlinux to mutate')
    ap.add_argument('--jobs', type=int, default=2,
                    help='mutants checked and perf runs at once')
    ap.add_argument('--all', action='store_true',
                    help='run perf on rejected mutants too, and fail on '
                    'any signal')
    ap.add_argument('--workdir', help='kept; default: a temporary one, '
                    'removed unless a gap was found')
    args = ap.parse_args()
    if args.seconds is None:
        args.seconds = 60 if args.mutants is None else 3600
    args.build = os.path.abspath(args.build)
    why = vmlinux_fixture.cannot_run(args.perf)
    if not os.access(os.path.join(args.build, 'tests', 'verify_elf'),
                     os.X_OK):
        why.append('no %s/tests/verify_elf (make)' % args.build)
    if why:
        say('CANNOT RUN: ' + '; '.join(why))
        say('0 passed, 1 failed')
        return 2
    seed = args.seed if args.seed is not None else int(time.time())
    say('seed %d' % seed)
    fz = Fuzzer(args)
    try:
        fx = vmlinux_fixture.make(args.perf, fz.work)
        bases = [Base(fx.vmlinux, fx.moved, seed)]
        for i, path in enumerate(args.base):
            bid = read_build_id(path)
            path = symbols_only(path, os.path.join(fz.work, 'base%d' % i))
            prof = fx.move(bid, os.path.join(fz.work, 'base%d.data' % i))
            bases.append(Base(path, prof, seed + i + 1))
        ok = fz.run(bases)
    except (E2EError, ElfError, OSError, subprocess.SubprocessError) as e:
        say('error: %s' % e)
        say('0 passed, 1 failed')
        return 1
    if ok and not args.workdir:
        shutil.rmtree(fz.work, ignore_errors=True)
    say('%d passed, %d failed' % (1 if ok else 0, 0 if ok else 1))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
