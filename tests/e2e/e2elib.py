# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Shared helpers for the symprov end-to-end scaffolding (Python 3 stdlib only).

Every subprocess goes through run(), which always has a timeout; on timeout
the whole process group is killed so no stray perf/debuginfod is left behind.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_PERF = os.path.join(REPO, "build", "perf", "perf")

KERNEL_DSO = "[kernel.kallsyms]"


class E2EError(Exception):
    pass


def cli(main, name):
    """Exit with main()'s code, or 1 and one line on an E2EError."""
    try:
        sys.exit(main())
    except E2EError as e:
        print("%s: error: %s" % (name, e), file=sys.stderr)
        sys.exit(1)


def log(msg):
    print("[e2e] " + msg, file=sys.stderr, flush=True)


def find_perf(arg=None):
    """perf binary: --perf argument, else $PERF, else build/perf/perf."""
    perf = arg or os.environ.get("PERF") or DEFAULT_PERF
    if os.sep not in perf:
        return perf  # a bare name: looked up in PATH by the caller's exec
    if not os.access(perf, os.X_OK):
        raise E2EError("perf not found at %s (set PERF=... or pass --perf; "
                       "PERF=perf uses the one in PATH)" % perf)
    return perf


def _kill_group(proc, sig):
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def run(cmd, timeout, env=None, check=True, input=None, cwd=None,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, soft_signal=None):
    """Run cmd (a list) in its own process group, bounded by timeout seconds.

    On timeout: send soft_signal (e.g. SIGINT so perf record writes its file)
    if given, wait up to 10 s more, then SIGKILL the group and raise.
    Returns a CompletedProcess with text stdout/stderr.
    """
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=stdout,
                            stderr=stderr,
                            stdin=subprocess.PIPE if input is not None
                            else subprocess.DEVNULL,
                            start_new_session=True, text=True,
                            errors="replace")
    try:
        out, err = proc.communicate(input=input, timeout=timeout)
    except subprocess.TimeoutExpired:
        if soft_signal is not None:
            _kill_group(proc, soft_signal)
            try:
                proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        _kill_group(proc, signal.SIGKILL)
        proc.communicate()
        raise E2EError("timeout after %ss: %s" % (timeout, " ".join(cmd)))
    res = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    if check and proc.returncode != 0:
        raise E2EError("command failed (rc=%d): %s\n%s" % (
            proc.returncode, " ".join(cmd), (err or "")[-4000:]))
    return res


