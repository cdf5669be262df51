# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""perf report on a profile of this machine moved to the real kernel: with
the provider against --vmlinux, and the patched perf without a provider
against the perf 6.12 built the same way without the patch.
"""
import json
import os
import subprocess
import sys

from bench_fetch import served
from benchlib import (NOT_RUN, REPO, BenchError, clean_env, column, log,
                      interleave, paired_ratio, summary, timed, verdict,
                      verdict_at_most)
from valgrind_tools import by_function, callgrind_ir, largest_change

E2E = os.path.join(REPO, 'tests', 'e2e')
REPORT = ['report', '--stdio', '--sort', 'dso,sym']
# perf report reads /proc/PID of every thread in the profile; on a busy
# machine those PIDs soon belong to other processes, whose mount
# namespaces change what perf loads.  In a PID namespace of its own, no
# PID of the profile exists: the same input every run.
ALONE = ['unshare', '--pid', '--fork', '--mount-proc']


def can_run(perfs):
    """None, or why perf cannot be measured here."""
    if os.geteuid() != 0:
        return 'needs root (perf record -a)'
    for p in perfs:
        if not os.access(p, os.X_OK):
            return '%s not built' % os.path.relpath(p, REPO)
    return None


def record_profile(su):
    """A profile of this machine, and a copy moved to the real kernel's
    build ID (tests/e2e/make_profile.py)."""
    orig = os.path.join(su.tmp, 'orig.data')
    moved = os.path.join(su.tmp, 'moved.data')
    out = subprocess.run(
        [sys.executable, os.path.join(E2E, 'make_profile.py'),
         '--original', orig, '--moved', moved, '--duration', '3',
         '--build-id', su.kernel['build_id'], '--perf', su.perf],
        check=True, capture_output=True, text=True, timeout=600).stdout
    info = json.loads(out)
    if info['new_build_id'] != su.kernel['build_id']:
        raise BenchError('profile moved to %s' % info['new_build_id'])
    return orig, moved


def report_lines(out):
    """The report without its comment header."""
    return [line for line in out.splitlines()
            if line.strip() and not line.startswith('#')]


def same_report(a, b, what):
    if report_lines(a) != report_lines(b):
        raise BenchError('%s: the reports differ' % what)


def run_report(perf, args, env):
    r = subprocess.run(ALONE + [perf] + REPORT + args, env=env,
                       capture_output=True, text=True, timeout=900)
    if r.returncode:
        raise BenchError('perf report failed: %s' % r.stderr[-2000:])
    return r.stdout


def perf_report(su, server, moved, warm_env, cached):
    """Item 5 and the RSS of item 7: the provider on a warm cache against
    --vmlinux= the same file.  Returns the provider's summary."""
    home = su.dir('perf-home')
    plain = clean_env(home)
    prov = clean_env(home, {
        'DEBUGINFOD_URLS': warm_env['DEBUGINFOD_URLS'],
        'DEBUGINFOD_CACHE_PATH': warm_env['DEBUGINFOD_CACHE_PATH'],
        'PERF_SYMBOL_PROVIDERS': su.provider})
    base_args = ['-i', moved, '--vmlinux=' + cached]
    # Both must show the same symbols, and the provider's none raw.
    want = run_report(su.perf, base_args, plain)
    got = run_report(su.perf, ['-i', moved], prov)
    same_report(want, got, 'provider vs --vmlinux')
    kernel = [line for line in report_lines(got) if '[k]' in line]
    if not kernel or all('[k] 0x' in line for line in kernel):
        raise BenchError('no kernel symbols in the report')
    before = served(server)
    data = interleave([
        ('--vmlinux', lambda: timed(ALONE + [su.perf] + REPORT + base_args,
                                    plain)),
        ('provider', lambda: timed(ALONE + [su.perf] + REPORT +
                                   ['-i', moved], prov)),
    ], su.rounds)
    if served(server) != before:
        raise BenchError('a warm perf report asked the server')
    if os.path.exists(os.path.join(home, '.debug', '.build-id')):
        log('note: perf report wrote a build-id cache in HOME')
    su.results.raw['perf_report'] = data
    t = {n: summary(column(data[n])) for n in data}
    rss = {n: summary(column(data[n], 'rss_kib')) for n in data}
    paired = paired_ratio(column(data['provider']),
                          column(data['--vmlinux']))
    su.results.add('5', 'perf report --sort dso,sym, provider on a warm '
                   'cache vs --vmlinux= the same file', t['provider'], 's',
                   t['--vmlinux'],
                   t['provider']['median'] / t['--vmlinux']['median'],
                   '<= 1.02', verdict_at_most(paired, 1.02),
                   '%d kernel lines; per-round ratio %.3f, 95 %% CI '
                   '%.3f-%.3f' % ((len(kernel),) + paired))
    ir = {}
    for name, cmd, e in (('--vmlinux', REPORT + base_args, plain),
                         ('provider', REPORT + ['-i', moved], prov)):
        ir[name] = callgrind_ir([su.perf] + cmd, e, os.path.join(
            su.tmp, 'callgrind.report.' + name.strip('-')), ALONE)
    su.results.raw['perf_report_instructions'] = ir
    r = ir['provider'] / ir['--vmlinux']
    su.results.add('5', 'the same: instructions (callgrind)', ir['provider'],
                   '', ir['--vmlinux'], r, '<= 1.02', verdict(r <= 1.02))
    check = callgrind_ir([su.perf] + REPORT + ['-i', moved], prov,
                         os.path.join(su.tmp, 'callgrind.report.checks'),
                         ALONE, only='symprov_verify_build_id')
    su.results.add('5', 'of which the checks of the file (perf\'s loader and '
                   'the provider, symprov_verify_build_id)', check, '',
                   ir['provider'], check / ir['provider'])
    su.results.add('7', 'peak RSS of that perf report, provider vs --vmlinux',
                   rss['provider'], 'KiB', rss['--vmlinux'],
                   rss['provider']['median'] / rss['--vmlinux']['median'])
    return t['provider']


