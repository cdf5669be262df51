#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""End-to-end: kernel data types (perf report -s type) with the vmlinux
the symbol providers fetched.

    run_types_e2e.py [--perf PERF] [--workdir DIR] [--real-deb DEB]

Needs root (perf record -a), gcc, ld, objdump, debuginfod, tmux and `make`;
without them it says so loudly and exits 2.  Builds a small kernel-like
ELF with DWARF types: a C file of a few structs and functions reading
their fields (memory loads through a register), linked at the recorded
kernel's address, with functions in .init.text and .noinstr.text that the
.text ones jump to and call, as a kernel's do (perf maps those sections
apart: a jump there is a lookup in another map).  The profile: recorded
here, its kernel moved to that ELF's build ID and its kernel samples put
on the loads.  Checks:

  --vmlinux       perf report -s type --vmlinux=ELF ends normally (perf
                  6.12 crashed in jump__parse(): a map put it did not
                  hold) and names the structs of the ELF
  providers       the same profile through libdebuginfodprov.so, a local
                  debuginfod serving the ELF: the same report, every sort
                  key: type, typeoff, typecln; the whole file was asked
                  for (types need DWARF)
  annotate        perf annotate --data-type through the providers equals
                  --vmlinux
  tui             perf report -s type's TUI, a server holding each
                  request: the progress box (saying the whole file and
                  why, or how many objects of the profile), the kernel
                  asked as its whole file; then the browser with the
                  structs

