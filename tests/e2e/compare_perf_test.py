#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""perf's own `perf test` with the series against the same perf without
it: no test worse, and the series' own test cases passing.

    compare_perf_test.py --stock STOCK_PERF --perf PERF [--new NAME]...

Each perf runs its whole `perf test` from its own source tree
(OUTDIR-src/tools/perf, where scripts/build-perf.sh leaves it), so that
the shell tests are found, with an empty HOME; the two side by side.  A
test that both perfs fail in that run fails as often with either and is
not run again (on a machine without watchpoints or ftrace a dozen do, some
for minutes).  A test the series does not pass where the stock perf did
not fail (the series fails it, prints no result, or skips where the stock
perf passes) is run alone again on both perfs, three times: it is worse
when the series fails it more often than the stock perf over those
reruns (perf's tests that measure a workload fail now and then under
load, with either perf).  A run that prints no line under the test's name
is a failure of that perf; a test the stock perf skips and the series
fails is worse.  The tests named by --new must be there and pass.
Needs root, as perf test's shell tests do; ends with "N passed, N
failed".
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

# "  12: Name of the test    : Ok", or "  5.4: subtest : Skip (why)"
RESULT_RE = re.compile(r'^\s*\d+(?:\.\d+)?:\s*(.*?)\s*:\s*(Ok|FAILED!|Skip.*)$')
# "  5: Name of a test of several cases :", the cases follow
SUITE_RE = re.compile(r'^\s*\d+:\s*(.*?)\s*:$')
RETRIES = 3


def source_dir(perf):
    """OUTDIR-src/tools/perf of a perf built at OUTDIR/perf."""
    d = os.path.dirname(os.path.abspath(perf)) + '-src'
    return os.path.join(d, 'tools', 'perf')


def perf_test(perf, *args):
    """{test name: Ok, FAILED! or Skip...} of `perf test ARGS`; a test of
    several cases is Ok when each of them is."""
    with tempfile.TemporaryDirectory(prefix='symprov-perf-test-') as home:
        env = dict(os.environ, HOME=home, LC_ALL='C')
        for var in ('PERF_SYMBOL_PROVIDERS', 'DEBUGINFOD_URLS'):
            env.pop(var, None)
        res = subprocess.run([os.path.abspath(perf), 'test'] + list(args),
                             cwd=source_dir(perf), env=env, text=True,
                             stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, timeout=1200)
    out, cases, suite = {}, {}, None
    for line in res.stdout.splitlines():
        m = SUITE_RE.match(line)
        if m:
            suite = m.group(1)
            cases[suite] = []
            continue
        m = RESULT_RE.match(line)
        if not m:
            continue
        out[m.group(1)] = m.group(2)
        if suite and re.match(r'^\s*\d+\.\d+:', line):
            cases[suite].append(m.group(2))
        else:
            suite = None
    for suite, results in cases.items():
        bad = [r for r in results if r != 'Ok']
        out[suite] = bad[0] if bad else 'Ok' if results else 'no case'
    return out


def failure(result):
    """A failed test, or one that printed no result."""
    return result is None or result in ('FAILED!', 'no case')


def bad(mine, stock):
    """A result of the series that is no pass: a failure, no result, or
    a skip where the stock perf passed."""
    if failure(mine):
        return True
    return mine.startswith('Skip') and stock == 'Ok'


def rerun_needed(mine, stock):
    """Whether the series' result asks for reruns: it is no pass, where
    the stock perf, side by side, did not fail."""
    return bad(mine, stock) and not failure(stock)


def worse(name, rerun):
    """(whether the series fails NAME more often than the stock perf, the
    results of both) over RETRIES reruns, RERUN(name) giving the stock
    perf's result and the series', each None for no result."""
    runs = [rerun(name) for _ in range(RETRIES)]
    ours = sum(bad(m, s) for s, m in runs)
    theirs = sum(failure(s) for s, _ in runs)
    return ours > theirs, runs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--stock', required=True)
    ap.add_argument('--perf', required=True)
    ap.add_argument('--new', action='append', default=[],
                    help="a test case of the series' own, by name")
    args = ap.parse_args(argv)
    if os.geteuid() != 0:
        print('compare_perf_test: CANNOT RUN: not root (perf test\'s shell '
              'tests need it)', file=sys.stderr)
        return 2
    for perf in (args.stock, args.perf):
        if not os.path.isdir(os.path.join(source_dir(perf), 'tests',
                                          'shell')):
            print('compare_perf_test: CANNOT RUN: no source tree beside %s'
                  % perf, file=sys.stderr)
            return 2
    # side by side: a test that fails under the load of the other is run
    # alone again below
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        stock, mine = pool.map(perf_test, (args.stock, args.perf))
    if not stock or not mine:
        print('compare_perf_test: perf test printed no result',
              file=sys.stderr)
        return 1
    passed = failed = same_failures = 0

    def rerun(name):
        return (perf_test(args.stock, name).get(name),
                perf_test(args.perf, name).get(name))
    for name in sorted(set(stock) - set(args.new)):
        if not rerun_needed(mine.get(name), stock[name]):
            same_failures += failure(stock[name]) and failure(mine.get(name))
            continue
        is_worse, runs = worse(name, rerun)
        if is_worse:
            print('FAIL %s: %s with the series, %s with the stock perf; '
                  'alone, worse (stock, series: %s)' % (
                      name, mine.get(name), stock[name], runs))
            failed += 1
        else:
            print('flaky %s: %s with the series once, then as often with '
                  'either perf (stock, series: %s)' % (
                      name, mine.get(name), runs))
    for name in args.new:
        if mine.get(name) == 'Ok' and name not in stock:
            print('PASS %s: new, Ok' % name)
            passed += 1
        else:
            print('FAIL %s: new test %s (stock: %s)' % (
                name, mine.get(name), stock.get(name)))
            failed += 1
    same = sum(1 for n in stock if mine.get(n) == stock[n])
    print('perf test: %d results as with the stock perf, %d tests failed '
          'by both, %d tests more; stock %d Ok, series %d Ok' % (
              same, same_failures, len(set(mine) - set(stock)),
              sum(v == 'Ok' for v in stock.values()),
              sum(v == 'Ok' for v in mine.values())))
    if not failed:
        passed += 1
        print('PASS no test worse than with the stock perf')
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
