# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Fetches from a real debuginfod: cold fetches of the real vmlinux, misses,
coalescing, and the symbols-only fetch through a rate-limited link.

Requests and bytes are counted at the server, from its /metrics.
"""
import glob
import hashlib
import os
import statistics
import subprocess
import time

from benchlib import (BenchError, clean_env, column, drop_dirty,
                      interleave, log, paired_ratio, summary, timed,
                      verdict, verdict_at_most)
from debuginfod_server import metric, response_counts
from elf_fixtures import read_sections
from link_proxy import ThrottleProxy
from valgrind_tools import by_function, callgrind_ir, largest_change

SERVED_TYPES = ('debuginfo', 'executable', 'section')


def served(server):
    """{'transfers': 200 responses with a file, 'bytes': their bytes,
    (code, type): responses} so far."""
    m = server.metrics()
    out = dict(response_counts(m))
    out['transfers'] = sum(metric(m, 'http_responses_transfer_bytes_count',
                                  code='200', type=t) for t in SERVED_TYPES)
    out['bytes'] = sum(metric(m, 'http_responses_transfer_bytes_sum',
                              code='200', type=t) for t in SERVED_TYPES)
    return out


def delta(after, before, key):
    return after.get(key, 0) - before.get(key, 0)


def file_check(size):
    """A check of stdout: the path printed is a file of SIZE bytes."""
    def check(out):
        path = out.strip().splitlines()[-1] if out.strip() else ''
        if not path or os.path.getsize(path) != size:
            raise BenchError('expected a %d-byte file, got %r' % (size, out))
    return check


def counted(server, fn):
    """fn() with the server's transfers and bytes during it added."""
    before = served(server)
    r = fn()
    after = served(server)
    r['transfers'] = delta(after, before, 'transfers')
    r['bytes'] = delta(after, before, 'bytes')
    return r


def cold_fetch(su, server, label):
    """Item 1: the whole vmlinux into an empty client cache, three ways."""
    k = su.kernel
    cache = os.path.join(su.tmp, 'cold')
    env = su.client_env(server.url, cache)
    out = os.path.join(cache, 'vmlinux')
    url = '%s/buildid/%s/debuginfo' % (server.url, k['build_id'])
    cmds = {
        'symprov find': (su.symprov_find(k['build_id']), None),
        'debuginfod-find': (['debuginfod-find', 'debuginfo',
                             k['build_id']], None),
        'curl -o': (['curl', '-sSf', '--noproxy', '*', '-o', out, url],
                    out),
    }

    def case(name):
        cmd, target = cmds[name]

        def run():
            su.dir('cold')
            r = counted(server, lambda: timed(
                cmd, env, check_output=None if target else
                file_check(k['size'])))
            if target and os.path.getsize(target) != k['size']:
                raise BenchError('%s: wrong size' % name)
            if r['transfers'] != 1:
                raise BenchError('%s: %d transfers' % (name,
                                                       r['transfers']))
            su.dir('cold')
            drop_dirty()
            return r
        return name, run

    data = interleave([case(n) for n in cmds], su.fetch_rounds)
    su.results.raw['cold_fetch_' + label] = data
    if label.endswith('-F'):
        # What the provider adds to libdebuginfod, without the noise of
        # the transfer: instructions in user space.
        fns, ir = {}, {}
        for name in ('debuginfod-find', 'symprov find'):
            su.dir('cold')
            out = os.path.join(su.tmp, 'callgrind.cold.' + name.split()[0])
            ir[name] = callgrind_ir(cmds[name][0], env, out)
            fns[name] = by_function(out, None)
        su.results.raw['cold_fetch_instructions'] = ir
        su.results.add('1', 'cold fetch, %s: symprov find vs debuginfod-find, '
                       'instructions in user space (callgrind)' % label,
                       ir['symprov find'], '', ir['debuginfod-find'],
                       ir['symprov find'] / ir['debuginfod-find'],
                       detail='largest change: ' + largest_change(
                           fns['debuginfod-find'], fns['symprov find']))
        # What the transfer costs in system calls, where the gap to curl is.
        for name, (cmd, _target) in cmds.items():
            su.dir('cold')
            calls = syscalls(cmd, env, os.path.join(su.tmp, 'strace.out'))
            su.results.raw['cold_fetch_syscalls_' + name] = calls
            su.results.add('1', 'cold fetch, %s: %s system calls' % (
                label, name), sum(calls.values()), '',
                detail='%d recvfrom() of %.1f KiB on average, %d poll(), '
                '%d write()' % (
                    calls.get('recvfrom', 0),
                    k['size'] / 1024 / max(1, calls.get('recvfrom', 0)),
                    calls.get('poll', 0) + calls.get('ppoll', 0),
                    calls.get('write', 0)))
        su.dir('cold')
    t = {n: summary(column(data[n])) for n in cmds}
    mb = k['size'] / 1e6
    paired = paired_ratio(column(data['symprov find']),
                          column(data['debuginfod-find']))
    cpu = [statistics.median(column(data[n], 'cpu_s'))
           for n in ('symprov find', 'debuginfod-find')]
    su.results.add('1', 'cold fetch, %s: symprov find (provider) vs '
                   'debuginfod-find' % label, t['symprov find'], 's',
                   t['debuginfod-find'],
                   ratio(t['symprov find'], t['debuginfod-find']), '<= 1.02',
                   verdict_at_most(paired, 1.02),
                   '%.0f MB/s; per-round ratio %.3f, 95 %% CI %.3f-%.3f; '
                   'CPU time %.3f s vs %.3f s' % (
                       (mb / t['symprov find']['median'],) + paired +
                       tuple(cpu)))
    su.results.add('1', 'cold fetch, %s: symprov find vs curl -o' % label,
                   t['symprov find'], 's', t['curl -o'],
                   ratio(t['symprov find'], t['curl -o']),
                   detail='curl %.0f MB/s' % (mb / t['curl -o']['median']))
    su.results.add('1', 'cold fetch, %s: debuginfod-find vs curl -o' % label,
                   t['debuginfod-find'], 's', t['curl -o'],
                   ratio(t['debuginfod-find'], t['curl -o']))
    return t


