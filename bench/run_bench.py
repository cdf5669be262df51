#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""make bench: every cost of the provider path beside its baseline.

    run_bench.py [--build DIR] [--results DIR] [--rounds N]
                 [--fetch-rounds N] [--link-rounds N] [--link-mbits 100,20]
                 [--only PARTS]

On Debian's real kernel debug package (bench/kernel_data.py), served by a
debuginfod on 127.0.0.1 from the extracted vmlinux (-F) and from the .deb
itself (-U).  PARTS, comma-separated, from: fetch, lookup, heap, miss,
coalesce, perf, verify, deb, link (default all).  Writes
RESULTS/DATE.json (every sample) and RESULTS/DATE.md (the table), and
prints the table.  perf needs root; what cannot run says so in the table.
BENCH_ROUNDS, BENCH_FETCH_ROUNDS (cold fetches, the noisiest: 15) and
BENCH_LINK_ROUNDS set the rounds too; BENCH_KEEP=1 keeps
the scratch directory (callgrind, massif and strace outputs).
"""
import argparse
import os
import shutil
import sys
import tempfile
import time

import bench_fetch
import bench_inproc
import bench_objects
import bench_perf
import kernel_data
from benchlib import HERE, REPO, BenchError, Results, Setup, log
from debuginfod_server import DebuginfodError, DebuginfodServer, metric

PARTS = ('fetch', 'lookup', 'heap', 'miss', 'coalesce', 'perf', 'verify',
         'deb', 'link', 'objects', 'types')


def server(root, index, *args):
    # -d FILE after the helper's -d :memory:: the index outlives the run
    return DebuginfodServer(root, extra_args=list(args) + ['-d', index],
                            index_timeout=1800)


def with_vmlinux_server(su, parts):
    k = su.kernel
    index = os.path.join(k['cache'], 'index-F.sqlite')
    with server(os.path.dirname(k['vmlinux']), index) as srv:
        bench_fetch.first_fetch(srv, k, index)
        if 'fetch' in parts:
            bench_fetch.cold_fetch(su, srv, 'debuginfod -F')
        env, cached = bench_inproc.warm_cache(su, srv)
        if 'lookup' in parts:
            bench_inproc.warm_lookup(su, env, cached)
        if 'heap' in parts:
            bench_inproc.provider_heap(su, env, cached)
        if 'miss' in parts:
            bench_fetch.misses(su, srv)
        if 'coalesce' in parts:
            bench_fetch.coalescing(su, srv, max(3, su.rounds // 2))
        report = None
        if 'perf' in parts:
            why = bench_perf.can_run((su.perf, su.stock_perf))
            if why:
                log('perf benchmarks CANNOT RUN: ' + why)
                bench_perf.skip_all(su, why)
            else:
                orig, moved = bench_perf.record_profile(su)
                su.moved = moved
                report = bench_perf.perf_report(su, srv, moved, env, cached)
                bench_perf.no_provider(su, orig, moved)
        if 'verify' in parts:
            bench_inproc.verify_cost(su, cached, report)


def with_deb_server(su, parts, link_mbits, link_rounds):
    k = su.kernel
    index = os.path.join(k['cache'], 'index-U.sqlite')
    log('debuginfod -U: indexing the .deb (about 30 s the first time)')
    # The server keeps what it extracted in its fdcache, as a distribution
    # server does, unless the disk of TMPDIR is under 25 % free: then it
    # extracts the vmlinux again for every request.  Not on a full disk.
    with server(os.path.dirname(k['deb']), index, '-U',
                '--fdcache-mintmp=0') as srv:
        s = bench_fetch.first_fetch(srv, k, index)
        su.results.add('1', 'debuginfod -U: first fetch after the server '
                       'started (curl; the server extracts the vmlinux from '
                       'the .deb)', s, 's', detail="the server's cost, once")
        if 'deb' in parts:
            bench_fetch.cold_fetch(su, srv, 'debuginfod -U')
        if 'link' in parts:
            bench_fetch.link(su, srv, link_mbits, link_rounds, su.moved)
        m = srv.metrics()
        su.results.notes.append(
            'debuginfod -U served %d requests from the .deb and %d from its '
            'fdcache.' % (metric(m, 'http_responses_total',
                                 result='.deb archive'),
                          metric(m, 'http_responses_total',
                                 result='archive fdcache')))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--build', default=os.path.join(REPO, 'build'))
    ap.add_argument('--results', default=os.path.join(HERE, 'results'))
    ap.add_argument('--rounds', type=int,
                    default=int(os.environ.get('BENCH_ROUNDS', '7')))
    ap.add_argument('--fetch-rounds', type=int,
                    default=int(os.environ.get('BENCH_FETCH_ROUNDS', '15')))
    ap.add_argument('--link-rounds', type=int,
                    default=int(os.environ.get('BENCH_LINK_ROUNDS', '2')))
    ap.add_argument('--link-mbits', default='100,20')
    ap.add_argument('--only', default=','.join(PARTS))
    args = ap.parse_args(argv)
    parts = set(args.only.split(','))
    if parts - set(PARTS):
        ap.error('unknown parts: %s' % ', '.join(parts - set(PARTS)))
    build = os.path.abspath(args.build)

    kernel = kernel_data.prepare()
    results = Results()
    results.machine['kernel_package'] = {
        k: kernel[k] for k in ('package', 'deb_size', 'size', 'build_id')}
    results.machine.update(rounds=args.rounds,
                           fetch_rounds=args.fetch_rounds,
                           link_rounds=args.link_rounds)
    tmp = tempfile.mkdtemp(prefix='symprov-bench-')
    su = Setup(build, tmp, kernel, results, args.rounds, args.fetch_rounds)
    stem = time.strftime('%Y-%m-%d-%H%M')
    try:
        with_vmlinux_server(su, parts)
        if parts & {'objects', 'types'}:
            bench_objects.run_all(su, parts, args.link_rounds)
        if parts & {'deb', 'link'}:
            with_deb_server(su, parts,
                            [int(x) for x in args.link_mbits.split(',')],
                            args.link_rounds)
    except (BenchError, DebuginfodError) as e:
        results.notes.append('INCOMPLETE: ' + str(e).splitlines()[0])
        stem += '-incomplete'
        print('run_bench: error: %s' % e, file=sys.stderr)
    finally:
        if os.environ.get('BENCH_KEEP'):
            log('kept %s (callgrind, massif and strace outputs)' % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    paths = results.write(args.results, stem)
    with open(paths[1]) as f:
        print(f.read())
    log('results: %s' % ', '.join(os.path.relpath(p) for p in paths))
    return 1 if stem.endswith('-incomplete') else 0


if __name__ == '__main__':
    sys.exit(main())
