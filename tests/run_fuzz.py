#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Run libFuzzer targets: replay the regression corpus, then fuzz, bounded.

    run_fuzz.py [--explore] [--runs N] [--corpus-root DIR] SECONDS TARGET...

For each TARGET (build/fuzz/NAME):

1. every input of the regression corpus in the tree, CORPUS_ROOT/NAME/
   (default tests/fuzz/corpus/NAME/), is run once: an input that once
   failed must pass for good;
2. then a bounded run.  By default (make check) it is repeatable: a fixed
   seed and N runs (--runs, default 200000), no clock (a slow machine
   makes the same runs, later; SECONDS only bounds a hang, times ten),
   from a fresh work corpus (build/fuzz/NAME.work/) over the seeds in
   build/fuzz/NAME.corpus/ and the regression corpus, which it does not
   change: the same binary and seeds make the same run, so an unrelated
   change does not turn it red by luck; a run that made fewer runs fails.
   --explore (make fuzz): a fresh seed each time, SECONDS only, growing
   build/fuzz/NAME.corpus/.

An input that fails is kept in build/fuzz/artifacts/NAME/ and printed in
the log in base64 with the command that replays it, so that a CI log alone
is enough to reproduce it; once fixed it belongs in CORPUS_ROOT/NAME/.
Exit 0 when every target passed, 1 when one failed.
"""
import argparse
import base64
import glob
import os
import re
import shutil
import subprocess
import sys

FIXED_SEED = 1
MAX_LEN = 8192
ARTIFACT_KINDS = ('crash-', 'leak-', 'timeout-', 'oom-', 'slow-unit-')


def show_input(path, exe):
    """The failing input, whole, in the log, and how to replay it."""
    with open(path, 'rb') as f:
        data = f.read()
    print('failing input %s (%d bytes), base64:' % (path, len(data)))
    text = base64.b64encode(data).decode()
    for i in range(0, len(text), 76):
        print('  ' + text[i:i + 76])
    print('replay: base64 -d the lines above into FILE, then %s FILE' % exe)


def replay(exe, corpus):
    """Run each input of the regression corpus once; problems (lines)."""
    inputs = sorted(p for p in glob.glob(os.path.join(corpus, '*'))
                    if os.path.isfile(p))
    if not inputs:
        return 0, []
    proc = subprocess.run([exe, '-runs=1'] + inputs, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True,
                          errors='replace', timeout=600)
    if proc.returncode == 0:
        return len(inputs), []
    # libFuzzer names each input before it runs it
    ran = re.findall(r'^Running: (.*)$', proc.stdout, re.M)
    sys.stdout.write(proc.stdout[-6000:])
    bad = ran[-1] if ran else inputs[0]
    show_input(bad, exe)
    return len(inputs), ['replay of %s failed (exit %d)'
                         % (bad, proc.returncode)]


def fuzz(exe, name, seconds, runs, explore, corpus_root):
    """The bounded run; problems (lines) and its execution count."""
    seeds = os.path.join('build', 'fuzz', name + '.corpus')
    regress = os.path.join(corpus_root, name)
    art = os.path.join('build', 'fuzz', 'artifacts', name)
    shutil.rmtree(art, ignore_errors=True)
    os.makedirs(art)
    os.makedirs(seeds, exist_ok=True)
    cmd = [exe, '-max_len=%d' % MAX_LEN, '-artifact_prefix=%s/' % art]
    if explore:
        cmd += ['-max_total_time=%d' % seconds]
        dirs = [seeds]  # new inputs are kept there, for the next run
        guard = seconds + 300
    else:
        work = os.path.join('build', 'fuzz', name + '.work')
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        cmd += ['-seed=%d' % FIXED_SEED, '-runs=%d' % runs]
        dirs = [work, seeds]  # libFuzzer writes to the first only
        guard = 10 * seconds + 300
    dirs += [regress] if os.path.isdir(regress) else []
    proc = subprocess.run(cmd + dirs, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True,
                          errors='replace', timeout=guard)
    done = re.findall(r'Done (\d+) runs', proc.stdout)
    if proc.returncode == 0 and done and not explore and \
            int(done[-1]) < runs:
        return ['%s runs of the %d asked' % (done[-1], runs)], None
    if proc.returncode == 0 and done:
        return [], done[-1]
    sys.stdout.write(proc.stdout[-6000:])
    found = sorted(p for p in glob.glob(os.path.join(art, '*'))
                   if os.path.basename(p).startswith(ARTIFACT_KINDS))
    for path in found:
        show_input(path, exe)
    if not found:
        print('%s: no failing input was written (exit %d)'
              % (name, proc.returncode))
    return ['fuzzing failed (exit %d)%s' % (
        proc.returncode, ', input kept in %s' % art if found else '')], None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('seconds', type=int)
    ap.add_argument('targets', nargs='+')
    ap.add_argument('--explore', action='store_true',
                    help='fresh seeds, time bound only (make fuzz)')
    ap.add_argument('--runs', type=int, default=200000,
                    help='runs of the repeatable run (default 200000)')
    ap.add_argument('--corpus-root', default=os.path.join('tests', 'fuzz',
                                                          'corpus'))
    args = ap.parse_args()
    passed = failed = 0
    for exe in args.targets:
        name = os.path.basename(exe)
        n, problems = replay(exe, os.path.join(args.corpus_root, name))
        done = None
        if not problems:
            problems, done = fuzz(exe, name, args.seconds, args.runs,
                                  args.explore, args.corpus_root)
        if problems:
            for p in problems:
                print('%s: FAILED: %s' % (name, p))
            failed += 1
            continue
        print('%s: %d regression inputs replayed; %s executions (%s), '
              'no crash' % (name, n, done,
                            'fresh seed' if args.explore
                            else 'seed %d' % FIXED_SEED))
        passed += 1
    print('fuzz: %d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