def syscalls(cmd, env, out):
    """{system call: calls} of CMD and its threads, by strace -c."""
    subprocess.run(['strace', '-f', '-c', '-o', out] + cmd, env=env,
                   check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=600)
    calls = {}
    with open(out) as f:
        for line in f:
            fields = line.split()
            if len(fields) in (5, 6) and fields[3].isdigit() and \
                    fields[-1] != 'total':
                calls[fields[-1]] = int(fields[3])
    return calls


def ratio(a, b):
    return a['median'] / b['median']


def parse_lookup(out):
    """{mode: [ns per lookup, by round]} and the status of bench_lookup."""
    modes, status = {}, None
    for line in out.splitlines():
        parts = line.split()
        if parts[0] == 'status':
            status = ' '.join(parts[1:])
        else:
            modes.setdefault(parts[0], []).append(float(parts[2]) / 1e9)
    return modes, status


def run_lookup(su, env, build_id, modes, rounds, per_round, file=None):
    cmd = [su.bench_lookup, '-r', str(rounds), '-n', str(per_round), '-m',
           modes, su.provider, build_id] + ([file] if file else [])
    res = subprocess.run(cmd, env=env, capture_output=True, text=True,
                         timeout=1800)
    if res.returncode:
        raise BenchError('%s failed: %s' % (' '.join(cmd), res.stderr))
    return parse_lookup(res.stdout)


def misses(su, server):
    """Item 3: an unknown build ID, asked again in the process, in new
    sessions and in new processes; requests counted at the server."""
    miss = hashlib.sha1(b'symprov-bench-miss %d' % time.time_ns()).hexdigest()
    cache = su.dir('miss')
    env = su.client_env(server.url, cache)
    before = served(server)
    modes, status = run_lookup(su, env, miss, 'session,repeat', su.rounds,
                               100)
    if status != 'not found':
        raise BenchError('unknown build ID: %s' % status)
    inproc = served(server)
    data = interleave([
        ('symprov find', lambda: timed(su.symprov_find(miss), env, rc=2)),
        ('debuginfod-find', lambda: timed(['debuginfod-find', 'debuginfo',
                                           miss], env, rc=1)),
    ], su.rounds, warmup=0)
    after = served(server)
    su.results.raw['misses'] = {'in_process': modes, 'processes': data}
    with open(os.path.join(cache, 'cache_miss_s')) as f:
        window = f.read().strip()
    lookups = 1 + su.rounds * (100 + 101)  # first, sessions, repeats
    for typ in ('debuginfo', 'executable'):
        n = delta(inproc, before, ('404', typ))
        su.results.add('3', 'misses in process: %s requests at the server '
                       'for %d lookups' % (typ, lookups), n, '',
                       target='1 per cache_miss_s (%s s)' % window,
                       verdict=verdict(n == 1))
        n = delta(after, inproc, ('404', typ))
        su.results.add('3', 'misses in %d more processes: %s requests' % (
            2 * su.rounds, typ), n, '', target='0 (same window)',
            verdict=verdict(n == 0))
    first = modes['first'][0]
    session = summary(modes['session'])
    su.results.add('3', 'miss, first lookup in a process (two 404s)',
                   first, 's')
    su.results.add('3', 'miss, new session in the process (libdebuginfod '
                   'negative cache)', session, 's')
    su.results.add('3', 'miss, again in the session (memo)',
                   summary(modes['repeat']), 's')
    t = {n: summary(column(data[n])) for n in data}
    su.results.add('3', 'miss, new process: symprov find vs debuginfod-find',
                   t['symprov find'], 's', t['debuginfod-find'],
                   ratio(t['symprov find'], t['debuginfod-find']))


