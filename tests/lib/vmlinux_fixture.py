# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A recorded profile and a stand-in vmlinux for it, for the tests that run
perf on hostile files (tests/e2e/make_profile.py and make_standin.py do the
work).  Needs root: perf record -a and real /proc/kallsyms addresses.

    why = cannot_run(perf)           # [] when it can
    fx = make(perf, workdir)         # .original, .moved, .vmlinux, .build_id
    fx.move(build_id, path)          # the profile, for another build ID
"""
import hashlib
import os
import shutil
import sys

E2E = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'e2e')
sys.path.insert(0, E2E)

import make_profile  # noqa: E402
import make_standin  # noqa: E402
from e2elib import E2EError, clean_env, run  # noqa: E402,F401

GNU_BUILD_ID_DESC = 16  # the note header and "GNU\0" before the ID


def cannot_run(perf):
    """Reasons the profile and stand-in cannot be made here."""
    why = []
    if os.geteuid() != 0:
        why.append('not root: perf record -a and /proc/kallsyms need it')
    for tool in ('gcc', 'ld', 'readelf'):
        if not shutil.which(tool):
            why.append('%s not found' % tool)
    if not os.access(perf, os.X_OK):
        why.append('no perf at %s (make perf)' % perf)
    return why


class Fixture:
    def __init__(self, workdir, original, vmlinux, build_id):
        self.workdir = workdir
        self.original = original
        self.vmlinux = vmlinux
        self.build_id = build_id
        self.moved = self.move(build_id, os.path.join(workdir, 'moved.data'))

    def move(self, build_id, path):
        """A copy of the profile whose kernel has BUILD_ID."""
        make_profile.move_profile(self.original, path, build_id)
        return path


def derived_build_id(what):
    """A build ID of its own for WHAT, 40 hex digits."""
    return hashlib.sha1(b'symprov-test:' + what.encode()).hexdigest()


# 1 kernel sample in OUTSIDE_EVERY goes outside the vmlinux (no map), as a
# real host's BPF programs and trampolines are: raw in every report
OUTSIDE_EVERY = 50


def make(perf, workdir, duration=1):
    """Record a short profile with PERF and build the stand-in vmlinux of
    its kernel under a new build ID, in WORKDIR."""
    home = os.path.join(workdir, 'home-record')
    os.makedirs(home, exist_ok=True)
    original = os.path.join(workdir, 'original.data')
    make_profile.record(perf, original, duration, None, clean_env(home))
    make_profile.put_outside(original, OUTSIDE_EVERY)
    snap = os.path.join(workdir, 'kallsyms')
    with open('/proc/kallsyms', 'rb') as fi, open(snap, 'wb') as fo:
        fo.write(fi.read())
    build_id = derived_build_id('standin')
    vmlinux = os.path.join(workdir, 'standin.vmlinux')
    make_standin.build(snap, build_id, vmlinux, workdir)
    return Fixture(workdir, original, vmlinux, build_id)


def write_sparse(path, data, chunk=1 << 20):
    """DATA to PATH, its all-zero megabytes as holes (a stand-in's .text
    is tens of MB of zeros)."""
    zero = bytes(chunk)
    with open(path, 'wb') as f:
        for off in range(0, len(data), chunk):
            part = data[off:off + chunk]
            if part == zero:
                f.seek(len(part), os.SEEK_CUR)
            else:
                f.write(part)
        f.truncate(len(data))
