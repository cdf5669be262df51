# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Timing of whole commands for the benchmarks, side by side."""
import statistics
import subprocess
import tempfile
import time


def timed(cmd, env):
    """Wall seconds and peak RSS (KiB) of one run.  GNU time measures the
    RSS: a child forked from Python would count Python's pages too."""
    with tempfile.NamedTemporaryFile(mode='r') as out:
        start = time.perf_counter()
        subprocess.run(['/usr/bin/time', '-o', out.name, '-f', '%M'] + cmd,
                       env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True, timeout=120)
        elapsed = time.perf_counter() - start
        return elapsed, int(out.read().split()[-1])


def side_by_side(label, cmds, env, rounds):
    """Run CMDS, a list of (name, argv[, env]) whose first is the baseline,
    ROUNDS times interleaved after one warm-up run each; print a row for
    each.  ENV is the environment of those that bring none."""
    runs = [(c[0], c[1], c[2] if len(c) > 2 else env) for c in cmds]
    for _, cmd, cmd_env in runs:
        timed(cmd, cmd_env)
    times = {name: [] for name, _, _ in runs}
    rss = {name: 0 for name, _, _ in runs}
    for _ in range(rounds):
        for name, cmd, cmd_env in runs:
            t, r = timed(cmd, cmd_env)
            times[name].append(t)
            rss[name] = max(rss[name], r)
    base = statistics.median(times[runs[0][0]])
    for name, _, _ in runs:
        med = statistics.median(times[name])
        print('%-8s %-34s %10.2f %8.2f %10d %8.2f' % (
            label, name, med * 1000, min(times[name]) * 1000, rss[name],
            med / base))


def print_header():
    print('%-8s %-34s %10s %8s %10s %8s' % (
        'case', 'command', 'median ms', 'min ms', 'peak KiB', 'ratio'))


def print_footer(rounds):
    print('rounds: %d, interleaved; ratio = median / baseline median; '
          'peak RSS by GNU time' % rounds)
