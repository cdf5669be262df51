# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Modules and data types on Debian's real package (make bench --only
objects,types).

objects: every module of the -dbg package, the whole .ko against its
symbol tables (what a symbols-only file holds); the profile's modules
fetched cold through the link, whole against symbols only; a profile of the
kernel and four of the package's modules through a 20 Mbit/s link with a
round trip of RTT seconds, its files fetched one at a time (symprov.jobs
= 1) against side by side (the default, 4); 8 perf reports at once on the
cold profile against one, transfers counted at the server.

types: `perf report -s type` of a profile whose kernel samples sit on
memory loads of the real vmlinux (tests/e2e/run_types_e2e.py), cold
through the provider and the 20 Mbit/s link (the whole file: types need
DWARF) against `--vmlinux` of the file on disk; and the bytes of the
sections the data-type path reads (DWARF, symbols, code) against the
whole file, the saving a fetch of those sections alone would bring.
"""
import os
import statistics
import subprocess

import bench_fetch
import bench_perf
import debfiles
import objects_fixture
from benchlib import (BenchError, clean_env, column, interleave, log,
                      summary, timed, verdict)
from debuginfod_server import DebuginfodServer
from elf_fixtures import read_sections
from link_proxy import ThrottleProxy
from run_types_e2e import REAL_FUNCTIONS, REAL_STRUCTS, memory_loads, put_on

MBIT = 20
RTT = 0.1
PROFILE_MODULES = ('dm-crypt.ko', 'aesni-intel.ko', 'zram.ko',
                   'lz4_compress.ko')
MODULES_PREFIX = './usr/lib/debug/lib/modules/'


def package_modules(su):
    """Every .ko of the -dbg package, extracted once into the cache."""
    d = os.path.join(su.kernel['cache'], 'modules')
    names = debfiles.members(su.kernel['deb'], MODULES_PREFIX)
    names = [n for n in names if n.endswith('.ko')]
    paths = [os.path.join(d, n) for n in names]
    if not all(os.path.exists(p) for p in paths):
        log('extracting the %d modules of %s' % (len(names),
                                                 su.kernel['package']))
        debfiles.extract(su.kernel['deb'], names, d)
    return paths


def tables(path):
    secs = read_sections(path)
    return sum(secs[n][4] for n in ('.symtab', '.strtab') if n in secs)


def module_sizes(su, kos):
    full = [os.path.getsize(p) for p in kos]
    tabs = [tables(p) for p in kos]
    ratios = [t / f for t, f in zip(tabs, full) if f]
    su.results.add('o', 'modules of the package (%d): whole .ko files, '
                   'bytes in all' % len(kos), summary([sum(full)]), 'B')
    su.results.add('o', 'their .symtab + .strtab vs the whole .ko, bytes '
                   'in all (median of the per-module ratios %.3f)'
                   % statistics.median(ratios), summary([sum(tabs)]), 'B',
                   summary([sum(full)]), sum(tabs) / sum(full),
                   detail="what a module's symbols-only file holds, "
                   'with its section headers')


def served_dir(su, name, files):
    """TMP/NAME with a link to each of FILES: what one server serves."""
    d = su.dir(name)
    for f in files:
        os.symlink(f, os.path.join(d, os.path.basename(f)))
    return d


def report_env(su, url, cache, jobs=None):
    extra = {'PERF_SYMBOL_PROVIDERS': su.provider,
             'DEBUGINFOD_URLS': url, 'DEBUGINFOD_CACHE_PATH': cache}
    if jobs:
        conf = os.path.join(su.tmp, 'perfconfig-jobs-%d' % jobs)
        with open(conf, 'w') as f:
            f.write('[symprov]\n\tjobs = %d\n' % jobs)
        extra['PERF_CONFIG'] = conf
    return clean_env(su.dir('home-objects'), extra)


def profile_of_modules(su, kos):
    """The moved profile with four of the package's modules spliced in."""
    if not su.moved:
        _, su.moved = bench_perf.record_profile(su)
    mods = [objects_fixture.Module(p) for p in kos]
    dst = os.path.join(su.tmp, 'modules.data')
    objects_fixture.splice_modules(su.moved, dst, mods)
    return dst, mods


