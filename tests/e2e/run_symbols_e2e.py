#!/usr/bin/env python3
"""End-to-end: perf report with a kernel's symbols-only file is the report
with its whole file.

    run_symbols_e2e.py [--perf PERF] [--workdir DIR] [--duration 3]
                       [--real-vmlinux FILE] [--real-deb DEB]

Needs root (perf record -a, real /proc/kallsyms addresses), gcc, ld,
readelf, debuginfod, and `make` (build/bin/symprov,
build/lib/libdebuginfodprov.so); without them it says so loudly and
exits 2.  Records a system-wide profile with callchains (-g), and builds
two stand-in vmlinux files of the running kernel linked like an x86
kernel (--emit-relocs: a section symbol per section):

  one-section   make_standin.py's stand-in: the kernel text in .text
  sections      the kernel text cut in three executable sections, .text,
                .entry.text and .init.text (whose tail hides ".text" in
                .shstrtab), at addresses where the profile has samples

For each, a local debuginfod serves it and the profile is moved to its
build ID; `symprov find --symbols-only` fetches the symbols-only file
(checked: four section queries, fewer than 1.2 times the bytes of
.symtab, .strtab, .shstrtab and the note) and `symprov find` the whole
file, each into its own client cache; then

  perf report --stdio --sort dso,sym [-g] -i MOVED --vmlinux=FILE

must print the same bytes for both files, with and without -g, with
kernel samples resolved (and, for `sections`, samples in the maps of
.entry.text and .init.text).

--real-vmlinux FILE (e.g. Debian's linux-image-*-dbg vmlinux, not part
of `make check`) also serves a copy of FILE, fetches its symbols-only
file, compares its section headers with FILE's for every section that
holds symbols, and compares the two reports of the profile moved to its
build ID: every line of a resolved sample must be the same; the lines of
samples no symbol covers, whose printed address perf takes from the
section's file offset, are counted.

--real-deb DEB (Debian's linux-image-*-dbg package, not part of `make
check`) serves DEB itself with a freshly started `debuginfod -U`, which
has extracted nothing of it yet (a cold distribution server), and runs
the README's line, `PERF_SYMBOL_PROVIDERS=libdebuginfodprov.so perf
report -v`, on the profile moved to its vmlinux's build ID: the first
report must get the symbols only, by section queries and nothing else,
with no file rejected, and name the kernel's symbols as with --vmlinux
of the package's vmlinux (resolved lines the same; printed addresses of
samples no symbol covers may differ, as above).

PERF defaults to $PERF, else build/perf/perf (with --vmlinux any perf
6.12 does).  Ends with "N passed, N failed"; exit status 0 when all
passed, 1 when a check failed, 2 when the checks could not run.
"""

import os
import shutil
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))
import make_profile  # noqa: E402
import make_standin  # noqa: E402
from compare_reports import parse_report  # noqa: E402
from debuginfod_server import DebuginfodServer, metric  # noqa: E402
from e2elib import (Checks, E2EError, clean_env, log,  # noqa: E402
                    checks_parser, run, run_checks)
from elf_fixtures import read_build_id, read_sections  # noqa: E402
import debfiles  # noqa: E402

BID_ONE = '5e1f0000000000000000000000000000000e2e01'
BID_SECTIONS = '5e1f0000000000000000000000000000000e2e02'
TABLES = ('.symtab', '.strtab', '.shstrtab')
NOTES = ('.note.gnu.build-id', '.notes', '.note')
# The code sections of the `sections` stand-in, in address order.
SPLIT_NAMES = ('.text', '.entry.text', '.init.text')


