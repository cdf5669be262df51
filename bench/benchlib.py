# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Measuring side by side: interleaved rounds, medians, ratios, targets.

A benchmark runs its cases round after round, the order rotated in every
round, so that a slow moment of a shared machine falls on all of them;
it reports medians with min and max.  Every figure goes into a Results
with its baseline, its target and whether the target is met.
"""
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, 'tests', 'lib'))
sys.path.insert(0, os.path.join(REPO, 'tests', 'e2e'))

from e2elib import clean_env  # noqa: E402,F401  (re-exported)

MET, NOT_MET = 'met', 'not met'
REPORTED = 'reported'
NOT_RUN = 'not run'
UNDECIDED = 'within noise'


class BenchError(Exception):
    pass


def log(msg):
    print('[bench] ' + msg, file=sys.stderr, flush=True)


def summary(samples):
    """{median, min, max, n} of a list of numbers."""
    return {'median': statistics.median(samples), 'min': min(samples),
            'max': max(samples), 'n': len(samples)}


def interleave(cases, rounds, warmup=1):
    """Run CASES, a list of (name, fn), WARMUP times unrecorded, then
    ROUNDS times, the order rotated each round.  fn() returns a number
    (seconds) or a dict of numbers ('s' the time).  Returns {name: [dict]}.
    """
    out = {name: [] for name, _ in cases}
    for _ in range(warmup):
        for _name, fn in cases:
            fn()
    for r in range(rounds):
        k = r % len(cases)
        for name, fn in cases[k:] + cases[:k]:
            v = fn()
            out[name].append(v if isinstance(v, dict) else {'s': v})
    return out


def column(samples, key='s'):
    return [s[key] for s in samples]


def timed(cmd, env, timeout=600, check_output=None, cwd=None, rc=0):
    """Run CMD; {'s': wall seconds, 'rss_kib': peak RSS, 'cpu_s': user
    and system seconds}.  GNU time measures them: a child forked from
    Python would count Python's pages too.  It must exit with RC, and
    CHECK_OUTPUT(stdout) raises if the run did not do its job.
    """
    with tempfile.NamedTemporaryFile(mode='r') as usage:
        start = time.perf_counter()
        res = subprocess.run(['/usr/bin/time', '-o', usage.name, '-f',
                              '%M %U %S'] + cmd, env=env, cwd=cwd,
                             stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, timeout=timeout)
        elapsed = time.perf_counter() - start
        if res.returncode != rc:
            raise BenchError('command failed (rc=%d): %s\n%s' % (
                res.returncode, ' '.join(cmd),
                res.stderr.decode(errors='replace')[-2000:]))
        if check_output:
            check_output(res.stdout.decode(errors='replace'))
        rss, user, system = usage.read().split()[-3:]
        return {'s': elapsed, 'rss_kib': int(rss),
                'cpu_s': float(user) + float(system)}


def drop_dirty():
    """Write back what the last run wrote, outside of any timing."""
    subprocess.run(['sync'], check=False, timeout=300)


def cmd_version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True,
                             timeout=30)
    except OSError:
        return 'not found'
    text = (out.stdout or out.stderr).strip().splitlines()
    return text[0] if text else 'unknown'


def package_version(name):
    out = subprocess.run(['dpkg-query', '-W', '-f', '${Version}', name],
                         capture_output=True, text=True, timeout=30)
    return out.stdout.strip() or 'not installed'


def machine():
    """What the figures were measured on."""
    cpu = 'unknown'
    with open('/proc/cpuinfo') as f:
        for line in f:
            if line.startswith('model name'):
                cpu = line.split(':', 1)[1].strip()
                break
    with open('/proc/meminfo') as f:
        mem_kib = int(f.readline().split()[1])
    try:
        with open('/etc/debian_version') as f:
            debian = f.read().strip()
    except OSError:
        debian = 'not Debian'
    git = subprocess.run(['git', '-C', REPO, 'describe', '--always',
                          '--dirty'], capture_output=True, text=True,
                         timeout=30).stdout.strip()
    return {
        'cpu': cpu, 'cpus': os.cpu_count(),
        'memory_gib': round(mem_kib / 2**20, 1),
        'kernel': platform.release(), 'debian': debian,
        'load_average_start': os.getloadavg(),
        'symprov': git or 'unknown',
        'versions': {
            'debuginfod': package_version('debuginfod'),
            'libdebuginfod1': package_version('libdebuginfod1'),
            'libcurl4': package_version('libcurl4'),
            'curl': package_version('curl'),
            'linux-source-6.12': package_version('linux-source-6.12'),
            'gcc': cmd_version(['gcc', '--version']),
            'valgrind': cmd_version(['valgrind', '--version']),
            'python': platform.python_version(),
        },
    }


class Results:
    """Every figure of a run, with its baseline, target and verdict."""

    def __init__(self):
        self.machine = machine()
        self.started = time.strftime('%Y-%m-%d %H:%M:%S %Z')
        self.figures = []
        self.raw = {}
        self.notes = []

    def add(self, item, what, value, unit, baseline=None, ratio=None,
            target=None, verdict=REPORTED, detail=''):
        """VALUE and BASELINE are summaries (summary()) or plain numbers;
        TARGET a text such as '<= 1.02'; VERDICT met, not met, reported,
        not available, not run."""
        fig = {'item': item, 'what': what, 'value': value, 'unit': unit,
               'baseline': baseline, 'ratio': ratio, 'target': target,
               'verdict': verdict, 'detail': detail}
        self.figures.append(fig)
        log('%s %s: %s (ratio %s) -> %s' % (
            item, what, fmt_value(value, unit), fmt_ratio(ratio), verdict))
        return fig

    def skip(self, item, what, verdict, why, target=None):
        self.add(item, what, None, '', target=target, verdict=verdict,
                 detail=why)

    def write(self, directory, stem):
        os.makedirs(directory, exist_ok=True)
        self.machine['load_average_end'] = os.getloadavg()
        data = {'started': self.started, 'machine': self.machine,
                'figures': self.figures, 'notes': self.notes,
                'raw': self.raw}
        json_path = os.path.join(directory, stem + '.json')
        with open(json_path, 'w') as f:
            json.dump(data, f, indent=1, sort_keys=True)
            f.write('\n')
        md_path = os.path.join(directory, stem + '.md')
        with open(md_path, 'w') as f:
            f.write(markdown(data))
        return json_path, md_path


def verdict(ok):
    return MET if ok else NOT_MET


def paired_ratio(a, b, resamples=2000):
    """Median of the per-round ratios A[i] / B[i] of two interleaved
    series, and its 95 % confidence interval by bootstrap (fixed seed:
    the same samples give the same interval)."""
    ratios = [x / y for x, y in zip(a, b)]
    rng = random.Random(0)
    meds = sorted(statistics.median(rng.choices(ratios, k=len(ratios)))
                  for _ in range(resamples))
    return (statistics.median(ratios), meds[int(0.025 * resamples)],
            meds[int(0.975 * resamples) - 1])


def verdict_at_most(paired, limit):
    """Met when the whole interval of PAIRED is at most LIMIT, not met
    when all of it is above; otherwise the machine's noise decides."""
    _, lo, hi = paired
    if hi <= limit:
        return MET
    return NOT_MET if lo > limit else UNDECIDED


