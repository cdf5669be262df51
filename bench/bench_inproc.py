# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Inside one process: a warm lookup through the loader and the provider,
the check of a file's build ID, and the provider's heap (massif), each
against what it cannot do without.
"""
import os
import subprocess

from bench_fetch import file_check, run_lookup
from benchlib import BenchError, summary, verdict
from valgrind_tools import callgrind_ir, massif_peak, memcheck_in_use

LOOKUPS_PER_ROUND = 1000


def warm_cache(su, server):
    """A client cache holding the vmlinux; (env, path of the file)."""
    cache = su.dir('warm')
    env = su.client_env(server.url, cache)
    r = subprocess.run(su.symprov_find(su.kernel['build_id']), env=env,
                       capture_output=True, text=True, timeout=600)
    if r.returncode:
        raise BenchError('symprov find: %s' % r.stderr)
    file_check(su.kernel['size'])(r.stdout)
    return env, r.stdout.strip()


def warm_lookup(su, env, path):
    """Item 2: per lookup from a warm cache, against a stat() of the file."""
    k = su.kernel
    modes, status = run_lookup(su, env, k['build_id'],
                               'stat,find,session,repeat', su.rounds,
                               LOOKUPS_PER_ROUND, path)
    if status != 'found':
        raise BenchError('warm lookup: %s' % status)
    su.results.raw['warm_lookup'] = modes
    stat = summary(modes['stat'])
    for mode, what, target in (
            ('find', 'warm lookup, first of a session (loader, provider, '
             'libdebuginfod cache, build ID check)', '< 50 us'),
            ('session', 'warm lookup with its session\'s set-up and end '
             '(init, fini; library already mapped)', None),
            ('repeat', 'warm lookup, again in the session (memo)', None)):
        t = summary(modes[mode])
        su.results.add('2', what + ' vs stat()', t, 's', stat,
                       t['median'] / stat['median'], target,
                       verdict(t['median'] < 50e-6) if target
                       else 'reported')
    first = [run_lookup(su, env, k['build_id'], 'session', 0, 1,
                        path)[0]['first'][0] for _ in range(su.rounds)]
    su.results.raw['warm_lookup_first'] = first
    su.results.add('2', 'warm lookup, first in a process (dlopen of the '
                   'provider and its libraries included)', summary(first),
                   's', detail='one process a round')
    # Where a session's time goes, repeatably: instructions per lookup,
    # and of them the checks of the file, the provider's and the loader's.
    def lookups(n, only=None):
        return callgrind_ir([su.bench_lookup, '-r', '1', '-n', str(n), '-m',
                             'session', su.provider, k['build_id'], path],
                            env, os.path.join(su.tmp, 'callgrind.lookup.%d'
                                              % n), only=only)
    irs = [lookups(n) for n in (1, 101)]
    checks = [lookups(n, 'symprov_verify_build_id') for n in (1, 101)]
    su.results.raw['warm_lookup_ir'] = irs
    su.results.raw['warm_lookup_check_ir'] = checks
    per = (irs[1] - irs[0]) // 100
    check = (checks[1] - checks[0]) // 100
    su.results.add('2', 'warm lookup with its session: instructions '
                   '(callgrind)', per, 'instructions')
    su.results.add('2', 'of which the two checks of the file (provider '
                   'and loader, symprov_verify_build_id)', check,
                   'instructions', per, check / per if per else 0)
    su.results.add('2', 'the lookup without them', per - check,
                   'instructions', detail='the < 50 us target was set for '
                   'a check of the headers alone')


def verify_cost(su, path, report):
    """The check of a file a server sent (lib/symprov_verify.c) on the real
    vmlinux, against a warm perf report (REPORT, a summary, or None)."""
    out = subprocess.run([su.bench_verify, '-r', str(su.rounds), '-n', '100',
                          path, su.kernel['build_id']], capture_output=True,
                         text=True, timeout=1800)
    if out.returncode:
        raise BenchError('bench_verify: %s' % out.stderr)
    calls = {}
    for line in out.stdout.splitlines():
        name, _, ns = line.split()
        calls.setdefault(name, []).append(float(ns) / 1e9)
    su.results.raw['verify'] = calls
    v = summary(calls['verify'])
    if report is None:
        su.results.add('a', 'build ID check of the %d MB vmlinux '
                       '(symprov_verify_build_id) vs open()+close()'
                       % (su.kernel['size'] // 10**6), v, 's',
                       summary(calls['open']),
                       detail='no perf report to compare with')
        return
    share = v['median'] / report['median']
    su.results.add('a', 'build ID check of the %d MB vmlinux '
                   '(symprov_verify_build_id) vs a warm perf report'
                   % (su.kernel['size'] // 10**6), v, 's', report, share,
                   '< 0.05', verdict(share < 0.05),
                   'open()+close() alone %.1f us' % (
                       summary(calls['open'])['median'] * 1e6))


def provider_heap(su, env, path):
    """Item 7: the heap of a process that makes one warm lookup, what 100
    more lookups add at the peak (massif) and at exit (memcheck), and what
    a load and unload of the provider leaves behind."""
    def cmd(*rn):
        return [su.bench_lookup, '-m', 'session'] + list(rn) + [
            su.provider, su.kernel['build_id'], path]
    # -r 0: the process' first session only; then 1 and 101 sessions more,
    # each set up and ended with the provider library mapped.
    none, one, more = cmd('-r', '0'), cmd('-r', '1', '-n', '1'), \
        cmd('-r', '1', '-n', '101')
    peaks = [massif_peak(c, env, os.path.join(su.tmp, 'massif.%d' % i))
             for i, c in enumerate((one, more))]
    left = [memcheck_in_use(c, env) for c in (none, one, more)]
    su.results.raw['heap'] = {'massif_peak': peaks, 'memcheck_left': left}
    su.results.add('7', 'heap peak of a process with warm lookups (massif; '
                   'set-up of libcurl and libdebuginfod included)',
                   peaks[0], 'B')
    su.results.add('7', 'heap peak after 100 more lookups', peaks[1], 'B',
                   peaks[0], peaks[1] / peaks[0],
                   detail='%+.0f B per lookup' % ((peaks[1] - peaks[0]) / 100))
    su.results.add('7', 'heap still allocated at exit after 100 more lookups '
                   '(memcheck)', left[2], 'B', left[1],
                   detail='%+.0f B per lookup' % ((left[2] - left[1]) / 100))
    su.results.add('7', 'heap lost by a load, lookup and unload of the '
                   'provider (memcheck)', left[1] - left[0], 'B',
                   detail="libcurl's global set-up, which libdebuginfod "
                   'never undoes')
