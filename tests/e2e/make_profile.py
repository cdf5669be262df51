#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Record a short system-wide profile and "move" it to another kernel.

Records `perf record -e cpu-clock -a` over a bounded workload that spends its
time in the kernel (dd on /dev/zero -> /dev/null with small blocks, plus a
fork/exec/read loop), keeps that file as ORIGINAL, then writes MOVED: a copy
whose kernel build ID (the [kernel.kallsyms] entry of the HEADER_BUILD_ID
feature section, the kernel's MMAP2 records with a build ID) is replaced by
NEW_ID.  `perf buildid-list -i` checks both.

    make_profile.py --original orig.data --moved moved.data \
        [--build-id NEWID] [--duration 3] [--perf PERF]
    make_profile.py --from orig.data --moved moved.data [--build-id NEWID]

--from skips the recording and only moves an existing file.  With
--outside-vmlinux N, every Nth kernel sample of the recording is put at an
address of the module area no map covers (OUTSIDE_BASE), where a real host
has BPF programs, trampolines or seccomp filters: samples no vmlinux
resolves, which the original report shows raw too.  Prints a JSON summary
on stdout (old/new build IDs, paths, samples put outside).  Needs root (or
a permissive perf_event_paranoid) to record with -a.
"""

import argparse
import hashlib
import json
import os
import shlex
import shutil
import signal
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'lib'))
from perfdata import PerfData  # noqa: E402
from e2elib import (E2EError, KERNEL_DSO, buildid_list, clean_env, cli,  # noqa
                    find_perf, is_hex_build_id, log, run,
                    running_kernel_build_id)

# Where samples outside the vmlinux go: the module area, past where
# modules and BPF programs are usually put, five addresses 0x40 apart.
OUTSIDE_BASE = 0xffffffffc0ff0003
OUTSIDE_ADDRESSES = 5


def default_workload(duration):
    """Kernel work (dd, cat), and a loop that reads the clock through the
    vDSO: its samples are in every profile, on any machine, as perf
    reads the running vDSO from a copy of its own in /tmp."""
    d = str(int(duration))
    script = (
        "timeout %s dd if=/dev/zero of=/dev/null bs=512 status=none & "
        "timeout %s sh -c 'while :; do cat /proc/self/stat >/dev/null; "
        "done' & timeout %s %s -c 'import time\nwhile True: time.time()' & "
        "wait" % (d, d, d, shlex.quote(sys.executable)))
    return ["sh", "-c", script]


def record(perf, out, duration, workload, env, system_wide=True):
    """Record WORKLOAD (or the default) into OUT; with SYSTEM_WIDE false,
    only the workload and its children: on a shared host (a container, a
    chroot) -a also takes the host's processes, whose objects no one
    here can name."""
    cmd = [perf, "record", "-e", "cpu-clock", "-N", "-o", out]
    cmd += ["-a"] if system_wide else []
    cmd += ["--"]
    cmd += workload or default_workload(duration)
    log("recording: " + " ".join(cmd))
    # SIGINT on timeout makes perf record stop the workload and write out.
    res = run(cmd, timeout=duration + 60, env=env, soft_signal=signal.SIGINT)
    for line in res.stderr.splitlines():
        if line.startswith("[ perf record:"):
            log(line)


def put_outside(path, every):
    """Move every @every-th kernel sample of @path to an address outside
    the vmlinux that no map covers; returns how many."""
    with open(path, 'rb') as f:
        pd = PerfData(f.read())
    kernel = [r for r in pd.samples() if r.kernel]
    moved = kernel[every - 1::every]
    for i, r in enumerate(moved):
        r.set_ip(pd, OUTSIDE_BASE + 0x40 * (i % OUTSIDE_ADDRESSES))
    tmp = path + '.tmp'
    with open(tmp, 'wb') as f:
        f.write(pd.bytes())
    os.replace(tmp, path)
    return len(moved)


def move_profile(src, dst, new_id):
    """Copy src to dst with the kernel build ID replaced by new_id, in the
    HEADER_BUILD_ID table and in the MMAP2 records that carry it (perf
    7.3 records it there by default and writes no table).  Returns the
    old build ID."""
    with open(src, "rb") as f:
        pd = PerfData(f.read())
    ids = pd.kernel_build_ids()
    if len(ids) != 1:
        raise E2EError("expected one build ID of %s in %s, found %d (%s)"
                       % (KERNEL_DSO, src, len(ids),
                          " ".join(sorted(i.hex() for i in ids))))
    old = ids.pop()
    pd.replace_build_id(old, bytes.fromhex(new_id))
    tmp = dst + ".tmp"
    with open(tmp, "wb") as f:
        f.write(pd.bytes())
    os.chmod(tmp, 0o600)
    os.replace(tmp, dst)
    return old.hex()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--original", help="where to record the original profile")
    ap.add_argument("--from", dest="from_file",
                    help="existing perf.data to move instead of recording")
    ap.add_argument("--moved", required=True, help="output: moved profile")
    ap.add_argument("--build-id", help="new kernel build ID (40 hex digits; "
                    "default: derived from the old one)")
    ap.add_argument("--duration", type=int, default=3,
                    help="workload seconds (default 3)")
    ap.add_argument("--perf", help="perf binary (default $PERF, else "
                    "build/perf/perf)")
    ap.add_argument("--home", help="HOME for perf (default: a fresh temp dir)")
    ap.add_argument("--outside-vmlinux", type=int, default=0, metavar="N",
                    help="put every Nth kernel sample of the recording "
                    "outside the vmlinux, where no map covers it")
    ap.add_argument("workload", nargs="*",
                    help="workload command after -- (default: dd + exec loop)")
    args = ap.parse_args(argv)

    if bool(args.original) == bool(args.from_file):
        ap.error("give exactly one of --original and --from")
    if args.build_id and not is_hex_build_id(args.build_id.lower()):
        ap.error("--build-id must be 40 lowercase hex digits")

    perf = find_perf(args.perf)
    tmp_home = None
    home = args.home
    if not home:
        home = tmp_home = tempfile.mkdtemp(prefix="symprov-e2e-home.")
    try:
        env = clean_env(home)
        src = args.from_file
        outside = 0
        if args.original:
            record(perf, args.original, args.duration, args.workload, env)
            src = args.original
            if args.outside_vmlinux > 0:
                outside = put_outside(src, args.outside_vmlinux)
                log("%d kernel samples put outside the vmlinux, at %#x..."
                    % (outside, OUTSIDE_BASE))
        ids = buildid_list(perf, src, env)
        old = ids.get(KERNEL_DSO)
        if not old:
            raise E2EError("no %s build ID in %s" % (KERNEL_DSO, src))
        try:
            running = running_kernel_build_id()
        except OSError:
            running = None
        if args.original and running and running != old:
            log("warning: recorded kernel build ID %s != running kernel %s"
                % (old, running))
        new = (args.build_id or
               hashlib.sha1(b"symprov-e2e-moved:" + old.encode()).hexdigest())
        new = new.lower()
        if new == old:
            raise E2EError("new build ID equals the old one")
        got_old = move_profile(src, args.moved, new)
        if got_old != old:
            raise E2EError("header build ID %s != buildid-list %s"
                           % (got_old, old))
        ids2 = buildid_list(perf, args.moved, env)
        if ids2.get(KERNEL_DSO) != new:
            raise E2EError("perf buildid-list -i %s shows %s, want %s"
                           % (args.moved, ids2.get(KERNEL_DSO), new))
        others = {k: v for k, v in ids.items() if k != KERNEL_DSO}
        others2 = {k: v for k, v in ids2.items() if k != KERNEL_DSO}
        if others != others2:
            raise E2EError("non-kernel build IDs changed by the move")
        log("moved %s -> %s: kernel build ID %s -> %s"
            % (src, args.moved, old, new))
        json.dump({"original": src, "moved": args.moved, "old_build_id": old,
                   "new_build_id": new, "running_build_id": running,
                   "outside_vmlinux": outside},
                  sys.stdout, indent=1)
        print()
    finally:
        if tmp_home:
            shutil.rmtree(tmp_home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    cli(main, "make_profile")