def coalescing(su, server, rounds):
    """Item 4: eight threads, then eight processes, for one cold build ID."""
    k = su.kernel
    cache = os.path.join(su.tmp, 'coalesce')
    env = su.client_env(server.url, cache)

    def threads(n):
        def run():
            su.dir('coalesce')
            r = counted(server, lambda: timed(
                [su.concurrent_find, su.provider, str(n), k['build_id']],
                env))
            drop_dirty()
            return r
        return run

    def processes(n):
        def run():
            su.dir('coalesce')

            def all_of_them():
                start = time.perf_counter()
                procs = [subprocess.Popen(su.symprov_find(k['build_id']),
                                          env=env, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE)
                         for _ in range(n)]
                outs = [p.communicate(timeout=600) for p in procs]
                elapsed = time.perf_counter() - start
                for p, (out, err) in zip(procs, outs):
                    if p.returncode:
                        raise BenchError('symprov find failed: %s' % err)
                    file_check(k['size'])(out.decode())
                return {'s': elapsed}
            r = counted(server, all_of_them)
            drop_dirty()
            return r
        return run

    data = interleave([('1 thread', threads(1)), ('8 threads', threads(8)),
                       ('1 process', processes(1)),
                       ('8 processes', processes(8))], rounds)
    su.results.raw['coalescing'] = data
    t = {n: summary(column(data[n])) for n in data}
    xfer = {n: summary(column(data[n], 'transfers')) for n in data}
    su.results.add('4', '8 threads, one loader, one cold build ID: '
                   'transfers at the server', xfer['8 threads'], '',
                   target='1', verdict=verdict(xfer['8 threads']['max'] == 1))
    su.results.add('4', '8 threads: wall time vs one thread', t['8 threads'],
                   's', t['1 thread'], ratio(t['8 threads'], t['1 thread']))
    su.results.add('4', '8 processes at once: transfers at the server',
                   xfer['8 processes'], '')
    su.results.add('4', '8 processes: wall time vs one process',
                   t['8 processes'], 's', t['1 process'],
                   ratio(t['8 processes'], t['1 process']))


def first_fetch(server, kernel, index):
    """Seconds for curl to fetch the vmlinux to /dev/null.  A server that
    does not serve it has an index without it (debuginfod -U without
    bsdtar records the .deb as scanned): INDEX is removed for the next run.
    """
    url = '%s/buildid/%s/debuginfo' % (server.url, kernel['build_id'])
    start = time.perf_counter()
    r = subprocess.run(['curl', '-sS', '--noproxy', '*', '-o', '/dev/null',
                        '-w', '%{http_code} %{size_download}', url],
                       capture_output=True, text=True, timeout=1800)
    elapsed = time.perf_counter() - start
    code, size = (r.stdout.split() + ['?', '0'])[:2]
    if code != '200' or int(size) != kernel['size']:
        for f in glob.glob(index + '*'):
            os.unlink(f)
        raise BenchError('the server does not serve %s (HTTP %s, %s bytes); '
                         'its index is removed, run again (debuginfod -U '
                         'needs bsdtar: libarchive-tools)'
                         % (kernel['build_id'], code, size))
    return elapsed


def table_bytes(vmlinux):
    """Bytes of .symtab and .strtab in VMLINUX."""
    secs = read_sections(vmlinux)
    return sum(secs[name][4] for name in ('.symtab', '.strtab'))