def side_by_side(su, server, data, rounds):
    reports = []

    def case(jobs):
        def run():
            env = report_env(su, proxy.url, su.dir('cache-objects'), jobs)
            r = bench_fetch.counted(server, lambda: timed(
                bench_perf.ALONE + [su.perf] + bench_perf.REPORT +
                ['-i', data], env, timeout=1800,
                check_output=reports.append))
            return r
        return run

    with ThrottleProxy(server.port, MBIT, hold=RTT) as proxy:
        log('%d Mbit/s link, %.1f s round trip: %d round(s) of a cold '
            'perf report of the kernel and 4 modules, serial and side by '
            'side' % (MBIT, RTT, rounds))
        data_ = interleave([('serial', case(1)), ('side by side', case(0))],
                           rounds, warmup=0)
    su.results.raw['objects_link'] = data_
    if any(bench_perf.report_lines(r) != bench_perf.report_lines(reports[0])
           for r in reports):
        raise BenchError('objects: the reports differ')
    ser, par = (summary(column(data_[n])) for n in ('serial', 'side by side'))
    su.results.add('o', '%d Mbit/s link, %.1f s round trip: cold perf '
                   'report of the kernel and 4 modules, side by side (jobs '
                   '4) vs one at a time (jobs 1)' % (MBIT, RTT), par, 's',
                   ser, bench_fetch.ratio(par, ser), '< 1', verdict(
                       par['median'] < ser['median']),
                   '%.1f MiB at the server a report' % (
                       statistics.median(column(data_['serial'], 'bytes'))
                       / 1048576))


def module_content(su, server, mods, rounds):
    """The profile's modules fetched cold through the link, each whole
    against its symbols only (symprov find, one after the other)."""
    def case(opts):
        def run():
            cache = su.dir('cache-content')
            env = su.client_env(proxy.url, cache)

            def fetch():
                out = {'s': 0.0}
                for m in mods:
                    out['s'] += timed(su.symprov_find(
                        m.build_id, '--kind', 'module', *opts), env)['s']
                return out
            return bench_fetch.counted(server, fetch)
        return run

    with ThrottleProxy(server.port, MBIT, hold=RTT) as proxy:
        log('%d Mbit/s link: %d round(s) of %d modules cold, whole and '
            'symbols only' % (MBIT, rounds, len(mods)))
        data_ = interleave([('whole', case(())),
                            ('symbols', case(('--symbols-only',)))],
                           rounds, warmup=0)
    su.results.raw['objects_content'] = data_
    for what in ('bytes', 's'):
        sym, whole = (summary(column(data_[n], what))
                      for n in ('symbols', 'whole'))
        su.results.add('o', '%d modules of the profile (%s) cold through '
                       'the %d Mbit/s link: symbols only vs whole, %s' % (
                           len(mods), ', '.join(m.short for m in mods),
                           MBIT, 'bytes at the server' if what == 'bytes'
                           else 'wall time'), sym,
                       'B' if what == 'bytes' else 's', whole,
                       bench_fetch.ratio(sym, whole), '< 1',
                       verdict(sym['median'] < whole['median']))


