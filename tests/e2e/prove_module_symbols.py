#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The symbols-only module rule, proved on every .ko of a real package.

    prove_module_symbols.py --deb linux-image-...-dbg.deb --perf PERF \
        --profile orig.data [--build build] [--work DIR] [--limit N]

The package's .ko files are served by a real debuginfod (-F on the
extracted tree).  For each one, `symprov find --kind module
--symbols-only` asks the debuginfod provider for its symbols only: either
a rebuilt file, or the whole .ko when its tables do not make a certain
one (the provider says why in -v; the list of those is printed).  Then
every module with a rebuilt file is spliced into one profile
(objects_fixture.py: every Nth kernel sample moved into the functions of
its .text), and PERF reports it twice, with --symfs trees holding the
whole .ko files or the rebuilt ones: the two reports must be the same
line for line (the module lines PERF leaves raw with the whole .ko are
counted).  Bytes: the sections the server sent for each rebuilt file,
against its module's .symtab, .strtab
and section headers (at most 1.2 times).  Exits 1 when a check fails.

On Debian's linux-image-6.12.117+deb12-cloud-amd64-dbg: 1,133 of the
1,138 modules rebuilt, the server sending 13.4 MB for them (0.78 times
their tables and section headers; 1,407 MiB of .ko files), the other 5
whole (kvm, kvm-intel: functions in a code section after .text;
cast_common, nls_ucs2_utils: no function in .text; libcurve25519: a
section before .text whose name the tables do not tell), and stock perf
6.12's reports the same.  On linux-image-7.3.4+deb13-cloud-amd64-dbg,
whose modules have tables before .text: 1,014 of 1,019, 14.0 MB (0.81
times; 1,547 MiB), stock perf 7.3's reports the same, the 5 others kvm-
intel, kvm-amd, cast_common, nls_ucs2_utils and intel-cstate (its note
has no section symbol).  Samples in the trampolines of the modules with
static-call trampolines included.  --trampolines: those modules only.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))
sys.path.insert(0, HERE)
from debuginfod_server import DebuginfodServer, metric  # noqa: E402
from elf_fixtures import read_build_id, read_sections  # noqa: E402
from objects_fixture import Module, splice_modules  # noqa: E402

TIMEOUT = 600
BYTES_LIMIT = 1.2
BATCH = 200


def modules_of(tree):
    out = []
    for root, _dirs, files in os.walk(tree):
        out += [os.path.join(root, f) for f in files if f.endswith('.ko')]
    return sorted(out)


def ask_symbols(symprov, env, bid):
    """(path, content line of -v) of the provider's answer for BID."""
    res = subprocess.run([symprov, '-v', 'find', '--providers',
                          'libdebuginfodprov.so', '--kind', 'module',
                          '--symbols-only', bid], env=env, text=True,
                         capture_output=True, timeout=TIMEOUT)
    if res.returncode:
        raise RuntimeError('symprov find %s: %s' % (bid, res.stderr))
    path = res.stdout.strip()
    if os.path.basename(path) == 'source-symprov-symbols':
        return path, None
    why = [ln for ln in res.stderr.splitlines() if 'whole' in ln]
    return path, why[0] if why else 'the whole file'


def sent_bytes(srv):
    """The bytes of the sections the server has sent."""
    return metric(srv.metrics(), 'http_responses_transfer_bytes_sum',
                  type='section')


def table_bytes(path):
    """The module's .symtab, .strtab and section headers, in bytes."""
    secs = read_sections(path)
    return secs['.symtab'][4] + secs['.strtab'][4] + 64 * (len(secs) + 1)


def symfs_put(root, module, path):
    """PATH where perf looks for MODULE under --symfs ROOT (xz, as
    Debian installs it)."""
    dest = os.path.join(root, module.name.lstrip('/'))
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest, 'wb') as out:
        subprocess.run(['xz', '-0', '-c', path], stdout=out, check=True,
                       timeout=TIMEOUT)