def link_runner(su, server, proxy, moved):
    """A cold lookup of the kernel through PROXY: perf report of the moved
    profile when perf can run here, else symprov find.  Returns
    (what, case(full)): case() gives a function for interleave()."""
    k = su.kernel
    cache = os.path.join(su.tmp, 'link')
    conf = os.path.join(su.tmp, 'perfconfig-full')
    with open(conf, 'w') as f:
        f.write('[symprov]\n\tcontent = full\n')

    def case(full, reports):
        def run():
            su.dir('link')
            home = su.dir('link-home')
            extra = {'PERF_SYMBOL_PROVIDERS': su.provider}
            if full:
                extra['PERF_CONFIG'] = conf
            env = clean_env(home, extra)
            env.update(DEBUGINFOD_URLS=proxy.url,
                       DEBUGINFOD_CACHE_PATH=cache)
            if moved:
                # in a PID namespace, as bench_perf.py runs perf report
                cmd = ['unshare', '--pid', '--fork', '--mount-proc',
                       su.perf, 'report', '--stdio', '--sort', 'dso,sym',
                       '-i', moved]
            else:
                cmd = su.symprov_find(k['build_id'],
                                      *([] if full else ['--symbols-only']))
            down = proxy.down_bytes
            r = counted(server, lambda: timed(
                cmd, env, timeout=3600, check_output=reports.append))
            r['link_bytes'] = proxy.down_bytes - down
            drop_dirty()
            return r
        return run
    return ('cold perf report --sort dso,sym' if moved else 'symprov find',
            case)


def resolved(report):
    """The kernel lines of a perf report that a symbol covers.  A sample
    no symbol covers prints as an address, or as a symbol plus an offset
    past its end, which perf computes from the section's file offset: a
    symbols-only file has other offsets (include/symprov.h)."""
    return [line for line in report.splitlines()
            if '[k]' in line and '[k] 0x' not in line and
            '+0x' not in line.partition('[k]')[2]]


def same_symbols(su, mbit, reports):
    """A row: every report names the kernel symbols of the first one of
    the full file, with the same share of the samples."""
    first = resolved(reports['full'][0])
    if not first:
        raise BenchError('%d Mbit/s link: no kernel symbol in the report'
                         % mbit)
    differ = []
    for name in ('full', 'symbols only'):
        for r in reports[name]:
            k = resolved(r)
            differ += [name + ': ' + x.strip() for x in k if x not in first]
            differ += ['not in %s: %s' % (name, x.strip())
                       for x in first if x not in k]
    su.results.add('b', '%d Mbit/s link: kernel lines a symbol covers, in '
                   'every report (full and symbols only)' % mbit,
                   len(first), '', target='the same',
                   verdict=verdict(not differ),
                   detail='; '.join(differ[:2]) if differ else
                   'the same in all %d' % (len(reports['full']) +
                                           len(reports['symbols only'])))


def link(su, server, mbits, rounds, moved=None):
    """Symbols only against the full file through a rate-limited link: a
    cold perf report (symprov find without perf), wall time and bytes
    counted at the server; the two reports must name the same symbols."""
    tables = table_bytes(su.kernel['vmlinux'])
    for mbit in mbits:
        with ThrottleProxy(server.port, mbit) as proxy:
            what, case = link_runner(su, server, proxy, moved)
            reports = {'full': [], 'symbols only': []}
            cases = [(n, case(n == 'full', reports[n])) for n in reports]
            log('%d Mbit/s link: %d round(s) of %s, full and symbols only'
                % (mbit, rounds, what))
            data = interleave(cases, rounds, warmup=0)
        su.results.raw['link_%d' % mbit] = data
        if moved:
            same_symbols(su, mbit, reports)
        full_t = summary(column(data['full']))
        full_b = summary(column(data['full'], 'bytes'))
        sym_t = summary(column(data['symbols only']))
        sym_b = summary(column(data['symbols only'], 'bytes'))
        su.results.add('b', '%d Mbit/s link: %s, full file, wall time'
                       % (mbit, what), full_t, 's',
                       detail='%.1f Mbit/s effective' % (
                           full_b['median'] * 8 / 1e6 / full_t['median']))
        su.results.add('b', '%d Mbit/s link: full file, bytes at the '
                       'server' % mbit, full_b, 'B')
        su.results.add('b', '%d Mbit/s link: symbols only, bytes at the '
                       'server vs .symtab + .strtab' % mbit, sym_b, 'B',
                       summary([tables]), sym_b['median'] / tables,
                       '< 1.2', verdict(sym_b['median'] < 1.2 * tables))
        targets = ('>= 20x fewer bytes', '>= 10x less wall time') \
            if mbit == 20 else (None, None)
        for name, v, base, unit, target, need in (
                ('bytes', sym_b, full_b, 'B', targets[0], 20),
                ('wall time', sym_t, full_t, 's', targets[1], 10)):
            gain = base['median'] / v['median'] if v['median'] else 0
            su.results.add('b', '%d Mbit/s link: symbols only vs full, %s'
                           % (mbit, name), v, unit, base, ratio(v, base),
                           target, verdict(gain >= need) if target
                           else 'reported', '%.1fx less' % gain)