def processes(su, server, data):
    def reports(n):
        env = report_env(su, server.url, su.dir('cache-procs'))
        procs = [subprocess.Popen(bench_perf.ALONE + [su.perf] +
                                  bench_perf.REPORT + ['-i', data], env=env,
                                  stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
                 for _ in range(n)]
        if any(p.wait(timeout=1800) for p in procs):
            raise BenchError('objects: a perf report failed')
        return {}

    one = bench_fetch.counted(server, lambda: reports(1))['transfers']
    eight = bench_fetch.counted(server, lambda: reports(8))['transfers']
    su.results.add('o', '8 perf reports at once on the cold profile: '
                   'transfers at the server vs one report', summary([eight]),
                   '', summary([one]), eight / one if one else None,
                   'the same', verdict(eight == one))


def objects(su, rounds):
    kos = package_modules(su)
    module_sizes(su, kos)
    chosen = [p for p in kos if os.path.basename(p) in PROFILE_MODULES]
    if len(chosen) != len(PROFILE_MODULES):
        raise BenchError('the package lacks one of %s' % (PROFILE_MODULES,))
    data, mods = profile_of_modules(su, chosen)
    root = served_dir(su, 'srv-objects', [su.kernel['vmlinux']] + chosen)
    with DebuginfodServer(root, extra_args=['-F', '-L'],
                          index_timeout=1800) as srv:
        side_by_side(su, srv, data, rounds)
        processes(su, srv, data)
        module_content(su, srv, mods, rounds)


def type_sections(path):
    """Bytes of the sections perf's data-type path reads (DWARF, the
    symbol tables, the code it disassembles) and of the file."""
    secs = read_sections(path)
    need = sum(s[4] for n, s in secs.items()
               if n.startswith('.debug_') or n in ('.symtab', '.strtab') or
               ('A' in s[2] and 'X' in s[2] and s[1] != 'NOBITS'))
    return need, os.path.getsize(path)


def types(su, rounds):
    k = su.kernel
    if not su.moved:
        _, su.moved = bench_perf.record_profile(su)
    orig = os.path.join(su.tmp, 'orig.data')
    data = os.path.join(su.tmp, 'types.data')
    put_on(orig, data, k['build_id'], memory_loads(k['vmlinux'],
                                                   REAL_FUNCTIONS))
    args = bench_perf.ALONE + [su.perf, 'report', '--stdio', '-s', 'type',
                               '-i', data]
    reports = {'provider': [], '--vmlinux': []}

    def local():
        return timed(args + ['--vmlinux=' + k['vmlinux']],
                     clean_env(su.dir('home-types')), timeout=1800,
                     check_output=reports['--vmlinux'].append)

    root = served_dir(su, 'srv-types', [k['vmlinux']])
    with DebuginfodServer(root, extra_args=['-F', '-L'],
                          index_timeout=1800) as srv, \
            ThrottleProxy(srv.port, MBIT) as proxy:
        def cold():
            env = report_env(su, proxy.url, su.dir('cache-types'))
            return bench_fetch.counted(srv, lambda: timed(
                args, env, timeout=3600,
                check_output=reports['provider'].append))
        log('%d Mbit/s link: %d round(s) of a cold perf report -s type '
            '(the whole vmlinux) and of --vmlinux' % (MBIT, rounds))
        data_ = interleave([('provider', cold), ('--vmlinux', local)],
                           rounds, warmup=0)
    su.results.raw['types'] = data_
    mine = [bench_perf.report_lines(r) for r in reports['provider']]
    ref = bench_perf.report_lines(reports['--vmlinux'][0])
    named = [s for s in REAL_STRUCTS if any(s in x for x in ref)]
    cold_t = summary(column(data_['provider']))
    local_t = summary(column(data_['--vmlinux']))
    su.results.add('t', 'perf report -s type, cold through the provider '
                   'and a %d Mbit/s link vs --vmlinux on disk' % MBIT,
                   cold_t, 's', local_t, bench_fetch.ratio(cold_t, local_t),
                   'the same report', verdict(
                       all(m == ref for m in mine) and
                       len(named) == len(REAL_STRUCTS)),
                   'names %s; %.1f MiB at the server' % (
                       ', '.join(named), statistics.median(
                           column(data_['provider'], 'bytes')) / 1048576))
    need, whole = type_sections(k['vmlinux'])
    su.results.add('t', 'the sections -s type reads (DWARF, symbols, code) '
                   'vs the whole vmlinux, bytes', summary([need]), 'B',
                   summary([whole]), need / whole,
                   detail='a fetch of those alone would save %.0f %%; not '
                   'done' % (100 - 100.0 * need / whole))


def run_all(su, parts, rounds):
    why = bench_perf.can_run((su.perf,))
    if why:
        for part in parts & {'objects', 'types'}:
            su.results.skip(part[0], part, 'not run', why)
        return
    if 'objects' in parts:
        objects(su, rounds)
    if 'types' in parts:
        types(su, rounds)