class Runner(Checks):
    def __init__(self, args):
        super().__init__(args, 'symprov-sym-')

    def preflight(self):
        why = []
        if os.geteuid() != 0:
            why.append('not root: perf record -a and /proc/kallsyms need it')
        for tool in ('gcc', 'ld', 'readelf', 'debuginfod'):
            if not shutil.which(tool):
                why.append('%s not found in PATH' % tool)
        for f in (self.symprov,
                  os.path.join(self.build, 'lib', 'libdebuginfodprov.so')):
            if not os.access(f, os.R_OK):
                why.append('no %s (make)' % f)
        if not shutil.which(self.perf) and not os.access(self.perf,
                                                         os.X_OK):
            why.append('no perf at %s' % self.perf)
        if self.args.real_deb and not shutil.which('bsdtar'):
            why.append('debuginfod -U needs bsdtar (Debian package '
                       'libarchive-tools)')
        return why

    # the profile and the stand-ins --------------------------------------
    def step_profile(self):
        home = self.fresh('home-record')
        cmd = [self.perf, 'record', '-e', 'cpu-clock', '-a', '-g', '-N',
               '-o', self.p('orig.data'), '--'] + \
            make_profile.default_workload(self.args.duration)
        run(cmd, self.args.duration + 60, env=clean_env(home),
            soft_signal=signal.SIGINT)
        with open('/proc/kallsyms', 'rb') as fi, \
                open(self.p('kallsyms'), 'wb') as fo:
            fo.write(fi.read())

    def step_standins(self):
        srv = self.fresh('srv')
        make_standin.build(self.p('kallsyms'), BID_ONE,
                           os.path.join(srv, 'vmlinux-one'), self.work,
                           ld_args=['--emit-relocs'])
        self.build_sections_standin(os.path.join(srv, 'vmlinux-sections'))
        for bid in (BID_ONE, BID_SECTIONS):
            make_profile.move_profile(self.p('orig.data'),
                                      self.p('moved-%s.data' % bid), bid)

    def sample_addresses(self, start, end):
        """Kernel addresses of the profile's samples in [start, end), in
        the order perf reads them."""
        res = run([self.perf, 'script', '-F', 'ip', '-i',
                   self.p('orig.data')], 300,
                  env=clean_env(self.fresh('home-script')))
        ips = []
        for line in res.stdout.split():
            try:
                ip = int(line, 16)
            except ValueError:
                continue
            if start <= ip < end:
                ips.append(ip)
        if len(ips) < 10:
            raise E2EError('only %d kernel samples in .text' % len(ips))
        return ips

    def build_sections_standin(self, out):
        """The stand-in's text in three sections, cut where half and three
        quarters of the kernel samples lie, at a symbol.  The one with the
        first sample is .text: perf loads the vmlinux when it looks that
        sample up, and resolves it in the kernel map only."""
        start, end, syms, extra = make_standin.select_symbols(
            self.p('kallsyms'))
        ips = self.sample_addresses(start, end)
        first, ips = ips[0], sorted(ips)
        starts = [a for a, _, _, _, _ in syms]
        cuts = []
        for q in (len(ips) // 2, len(ips) * 3 // 4):
            below = [a for a in starts if start < a <= ips[q]]
            if not below or (cuts and below[-1] <= cuts[-1]):
                raise E2EError('no symbol to cut the text at near %#x'
                               % ips[q])
            cuts.append(below[-1])
        bounds = [start] + cuts + [end]
        text = max(i for i in range(3) if bounds[i] <= first)
        names = list(SPLIT_NAMES[1:])
        names.insert(text, '.text')
        sections = [(names[i], bounds[i], bounds[i + 1] - bounds[i])
                    for i in range(3)]
        # the kernel's mark of .text, which .init.text hides in .shstrtab
        syms = [s for s in syms if s[4] != '_stext'] + [
            (bounds[text], 0, make_standin.STB_GLOBAL,
             make_standin.STT_NOTYPE, '_stext')]
        extra = [(n, a) for n, a in extra if n != '_stext']
        obj = self.p('sections.o')
        make_standin.write_rel_object(
            obj, make_standin.EM[os.uname().machine], end - start, syms,
            extra, start, sections=sections)
        lds = self.p('sections.lds')
        with open(lds, 'w') as f:
            f.write('SECTIONS {\n%s}\n' % ''.join(
                '\t%s %#x : { *(%s) }\n' % (n, a, n) for n, a, _ in sections))
        run(['ld', '--emit-relocs', '--build-id=0x' + BID_SECTIONS, '-T',
             lds, '-e', '%#x' % start, '-z', 'noexecstack', '-o', out, obj],
            120)
        log('sections stand-in: %s; the first kernel sample at %#x' % (
            ', '.join('%s %#x+%#x' % s for s in sections), first))

    # the checks -----------------------------------------------------------
    def find(self, server, bid, cache, *args):
        env = clean_env(self.fresh('home-find'), {
            'DEBUGINFOD_URLS': server.url, 'DEBUGINFOD_CACHE_PATH': cache})
        res = run([self.symprov, '-v', 'find', '--providers',
                   'libdebuginfodprov.so'] + list(args) + [bid], 600,
                  env=env, check=False)
        if res.returncode != 0:
            raise E2EError('symprov find %s %s: exit %d: %s' % (
                ' '.join(args), bid, res.returncode, res.stderr))
        path = res.stdout.strip()
        if read_build_id(path) != bid:
            raise E2EError('%s does not carry %s' % (path, bid))
        return path, res.stderr

    def section_traffic(self, server):
        m = server.metrics()
        return (metric(m, 'http_responses_transfer_bytes_count',
                       type='section'),
                metric(m, 'http_responses_transfer_bytes_sum',
                       type='section'),
                metric(m, 'http_responses_transfer_bytes_count') -
                metric(m, 'http_responses_transfer_bytes_count',
                       type='metrics'))

    def fetch_both(self, server, bid, full_file):
        """The symbols-only file, with its traffic checked, and the whole
        file, each fetched into an empty client cache."""
        n0, bytes0, all0 = self.section_traffic(server)
        symbols, err = self.find(server, bid, self.fresh('cache-sym-' + bid),
                                 '--symbols-only')
        n1, bytes1, all1 = self.section_traffic(server)
        if 'the symbols only' not in err or n1 - n0 != 4 or \
                all1 - all0 != 4:
            raise E2EError('want the symbols only from 4 section queries '
                           'and nothing else: %d section queries, %d in all;'
                           ' %s' % (n1 - n0, all1 - all0, err.strip()))
        secs = read_sections(full_file)
        note = next(n for n in NOTES if n in secs)
        tables = sum(secs[n][4] for n in TABLES + (note,))
        got = bytes1 - bytes0
        log('%s: symbols only: %d bytes on the wire for %d bytes of tables '
            '(x%.4f); file %d bytes; the whole file %d bytes' % (
                bid, got, tables, got / tables, os.path.getsize(symbols),
                os.path.getsize(full_file)))
        if got >= 1.2 * tables:
            raise E2EError('%d bytes fetched for %d bytes of tables' % (
                got, tables))
        whole, err = self.find(server, bid, self.fresh('cache-full-' + bid))
        if 'the whole file' not in err:
            raise E2EError('symprov find: %s' % err.strip())
        return symbols, whole

    def reports(self, bid, symbols, whole, callchains):
        """perf report of the profile moved to BID with each file."""
        out = []
        for name, vmlinux in (('symbols', symbols), ('whole', whole)):
            args = [self.perf, 'report', '--stdio', '--sort', 'dso,sym',
                    '-i', self.p('moved-%s.data' % bid),
                    '--vmlinux=' + vmlinux]
            args[2:2] = ['-g'] if callchains else [
                '--no-children', '--call-graph=none']
            res = run(args, 600, env=clean_env(self.fresh('home-report')))
            tag = '%s-%s%s' % (bid[-4:], name, '-g' if callchains else '')
            with open(self.p('report-%s.txt' % tag), 'w') as f:
                f.write(res.stdout)
            out.append(res.stdout)
        return out

    def compare(self, bid, symbols, whole, maps=()):
        for callchains in (False, True):
            mine, full = self.reports(bid, symbols, whole, callchains)
            if mine != full:
                raise E2EError('%s%s: the reports differ (see %s)' % (
                    bid, ' -g' if callchains else '', self.work))
            entries = parse_report(full) if not callchains else []
            if not callchains and not any(e.kernel and not e.raw
                                          for e in entries):
                raise E2EError('no kernel sample resolved: the check '
                               'says nothing')
            for m in maps if not callchains else ():
                if not any(e.dso == m and not e.raw for e in entries):
                    raise E2EError('no sample resolved in %s' % m)
            log('%s%s: %d bytes of report, the same' % (
                bid, ' -g' if callchains else '', len(full)))

    def step_one(self, server):
        symbols, whole = self.fetch_both(server, BID_ONE,
                                         self.p('srv', 'vmlinux-one'))
        self.compare(BID_ONE, symbols, whole)

    def step_sections(self, server):
        full = self.p('srv', 'vmlinux-sections')
        symbols, whole = self.fetch_both(server, BID_SECTIONS, full)
        mine = read_sections(symbols)
        for name, (idx, _, flags, addr, size) in read_sections(full).items():
            if name in SPLIT_NAMES and mine.get(name, (None,) * 5)[0::3] != \
                    (idx, addr):
                raise E2EError('%s: %s, want index %d at %#x' % (
                    name, mine.get(name), idx, addr))
        self.compare(BID_SECTIONS, symbols, whole,
                     maps=['[kernel.kallsyms]' + n for n in SPLIT_NAMES[1:]])

    # a real vmlinux ---------------------------------------------------------
    def step_real(self):
        real = os.path.abspath(self.args.real_vmlinux)
        bid = read_build_id(real)
        root = self.fresh('srv-real')
        shutil.copy(real, root)
        make_profile.move_profile(self.p('orig.data'),
                                  self.p('moved-%s.data' % bid), bid)
        with DebuginfodServer(root, index_timeout=900,
                              log_path=self.p('debuginfod-real.log')) as srv:
            symbols, _ = self.fetch_both(srv, bid, real)
        self.compare_headers(real, symbols)
        for callchains in (False, True):
            mine, full = self.reports(bid, symbols, real, callchains)
            self.compare_real_reports(mine, full, callchains)

    def compare_headers(self, real, symbols):
        full, mine = read_sections(real), read_sections(symbols)
        out = run(['readelf', '-sW', real], 600).stdout.splitlines()[3:]
        in_use = {int(f[6]) for f in (x.split() for x in out)
                  if len(f) > 7 and f[6].isdigit() and f[3] != 'SECTION'}
        sized = 0
        for name, (idx, typ, flags, addr, size) in sorted(
                full.items(), key=lambda kv: kv[1][0]):
            if idx not in in_use:
                continue
            m = mine.get(name)
            if not m or (m[0], m[3], 'A' in m[2]) != (idx, addr,
                                                       'A' in flags):
                raise E2EError('section %d %s: %s, want %s' % (
                    idx, name, m, (idx, typ, flags, addr, size)))
            if m[4] != size:
                sized += 1
                log('section %d %s: size %#x, the whole file says %#x' % (
                    idx, name, m[4], size))
        log('%d sections hold symbols: the same index, name, address and '
            'SHF_ALLOC; %d of them another size' % (len(in_use), sized))

    def step_real_deb(self):
        deb = os.path.abspath(self.args.real_deb)
        vmlinux = debfiles.members(deb, './usr/lib/debug/boot/vmlinux-')
        if len(vmlinux) != 1:
            raise E2EError('%s: no vmlinux, or several: %s' % (deb, vmlinux))
        real = debfiles.extract(deb, vmlinux, self.fresh('deb-files'))[0]
        bid = read_build_id(real)
        moved = self.p('moved-%s.data' % bid)
        make_profile.move_profile(self.p('orig.data'), moved, bid)
        root = self.fresh('srv-deb')
        os.symlink(deb, os.path.join(root, os.path.basename(deb)))
        args = [self.perf, 'report', '--stdio', '--sort', 'dso,sym',
                '--no-children', '--call-graph=none', '-i', moved]
        with DebuginfodServer(root, extra_args=['-U', '-L'],
                              index_timeout=900,
                              log_path=self.p('debuginfod-deb.log')) as srv:
            before = srv.metrics()
            env = clean_env(self.fresh('home-deb'), {
                'DEBUGINFOD_URLS': srv.url,
                'DEBUGINFOD_CACHE_PATH': self.fresh('cache-deb'),
                'PERF_SYMBOL_PROVIDERS': 'libdebuginfodprov.so'})
            env.pop('LD_LIBRARY_PATH', None)
            res = run(args[:2] + ['-v'] + args[2:], 900, env=env)
            after = srv.metrics()
        said = [x for x in res.stderr.splitlines() if x.startswith('symprov')]
        if not any('debuginfod supplied the symbols only' in x
                   for x in said) or any('rejected' in x for x in said):
            raise E2EError('cold -U server: %s' % '; '.join(said))
        sent = {t: metric(after, 'http_responses_transfer_bytes_count',
                          type=t) -
                metric(before, 'http_responses_transfer_bytes_count', type=t)
                for t in ('section', 'debuginfo', 'executable')}
        if sent['debuginfo'] or sent['executable'] or not sent['section']:
            raise E2EError('cold -U server sent %s' % sent)
        # -v shows more in the report: compare a plain one (cached now)
        mine = run(args, 600, env=env).stdout
        full = run(args + ['--vmlinux=' + real], 600,
                   env=clean_env(self.fresh('home-deb-full'))).stdout
        self.compare_real_reports(mine, full, False)
        log('cold -U server: %s; %s' % (sent, next(
            x for x in said if 'supplied' in x)))

    @staticmethod
    def compare_real_reports(mine, full, callchains):
        a, b = mine.splitlines(), full.splitlines()
        if len(a) != len(b):
            raise E2EError('reports of %d and %d lines' % (len(a), len(b)))
        raw = 0
        for x, y in zip(a, b):
            if x == y:
                continue
            # an address no symbol covers: perf prints it from the offset
            if not (' [k] 0x' in x and ' [k] 0x' in y and
                    x.split('[k]')[0] == y.split('[k]')[0]):
                raise E2EError('differ: %r, %r' % (x, y))
            raw += 1
        log('real vmlinux%s: %d lines, %d the same, %d lines of unresolved '
            'addresses printed from another offset' % (
                ' -g' if callchains else '', len(a), len(a) - raw, raw))

    def run(self):
        if self.cannot_start('symbols-only e2e'):
            return 2
        if not (self.check('profile', self.step_profile) and
                self.check('stand-ins', self.step_standins)):
            return self.finish()
        with DebuginfodServer(self.p('srv'),
                              log_path=self.p('debuginfod.log')) as server:
            self.check('one-section', lambda: self.step_one(server))
            self.check('sections', lambda: self.step_sections(server))
        if self.args.real_vmlinux:
            self.check('real vmlinux', self.step_real)
        if self.args.real_deb:
            self.check('real package, cold -U server', self.step_real_deb)
        return self.finish()

def main(argv=None):
    ap = checks_parser(__doc__)
    ap.add_argument('--duration', type=int, default=3)
    ap.add_argument('--real-vmlinux', help='also check this vmlinux')
    ap.add_argument('--real-deb', help='also check this linux-image-*-dbg '
                    'package, served by a cold debuginfod -U')
    return run_checks(Runner, ap.parse_args(argv), 'symbols-only e2e')


if __name__ == '__main__':
    sys.exit(main())
