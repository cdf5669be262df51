#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""End-to-end: damaged ELF files that crashed perf 6.12's symbol loader
end a report normally, with the samples the damage does not touch named as
before.  perf passes with the fixes of util/symbol-elf.c and util/maps.c
("perf symbol-elf: ...", "perf maps: ..."); perf 6.12 fails each check.

    run_vmlinux_crashes.py [--perf PERF] [--workdir DIR]

Needs root (perf record -a, /proc/kallsyms), gcc, ld, readelf and objcopy;
without them it says so loudly and exits 2.  Records a profile and builds
the stand-in vmlinux of its kernel under the profile's build ID
(tests/lib/vmlinux_fixture.py); `baseline` checks that `perf report
--stdio --vmlinux=STANDIN` names its kernel samples.  Then each check
damages a copy of the stand-in (tests/lib/elf_mutate.py), runs `perf
report --stdio --vmlinux=COPY` on the profile and wants no signal, exit
status 0, the lines of the samples the damage does not touch exactly as
in the baseline, and no kernel sample named otherwise than there (a name
read past a table is garbage: perf 6.12 does not always crash on it):

  strtab-size-8     .strtab's sh_size 8: perf 6.12 read symbol names past
                    it (SIGSEGV in strcmp() from dso__load_sym_internal());
                    the user-space lines
  strtab-cut        .strtab cut after the names of half the baseline's
                    named kernel symbols: the same, and the lines of the
                    kernel symbols named before the cut; those named after
                    it are not named
  symtab-entsize-0  .symtab's sh_entsize 0: SIGFPE, the number of symbols
                    divided by it; the user-space lines
  text-name         .text's sh_name 0xfffffff0, past .shstrtab: section
                    names read past it (SIGSEGV in strcmp() from
                    dso__process_kernel_symbol()); the user-space lines
  note-nobits       the build ID note's section SHT_NOBITS: SIGSEGV in
                    elf_read_build_id(); the user-space lines
  etype             e_type 0xfe00 (not ET_EXEC, ET_REL or ET_DYN: perf
                    does not adjust the kernel's symbols) of a vmlinux with
                    symbols in three sections past the kernel's map and
                    the module area, as well as in .text (the stand-in has
                    them in .text only): the kernel maps taken for sorted
                    when they are not, SIGSEGV at exit in __maps__remove();
                    the user-space lines, and no kernel sample named
                    otherwise than with the file undamaged

and, for a user-space program (the PLT synthesis is not done for a
vmlinux):

  plt-got-nobits    a program with a .plt.got, profiled, then gone, its
                    `objcopy --only-keep-debug` file alone in the build-id
                    cache (.plt.got, .rela.dyn, .dynsym NOBITS): SIGSEGV in
                    dso__synthesize_plt_symbols(); the lines of libc's and
                    the kernel's samples as with the program in place
  rela-plt-entsize-0
                    the same program, gone, a copy with .rela.plt's
                    sh_entsize 0 in the build-id cache: SIGFPE in
                    dso__synthesize_plt_symbols(), the number of
                    relocations divided by it; libc's and the kernel's lines

Each check prints PASS or FAIL and why; ends with "N passed, N failed";
exit 0 when all passed.
"""

import os
import re
import shutil
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))
import vmlinux_fixture  # noqa: E402
from e2elib import (Checks, E2EError, clean_env, log,  # noqa: E402
                    checks_parser, run, run_checks)
from elf_fixtures import read_build_id  # noqa: E402
from elf_mutate import SHT_NOBITS, ElfImage, build_id_note  # noqa: E402
from perfdata import PerfData  # noqa: E402

PERF_BOUND = 300  # a hang guard, not a speed test
# overhead, command, shared object, [level] symbol: perf report's columns
SAMPLE_RE = re.compile(r'^\s*\d+\.\d+%\s+\S+\s+(\S+)\s+\[(.)\]\s+(.*?)\s*$')

# A vmlinux with functions in sections of their own, the ones in them
# static so that they come first in the symbol table, as they do in a
# real vmlinux's: perf makes a map of each of these sections, then moves
# the kernel's map to .text.
SECTIONS_SOURCE = r'''
__attribute__((section(".symprov_a"), noinline, used))
static int symprov_a(int x) { return x + 1; }
__attribute__((section(".symprov_b"), noinline, used))
static int symprov_b(int x) { return x + 2; }
__attribute__((section(".symprov_c"), noinline, used))
static int symprov_c(int x) { return x + 3; }
__attribute__((noinline)) int symprov_text(int x)
{
	return symprov_a(x) + symprov_b(x) + symprov_c(x);
}
'''
# above the module area (where perf has maps of a profile's modules)
SECTIONS_LDS = '''SECTIONS {
	.text %(start)#x : { _text = .; _stext = .; *(.text .text.*) _etext = .; }
	.symprov_a 0xffffffffff000000 : { *(.symprov_a) }
	.symprov_b 0xffffffffff100000 : { *(.symprov_b) }
	.symprov_c 0xffffffffff200000 : { *(.symprov_c) }
	.notes : { *(.note.gnu.build-id) }
}
'''
ET_LOOS = 0xfe00

PROGRAM = r'''
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) long spin(int n)
{
	long s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += i * 7 % 13;
	return s;
}

int main(void)
{
	int v[256], i, r;
	long s = 0;

	for (r = 0; r < 3000; r++) {
		for (i = 0; i < 256; i++)
			v[i] = rand();
		qsort(v, 256, sizeof(v[0]), cmp);
		s += spin(20000) + v[0];
	}
	printf("%ld\n", s);
	return 0;
}
'''


def sample_lines(out):
    """{line: (level, shared object, symbol)} of the sample lines of a
    --stdio report (a command with a space in it is not parsed, in the
    baseline as in the damaged report)."""
    lines = {}
    for line in out.splitlines():
        m = SAMPLE_RE.match(line)
        if m:
            lines[line.rstrip()] = (m.group(2), m.group(1), m.group(3))
    return lines


def kernel_named(lines):
    """The symbols of LINES' kernel lines that are named, not raw."""
    return {sym for level, _, sym in lines.values()
            if level == 'k' and not sym.startswith('0x')}


def name_ends(img):
    """{name: end of its string in .strtab} of the names of IMG's .symtab
    that only one symbol has."""
    symtab = img.section('.symtab')
    base = img.shdr(img.shdr(symtab, 'sh_link'), 'sh_offset')
    ends, twice = {}, set()
    for n in range(1, img.nsyms(symtab)):
        off = base + img.sym(symtab, n, 'st_name')
        end = img.data.find(b'\0', off)
        name = img.data[off:end].decode('utf-8', 'replace')
        if name in ends:
            twice.add(name)
        ends[name] = end - base
    return {k: v for k, v in ends.items() if k not in twice}


class Damage:
    def __init__(self, name, apply, unaffected):
        self.name, self.apply, self.unaffected = name, apply, unaffected


def user_space(level, dso, sym):
    return level == '.'


class Runner(Checks):
    def __init__(self, args):
        super().__init__(args, 'symprov-crashes-')
        self.base = None

    def preflight(self):
        why = vmlinux_fixture.cannot_run(self.perf)
        for tool in ('objcopy',):
            if not shutil.which(tool):
                why.append('%s not found in PATH' % tool)
        return why

    def report(self, args, env):
        """perf report's stdout; raises unless it ended with exit 0."""
        res = run([self.perf, 'report', '--stdio'] + args, PERF_BOUND,
                  env=env, check=False)
        if res.returncode < 0:
            raise E2EError('perf report ended on %s: %s' % (
                signal.Signals(-res.returncode).name, ' '.join(res.args)))
        if res.returncode:
            raise E2EError('perf report exited %d: %s\n%s' % (
                res.returncode, ' '.join(res.args), res.stderr[-1500:]))
        return res.stdout

    def vmlinux_report(self, path, home):
        return self.report(['--vmlinux=' + path, '-i', self.fx.moved],
                           clean_env(self.fresh(home)))

    @staticmethod
    def same_lines(want, got, unaffected, what):
        """Every line of WANT for which UNAFFECTED(level, symbol) holds is
        in GOT, and GOT has no other such line.  How many were checked."""
        want = {k for k, v in want.items() if unaffected(*v)}
        got = {k for k, v in got.items() if unaffected(*v)}
        if not want:
            raise E2EError('the baseline has no lines of %s to compare'
                           % what)
        if want != got:
            raise E2EError('lines of %s differ from the baseline:\n'
                           'missing: %s\nnew: %s' % (
                               what, sorted(want - got)[:8],
                               sorted(got - want)[:8]))
        return len(want)

    # --- the checks -----------------------------------------------------

    def step_baseline(self):
        self.fx = vmlinux_fixture.make(self.perf, self.fresh('fixture'))
        with open(self.fx.vmlinux, 'rb') as f:
            self.image = f.read()
        self.base = sample_lines(self.vmlinux_report(self.fx.vmlinux,
                                                      'home-base'))
        named = kernel_named(self.base)
        user = [s for lvl, _, s in self.base.values() if lvl == '.']
        if len(named) < 3 or not user:
            raise E2EError('the stand-in names %d kernel lines and %d '
                           'user-space ones: no baseline' % (len(named),
                                                            len(user)))
        log('baseline: %d kernel lines named, %d user-space lines' % (
            len(named), len(user)))

    def damaged(self, d):
        if self.base is None:
            raise E2EError('no baseline')
        img = ElfImage(self.image)
        d.apply(img)
        path = self.p('damaged-%s.vmlinux' % d.name)
        vmlinux_fixture.write_sparse(path, bytes(img.data))
        got = sample_lines(self.vmlinux_report(path, 'home-' + d.name))
        n = self.same_lines(self.base, got, d.unaffected,
                            'samples the damage does not touch')
        # what the damage touches is not named, or named as it was: a
        # name read past a table is not one of the file's
        new = sorted(line for line, (level, _, sym) in got.items()
                     if level == 'k' and not sym.startswith('0x') and
                     line not in self.base)
        if new:
            raise E2EError('kernel samples named as in no line of the '
                           'baseline: %s' % new[:8])
        log('%s: %d lines as in the baseline, no other named' % (d.name, n))
        return got

    def strtab_cut(self):
        """.strtab cut after the name of the median of the baseline's named
        kernel symbols (by where their names are): the symbols named
        before the cut keep their lines, those after it lose their names."""
        img = ElfImage(self.image)
        strtab = img.section('.strtab')
        ends = name_ends(img)
        hot = sorted((ends[s], s) for s in kernel_named(self.base)
                     if s in ends)
        if len(hot) < 2:
            raise E2EError('too few named kernel lines to cut between')
        cut = hot[len(hot) // 2 - 1][0] + 1
        kept = {s for s, end in ends.items() if end < cut}
        lost = {s for _, s in hot if s not in kept}

        def unaffected(level, dso, sym):
            return level == '.' or (level == 'k' and sym in kept)

        def apply(im):
            im.set_shdr(strtab, 'sh_size', cut)
        log('strtab-cut: .strtab cut at %d of %d bytes: %d lines kept, %d '
            'lost' % (cut, img.shdr(strtab, 'sh_size'), len(hot) - len(lost),
                      len(lost)))
        got = self.damaged(Damage('strtab-cut', apply, unaffected))
        named = kernel_named(got) & lost
        if named:
            raise E2EError('symbols named past the cut: %s' % sorted(named))
        if not kernel_named(got) & kept:
            raise E2EError('no kernel symbol named before the cut')

    def step_etype(self):
        if self.base is None:
            raise E2EError('no baseline')
        d = self.fresh('etype')
        src, obj = os.path.join(d, 'k.c'), os.path.join(d, 'k.o')
        with open(src, 'w') as f:
            f.write(SECTIONS_SOURCE)
        run(['gcc', '-O1', '-fno-pic', '-mcmodel=kernel', '-c', src, '-o',
             obj], 120)
        with open(self.fx.moved, 'rb') as f:
            start = PerfData(f.read()).kernel_mmap().mmap()[4]
        lds = os.path.join(d, 'k.lds')
        with open(lds, 'w') as f:
            f.write(SECTIONS_LDS % {'start': start})
        good = os.path.join(d, 'vmlinux-sections')
        run(['ld', '--build-id=0x' + self.fx.build_id, '-T', lds, '-e',
             'symprov_text', '-z', 'noexecstack', '-o', good, obj], 120)
        base = sample_lines(self.vmlinux_report(good, 'home-etype-base'))
        with open(good, 'rb') as f:
            img = ElfImage(f.read())
        img.set_ehdr('e_type', ET_LOOS)
        bad = os.path.join(d, 'vmlinux-sections-etype')
        with open(bad, 'wb') as f:
            f.write(img.data)
        got = sample_lines(self.vmlinux_report(bad, 'home-etype'))
        n = self.same_lines(base, got, user_space, 'user-space samples')
        new = sorted(line for line, (level, _, sym) in got.items()
                     if level == 'k' and not sym.startswith('0x') and
                     line not in base)
        if new:
            raise E2EError('kernel samples named as with the file undamaged '
                           'in no line: %s' % new[:8])
        log('etype: %d lines as with the file undamaged' % n)

    def plt_program(self, name, sections):
        """PROGRAM built with SECTIONS, profiled: (its path, the profile,
        the report's lines with it in place)."""
        d = self.fresh(name)
        prog = os.path.join(d, 'bin', 'symprov-plt')
        os.makedirs(os.path.dirname(prog))
        with open(prog + '.c', 'w') as f:
            f.write(PROGRAM)
        run(['gcc', '-g', '-O1', '-Wl,--build-id', '-o', prog, prog + '.c'],
            120)
        secs = run(['readelf', '-SW', prog], 60).stdout
        if not all(s in secs for s in sections):
            raise E2EError('the program has no %s: nothing to check here' %
                           ' and '.join(sections))
        data = os.path.join(d, 'prog.data')
        run([self.perf, 'record', '-e', 'cpu-clock', '-N', '-o', data,
             '--', prog], 120, env=clean_env(self.fresh('home-%s-rec' % name)))
        base = sample_lines(self.report(
            ['-i', data], clean_env(self.fresh('home-%s-base' % name))))
        if not any(dso.startswith('libc.so') for _, dso, _ in base.values()):
            raise E2EError("no libc samples in the program's profile")
        return prog, data, base

    def gone_but_cached(self, name, prog, data, base, copy):
        """PROG gone, COPY in the build-id cache in its place: the report
        has libc's and the kernel's lines as with PROG in place."""
        bid = read_build_id(prog)
        home = self.fresh('home-' + name)
        cached = os.path.join(home, '.debug', '.build-id', bid[:2],
                              bid[2:], 'elf')
        os.makedirs(os.path.dirname(cached))
        shutil.copyfile(copy, cached)
        os.rename(prog, prog + '.gone')
        got = sample_lines(self.report(['-i', data], clean_env(home)))

        def unaffected(level, dso, sym):
            return level == 'k' or dso.startswith('libc.so')
        n = self.same_lines(base, got, unaffected, "libc's and the kernel's "
                            "samples")
        log('%s: %d lines as with the program in place' % (name, n))

    def step_plt(self):
        prog, data, base = self.plt_program('plt', ('.plt.got', '.rela.dyn'))
        run(['objcopy', '--only-keep-debug', prog, prog + '.debug'], 60)
        self.gone_but_cached('plt-got-nobits', prog, data, base,
                             prog + '.debug')

    def step_rela_plt(self):
        prog, data, base = self.plt_program('rela-plt', ('.rela.plt',))
        with open(prog, 'rb') as f:
            img = ElfImage(f.read())
        img.set_shdr(img.section('.rela.plt'), 'sh_entsize', 0)
        with open(prog + '.damaged', 'wb') as f:
            f.write(bytes(img.data))
        self.gone_but_cached('rela-plt-entsize-0', prog, data, base,
                             prog + '.damaged')

    def run(self):
        if self.cannot_start('vmlinux crash'):
            return 2

        def shdr(section, field, value):
            def apply(img):
                img.set_shdr(img.section(section), field, value)
            return apply

        def note_nobits(img):
            img.set_shdr(build_id_note(img), 'sh_type', SHT_NOBITS)

        damages = [
            Damage('strtab-size-8', shdr('.strtab', 'sh_size', 8),
                   user_space),
            Damage('symtab-entsize-0', shdr('.symtab', 'sh_entsize', 0),
                   user_space),
            Damage('text-name', shdr('.text', 'sh_name', 0xfffffff0),
                   user_space),
            Damage('note-nobits', note_nobits, user_space),
        ]
        if self.check('baseline', self.step_baseline):
            for d in damages:
                self.check(d.name, lambda d=d: self.damaged(d))
            self.check('strtab-cut', self.strtab_cut)
            self.check('etype', self.step_etype)
        self.check('plt-got-nobits', self.step_plt)
        self.check('rela-plt-entsize-0', self.step_rela_plt)
        return self.finish()


def main(argv=None):
    ap = checks_parser(__doc__)
    return run_checks(Runner, ap.parse_args(argv), 'vmlinux crashes')


if __name__ == '__main__':
    sys.exit(main())