def clean_env(home, extra=None):
    """Environment for perf runs: HOME set (so ~/.debug is HOME/.debug),
    no debuginfod or symbol-provider variables inherited from the caller."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("DEBUGINFOD_")
           and k not in ("PERF_SYMBOL_PROVIDERS", "PERF_CONFIG",
                         "PERF_BUILDID_DIR", "XDG_CACHE_HOME")}
    env["HOME"] = home
    env["LC_ALL"] = "C"
    # perf reads $HOME/.perfconfig; make sure an empty HOME stays empty
    env["PERF_PAGER"] = "cat"
    # libdebuginfod uses libcurl, which honours *_proxy: keep the local
    # server direct
    for var in ("no_proxy", "NO_PROXY"):
        env[var] = ",".join(x for x in ("127.0.0.1", "localhost",
                                        env.get(var)) if x)
    if extra:
        env.update(extra)
    return env


def is_hex_build_id(s):
    return bool(re.fullmatch(r"[0-9a-f]{40}", s))


def running_kernel_build_id(notes="/sys/kernel/notes"):
    """GNU build ID of the running kernel from the ELF notes in sysfs."""
    with open(notes, "rb") as f:
        data = f.read()
    off = 0
    while off + 12 <= len(data):
        namesz, descsz, ntype = (int.from_bytes(data[off + i:off + i + 4],
                                                "little") for i in (0, 4, 8))
        name = data[off + 12:off + 12 + namesz]
        doff = off + 12 + ((namesz + 3) & ~3)
        desc = data[doff:doff + descsz]
        if ntype == 3 and name.rstrip(b"\0") == b"GNU":
            return desc.hex()
        off = doff + ((descsz + 3) & ~3)
    raise E2EError("no GNU build-id note in %s" % notes)


def buildid_list(perf, data, env, timeout=60):
    """{dso_name: build_id} from `perf buildid-list -i data`."""
    res = run([perf, "buildid-list", "-i", data], timeout, env=env)
    out = {}
    for line in res.stdout.splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2 and is_hex_build_id(parts[0]):
            out[parts[1].strip()] = parts[0]
    return out


# kallsyms ------------------------------------------------------------------

def parse_kallsyms(path):
    """[(addr, type, name)] of the core kernel (module symbols skipped),
    in file order."""
    syms = []
    with open(path, "r", errors="replace") as f:
        for line in f:
            if "\t" in line:  # "addr t name\t[module]"
                continue
            parts = line.split()
            if len(parts) < 3:
                continue
            try:
                addr = int(parts[0], 16)
            except ValueError:
                continue
            syms.append((addr, parts[1], parts[2]))
    return syms


def perf_kallsyms_filter(stype, name):
    """The symbols perf's kallsyms loader keeps (util/symbol.c
    symbol_type__filter() and the '$' mapping-symbol skip)."""
    return stype.upper() in "TWDB" and not name.startswith("$")


def alias_map(kallsyms_path):
    """name -> frozenset of all names sharing an address with it (over every
    address the name has), from a kallsyms file, perf-filtered symbols only."""
    by_addr = {}
    for addr, stype, name in parse_kallsyms(kallsyms_path):
        if perf_kallsyms_filter(stype, name):
            by_addr.setdefault(addr, set()).add(name)
    aliases = {}
    for names in by_addr.values():
        for n in names:
            aliases.setdefault(n, set()).update(names)
    return {n: frozenset(s) for n, s in aliases.items()}


def loud(msg):
    """A message that must not be missed, on stdout and stderr."""
    bar = "!" * 72
    text = "\n%s\n!! %s\n%s\n" % (bar, msg.replace("\n", "\n!! "), bar)
    print(text, flush=True)
    print(text, file=sys.stderr, flush=True)


class Checks:
    """A runner's work directory, its checks and their tally: a check is a
    function that returns, or raises with the reason it failed."""

    def __init__(self, args, prefix):
        self.args = args
        self.perf = find_perf(args.perf)
        self.build = os.path.join(REPO, "build")
        self.symprov = os.path.join(self.build, "bin", "symprov")
        self.work = args.workdir or tempfile.mkdtemp(prefix=prefix)
        os.makedirs(self.work, exist_ok=True)
        self.passed, self.failed = [], []

    def p(self, *names):
        return os.path.join(self.work, *names)

    def fresh(self, name):
        """An empty directory NAME of the work directory."""
        d = self.p(name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        return d

    def missing(self, tools, files=()):
        """Why a suite that records system-wide with this perf cannot run:
        not root (perf record -a), a tool of TOOLS not in PATH, a file of
        FILES (of the build) or perf missing."""
        why = []
        if os.geteuid() != 0:
            why.append("not root: perf record -a needs it")
        for tool in tools:
            if not shutil.which(tool):
                why.append("%s not found in PATH" % tool)
        for f in files:
            if not os.access(f, os.R_OK):
                why.append("no %s (make)" % f)
        if not os.access(self.perf, os.X_OK):
            why.append("no perf at %s (make perf)" % self.perf)
        return why

    def cannot_start(self, name):
        """Log the work directory; True after saying loudly why the NAME
        checks cannot run (a failure), when preflight() gives reasons."""
        log("workdir: " + self.work)
        why = self.preflight()
        if why:
            loud("%s checks NOT RUN (this is a failure):\n" % name +
                 "\n".join("- " + w for w in why))
            print("0 passed, 1 failed")
        return bool(why)

    def check(self, name, fn):
        """PASS or FAIL, and why, of fn()."""
        log("--- " + name)
        t = time.monotonic()
        try:
            fn()
        except (E2EError, AssertionError, OSError, ValueError,
                subprocess.SubprocessError) as e:
            self.failed.append(name)
            print("FAIL %s: %s" % (name, e), flush=True)
            if os.environ.get("E2E_DEBUG"):
                traceback.print_exc()
            return False
        self.passed.append(name)
        print("PASS %s (%.1fs)" % (name, time.monotonic() - t), flush=True)
        return True

    def finish(self):
        if self.failed:
            print("failed: " + ", ".join(self.failed))
        print("%d passed, %d failed" % (len(self.passed), len(self.failed)))
        return 1 if self.failed else 0


def checks_parser(doc):
    """The options every e2e runner takes: --perf, --workdir."""
    ap = argparse.ArgumentParser(description=doc.split('\n\n')[0])
    ap.add_argument('--perf', help='perf (default $PERF, else '
                    'build/perf/perf)')
    ap.add_argument('--workdir', help='keep everything here')
    return ap


def run_checks(runner_class, args, name):
    """Make a runner_class(args) and run its checks: its exit code, or 2
    (a failure, said loudly) when it cannot even start.  Its work
    directory goes unless args.workdir keeps it."""
    try:
        r = runner_class(args)
    except E2EError as e:
        loud("%s checks NOT RUN (this is a failure): %s" % (name, e))
        print("0 passed, 1 failed")
        return 2
    try:
        return r.run()
    finally:
        if not args.workdir:
            shutil.rmtree(r.work, ignore_errors=True)