--real-deb DEB (Debian's linux-image-*-dbg package; not in make check)
also serves it with `debuginfod -U` and checks, on its vmlinux, that the
report through the providers names kernel structs (task_struct, rq,
file...) and equals --vmlinux, with the time the fetch took.

Ends with "N passed, N failed"; exit 0 when all passed.
"""

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
from debuginfod_server import DebuginfodServer  # noqa: E402
from e2elib import (Checks, E2EError, clean_env, log,  # noqa: E402
                    checks_parser, run, run_checks)
from elf_fixtures import read_build_id  # noqa: E402
from link_proxy import ThrottleProxy  # noqa: E402
from perfdata import PerfData  # noqa: E402
from tui import Terminal  # noqa: E402
import run_e2e  # noqa: E402

PROVIDER = 'libdebuginfodprov.so'
KERNEL = '[kernel.kallsyms]'
TYPES_BUILD_ID = '5e1f000000000000000000000000000000e2e7e5'
STRUCTS = ('struct symprov_task', 'struct symprov_file',
           'struct symprov_rq')
REAL_STRUCTS = ('struct task_struct', 'struct rq', 'struct file')
REAL_FUNCTIONS = ('vfs_read', '__schedule', 'update_curr',
                  'try_to_wake_up', 'dequeue_entity', 'ksys_read')

SOURCE = r'''
struct symprov_file {
	long f_count;
	unsigned int f_flags;
	long long f_pos;
	void *f_op;
};

struct symprov_task {
	long state;
	int prio;
	struct symprov_file *files[4];
	unsigned long utime, stime;
	struct symprov_task *parent;
};

struct symprov_rq {
	unsigned int nr_running;
	unsigned long clock;
	struct symprov_task *curr;
	long load;
};

__attribute__((section(".init.text"), noinline)) long
symprov_init_fn(struct symprov_rq *rq)
{
	return rq->load + rq->nr_running;
}

__attribute__((section(".noinstr.text"), noinline)) long
symprov_noinstr_fn(struct symprov_task *t)
{
	return t->utime - t->stime;
}

__attribute__((noinline)) long symprov_read(struct symprov_file *f, int n)
{
	long s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += f->f_pos + f->f_flags + f->f_count;
	if (s < 0)
		return symprov_noinstr_fn(0);
	return s;
}

__attribute__((noinline)) long symprov_schedule(struct symprov_rq *rq, int n)
{
	struct symprov_task *t = rq->curr;
	long s = rq->clock;
	int i;

	for (i = 0; i < n; i++) {
		s += t->prio + t->state + rq->nr_running;
		if (t->parent)
			t = t->parent;
	}
	if (s == 42)
		return symprov_init_fn(rq);
	return s + symprov_noinstr_fn(t);
}

__attribute__((noinline)) long symprov_files(struct symprov_task *t, int n)
{
	long s = 0;
	int i;

	for (i = 0; i < n && i < 4; i++)
		s += symprov_read(t->files[i], n) + t->files[i]->f_flags;
	if (s == 7)
		return symprov_noinstr_fn(t) + symprov_init_fn(0);
	return s;
}
'''

LDS = '''SECTIONS {
	.text %(start)#x : { _text = .; _stext = .; *(.text .text.*) _etext = .; }
	.noinstr.text : { *(.noinstr.text) }
	.init.text : { *(.init.text) }
	.notes : { *(.note.gnu.build-id) }
}
'''


def function_ranges(path, names):
    """[(start, end)] of the functions NAMES of PATH, from its symbols."""
    out = subprocess.run(['nm', '-S', path], capture_output=True, text=True,
                         timeout=600, check=True).stdout
    ranges = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in 'tT' and f[3] in names:
            start = int(f[0], 16)
            ranges.append((start, start + int(f[1], 16)))
    return ranges


def memory_loads(path, functions=None):
    """[address] of the instructions of PATH that load through a register
    (mov OFF(%reg),%reg), in FUNCTIONS (names) or in all of .text."""
    spans = function_ranges(path, functions) if functions else [None]
    addrs = []
    for span in spans:
        args = ['objdump', '-d', '--no-show-raw-insn', path]
        if span:
            args[2:2] = ['--start-address=%#x' % span[0],
                         '--stop-address=%#x' % span[1]]
        out = subprocess.run(args, capture_output=True, text=True,
                             timeout=600, check=True).stdout
        addrs += [int(m.group(1), 16) for m in re.finditer(
            r'^\s*([0-9a-f]+):\s+mov\s+-?0x[0-9a-f]+\(%r[a-z0-9]+\),%',
            out, re.M)]
    return addrs


def put_on(src, dst, build_id, addrs):
    """DST: SRC with its kernel moved to BUILD_ID and every kernel sample
    on one of ADDRS, round robin; how many samples."""
    with open(src, 'rb') as f:
        pd = PerfData(f.read())
    kernel = [r for r in pd.samples() if r.kernel]
    for i, r in enumerate(kernel):
        r.set_ip(pd, addrs[i % len(addrs)])
    with open(dst + '.samples', 'wb') as f:
        f.write(pd.bytes())
    make_profile.move_profile(dst + '.samples', dst, build_id)
    os.unlink(dst + '.samples')
    return len(kernel)


class Runner(Checks):
    def __init__(self, args):
        super().__init__(args, 'symprov-types-')

    def preflight(self):
        why = self.missing(('gcc', 'ld', 'objdump', 'debuginfod', 'tmux'),
                           (os.path.join(self.build, 'lib', PROVIDER),))
        if self.args.real_deb and not shutil.which('bsdtar'):
            why.append('debuginfod -U needs bsdtar (libarchive-tools)')
        return why

    def kernel_start(self, data):
        with open(data, 'rb') as f:
            return PerfData(f.read()).kernel_mmap().mmap()[4]

    def step_profile(self):
        home = self.fresh('home-record')
        cmd = [self.perf, 'record', '-e', 'cpu-clock', '-a', '-N', '-o',
               self.p('orig.data'), '--'] + make_profile.default_workload(2)
        run(cmd, 120, env=clean_env(home), soft_signal=signal.SIGINT)

    def step_elf(self):
        d = self.fresh('elf')
        src, obj = os.path.join(d, 'types.c'), os.path.join(d, 'types.o')
        with open(src, 'w') as f:
            f.write(SOURCE)
        run(['gcc', '-g', '-O1', '-fno-pic', '-mcmodel=kernel',
             '-fno-inline', '-fno-omit-frame-pointer', '-c', src, '-o', obj],
            120)
        lds = os.path.join(d, 'types.lds')
        with open(lds, 'w') as f:
            f.write(LDS % {'start': self.kernel_start(self.p('orig.data'))})
        self.elf = self.p('srv', 'vmlinux-types')
        os.makedirs(self.p('srv'), exist_ok=True)
        run(['ld', '--build-id=0x' + TYPES_BUILD_ID, '-T', lds, '-e',
             'symprov_read', '-z', 'noexecstack', '-o', self.elf, obj], 120)
        loads = memory_loads(self.elf)
        if len(loads) < 6:
            raise E2EError('only %d loads in %s' % (len(loads), self.elf))
        n = put_on(self.p('orig.data'), self.p('types.data'),
                   TYPES_BUILD_ID, loads)
        log('types ELF: %d loads; %d kernel samples on them' % (len(loads),
                                                                 n))

    def report(self, data, env, keys, extra=()):
        # the kernel's lines: user-space ones would only cost time
        res = run([self.perf, 'report', '--stdio', '-s', keys, '--dsos',
                   KERNEL, '-i', self.p(data)] + list(extra), 900, env=env,
                  check=False)
        if res.returncode:
            raise E2EError('perf report -s %s%s ended with %s: %s' % (
                keys, ' ' + ' '.join(extra) if extra else '',
                'signal %d' % -res.returncode if res.returncode < 0 else
                'exit %d' % res.returncode, res.stderr[-1500:]))
        return res

    def provider_env(self, url, name):
        env = clean_env(self.fresh('home-' + name), {
            'DEBUGINFOD_URLS': url,
            'DEBUGINFOD_CACHE_PATH': self.fresh('cache-' + name),
            'PERF_SYMBOL_PROVIDERS': PROVIDER})
        env.pop('LD_LIBRARY_PATH', None)
        return env

    def step_vmlinux(self):
        res = self.report('types.data', clean_env(self.fresh('home-vm')),
                          'type', ['--vmlinux=' + self.elf])
        missing = [s for s in STRUCTS if s not in res.stdout]
        if missing:
            raise E2EError('--vmlinux report does not name %s:\n%s' % (
                missing, res.stdout[-2000:]))
        self.ref = {}
        log('--vmlinux: %s' % ', '.join(
            line.strip() for line in res.stdout.splitlines()
            if 'struct symprov_' in line))

    def step_providers(self):
        with DebuginfodServer(self.p('srv'),
                              log_path=self.p('debuginfod.log')) as srv:
            for keys in ('type', 'typeoff', 'typecln'):
                # -v: the line that says what was supplied; the report
                # then shows addresses, of the same file in both
                ref = self.report('types.data', clean_env(
                    self.fresh('home-ref')), keys,
                    ['-v', '--vmlinux=' + self.elf])
                mine = self.report('types.data',
                                   self.provider_env(srv.url, keys), keys,
                                   ['-v'])
                if 'supplied the whole file' not in mine.stderr:
                    raise E2EError('-s %s: not the whole file: %s' % (
                        keys, mine.stderr[-1000:]))
                if mine.stdout != ref.stdout or \
                        'struct symprov_' not in ref.stdout:
                    raise E2EError('-s %s through the providers differs '
                                   'from --vmlinux' % keys)
            annotate = [self.perf, 'annotate', '--stdio', '--data-type',
                        '--dsos', KERNEL, '-i', self.p('types.data')]
            ref = run(annotate + ['--vmlinux=' + self.elf], 900,
                      env=clean_env(self.fresh('home-aref')))
            mine = run(annotate, 900,
                       env=self.provider_env(srv.url, 'annotate'))
            if mine.stdout != ref.stdout or 'symprov_' not in ref.stdout:
                raise E2EError('perf annotate --data-type through the '
                               'providers differs from --vmlinux')
        log('providers: -s type, typeoff, typecln and annotate '
            '--data-type as with --vmlinux')

    def step_tui(self):
        with DebuginfodServer(self.p('srv'),
                              log_path=self.p('debuginfod-tui.log')) as srv, \
                ThrottleProxy(srv.port, hold=2, max_seconds=600) as slow, \
                Terminal(self.work, 'types-tui') as term:
            term.start([self.perf, 'report', '-s', 'type', '--dsos', KERNEL,
                        '-i', self.p('types.data')],
                       self.provider_env(slow.url, 'tui'))
            # the kernel alone, or in a batch with the user-space objects
            # (perf loads their symbols too, --dsos filters after)
            term.wait_for(lambda s: 'whole: DWARF, code' in s or
                          re.search(r'\d+ of \d+ objects', s), 60,
                          'the progress box')
            term.wait_for(lambda s: 'Samples:' in s and
                          'struct symprov_task' in s, 120,
                          'the browser with the structs')
            run_e2e.Runner.quit_tui(term)
        kernel = [r for r in slow.requests if TYPES_BUILD_ID in r]
        if not kernel or any('/debuginfo' not in r for r in kernel):
            raise E2EError('the kernel not asked as a whole file: %s'
                           % kernel)

    def step_real(self):
        deb = os.path.abspath(self.args.real_deb)
        vm = debfiles.members(deb, './usr/lib/debug/boot/vmlinux-')
        if len(vm) != 1:
            raise E2EError('%s: no vmlinux, or several' % deb)
        real = debfiles.extract(deb, vm, self.fresh('deb-files'))[0]
        bid = read_build_id(real)
        loads = memory_loads(real, REAL_FUNCTIONS)
        n = put_on(self.p('orig.data'), self.p('real.data'), bid, loads)
        log('real vmlinux %s: %d loads in %s; %d samples' % (
            bid[:12], len(loads), ', '.join(REAL_FUNCTIONS), n))
        ref = self.report('real.data', clean_env(self.fresh('home-rref')),
                          'type', ['--vmlinux=' + real])
        root = self.fresh('srv-deb')
        os.symlink(deb, os.path.join(root, os.path.basename(deb)))
        with DebuginfodServer(root, extra_args=['-U', '-L'],
                              index_timeout=900,
                              log_path=self.p('debuginfod-deb.log')) as srv:
            env = self.provider_env(srv.url, 'real')
            t = time.monotonic()
            self.report('real.data', env, 'type', ['-v'])
            cold = time.monotonic() - t
            mine = self.report('real.data', env, 'type')
        missing = [s for s in REAL_STRUCTS if s not in mine.stdout]
        if missing or mine.stdout != ref.stdout:
            raise E2EError('real vmlinux: missing %s, same as --vmlinux: '
                           '%s' % (missing, mine.stdout == ref.stdout))
        log('real vmlinux: the whole file in %.1f s from a cold -U '
            'server; %s' % (cold, ', '.join(
                line.strip() for line in mine.stdout.splitlines()
                if 'struct ' in line)[:400]))

    def run(self):
        if self.cannot_start('types e2e'):
            return 2
        if self.check('profile', self.step_profile) and \
                self.check('types ELF', self.step_elf) and \
                self.check('--vmlinux', self.step_vmlinux):
            self.check('providers', self.step_providers)
            self.check('tui', self.step_tui)
            if self.args.real_deb:
                self.check('real vmlinux', self.step_real)
        return self.finish()


def main(argv=None):
    ap = checks_parser(__doc__)
    ap.add_argument('--real-deb', help="Debian's linux-image-*-dbg package")
    return run_checks(Runner, ap.parse_args(argv), 'types e2e')


if __name__ == '__main__':
    sys.exit(main())