def own_instructions(fns):
    """Instructions in perf's own code, and in its symprov functions."""
    own = {f: n for f, n in fns.items() if f.endswith('[perf]')}
    return sum(own.values()), sum(n for f, n in own.items()
                                  if 'symprov' in f)


def no_provider(su, orig, moved):
    """Item 6: the patched perf, no provider configured, against perf 6.12
    built the same way without the patch: time and instructions."""
    home = su.dir('stock-home')
    env = clean_env(home)
    # The control: the stock perf with its heap shifted by a config value
    # it reads and ignores; libc's string functions count instructions
    # by the addresses of the strings.
    shifted = su.dir('stock-shifted')
    with open(os.path.join(shifted, '.perfconfig'), 'w') as f:
        f.write('[bench]\n\tpad = %s\n' % ('x' * 1000))
    for label, data_file in (('profile of this kernel (kallsyms)', orig),
                             ('moved profile, no kernel symbols', moved)):
        args = ['-i', data_file]
        same_report(run_report(su.stock_perf, args, env),
                    run_report(su.perf, args, env),
                    'patched vs stock perf, ' + label)
        data = interleave([
            ('stock', lambda: timed(ALONE + [su.stock_perf] + REPORT + args,
                                    env)),
            ('patched', lambda: timed(ALONE + [su.perf] + REPORT + args,
                                      env)),
        ], su.rounds)
        t = {n: summary(column(data[n])) for n in data}
        r = t['patched']['median'] / t['stock']['median']
        su.results.add('6', 'perf report, %s: patched perf, no provider, vs '
                       'stock perf 6.12: wall time' % label, t['patched'],
                       's', t['stock'], r, '1.00 (+- noise)', 'reported')
        # Instructions: the same twice for the same binary, so they say
        # what the wall time cannot on a shared machine.
        ir, outs = {}, {}
        for name, perf, e in (('stock', su.stock_perf, env),
                              ('patched', su.perf, env),
                              ('stock, heap shifted', su.stock_perf,
                               clean_env(shifted))):
            outs[name] = os.path.join(su.tmp, 'callgrind.%s.%s' % (
                os.path.basename(data_file), name.replace(' ', '')))
            ir[name] = [callgrind_ir([perf] + REPORT + args, e, outs[name],
                                     ALONE)]
            if name != 'stock, heap shifted':
                ir[name].append(callgrind_ir([perf] + REPORT + args, e,
                                             outs[name] + '.again', ALONE))
        fns = {n: by_function(outs[n], p) for n, p in (
            ('stock', su.stock_perf), ('patched', su.perf))}
        own = {n: own_instructions(fns[n]) for n in fns}
        su.results.raw['no_provider_' + os.path.basename(data_file)] = {
            'time': data, 'instructions': ir, 'own': own}
        r = ir['patched'][0] / ir['stock'][0]
        su.results.add('6', 'perf report, %s: instructions (callgrind), '
                       'patched vs stock' % label, ir['patched'][0], '',
                       ir['stock'][0], r, 'within 0.1 %',
                       verdict(abs(r - 1) <= 0.001),
                       'again: stock %+d, patched %+d; stock with its heap '
                       'shifted %+d; largest change: %s' % (
                           ir['stock'][1] - ir['stock'][0],
                           ir['patched'][1] - ir['patched'][0],
                           ir['stock, heap shifted'][0] - ir['stock'][0],
                           largest_change(fns['stock'], fns['patched'])))
        r = own['patched'][0] / own['stock'][0]
        su.results.add('6', 'perf report, %s: instructions in perf\'s own '
                       'code, patched vs stock' % label, own['patched'][0],
                       '', own['stock'][0], r, 'within 0.1 %',
                       verdict(abs(r - 1) <= 0.001),
                       '%d in the symprov functions' % own['patched'][1])


def skip_all(su, why):
    for item, what, target in (
            ('5', 'perf report, provider vs --vmlinux', '<= 1.02'),
            ('6', 'perf report, patched perf without provider vs stock',
             'within 0.1 %'),
            ('7', 'peak RSS of perf report', None)):
        su.results.skip(item, what, NOT_RUN, why, target)