def report(perf, data, symfs):
    res = subprocess.run([perf, 'report', '-i', data, '--symfs', symfs,
                          '--stdio', '--sort', 'dso,sym', '-q'],
                         text=True, capture_output=True, timeout=TIMEOUT)
    if res.returncode:
        raise RuntimeError('perf report: %s' % res.stderr[-2000:])
    return res.stdout.splitlines()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--deb', default=os.environ.get('SYMPROV_KERNEL_DBG_DEB'))
    ap.add_argument('--perf', required=True)
    ap.add_argument('--profile', required=True,
                    help='a recorded profile with kernel samples')
    ap.add_argument('--build', default='build')
    ap.add_argument('--work', help='kept afterwards (default: a temporary '
                    'directory, removed)')
    ap.add_argument('--limit', type=int, help='the first N modules only')
    ap.add_argument('--trampolines', action='store_true',
                    help='the modules with static-call trampolines only')
    args = ap.parse_args()
    if not args.deb:
        ap.error('--deb or SYMPROV_KERNEL_DBG_DEB: the -dbg package')
    symprov = os.path.abspath(os.path.join(args.build, 'bin', 'symprov'))
    work = args.work or tempfile.mkdtemp(prefix='prove-modules-')
    os.makedirs(work, exist_ok=True)
    tree = os.path.join(work, 'pkg')
    if not os.path.isdir(tree):
        subprocess.run(['dpkg-deb', '-x', args.deb, tree], check=True,
                       timeout=TIMEOUT)
    kos = modules_of(tree)
    if args.trampolines:
        kos = [ko for ko in kos if Module(ko).trampolines]
    kos = kos[:args.limit]
    serve = os.path.join(work, 'serve')
    if not os.path.isdir(serve):
        os.makedirs(serve)
        for n, ko in enumerate(kos):
            os.link(ko, os.path.join(serve, '%04d-%s' % (
                n, os.path.basename(ko))))
    rebuilt, whole, over = [], [], []
    with DebuginfodServer(serve) as srv:
        env = srv.client_env(work, cache=os.path.join(work, 'cache'))
        for ko in kos:
            before = sent_bytes(srv)
            path, why = ask_symbols(symprov, env, read_build_id(ko))
            if why:
                whole.append((ko, why.split(': ', 2)[-1]))
                continue
            size, limit = sent_bytes(srv) - before, table_bytes(ko)
            if size > BYTES_LIMIT * limit:
                over.append((ko, size, limit))
            rebuilt.append((ko, path, size, limit))
    mods, spliced = [], []
    for entry in rebuilt:
        mod = Module(entry[0])
        # a module without functions in its .text gets no sample
        if mod.functions:
            mods.append(mod)
            spliced.append(entry)
    # the module area above objects_fixture's base holds about 250
    same, raw, moved = True, [], 0
    for first in range(0, len(mods), BATCH):
        batch = mods[first:first + BATCH]
        data = os.path.join(work, 'modules-%d.data' % first)
        moved += sum(splice_modules(args.profile, data, batch,
                                    trampolines=True).values())
        lines = {}
        for which, pick in (('whole', 0), ('symbols', 1)):
            root = os.path.join(work, 'symfs-%s-%d' % (which, first))
            for mod, entry in zip(batch, spliced[first:first + BATCH]):
                symfs_put(root, mod, entry[pick])
            lines[which] = report(args.perf, data, root)
        same &= lines['whole'] == lines['symbols']
        shorts = tuple(m.short for m in batch)
        raw += [ln for ln in lines['whole']
                if ln.split()[1:2] and ln.split()[1] in shorts and
                ln.split()[-1].startswith('0x')]
    summary = {
        'modules': len(kos),
        'rebuilt': len(rebuilt),
        'whole': [[os.path.basename(k), w] for k, w in whole],
        'bytes_rebuilt': sum(r[2] for r in rebuilt),
        'bytes_tables': sum(r[3] for r in rebuilt),
        'bytes_whole_ko': sum(os.path.getsize(r[0]) for r in rebuilt),
        'over_1.2': [[os.path.basename(k), s, t] for k, s, t in over],
        'spliced': len(mods),
        'samples_moved': moved,
        'reports_same': same,
        # with the whole .ko too (so with the symbols only, the same)
        'raw_addresses_whole': len(raw),
        'raw_addresses_whole_first': raw[:5],
    }
    json.dump(summary, sys.stdout, indent=1)
    print()
    ok = summary['reports_same'] and not over
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