def fmt_num(x, unit):
    if x is None:
        return '-'
    if unit == 's':
        if x < 1e-3:
            return '%.1f us' % (x * 1e6)
        if x < 1:
            return '%.1f ms' % (x * 1e3)
        return '%.2f s' % x
    if unit == 'B':
        if x >= 2**20:
            return '%.1f MiB' % (x / 2**20)
        if x >= 2**10:
            return '%.1f KiB' % (x / 2**10)
        return '%d B' % x
    if unit == 'KiB':
        return '%.0f MiB' % (x / 1024) if x >= 10240 else '%d KiB' % x
    if isinstance(x, float) and not x.is_integer():
        return '%.4g%s' % (x, ' ' + unit if unit else '')
    return '{:,}{}'.format(int(x), ' ' + unit if unit else '')


def fmt_ratio(r):
    if r is None:
        return '-'
    return '%.4f' % r if r >= 0.01 else '%.2g' % r


def fmt_value(v, unit):
    """'median [min-max]' of a summary, or the number."""
    if isinstance(v, dict):
        if v['n'] == 1:
            return fmt_num(v['median'], unit)
        return '%s [%s-%s]' % (fmt_num(v['median'], unit),
                               fmt_num(v['min'], unit),
                               fmt_num(v['max'], unit))
    return fmt_num(v, unit)


def markdown(data):
    m = data['machine']
    lines = [
        '# symprov benchmarks, %s' % data['started'], '',
        '%s, %d CPUs, %.1f GiB, Linux %s, Debian %s; symprov %s; '
        'load average %.2f at the start, %.2f at the end.' % (
            m['cpu'], m['cpus'], m['memory_gib'], m['kernel'],
            m['debian'], m['symprov'], m['load_average_start'][0],
            m['load_average_end'][0]),
        '',
        'Versions: ' + ', '.join('%s %s' % kv for kv in
                                 sorted(m['versions'].items())) + '.',
        '',
        'Kernel: %(package)s, vmlinux %(size)d B, build ID %(build_id)s, '
        '.deb %(deb_size)d B.' % m['kernel_package'], '',
        'Rerun: `nice -n 10 make bench` (BENCH_ARGS="--only PARTS", '
        'BENCH_ROUNDS=%d, BENCH_FETCH_ROUNDS=%d, BENCH_LINK_ROUNDS=%d, '
        'SYMPROV_BENCH_CACHE, SYMPROV_BENCH_PACKAGE); see '
        'docs/BENCHMARKS.md.' % (m['rounds'], m['fetch_rounds'],
                                 m['link_rounds']),
        '',
        'Values are median [min-max] over interleaved rounds; ratio = '
        'median / baseline median.  A wall-time verdict is "within noise" '
        'when the 95 % interval of the per-round ratio holds the target.',
        '',
        '| # | what | measured | baseline | ratio | target | verdict |',
        '| --- | --- | --- | --- | --- | --- | --- |',
    ]
    for f in data['figures']:
        lines.append('| %s | %s | %s | %s | %s | %s | %s |' % (
            f['item'], f['what'] + (' (%s)' % f['detail']
                                    if f['detail'] else ''),
            fmt_value(f['value'], f['unit']),
            fmt_value(f['baseline'], f['unit']),
            fmt_ratio(f['ratio']),
            f['target'] or '-', f['verdict']))
    if data['notes']:
        lines += [''] + ['- ' + n for n in data['notes']]
    return '\n'.join(lines) + '\n'


class Setup:
    """What every benchmark uses: the programs, a scratch directory, the
    kernel, the results and the number of rounds."""

    def __init__(self, build, tmp, kernel, results, rounds, fetch_rounds):
        self.build = build
        self.tmp = tmp
        self.kernel = kernel
        self.results = results
        self.rounds = rounds
        self.fetch_rounds = fetch_rounds
        self.symprov = os.path.join(build, 'bin', 'symprov')
        self.provider = os.path.join(build, 'lib', 'libdebuginfodprov.so')
        self.bench_lookup = os.path.join(build, 'bench', 'bench_lookup')
        self.bench_verify = os.path.join(build, 'bench', 'bench_verify')
        self.concurrent_find = os.path.join(build, 'tests',
                                            'concurrent_find')
        self.perf = os.path.join(REPO, 'build', 'perf', 'perf')
        self.stock_perf = os.path.join(REPO, 'build', 'perf-stock', 'perf')
        self.home = self.dir('home')
        self.moved = None  # the moved profile, once perf recorded it

    def dir(self, name):
        """TMP/NAME, empty."""
        path = os.path.join(self.tmp, name)
        subprocess.run(['rm', '-rf', path], check=True, timeout=300)
        os.makedirs(path)
        return path

    def client_env(self, url, cache, extra=None):
        """A client of URL alone, with its own libdebuginfod cache."""
        env = clean_env(self.home, {'DEBUGINFOD_URLS': url,
                                    'DEBUGINFOD_CACHE_PATH': cache})
        env.update(extra or {})
        return env

    def symprov_find(self, build_id, *opts):
        return [self.symprov, 'find', '--providers', self.provider] + \
            list(opts) + [build_id]
