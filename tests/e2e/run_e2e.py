#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""End-to-end check: kernel symbols of a "moved" profile through debuginfod.

    run_e2e.py [--perf PERF] [--record-perf PERF] [--oracle-only]
               [--workdir DIR] [--duration 3] [--all-entries]

Needs root (perf record -a, real /proc/kallsyms addresses), gcc, ld,
debuginfod; without them it says so loudly and exits 2.  Every perf run has
its own empty HOME and, with a provider, its own empty debuginfod client
cache (DEBUGINFOD_CACHE_PATH) unless a check is about the cache.  Checks:

  record + move   make_profile.py: original profile, 1 kernel sample in 50
                  put outside the vmlinux (no map: what BPF programs and
                  trampolines give on a real host), and a copy whose kernel
                  build ID is a new one
  stand-in        make_standin.py: vmlinux stand-in with the new build ID
  original report the original profile with kallsyms: the reference symbols;
                  the samples outside the vmlinux raw there, and in every
                  report that compares with it
  before          moved profile, empty HOME: kernel samples unresolved
  before-zeroed   same with a zeroed kallsyms copy in the build-id cache
  oracle          moved profile --vmlinux=STANDIN == original with kallsyms;
                  its `--sort dso,sym` report is REF, the byte-for-byte
                  reference of the provider checks
  served          a local debuginfod serves the stand-in as `debuginfo` for
                  the new build ID (fetched with debuginfod-find, else
                  HTTP), and --vmlinux=FETCHED gives the same report
Unless --oracle-only, with that debuginfod running, DEBUGINFOD_URLS pointing
to it, and (but for no-providers) PERF_SYMBOL_PROVIDERS=libdebuginfodprov.so
found through LD_LIBRARY_PATH=build/lib; "traffic" is every request and
every response the server counted (all codes and types, /metrics excluded):

  no-providers    PERF_SYMBOL_PROVIDERS unset: kernel raw, no traffic
  after           REF byte for byte; every kernel sample resolves as in the
                  original report (up to aliases); perf asks for the symbols
                  only; traffic: four 200 section, then one 200 debuginfo
                  (the stand-in has no section symbols: SYMBOLS_FETCH)
  after-cached    the same with after's client cache: no traffic at all
  after-zeroed    as after, with the zeroed kallsyms copy in the cache
  opt-out <how>   --kallsyms=STANDIN_KALLSYMS, --vmlinux=STANDIN (both: REF
                  byte for byte), --ignore-vmlinux, --no-debuginfod,
                  core.debuginfod=false and report.debuginfod=false
                  ($HOME/.perfconfig written by `perf config`),
                  buildid.dir=/dev/null (a $PERF_CONFIG file),
                  DEBUGINFOD_URLS= (empty; the rest: kernel raw): exit 0
                  and no traffic
  debuginfod-urls --debuginfod=SERVER with DEBUGINFOD_URLS empty and
                  core.debuginfod=false: REF byte for byte, the symbols
                  fetched (the command line wins)
  unserved        a profile moved to a build ID the server does not have:
                  exit 0, kernel raw, at most one request per kind
                  (section, debuginfo, executable) in the whole perf report
                  run; one line "no provider supplied the vmlinux
                  (debuginfod: not found), build ID ..."
  broken-first    PERF_SYMBOL_PROVIDERS=/nonexistent/libnothere.so:
                  libdebuginfodprov.so: REF byte for byte, exactly one
                  stderr line about the bad entry
  record          `perf record -a` (the recording perf, -v) with the
                  provider and DEBUGINFOD_URLS set: no traffic, no symprov
                  line on stderr
  other-tool      `perf diff` of the moved profile, providers set: only
                  report, top, annotate and script ask, so no traffic
  keys            perf report --stdio on a terminal, the server never
                  answering: a progress line; 's' skips, 'd' disables the
                  providers, perf ends at once; so does SIGINT during the
                  fetch before the events, also with a zeroed kallsyms
                  copy (perf's lookup finds it out before the events);
                  the terminal's echo and line mode are put back
  exec-path       bare name from perf's exec-path: <DIR>/symprov/
                  libdebuginfodprov-exec-path.so, no LD_LIBRARY_PATH: not
                  found without DIR (control), REF byte for byte with
                  --exec-path=DIR and with PERF_EXEC_PATH=DIR
  readme-line     PERF_SYMBOL_PROVIDERS=libdebuginfodprov.so, no
                  LD_LIBRARY_PATH, with build/perf/perf: found in the
                  tree's build/lib, REF byte for byte

  verbose         -v: one line, "debuginfod supplied the whole file (N MiB)
                  of the vmlinux with build ID ...", N the stand-in's size
  unavailable     a server that refuses connections: one line naming it as
                  down, not asked for 300 s, one line "no provider
                  supplied the vmlinux (debuginfod: unavailable, Connection
                  refused), build ID ..."
  terminal        perf report --stdio with stderr on a terminal: REF byte
                  for byte on stdout, the "supplied" line on the terminal
  damaged         the test provider "sym" supplies the stand-in with the
                  right build ID and .symtab sh_entsize = 0, which perf
                  divides by (--vmlinux=IT kills perf: the control): one
                  line "sym supplied FILE, rejected (...), build ID ...",
                  then "no provider supplied the vmlinux (sym:
                  unavailable, Bad message), build ID ...", exit 0, kernel
                  raw, no traffic
  content <what>  through the test provider "sym" (symbols only, for
                  requests of the symbols only) then debuginfod, counted
                  at the server: --sort dso,sym and perf script -F ip,sym
                  fetch nothing ("sym supplied the symbols only"); srcline
                  (report and script), perf annotate, symprov.content=full
                  and a bad symprov.content value (one warning naming it)
                  fetch the whole file once; perf annotate through the
                  providers prints what it prints with --vmlinux= the
                  same file (but for the header naming the file)
  tui-skip        perf report's TUI (tmux) against a slow server: the
                  progress box with provider, file and growing bytes, the
                  keys on the help line; 's' skips: the browser, kernel
                  raw, the skip line on the help line; 'q': exit 0, the
                  terminal's settings as before; the transfer cut short
  tui-found       the TUI against the real server: the "supplied" line on
                  the help line, the kernel's symbols in the browser
  tui-not-loaded  a provider that cannot load first in the list: on the TUI
                  a warning box names it and why, once; a key, then the
                  browser with the next provider's symbols
  tui-annotate    the TUI with "sym" then debuginfod: nothing fetched at
                  start; the annotate action on a kernel symbol fetches
                  the whole file once and shows its annotation
  top             perf top (TUI), /proc/kallsyms zeroed in a mount
                  namespace of its own, a slow server: the progress on the
                  help line, 'h' answered during the fetch, the bytes
                  growing, 'q' ends perf top before the download does
No check may see perf's "No kallsyms or vmlinux ... was found" when the
providers are asked (no-providers must see it).  The TUI checks run with
/usr/lib/debug hidden (a private mount namespace): perf 6.12 crashes at
random in dso__synthesize_plt_symbols() on separate debug files.

The symbol comparisons use `perf report --stdio -F overhead,sample,period,
dso,sym` and compare_reports.py (same symbols up to aliases, same counts)
over the kernel entries (--all-entries: every entry); the byte-for-byte ones
the full stdout of `perf report --stdio --sort dso,sym`.
PERF defaults to $PERF, else build/perf/perf; the profile is recorded with
--record-perf (default: the same perf).  Providers: $PERF_SYMBOL_PROVIDERS
(default libdebuginfodprov.so) found through LD_LIBRARY_PATH=$SYMPROV_LIB_DIR
(default build/lib).  Ends with a "N passed, N failed" line; exit status 0
when all passed, 1 when a check failed, 2 when the checks could not run.
"""

import argparse
import difflib
import glob
import hashlib
import json
import os
import pty
import re
import select
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import termios
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'lib'))
import compare_reports  # noqa: E402
import make_kallsyms_cache  # noqa: E402
import make_profile  # noqa: E402
from debuginfod_server import (DebuginfodServer, http_get,  # noqa: E402
                               response_counts)
from elf_mutate import ElfImage  # noqa: E402
from fault_server import FaultServer  # noqa: E402
from e2elib import (E2EError, HERE, REPO, buildid_list, clean_env,  # noqa
                    find_perf, log, loud, run, run_checks, alias_map,
                    running_kernel_build_id)
from tui import Terminal, box_text  # noqa: E402

# Symbol comparisons (sample counts and periods per entry)
REPORT_ARGS = ["report", "--stdio", "-F", "overhead,sample,period,dso,sym"]
# Byte-for-byte comparisons: the report users look at
SORT_ARGS = ["report", "--stdio", "--sort", "dso,sym"]
PROVIDER = "libdebuginfodprov.so"
# the same, under a name only <exec-path>/symprov/ has
EXEC_PATH_PROVIDER = "libdebuginfodprov-exec-path.so"
# 1 kernel sample in OUTSIDE_EVERY is put outside the vmlinux, where a real
# host has BPF programs: the original leaves them raw, so must the others
OUTSIDE_EVERY = 50
BROKEN_ENTRY = "/nonexistent/libnothere.so"
# What perf 6.12 prints when no local source has the kernel's symbols:
# only when no provider is asked next (they say what they did instead)
NO_KALLSYMS_MSG = "No kallsyms or vmlinux with build-id"
# perf/ui/symprov.c's lines about a request's result
SUPPLIED_RE = (r"symprov: (\S+) supplied the (symbols only|whole file) "
               r"\(([0-9.]+) MiB\) of the vmlinux with build ID %s")
NOT_SUPPLIED = "symprov: no provider supplied the vmlinux (%s), build ID %s"
# the perf-flavoured test provider (tests/tests.mk: perfsym), named "sym",
# configured through symprov.test.sym.* keys
TEST_PROVIDER = "libtp_perfsym.so"
# the loader's line about a file it refused (lib/symprov_loader.c), with
# the reason lib/symprov_verify.c gives for a symbol table's entry size
REJECTED = ("symprov: %s supplied %s, rejected (symbol table entry size is "
            "not that of a symbol), build ID %s")


def fmt_traffic(t):
    return ", ".join("%s=%d" % (k, v) for k, v in sorted(t.items())) or \
        "none"


class Runner:
    def __init__(self, args):
        self.args = args
        self.perf = find_perf(args.perf)
        self.record_perf = find_perf(args.record_perf) if args.record_perf \
            else self.perf
        self.libdir = os.environ.get("SYMPROV_LIB_DIR",
                                     os.path.join(REPO, "build", "lib"))
        self.tpdir = os.environ.get(
            "SYMPROV_TP_DIR", os.path.join(REPO, "build", "tests",
                                           "providers"))
        self.work = args.workdir or tempfile.mkdtemp(prefix="symprov-e2e.")
        os.makedirs(self.work, exist_ok=True)
        self.passed, self.failed = [], []
        self.aliases = None
        self.expected = None
        self.ref_sort = None
        self.server = None
        self.user_ids = None  # the profile's user-space build IDs
        self.stderr_seen = {}  # stderr line -> runs that printed it
        self.t0 = time.monotonic()

    def p(self, name):
        return os.path.join(self.work, name)

    def fresh_dir(self, name):
        d = self.p(name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        return d

    def fresh_home(self, name):
        return self.fresh_dir("home-" + name)

    def fresh_cache(self, name):
        """An empty debuginfod client cache: without it, a file already
        fetched would make "no request" checks pass for the wrong reason."""
        d = self.p("cache-" + name)
        shutil.rmtree(d, ignore_errors=True)
        return d

    def check(self, name, fn):
        log("--- " + name)
        t = time.monotonic()
        try:
            fn()
        except (E2EError, AssertionError, OSError, ValueError) as e:
            self.failed.append(name)
            print("FAIL %s: %s" % (name, e), flush=True)
            if os.environ.get("E2E_DEBUG"):
                traceback.print_exc()
            return False
        self.passed.append(name)
        print("PASS %s (%.1fs)" % (name, time.monotonic() - t), flush=True)
        return True

    # preflight -------------------------------------------------------------
    def preflight(self):
        """Reasons the checks cannot run at all (empty: they can)."""
        why = []
        if os.geteuid() != 0:
            why.append("not root (euid %d): perf record -a and real "
                       "/proc/kallsyms addresses need root" % os.geteuid())
        for t in ("gcc", "ld", "readelf", "debuginfod", "tmux", "unshare"):
            if not shutil.which(t):
                why.append("%s not found in PATH" % t)
        if not shutil.which(self.perf) and not os.access(self.perf, os.X_OK):
            why.append("no perf at %s" % self.perf)
        try:
            with open("/proc/kallsyms") as f:
                addrs = [line.split(None, 1)[0] for _, line in
                         zip(range(2000), f)]
            if not any(int(a, 16) for a in addrs):
                why.append("/proc/kallsyms shows only zero addresses "
                           "(kernel.kptr_restrict, or not root)")
        except (OSError, ValueError) as e:
            why.append("cannot read /proc/kallsyms: %s" % e)
        if not self.args.oracle_only:
            lib = os.path.join(self.libdir, PROVIDER)
            if not os.path.isfile(lib):
                why.append("no %s (make, or SYMPROV_LIB_DIR=...)" % lib)
            tp = os.path.join(self.tpdir, TEST_PROVIDER)
            if not os.path.isfile(tp):
                why.append("no %s (make %s, or SYMPROV_TP_DIR=...)" % (
                    tp, os.path.relpath(tp, REPO)))
            try:
                # the series' perf has its perf test; stock perf has not
                res = run([self.perf, "test", "list"], 30,
                          env=clean_env(self.fresh_home("preflight")),
                          check=False)
                if "Symbol providers" not in res.stdout + res.stderr:
                    why.append("%s has no symbol provider support (make "
                               "perf; --oracle-only for a stock perf)"
                               % self.perf)
            except (E2EError, OSError) as e:
                why.append("%s test list: %s" % (self.perf, e))
        if why:
            return why
        # perf permission: a system-wide recording of nothing
        try:
            res = run([self.record_perf, "record", "-e", "cpu-clock", "-a",
                       "-N", "-o", self.p("preflight.data"), "--", "true"],
                      60, env=clean_env(self.fresh_home("preflight")),
                      check=False)
            if res.returncode != 0:
                why.append("`perf record -a` fails (rc=%d): %s" % (
                    res.returncode, res.stderr.strip()[-600:]))
        except (E2EError, OSError) as e:
            why.append("`perf record -a`: %s" % e)
        return why

    # perf runs -------------------------------------------------------------
    def perf_run(self, name, args, home, extra_env=None, drop_env=(),
                 check_rc=True, timeout=300, perf=None):
        env = clean_env(home, extra_env)
        for var in drop_env:
            env.pop(var, None)
        res = run([perf or self.perf] + list(args), timeout=timeout,
                  env=env, check=False)
        with open(self.p("out-%s.txt" % name), "w") as f:
            f.write(res.stdout)
        with open(self.p("out-%s.err" % name), "w") as f:
            f.write(res.stderr)
        for line in res.stderr.splitlines():
            self.stderr_seen.setdefault(line.strip(), []).append(name)
        if check_rc and res.returncode != 0:
            raise E2EError("perf %s exited with %d: %s" % (
                args[0], res.returncode, res.stderr.strip()[-1000:]))
        return res

    def report(self, name, data, home, extra_env=None, extra_args=(),
               sort=False, pre_args=(), drop_env=()):
        """perf report: (stdout text, stderr text, parsed entries)."""
        args = list(pre_args) + (SORT_ARGS if sort else REPORT_ARGS) + \
            list(extra_args) + ["-i", data]
        res = self.perf_run(("sort-" if sort else "") + name, args, home,
                            extra_env, drop_env)
        return res.stdout, res.stderr, compare_reports.parse_report(
            res.stdout)

    def expect_same(self, entries):
        problems = compare_reports.compare(
            self.expected, entries, self.aliases,
            kernel_only=not self.args.all_entries)
        if problems:
            raise E2EError("; ".join(problems[:5]) +
                           (" (+%d more)" % (len(problems) - 5)
                            if len(problems) > 5 else ""))

    @staticmethod
    def expect_raw(entries):
        problems = compare_reports.check_raw_kernel(entries)
        if problems:
            raise E2EError("; ".join(problems))

    def sort_reference(self, name):
        text, _, entries = self.report(
            name, self.p("moved.data"), self.fresh_home(name),
            extra_args=["--vmlinux=" + self.standin], sort=True)
        # unresolved: only what the original left so, outside the vmlinux
        raw = {e.sym for e in self.expected if e.kernel and e.raw}
        problems = [e.line for e in entries if e.kernel and e.raw and
                    e.sym not in raw]
        if problems or not any(e.kernel and not e.raw for e in entries):
            raise E2EError("--vmlinux=STANDIN report: no kernel samples or "
                           "unresolved ones: %s" % problems[:3])
        return text

    def expect_identical(self, name, text):
        """text == the `--sort dso,sym` report of the same perf given
        --vmlinux=STANDIN (REF), byte for byte, no line dropped: header
        comments included (same file, same perf, so "# Total Lost Samples",
        "# Samples", "# Event count" are the same too)."""
        if self.ref_sort is None:
            raise E2EError("no reference report (the oracle check failed)")
        if text == self.ref_sort:
            return
        # REF is taken again once before failing: the profile is system-wide,
        # and a user-space binary in it that is rebuilt between two reports
        # (a parallel build) resolves differently in the later one; a report
        # taken now must then agree.  Kernel lines never change this way.
        again = self.sort_reference("oracle-again-" + name)
        if again != self.ref_sort:
            log("note: the --vmlinux=STANDIN report changed since the oracle "
                "check (a binary in the profile changed on disk?); using the "
                "new one")
            self.ref_sort = again
            if text == again:
                return
        diff = list(difflib.unified_diff(
            self.ref_sort.splitlines(), text.splitlines(),
            "--vmlinux=STANDIN", name, n=0, lineterm=""))
        raise E2EError("report differs from the --vmlinux=STANDIN one "
                       "(%d diff lines):\n  %s" % (
                           len(diff), "\n  ".join(diff[:14])))

    # server traffic ----------------------------------------------------------
    def traffic(self):
        """Every request and response the server counted so far, by
        type (and code), /metrics itself excluded; "log" where its log
        ends (user_lookups())."""
        m = self.server.metrics()
        out = {"log": self.server_log_size()}
        for (code, typ), n in response_counts(m).items():
            out["response %s %s" % (code, typ)] = n
        for (name, labels), v in m.items():
            typ = dict(labels).get("type", "?")
            if name == "http_requests_total" and typ != "metrics":
                key = "request " + typ
                out[key] = out.get(key, 0) + int(v)
        return out

    def new_traffic(self, before):
        after = self.traffic()
        return {k: after.get(k, 0) - before.get(k, 0)
                for k in set(after) | set(before)
                if k != "log" and after.get(k, 0) != before.get(k, 0)}

    def server_log_size(self):
        return os.path.getsize(self.server.log_path)

    def user_lookups(self, since, what, kernel=None):
        """The traffic for the profile's user-space objects in the server's
        log past offset SINCE: the providers ask for the debug info of a
        stripped local object (most of this machine's programs), and perf
        7.3 reads source lines with libdw, whose standard find_debuginfo
        callback asks the DEBUGINFOD_URLS servers itself for the debug
        info of every object that has none here.  Each must be a debuginfo
        request, not served, for a user-space object of the profile: how
        many there are depends on the machine."""
        with open(self.server.log_path, "rb") as f:
            f.seek(since)
            text = f.read().decode("utf-8", "replace")
        # the profile's build IDs do not change: read them once
        if self.user_ids is None:
            self.user_ids = set(buildid_list(
                self.perf, self.p("moved.data"),
                clean_env(self.fresh_home("buildid-list"))).values()) - \
                {self.new_id}
        user = self.user_ids
        n = 0
        for bid, kind, code in re.findall(
                r"GET /buildid/([0-9a-f]+)/(\w+)\S* (\d+) ", text):
            if bid == (kernel or self.new_id):
                continue
            if kind != "debuginfo" or code != "404" or bid not in user:
                raise E2EError("%s: a request %s %s answered %s, not one "
                               "of libdw's for a user-space object"
                               % (what, kind, bid, code))
            n += 1
        return {"request debuginfo": n, "response 404 debuginfo": n}

    def expect_traffic(self, before, want, what, users=False):
        """The server's traffic since BEFORE is WANT, plus with USERS the
        lookups of debug info for the user-space objects."""
        got, want = self.new_traffic(before), dict(want)
        extra = self.user_lookups(before["log"], what) if users else {}
        for k, n in extra.items():
            if n:
                want[k] = want.get(k, 0) + n
        if got != want:
            raise E2EError("%s: server traffic %s, want %s" % (
                what, fmt_traffic(got), fmt_traffic(want)))

    def provider_env(self, cache, providers=None, ld_path=True):
        env = {
            "DEBUGINFOD_URLS": self.server.url,
            "DEBUGINFOD_CACHE_PATH": cache,
            "DEBUGINFOD_TIMEOUT": "30",
            "PERF_SYMBOL_PROVIDERS": providers or os.environ.get(
                "PERF_SYMBOL_PROVIDERS", PROVIDER),
        }
        if ld_path:
            ldp = os.environ.get("LD_LIBRARY_PATH")
            env["LD_LIBRARY_PATH"] = self.libdir + (":" + ldp if ldp else "")
        return env

    @staticmethod
    def symprov_lines(err):
        """perf's symprov messages (util/symprov.c: "symprov: ...")."""
        return [x for x in err.splitlines() if x.startswith("symprov:")]

    def expect_no_symprov_stderr(self, err, what):
        bad = self.symprov_lines(err)
        if bad:
            raise E2EError("%s: unexpected symprov lines on stderr: %s"
                           % (what, bad[:3]))

    @staticmethod
    def expect_no_kallsyms_msg(err, what):
        """perf's "No kallsyms or vmlinux ... was found" is not printed
        when the providers are asked (they found it, or say why not)."""
        bad = [x for x in err.splitlines() if x.startswith(NO_KALLSYMS_MSG)]
        if bad:
            raise E2EError("%s: perf says %r although the providers are "
                           "asked" % (what, bad[0]))

    def expect_one_line(self, err, start, what):
        """Exactly one symprov line, starting with start, and no "No
        kallsyms" line."""
        lines = self.symprov_lines(err)
        if len(lines) != 1 or not lines[0].startswith(start):
            raise E2EError("%s: want one line %r..., got %s" % (
                what, start, lines))
        self.expect_no_kallsyms_msg(err, what)
        log("%s: %s" % (what, lines[0]))

    def expect_supplied(self, text, provider, content, what):
        """One "supplied" line in text: provider, content ("symbols
        only", "whole file", None: either) and the size of the file in
        MiB, the stand-in's for the whole file."""
        found = re.findall(SUPPLIED_RE % self.new_id, text)
        whole = "%.1f" % (os.path.getsize(self.standin) / (1 << 20))
        ok = len(found) == 1 and found[0][0] == provider and \
            found[0][1] in ((content,) if content else
                            ("symbols only", "whole file")) and \
            (found[0][2] == whole or found[0][1] != "whole file")
        if not ok:
            raise E2EError("%s: want one line saying %s supplied the %s "
                           "(the whole file is %s MiB); got %s" % (
                               what, provider, content or "file", whole,
                               found))

    # perf asks for the whole file: one download of it
    ONE_FETCH = {"request debuginfo": 1, "response 200 debuginfo": 1}
    # perf asks for the kernel's symbols only: the debuginfod provider asks
    # for four sections, finds that the stand-in's symbol table has no
    # section symbols (no certain symbols-only file), and downloads the
    # whole file instead
    SYMBOLS_FETCH = {"request section": 4, "response 200 section": 4,
                     "request debuginfo": 1, "response 200 debuginfo": 1}

    # steps -----------------------------------------------------------------
    def step_profile(self):
        args = ["--original", self.p("orig.data"), "--moved",
                self.p("moved.data"), "--duration", str(self.args.duration),
                "--perf", self.record_perf,
                # samples outside the vmlinux, as a real host has them
                "--outside-vmlinux", str(OUTSIDE_EVERY)]
        res = run([sys.executable, os.path.join(HERE, "make_profile.py")] +
                  args, timeout=self.args.duration + 180)
        sys.stderr.write(res.stderr)
        self.ids = json.loads(res.stdout)
        self.new_id = self.ids["new_build_id"]

    def step_standin(self):
        os.makedirs(self.p("srv"), exist_ok=True)
        self.standin = self.p("srv/standin.vmlinux")
        res = run([sys.executable, os.path.join(HERE, "make_standin.py"),
                   "--build-id", self.new_id, "-o", self.standin,
                   "--kallsyms-copy", self.p("standin.kallsyms")],
                  timeout=600)
        sys.stderr.write(res.stderr)
        self.aliases = alias_map(self.p("standin.kallsyms"))

    def step_expected(self):
        _, _, self.expected = self.report("original", self.p("orig.data"),
                                          self.fresh_home("original"))
        # the reference itself: kernel samples, resolved but for those
        # outside the vmlinux, which the profile carries on purpose
        problems = compare_reports.compare(self.expected, self.expected)
        if problems:
            raise E2EError("; ".join(problems))
        outside = ["%#x" % (make_profile.OUTSIDE_BASE + 0x40 * i)
                   for i in range(make_profile.OUTSIDE_ADDRESSES)]
        raw = {e.sym for e in self.expected if e.kernel and e.raw}
        if not raw.issuperset(outside):
            raise E2EError("the original report does not show the samples "
                           "put outside the vmlinux raw: %s" % sorted(raw))
        log("original report: %d kernel entries unresolved, %d of them put "
            "there on purpose" % (len(raw), len(outside)))

    def zeroed_home(self, name):
        home = self.fresh_home(name)
        make_kallsyms_cache.write_cache(home, self.new_id,
                                        self.p("standin.kallsyms"))
        return home

    def step_before(self):
        self.expect_raw(self.report("before", self.p("moved.data"),
                                    self.fresh_home("before"))[2])

    def step_before_zeroed(self):
        self.expect_raw(self.report("before-zeroed", self.p("moved.data"),
                                    self.zeroed_home("before-zeroed"))[2])

    def step_oracle(self):
        self.expect_same(self.report(
            "oracle", self.p("moved.data"), self.fresh_home("oracle"),
            extra_args=["--vmlinux=" + self.standin])[2])
        self.ref_sort = self.sort_reference("oracle")

    def step_served(self):
        cache = self.p("find-cache")
        shutil.rmtree(cache, ignore_errors=True)
        fetched = None
        if shutil.which("debuginfod-find"):
            env = clean_env(self.fresh_home("served"), {
                "DEBUGINFOD_URLS": self.server.url,
                "DEBUGINFOD_CACHE_PATH": cache, "DEBUGINFOD_TIMEOUT": "30"})
            res = run(["debuginfod-find", "debuginfo", self.new_id],
                      timeout=120, env=env)
            fetched = res.stdout.strip()
        else:
            status, body = http_get("%s/buildid/%s/debuginfo"
                                    % (self.server.url, self.new_id), 60)
            if status != 200:
                raise E2EError("GET debuginfo: HTTP %d" % status)
            fetched = self.p("fetched.vmlinux")
            with open(fetched, "wb") as f:
                f.write(body)
        with open(fetched, "rb") as a, open(self.standin, "rb") as b:
            if a.read() != b.read():
                raise E2EError("fetched file differs from the stand-in")
        if self.server.responses(type="debuginfo", code=200) < 1:
            raise E2EError("server counted no 200 debuginfo response: %s"
                           % self.server.response_counts())
        self.expect_same(self.report(
            "served", self.p("moved.data"), self.fresh_home("served"),
            extra_args=["--vmlinux=" + fetched])[2])

    def step_no_providers(self):
        env = self.provider_env(self.fresh_cache("no-providers"))
        del env["PERF_SYMBOL_PROVIDERS"]
        before = self.traffic()
        _, err, entries = self.report("no-providers", self.p("moved.data"),
                                      self.fresh_home("no-providers"), env,
                                      sort=True)
        self.expect_raw(entries)
        self.expect_traffic(before, {}, "PERF_SYMBOL_PROVIDERS unset")
        # no provider is asked: perf's own message, and none of ours
        self.expect_no_symprov_stderr(err, "no providers")
        if not any(x.startswith(NO_KALLSYMS_MSG) for x in err.splitlines()):
            raise E2EError("no %r line without providers" % NO_KALLSYMS_MSG)

    def step_after(self, name, home, cache, want):
        """REF byte for byte (`--sort dso,sym`), then the symbols of every
        kernel sample against the original profile (-F ...), both with the
        same HOME and client cache; want: the traffic of both together."""
        env = self.provider_env(cache)
        before = self.traffic()
        text, err, _ = self.report(name, self.p("moved.data"), home, env,
                                   sort=True)
        self.expect_identical(name, text)
        self.expect_no_symprov_stderr(err, name)
        self.expect_no_kallsyms_msg(err, name)
        self.expect_same(self.report(name, self.p("moved.data"), home,
                                     env)[2])
        self.expect_traffic(before, want, name, users=True)

    def step_opt_out(self, name, extra_args=(), env_over=None, config=None,
                     perf_config_cmd=None, resolved=False, asked=True):
        """With PERF_SYMBOL_PROVIDERS set and a fresh client cache: no
        traffic (but the user-space objects' where the user gave the
        kernel's file); the kernel resolved (REF byte for byte) when the
        user gave the symbols, else raw.  asked: the provider is asked and
        says it is disabled, in one line; else no symprov line."""
        home = self.fresh_home(name)
        env = self.provider_env(self.fresh_cache(name))
        env.update(env_over or {})
        if config:  # a $PERF_CONFIG file
            path = self.p("perfconfig-" + name)
            with open(path, "w") as f:
                f.write(config)
            env["PERF_CONFIG"] = path
        if perf_config_cmd:  # `perf config k=v`: $HOME/.perfconfig
            self.perf_run(name + "-config", ["config", perf_config_cmd], home)
            with open(os.path.join(home, ".perfconfig")) as f:
                if perf_config_cmd.split("=")[1] not in f.read():
                    raise E2EError("perf config did not write %s"
                                   % perf_config_cmd)
        before = self.traffic()
        text, err, entries = self.report(name, self.p("moved.data"), home,
                                         env, extra_args, sort=True)
        self.expect_traffic(before, {}, name, users=resolved)
        if resolved:
            self.expect_identical(name, text)
        else:
            self.expect_raw(entries)
        if asked:
            self.expect_one_line(err, NOT_SUPPLIED % (
                "debuginfod: disabled", self.new_id), name)
        else:
            self.expect_no_symprov_stderr(err, name)

    def step_debuginfod_urls(self):
        """--debuginfod=URL: the providers ask URL, DEBUGINFOD_URLS empty
        (an opt-out by itself) and core.debuginfod=false notwithstanding:
        the command line wins."""
        name = "debuginfod-urls"
        home = self.fresh_home(name)
        self.perf_run(name + "-config", ["config", "core.debuginfod=false"],
                      home)
        env = self.provider_env(self.fresh_cache(name))
        env["DEBUGINFOD_URLS"] = ""
        before = self.traffic()
        text, err, _ = self.report(name, self.p("moved.data"), home, env,
                                   ["--debuginfod=" + self.server.url],
                                   sort=True)
        self.expect_identical(name, text)
        self.expect_traffic(before, self.SYMBOLS_FETCH, name, users=True)

    def step_unserved(self):
        """A build ID the server does not have: one lookup for the whole
        run, at most one request per kind, 404s only."""
        data = self.p("unserved.data")
        new = hashlib.sha1(b"symprov-e2e-unserved:" +
                           self.new_id.encode()).hexdigest()
        res = run([sys.executable, os.path.join(HERE, "make_profile.py"),
                   "--from", self.p("orig.data"), "--moved", data,
                   "--build-id", new, "--perf", self.perf], timeout=120)
        if json.loads(res.stdout)["new_build_id"] != new:
            raise E2EError("make_profile.py did not move to %s" % new)
        before = self.traffic()
        _, err, entries = self.report(
            "unserved", data, self.fresh_home("unserved"),
            self.provider_env(self.fresh_cache("unserved")), sort=True)
        self.expect_raw(entries)
        self.expect_one_line(err, NOT_SUPPLIED % ("debuginfod: not found",
                                                  new), "unserved")
        got = self.new_traffic(before)
        for k, n in self.user_lookups(before["log"], "unserved",
                                      new).items():
            got[k] = got.get(k, 0) - n
            if not got[k]:
                del got[k]
        # section: the first of the queries for the symbols only
        kinds = ("section", "debuginfo", "executable")
        bad = {k: v for k, v in got.items()
               if k.split()[-1] not in kinds or v > 1 or
               (k.startswith("response") and k.split()[1] != "404")}
        if bad or not got:
            raise E2EError("server traffic %s: want at most one request and "
                           "one 404 per kind (section, debuginfo, "
                           "executable), and at least one" % fmt_traffic(got))
        log("unserved build ID %s: %s" % (new, fmt_traffic(got)))

    def step_broken_first(self):
        env = self.provider_env(self.fresh_cache("broken-first"),
                                providers=BROKEN_ENTRY + ":" + PROVIDER)
        before = self.traffic()
        text, err, _ = self.report("broken-first", self.p("moved.data"),
                                   self.fresh_home("broken-first"), env,
                                   sort=True)
        self.expect_identical("broken-first", text)
        about = [x for x in err.splitlines() if "libnothere" in x]
        others = [x for x in self.symprov_lines(err) if x not in about]
        if len(about) != 1 or not about[0].startswith("symprov:") or \
                others:
            raise E2EError("want exactly one symprov warning about %s on "
                           "stderr, got %s (other symprov lines: %s)"
                           % (BROKEN_ENTRY, about, others))
        log("warning: " + about[0])
        self.expect_traffic(before, self.SYMBOLS_FETCH, "broken-first",
                            users=True)

    def step_record(self):
        """perf record never asks: -a with the providers and
        DEBUGINFOD_URLS set, build-id processing and cache on (no -N).
        The recording perf's: with --record-perf 6.12 beside Debian 12's
        perf 6.1, a perf 7.3 recording of every process with build IDs
        would make the kernel flag the others' MMAP2 records as holding
        one (tests/tests.mk, CHECK_PARTS)."""
        home = self.fresh_home("record")
        env = self.provider_env(self.fresh_cache("record"))
        before = self.traffic()
        res = self.perf_run("record", [
            "record", "-v", "-e", "cpu-clock", "-a",
            "-o", self.p("record.data"), "--", "sleep", "1"], home, env,
            timeout=120, perf=self.record_perf)
        self.expect_traffic(before, {}, "perf record")
        self.expect_no_symprov_stderr(res.stderr, "perf record -v")

    def step_other_tool(self):
        """Only report, top, annotate, script and c2c report ask: perf
        diff, which loads the kernel's symbols too, with the providers set,
        does not."""
        home = self.fresh_home("other-tool")
        env = self.provider_env(self.fresh_cache("other-tool"))
        before = self.traffic()
        res = self.perf_run("other-tool", [
            "diff", self.p("moved.data"), self.p("moved.data")], home, env,
            timeout=120)
        self.expect_traffic(before, {}, "perf diff")
        self.expect_no_symprov_stderr(res.stderr, "perf diff")

    def step_c2c(self):
        """perf c2c report asks as perf report does: the kernel's symbols,
        fetched before the events; none without a provider."""
        env = self.provider_env(self.fresh_cache("c2c"))
        del env["PERF_SYMBOL_PROVIDERS"]
        before = self.traffic()
        res = self.perf_run("c2c-none", [
            "c2c", "report", "--stdio", "-i", self.p("moved.data")],
            self.fresh_home("c2c"), env, timeout=120)
        self.expect_traffic(before, {}, "perf c2c report, no provider")
        self.expect_no_symprov_stderr(res.stderr, "perf c2c report")
        env = self.provider_env(self.fresh_cache("c2c"))
        res = self.perf_run("c2c", [
            "c2c", "report", "--stdio", "-i", self.p("moved.data")],
            self.fresh_home("c2c"), env, timeout=120)
        self.expect_traffic(before, self.SYMBOLS_FETCH, "perf c2c report",
                            users=True)
        self.expect_no_symprov_stderr(res.stderr, "perf c2c report")
        self.expect_no_kallsyms_msg(res.stderr, "perf c2c report")

    def cache_knowing_user_misses(self, name):
        """A client cache that remembers the user-space objects' debug info
        as missing (a report with the kernel given by --kallsyms asked for
        it): the kernel's file is then the only one fetched, and its fetch
        the one the keys and the TUI act on."""
        cache = self.fresh_cache(name)
        # as the TUI checks run perf: the local debug files hidden too
        res = run(self.without_debug_files(
            [self.perf] + SORT_ARGS + ["--kallsyms=" +
                                       self.p("standin.kallsyms"), "-i",
                                       self.p("moved.data")]), timeout=300,
            env=clean_env(self.fresh_home(name + "-users"),
                          self.provider_env(cache)), check=False)
        if res.returncode != 0:
            raise E2EError("%s: perf report --kallsyms exited with %d: %s"
                           % (name, res.returncode, res.stderr[-500:]))
        return cache

    def on_terminal(self, name, act, home=None):
        """perf report --stdio with stdin and stderr on a terminal while
        the provider waits on a server that never answers; once the
        progress line shows, ACT(proc, master) runs.  Returns the exit
        code, what the terminal showed, the seconds from ACT to the exit,
        and whether the terminal has its echo and line mode back."""
        master, slave = pty.openpty()
        lflag = termios.tcgetattr(slave)[3]
        env = clean_env(home or self.fresh_home(name), self.provider_env(
            self.cache_knowing_user_misses(name)))
        screen = b""
        with FaultServer("hang", hang_s=60) as fault:
            env["DEBUGINFOD_URLS"] = fault.url
            # as at a terminal: Ctrl-C not ignored, whatever started us
            # (a shell's background job, make under one, ignores SIGINT)
            proc = subprocess.Popen(
                [self.perf, "report", "--stdio", "--sort", "dso,sym", "-i",
                 self.p("moved.data")], stdin=slave, stderr=slave,
                stdout=subprocess.DEVNULL, env=env, start_new_session=True,
                preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                 signal.SIG_DFL))
            try:
                deadline = time.monotonic() + 30
                while b"[s]kip" not in screen and proc.poll() is None and \
                        time.monotonic() < deadline:
                    screen += self.read_terminal(master, 0.2)
                if b"[s]kip" not in screen:
                    raise E2EError("no progress line on the terminal: %r"
                                   % screen[-300:])
                act(proc, master)
                start = time.monotonic()
                while proc.poll() is None and \
                        time.monotonic() < start + 20:
                    screen += self.read_terminal(master, 0.2)
                elapsed = time.monotonic() - start
                if proc.poll() is None:
                    raise E2EError("perf still running 20 s after the key")
                screen += self.read_terminal(master, 0.2)
            finally:
                if proc.poll() is None:
                    proc.kill()
                proc.wait()
        restored = termios.tcgetattr(slave)[3] & (termios.ECHO |
                                                  termios.ICANON) == \
            lflag & (termios.ECHO | termios.ICANON)
        os.close(master)
        os.close(slave)
        return proc.returncode, screen.decode(errors="replace"), elapsed, \
            restored

    @staticmethod
    def read_terminal(master, timeout):

        if select.select([master], [], [], timeout)[0]:
            try:
                return os.read(master, 65536)
            except OSError:
                pass
        return b""

    def step_keys(self):
        """In stdio mode on a terminal: a progress line; 's' skips the
        download, 'd' disables the providers, each at once, and Ctrl-C
        leaves the terminal as it found it."""
        # 's' skips the vmlinux, or the batch it is in (the user-space
        # objects' misses, remembered, are asked too)
        for key, says in ((b"s", "symprov: skipped the "),
                          (b"d", "symprov: providers disabled")):
            rc, screen, elapsed, restored = self.on_terminal(
                "key-" + key.decode(), lambda p, m: os.write(m, key))
            if rc != 0 or says not in screen or not restored:
                raise E2EError("key %r: exit %d, %r on the terminal, "
                               "terminal restored: %s" % (
                                   key, rc, screen[-400:], restored))
            log("key %r: perf done %.1f s after it" % (key, elapsed))
        # the fetch comes before the events are processed, where Ctrl-C
        # ends perf (within perf report's processing its own handler ends
        # the session instead, and perf prints what it has)
        rc, screen, elapsed, restored = self.on_terminal(
            "key-int", lambda p, m: p.send_signal(signal.SIGINT))
        if rc not in (0, -signal.SIGINT) or not restored:
            raise E2EError("SIGINT during the fetch: exit %d, terminal "
                           "restored: %s" % (rc, restored))
        log("SIGINT: perf done %.1f s after it, exit %d" % (elapsed, rc))
        # a zeroed kallsyms copy: perf's lookup finds it out before the
        # events, and the providers are asked then, as without one
        rc, screen, elapsed, restored = self.on_terminal(
            "key-int-inload", lambda p, m: p.send_signal(signal.SIGINT),
            home=self.zeroed_home("key-int-inload"))
        if rc not in (0, -signal.SIGINT) or not restored:
            raise E2EError("SIGINT during a fetch while processing: exit "
                           "%d, terminal restored: %s" % (rc, restored))
        log("SIGINT while processing: perf done %.1f s after it" % elapsed)

    # messages ------------------------------------------------------------
    def step_verbose(self):
        """-v: which provider supplied the file, what and its size."""
        env = self.provider_env(self.fresh_cache("verbose"))
        _, err, entries = self.report("verbose", self.p("moved.data"),
                                      self.fresh_home("verbose"), env,
                                      extra_args=["-v"], sort=True)
        if not any(e.kernel and not e.raw for e in entries):
            raise E2EError("kernel samples unresolved")
        self.expect_supplied(err, "debuginfod", None, "-v")
        self.expect_no_kallsyms_msg(err, "-v")

    def step_unavailable(self):
        """A server that is down: one line naming it, one with the
        reason the kernel is not supplied."""
        with socket.socket() as sock:  # a port nobody listens on
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        env = self.provider_env(self.fresh_cache("unavailable"))
        url = "http://127.0.0.1:%d" % port
        env["DEBUGINFOD_URLS"] = url
        _, err, entries = self.report(
            "unavailable", self.p("moved.data"),
            self.fresh_home("unavailable"), env, sort=True)
        self.expect_raw(entries)
        down = "symprov: debuginfod: server %s refused the connection: " \
            "not asked for 300 s" % url
        # In either order: the objects are asked side by side, and the
        # query that finds the server down says so from its own thread,
        # while perf may already print the kernel's line.
        lines = self.symprov_lines(err)
        said = [line for line in lines if line.startswith(down)]
        if len(said) != 1:
            raise E2EError("unavailable: want one line %r..., got %s" % (
                down, lines))
        lines.remove(said[0])
        self.expect_one_line("\n".join(lines), NOT_SUPPLIED % (
            "debuginfod: unavailable, Connection refused", self.new_id),
            "unavailable")

    def step_damaged(self):
        """A provider supplies a damaged file with the right build ID:
        perf refuses it with one line, does not crash, and shows the
        kernel's samples raw."""
        damaged = self.p("damaged.vmlinux")  # not in srv: not served
        with open(self.standin, "rb") as f:
            img = ElfImage(f.read())
        img.set_shdr(img.section(".symtab"), "sh_entsize", 0)
        with open(damaged, "wb") as f:
            f.write(img.data)
        # given by hand, the file no longer kills perf: the series fixes
        # perf's own crash on a .symtab with sh_entsize 0 (stock perf
        # 6.12 dies of SIGFPE; run_vmlinux_crashes.py shows it)
        res = self.perf_run("damaged-vmlinux", SORT_ARGS + [
            "--vmlinux=" + damaged, "-i", self.p("moved.data")],
            self.fresh_home("damaged-vmlinux"), check_rc=False)
        if res.returncode != 0:
            raise E2EError("perf report --vmlinux=DAMAGED exited with %d: "
                           "perf's own fix is missing" % res.returncode)
        log("damaged: --vmlinux=DAMAGED: perf survives it")

        config = self.p("perfconfig-damaged")
        with open(config, "w") as f:
            f.write("[symprov \"test.sym\"]\n\tstatus = 0\n\tpath = %s\n"
                    "\tkind = 1\n" % damaged)
        env = self.provider_env(self.fresh_cache("damaged"), providers=(
            os.path.join(self.tpdir, TEST_PROVIDER)))
        env["PERF_CONFIG"] = config
        before = self.traffic()
        _, err, entries = self.report("damaged", self.p("moved.data"),
                                      self.fresh_home("damaged"), env,
                                      sort=True)
        self.expect_raw(entries)
        want = [REJECTED % ("sym", damaged, self.new_id),
                NOT_SUPPLIED % ("sym: unavailable, Bad message",
                                self.new_id)]
        if self.symprov_lines(err) != want:
            raise E2EError("want the lines %s, got %s" % (
                want, self.symprov_lines(err)))
        self.expect_no_kallsyms_msg(err, "damaged")
        self.expect_traffic(before, {}, "damaged")
        log("damaged: " + want[0])

    def on_pty(self, name, argv, env, timeout=120):
        """argv with stdin and stderr on a terminal, stdout to a file:
        (exit code, what the terminal showed)."""
        master, slave = pty.openpty()
        screen = b""
        with open(self.p("out-%s.txt" % name), "w") as out:
            proc = subprocess.Popen(argv, stdin=slave, stderr=slave,
                                    stdout=out, env=env,
                                    start_new_session=True)
        os.close(slave)
        try:
            deadline = time.monotonic() + timeout
            while proc.poll() is None and time.monotonic() < deadline:
                screen += self.read_terminal(master, 0.2)
            if proc.poll() is None:
                raise E2EError("%s: still running after %ss" % (name,
                                                                 timeout))
            screen += self.read_terminal(master, 0.2)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            os.close(master)
        text = screen.decode(errors="replace")
        with open(self.p("out-%s.err" % name), "w") as f:
            f.write(text)
        return proc.returncode, text

    def step_terminal(self):
        """stdio on a terminal: one line says who supplied what."""
        env = clean_env(self.fresh_home("terminal"),
                        self.provider_env(self.fresh_cache("terminal")))
        rc, screen = self.on_pty("terminal", [
            self.perf, "report", "--stdio", "--sort", "dso,sym", "-i",
            self.p("moved.data")], env)
        if rc != 0:
            raise E2EError("exit %d: %s" % (rc, screen[-500:]))
        with open(self.p("out-terminal.txt")) as f:
            self.expect_identical("terminal", f.read())
        # the progress line, if any, is redrawn in place with \r and
        # cleared with ESC [K
        lines = [x.split("\r")[-1].replace("\033[K", "")
                 for x in screen.splitlines()]
        self.expect_supplied("\n".join(lines), "debuginfod", None,
                             "terminal")
        self.expect_no_kallsyms_msg(screen, "terminal")
        log("terminal: " + [x for x in lines if "supplied" in x][0])

    # what is fetched -------------------------------------------------------
    def content_env(self, name, config=""):
        """The test provider "sym" serving the stand-in as the symbols only
        (to requests for the symbols only), then the debuginfod provider:
        traffic at the server means the whole file was asked for."""
        sym = self.p("symbols-only.vmlinux")
        if not os.path.exists(sym):
            shutil.copyfile(self.standin, sym)
        path = self.p("perfconfig-" + name)
        with open(path, "w") as f:
            f.write("[symprov \"test.sym\"]\n\tstatus = 0\n\tpath = %s\n"
                    "\tcontent = 1\n\tserves = 1\n%s" % (sym, config))
        env = self.provider_env(self.fresh_cache(name), providers=":".join(
            (os.path.join(self.tpdir, TEST_PROVIDER), PROVIDER)))
        env["PERF_CONFIG"] = path
        return env

    def step_content(self, name, args, want, says, config=""):
        """perf ARGS -v through "sym" then debuginfod: the server traffic
        WANT ({}: the symbols only were asked for, ONE_FETCH: the whole
        file), the -v line SAYS ("sym" or "debuginfod")."""
        env = self.content_env(name, config)
        before = self.traffic()
        res = self.perf_run(name, args[:1] + ["-v"] + args[1:],
                            self.fresh_home(name), env)
        self.expect_traffic(before, want, name, users=True)
        self.expect_supplied(res.stderr, says, "symbols only"
                             if says == "sym" else "whole file", name)
        return res

    def step_annotate_as_vmlinux(self, moved, sym):
        """perf annotate through the providers shows what it shows with
        --vmlinux= the same file, but for the header naming the file."""
        name = "annotate-provider"
        got = self.perf_run(name, ["annotate", "--stdio"] + moved + [sym],
                            self.fresh_home(name), self.content_env(name))
        want = self.perf_run("annotate-vmlinux",
                             ["annotate", "--stdio", "--vmlinux=" +
                              self.standin] + moved + [sym],
                             self.fresh_home("annotate-vmlinux"))
        # " Percent | Source code & Disassembly of FILE for ..." and its
        # rule of dashes as long as it.  The symbol's line, "ADDRESS
        # <SYM>:", is the first with LLVM's disassembler; objdump's (perf
        # built without libllvm, as on a machine without llvm-dev) comes
        # after its own header lines.
        body = [x.splitlines()[2:] for x in (got.stdout, want.stdout)]
        if not any("<%s>:" % sym in line for line in body[1]):
            raise E2EError("perf annotate --vmlinux: no annotation of %s"
                           % sym)
        if body[0] != body[1]:
            raise E2EError("perf annotate through the providers differs "
                           "from --vmlinux (out-%s.txt, "
                           "out-annotate-vmlinux.txt)" % name)
        log("annotate: %d lines as with --vmlinux" % len(body[0]))

    def content_checks(self):
        moved = ["-i", self.p("moved.data")]
        sym = self.top_kernel_symbol()
        self.check("content report dso,sym", lambda: self.step_content(
            "content-sym", SORT_ARGS + moved, {}, "sym"))
        self.check("content report srcline", lambda: self.step_content(
            "content-srcline", ["report", "--stdio", "--sort",
                                "dso,sym,srcline"] + moved,
            self.ONE_FETCH, "debuginfod"))
        self.check("content report.sort_order", lambda: self.step_content(
            "content-sort-config", ["report", "--stdio"] + moved,
            self.ONE_FETCH, "debuginfod",
            config="[report]\n\tsort_order = dso,sym,srcline\n"))
        self.check("content script", lambda: self.step_content(
            "content-script", ["script", "-F", "ip,sym"] + moved, {},
            "sym"))
        self.check("content script srcline", lambda: self.step_content(
            "content-script-srcline", ["script", "-F", "ip,sym,srcline"] +
            moved, self.ONE_FETCH, "debuginfod"))
        self.check("content annotate", lambda: self.step_content(
            "content-annotate", ["annotate", "--stdio"] + moved + [sym],
            self.ONE_FETCH, "debuginfod"))
        self.check("content annotate as --vmlinux",
                   lambda: self.step_annotate_as_vmlinux(moved, sym))
        self.check("content symprov.content=full", lambda: self.step_content(
            "content-full", SORT_ARGS + moved, self.ONE_FETCH, "debuginfod",
            config="[symprov]\n\tcontent = full\n"))

        def bad_value():
            res = self.step_content(
                "content-bad", SORT_ARGS + moved, self.ONE_FETCH,
                "debuginfod", config="[symprov]\n\tcontent = most\n")
            bad = [x for x in res.stderr.splitlines()
                   if "symprov.content=most" in x]
            if len(bad) != 1:
                raise E2EError("want one line about symprov.content=most, "
                               "got %s" % bad)
            log("content-bad: " + bad[0])
        self.check("content symprov.content=most", bad_value)

    def top_kernel_symbol(self):
        """The first kernel symbol of REF."""
        for line in (self.ref_sort or "").splitlines():
            m = re.search(r"\[kernel\.kallsyms\]\s+\[k\] (\S+)", line)
            if m and not m.group(1).startswith("0x"):
                return m.group(1)
        raise E2EError("no kernel symbol in the reference report")

    # the TUI ---------------------------------------------------------------
    @staticmethod
    def without_debug_files(argv, setup=""):
        """argv in a mount namespace of its own where /usr/lib/debug is
        empty (after the shell commands setup): perf 6.12 reads past a
        NOBITS .rela.plt of a separate debug file (e.g. libc6-dbg's) in
        dso__synthesize_plt_symbols() and crashes at random, in the TUI
        more often; nothing of ours, and not what these checks are about."""
        cmd = ("%sif [ -d /usr/lib/debug ]; then mount -t tmpfs none "
               "/usr/lib/debug || exit 1; fi; exec \"$@\"" % setup)
        return ["unshare", "-m", "--propagation", "private", "sh", "-c",
                cmd, "sh"] + list(argv)

    @staticmethod
    def quit_tui(term):
        """'q' ends the program: exit 0, the terminal as it was."""
        term.keys("q")
        rc = term.wait_exit(20)
        if rc != 0 or not term.restored():
            raise E2EError("exit %d, terminal restored: %s" % (
                rc, term.restored()))

    @staticmethod
    def annotate_in_tui(term, sym, line_of):
        """In perf report's browser: show SYM alone ('/'), then its
        annotation ('a'); LINE_OF(sym) is how its line reads.  Returns the
        annotation's screen."""
        term.keys("/")
        term.wait_for(lambda s: "Symbol to show" in s, 10,
                      "the filter prompt")
        term.literal(sym)
        term.keys("Enter")
        term.wait_for(lambda s: "Symbol to show" not in s and
                      line_of(sym) in s.split("\n")[2], 20, sym + " filtered")
        term.keys("a")
        return term.wait_for(lambda s: s.split("\n")[1].startswith(sym) and
                             "Percent" in s, 60, "the annotation of " + sym)

    @staticmethod
    def expect_tui_lines(term, *lines):
        """The help line showed one of lines, never perf's "No kallsyms"."""
        if term.ever(NO_KALLSYMS_MSG):
            raise E2EError("the screen said %r" % NO_KALLSYMS_MSG)
        seen = [x for s in term.seen for x in s.splitlines()
                 if any(line in x for line in lines)]
        if seen:
            log("seen on the help line: " + seen[0])
            return
        # shown between two looks: in what perf wrote, past the "symprov: "
        # the help line may have had already
        written = [x for x in lines if term.written(x.split(": ", 1)[-1])]
        if not written:
            raise E2EError("none of %r ever on the screen" % (lines,))
        log("written to the help line: " + written[0])

    def progress_re(self, build_id):
        """The kernel's fetch, alone or with the debug info of the
        profile's stripped programs, whose misses the client cache knows
        (cache_knowing_user_misses()): its bytes are the kernel's."""
        return re.compile(r"symprov: debuginfod: (?:symbols of vmlinux %s|"
                          r"\d+ of \d+ objects): ([0-9.]+)/([0-9.]+) MiB"
                          % build_id[:12])

    def slow_server(self, body, rate=256 << 10):
        return FaultServer("slow", body=body, rate=rate, chunk=32 << 10,
                           hang_s=240, lifetime=300, size_header=True)

    def step_tui_skip(self):
        """perf report's TUI (no --stdio) while the provider downloads from
        a slow server: perf's progress box with the provider, what and the
        bytes, growing; the keys on the help line; 's' skips: the browser
        comes with the kernel unresolved, and the terminal is as before."""
        with open(self.standin, "rb") as f:
            body = f.read()
        total = "%.1f" % (len(body) / (1 << 20))
        prog = self.progress_re(self.new_id)
        env = clean_env(self.fresh_home("tui-skip"), self.provider_env(
            self.cache_knowing_user_misses("tui-skip")))
        with self.slow_server(body) as slow, \
                Terminal(self.work, "tui-skip") as term:
            env["DEBUGINFOD_URLS"] = slow.url
            term.start(self.without_debug_files(
                [self.perf, "report", "-i", self.p("moved.data")]), env)
            first = prog.search(term.wait_for(
                prog.search, 60, "the progress box"))
            if first.group(2) != total:
                raise E2EError("progress total %s MiB, the file is %s MiB"
                               % (first.group(2), total))
            more = term.wait_for(
                lambda s: prog.search(s) and float(prog.search(s).group(1))
                > float(first.group(1)), 20, "the bytes growing")
            if "press 's' to skip this file" not in more and \
                    "press 's' to skip these files" not in more:
                raise E2EError("no keys on the help line:\n" + more)
            term.keys("s")
            term.wait_for(lambda s: "Samples:" in s and "[k] 0x" in s, 60,
                          "the browser, kernel unresolved")
            self.quit_tui(term)
            self.expect_tui_lines(term, "symprov: skipped the vmlinux "
                                  "with build ID " + self.new_id,
                                  "symprov: skipped the files of the "
                                  "profile's objects")
            if slow.sent >= len(body):
                raise E2EError("the whole file was sent: not skipped")
        log("tui-skip: skipped after %d of %d bytes" % (slow.sent, len(body)))

    def step_tui_found(self):
        """The TUI with the real server: the kernel's symbols on screen."""
        sym = self.top_kernel_symbol()
        env = clean_env(self.fresh_home("tui-found"), self.provider_env(
            self.cache_knowing_user_misses("tui-found")))
        before = self.traffic()
        with Terminal(self.work, "tui-found") as term:
            term.start(self.without_debug_files(
                [self.perf, "report", "-i", self.p("moved.data")]), env)
            term.wait_for(lambda s: "Samples:" in s and "[k] " + sym in s,
                          60, "the browser with " + sym)
            self.quit_tui(term)
            self.expect_tui_lines(term, "symprov: debuginfod supplied the ",
                                  "symprov: the providers supplied ")
        got = self.new_traffic(before)
        if not any(k.startswith("response 200") for k in got) or \
                any(k.startswith("response") and k.split()[1] != "200"
                    for k in got):
            raise E2EError("tui-found: server traffic %s" % fmt_traffic(got))

    def step_tui_not_loaded(self):
        """A provider that cannot load, on the TUI: a warning box names it
        and the reason (perf's own warnings are such boxes) and waits for a
        key; then the browser, the next provider's symbols in it."""
        sym = self.top_kernel_symbol()
        env = clean_env(self.fresh_home("tui-not-loaded"), self.provider_env(
            self.fresh_cache("tui-not-loaded"),
            providers=BROKEN_ENTRY + ":" + PROVIDER))
        want = "symbol provider '%s' skipped: " % BROKEN_ENTRY
        with Terminal(self.work, "tui-not-loaded") as term:
            term.start(self.without_debug_files(
                [self.perf, "report", "-i", self.p("moved.data")]), env)
            box = term.wait_for(lambda s: want in s and
                                "Press any key" in s, 60, "the warning box")
            # its lines are cut to fit: read them as one text
            flat = box_text(box, "Warning:") or ""
            if "cannot open shared object file" not in flat:
                raise E2EError("no reason in the box:\n" + box)
            term.keys("Enter")
            term.wait_for(lambda s: "Samples:" in s and "[k] " + sym in s,
                          60, "the browser with " + sym)
            browser = len(term.seen) - 1
            self.quit_tui(term)
            if any(want in s and "Press any key" in s
                   for s in term.seen[browser:]):
                raise E2EError("the warning box came again")
        log("tui-not-loaded: in a box, once: %s" % flat[
            flat.index(want):flat.index("Press any key")].strip())

    def step_tui_annotate(self):
        """The symbols only at start ("sym"), the whole file from debuginfod
        when the TUI's annotate action is taken on a kernel symbol."""
        sym = self.top_kernel_symbol()
        env = clean_env(self.fresh_home("tui-annotate"),
                        self.content_env("tui-annotate"))
        before = self.traffic()
        with Terminal(self.work, "tui-annotate") as term:
            term.start(self.without_debug_files(
                [self.perf, "report", "-i", self.p("moved.data")]), env)
            term.wait_for(lambda s: "[k] " + sym in s, 60,
                          "the browser with " + sym)
            self.expect_traffic(before, {}, "before annotating", users=True)
            self.annotate_in_tui(term, sym, lambda x: "[k] " + x)
            self.expect_traffic(before, self.ONE_FETCH, "annotate",
                                users=True)
            term.keys("q")
            term.wait_for(lambda s: "[k] " + sym in s, 10, "back")
            self.quit_tui(term)

    def step_top(self):
        """perf top (TUI) while the provider downloads: the running kernel's
        /proc/kallsyms shows zero addresses (bind-mounted, in a mount
        namespace of its own), so it asks for its vmlinux, and for the
        debug info of the stripped programs it samples, from a slow
        server.  The progress shows on the help line, the display answers
        keys meanwhile ('h' opens its help), 'q' ends perf top before the
        download does, and the terminal is as before."""
        running = running_kernel_build_id()
        zeroed = self.p("zeroed.kallsyms")
        with open("/proc/kallsyms") as src, open(zeroed, "w") as dst:
            for line in src:
                dst.write("0" * 16 + line[16:])
        with open(self.standin, "rb") as f:
            body = f.read()
        # the kernel's fetch, or the debug info of a stripped program it
        # samples (the slow server sends the stand-in to every request)
        prog = re.compile(r"symprov: debuginfod: ([^:\n]+): "
                          r"([0-9.]+)/([0-9.]+) MiB")
        env = clean_env(self.fresh_home("top"),
                        self.provider_env(self.fresh_cache("top")))
        with self.slow_server(body, rate=128 << 10) as slow, \
                Terminal(self.work, "top") as term:
            env["DEBUGINFOD_URLS"] = slow.url
            term.start(self.without_debug_files(
                [self.perf, "top", "-e", "cpu-clock", "-d", "1"],
                setup="mount --bind %s /proc/kallsyms && " %
                shlex.quote(zeroed)), env)
            first = prog.search(term.wait_for(
                lambda s: "Samples:" in s and prog.search(s), 60,
                "perf top with the progress"))
            term.keys("h")
            term.wait_for(lambda s: "Annotate current symbol" in s, 20,
                          "perf top's help, during the fetch")
            term.keys("Escape")
            term.wait_for(
                lambda s: prog.search(s) and
                prog.search(s).group(1) == first.group(1) and
                float(prog.search(s).group(2)) > float(first.group(2)), 20,
                "the bytes of %s growing" % first.group(1))
            self.quit_tui(term)
            if slow.sent >= len(body):
                raise E2EError("perf top ended after the download")
        log("top: ended after %d of %d bytes" % (slow.sent, len(body)))

    def step_exec_path(self):
        """A bare name from <exec-path>/symprov/, without LD_LIBRARY_PATH
        (perf/util/symprov.c: symprov__dirs(), get_argv_exec_path()), under
        a name no other directory has."""
        xdir = self.fresh_dir("exec-path")
        os.makedirs(os.path.join(xdir, "symprov"))
        shutil.copy2(os.path.join(self.libdir, PROVIDER),
                     os.path.join(xdir, "symprov", EXEC_PATH_PROVIDER))
        drop = ("LD_LIBRARY_PATH", "PERF_EXEC_PATH")

        # control: the bare name is not found by dlopen() alone, so what
        # finds it below is the exec-path directory
        env = self.provider_env(self.fresh_cache("exec-path-none"),
                                providers=EXEC_PATH_PROVIDER, ld_path=False)
        before = self.traffic()
        _, err, entries = self.report(
            "exec-path-none", self.p("moved.data"),
            self.fresh_home("exec-path-none"), env, sort=True,
            drop_env=drop)
        if not any(e.kernel and e.raw for e in entries) or \
                not any(EXEC_PATH_PROVIDER in x and "skipped" in x
                        for x in self.symprov_lines(err)):
            raise E2EError("%s is found without the exec-path directory and "
                           "LD_LIBRARY_PATH: this check cannot tell"
                           % EXEC_PATH_PROVIDER)
        self.expect_traffic(before, {}, "control, no exec-path")

        for how in ("--exec-path", "PERF_EXEC_PATH"):
            name = "exec-path-" + how.strip("-").lower()
            env = self.provider_env(self.fresh_cache(name),
                                    providers=EXEC_PATH_PROVIDER,
                                    ld_path=False)
            pre = []
            if how == "--exec-path":
                pre = ["--exec-path=" + xdir]
            else:
                env["PERF_EXEC_PATH"] = xdir
            before = self.traffic()
            text, err, _ = self.report(
                name, self.p("moved.data"), self.fresh_home(name), env,
                sort=True, pre_args=pre,
                drop_env=[v for v in drop if v not in env])
            self.expect_identical(name, text)
            self.expect_no_symprov_stderr(err, name)
            self.expect_traffic(before, self.SYMBOLS_FETCH, how, users=True)

    def step_readme_line(self):
        """The README's line as printed, with the perf `make perf` built
        for the tree: PERF_SYMBOL_PROVIDERS=libdebuginfodprov.so perf
        report, no LD_LIBRARY_PATH, no install: that perf looks for bare
        names in the tree's build/lib too (SYMPROV_PROVIDER_DIRS).  So
        does any perf scripts/build-perf.sh built (make perf-6.12 too):
        its run path is the tree's build/lib."""
        lib = os.path.realpath(os.path.join(REPO, "build", "lib"))
        dyn = run(["readelf", "-d", self.perf], 60).stdout
        paths = re.search(r"\((?:RUNPATH|RPATH)\).*\[(.*)\]", dyn)
        if not paths or lib not in paths.group(1).split(":"):
            raise E2EError("%s has not the tree's build/lib as its run "
                           "path (make perf): it may not look there"
                           % self.perf)
        env = self.provider_env(self.fresh_cache("readme-line"),
                                providers=PROVIDER, ld_path=False)
        before = self.traffic()
        text, err, _ = self.report(
            "readme-line", self.p("moved.data"), self.fresh_home("readme"),
            env, sort=True, drop_env=("LD_LIBRARY_PATH", "PERF_EXEC_PATH"))
        self.expect_identical("readme-line", text)
        self.expect_no_symprov_stderr(err, "readme-line")
        self.expect_traffic(before, self.SYMBOLS_FETCH, "readme-line",
                            users=True)

    def step_dlopen(self):
        """perf opens libsymprov.so.1 at run time: a copy of this perf
        with no run path is a perf built where libsymprov is not
        installed.  With no provider configured it opens nothing (the
        dynamic loader's log); with providers and no library, one line
        says so and nothing is asked; with the library installed
        (LD_LIBRARY_PATH), the kernel is named."""
        perf = self.p("perf-no-runpath")
        shutil.copy(self.perf, perf)
        run(["patchelf", "--remove-rpath", perf], 60)
        dyn = run(["readelf", "-d", perf], 60).stdout
        if "libsymprov" in dyn or "RUNPATH" in dyn or "RPATH" in dyn:
            raise E2EError("%s still needs libsymprov or has a run path"
                           % perf)
        saved, self.perf = self.perf, perf
        try:
            env = self.provider_env(self.fresh_cache("dlopen"),
                                    ld_path=False)
            del env["PERF_SYMBOL_PROVIDERS"]
            env["LD_DEBUG"] = "libs"
            env["LD_DEBUG_OUTPUT"] = self.p("ld-debug")
            before = self.traffic()
            _, err, entries = self.report(
                "dlopen-none", self.p("moved.data"),
                self.fresh_home("dlopen"), env, sort=True,
                drop_env=("LD_LIBRARY_PATH",))
            self.expect_raw(entries)
            self.expect_no_symprov_stderr(err, "dlopen-none")
            ld_log = ""
            for name in glob.glob(self.p("ld-debug.*")):
                with open(name) as f:
                    ld_log += f.read()
            if "calling init: " not in ld_log:
                raise E2EError("no dynamic loader log in %s.*"
                               % self.p("ld-debug"))
            if "libsymprov" in ld_log:
                raise E2EError("no provider configured, yet the loader "
                               "looked for libsymprov: %s" % [
                                   x for x in ld_log.splitlines()
                                   if "libsymprov" in x][:2])
            env = self.provider_env(self.fresh_cache("dlopen"),
                                    ld_path=False)
            _, err, entries = self.report(
                "dlopen-missing", self.p("moved.data"),
                self.fresh_home("dlopen"), env, sort=True,
                drop_env=("LD_LIBRARY_PATH",))
            self.expect_raw(entries)
            lines = self.symprov_lines(err)
            want = "symprov: symbol providers not asked: libsymprov.so.1: "
            if len(lines) != 1 or not lines[0].startswith(want):
                raise E2EError("providers configured, no libsymprov: want "
                               "one line %r..., got %s" % (want, lines))
            log("dlopen-missing: %s" % lines[0])
            self.expect_traffic(before, {}, "no libsymprov")
            env = self.provider_env(self.fresh_cache("dlopen-installed"))
            text, err, _ = self.report(
                "dlopen-installed", self.p("moved.data"),
                self.fresh_home("dlopen"), env, sort=True)
            self.expect_identical("dlopen-installed", text)
            self.expect_no_symprov_stderr(err, "dlopen-installed")
            self.expect_traffic(before, self.SYMBOLS_FETCH,
                                "dlopen-installed", users=True)
        finally:
            self.perf = saved

    def step_secure(self):
        """Under AT_SECURE (a perf with a file capability, run by another
        user) the variable's list is ignored: perf still opens libsymprov
        when it is set, which says so in one line, and nothing is asked;
        with no list at all, nothing is opened and nothing said.  perf and
        the libsymprov its rpath names are copied where that user reaches
        them (the clone may be in a directory of root's alone)."""
        tmp = tempfile.mkdtemp(prefix="symprov-secure.")
        try:
            os.chmod(tmp, 0o755)
            perf = os.path.join(tmp, "perf")
            data = os.path.join(tmp, "moved.data")
            lib = os.path.join(tmp, "lib")
            os.mkdir(lib)
            shutil.copy(self.perf, perf)
            shutil.copy(os.path.join(self.libdir, "libsymprov.so.1"), lib)
            # under AT_SECURE ld.so takes an absolute rpath, not $ORIGIN
            run(["patchelf", "--set-rpath", lib, perf], 60)
            shutil.copy(self.p("moved.data"), data)
            os.chmod(data, 0o644)
            run(["setcap", "cap_perfmon+ep", perf], 60)
            nobody = ["setpriv", "--reuid=65534", "--regid=65534",
                      "--clear-groups", "--"]
            argv = nobody + [perf, "report", "--stdio", "-i", data]
            before = self.traffic()
            env = dict(self.provider_env(self.fresh_cache("secure"),
                                         ld_path=False), HOME=tmp,
                       PATH="/usr/bin:/bin")
            err = run(argv, 120, env=env, check=False).stderr
            lines = self.symprov_lines(err)
            want = "symprov: PERF_SYMBOL_PROVIDERS ignored: running with " \
                "elevated privileges"
            if len(lines) != 1 or not lines[0].startswith(want):
                raise E2EError("secure: want one line %r..., got %s"
                               % (want, lines))
            del env["PERF_SYMBOL_PROVIDERS"]
            err = run(argv, 120, env=env, check=False).stderr
            self.expect_no_symprov_stderr(err, "secure, no list")
            self.expect_traffic(before, {}, "AT_SECURE")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def provider_checks(self):
        self.check("no-providers", self.step_no_providers)
        cache = self.fresh_cache("after")
        self.check("after", lambda: self.step_after(
            "after", self.fresh_home("after"), cache, self.SYMBOLS_FETCH))
        self.check("after-cached", lambda: self.step_after(
            "after-cached", self.fresh_home("after-cached"), cache, {}))
        self.check("after-zeroed", lambda: self.step_after(
            "after-zeroed", self.zeroed_home("after-zeroed"),
            self.fresh_cache("after-zeroed"), self.SYMBOLS_FETCH))
        opt_outs = [
            ("--kallsyms", dict(extra_args=[
                "--kallsyms=" + self.p("standin.kallsyms")], resolved=True,
                asked=False)),
            ("--vmlinux", dict(extra_args=["--vmlinux=" + self.standin],
                               resolved=True, asked=False)),
            ("--ignore-vmlinux", dict(extra_args=["--ignore-vmlinux"],
                                      asked=False)),
            ("--no-debuginfod", dict(extra_args=["--no-debuginfod"])),
            ("core.debuginfod=false", dict(
                perf_config_cmd="core.debuginfod=false")),
            ("report.debuginfod=false", dict(
                perf_config_cmd="report.debuginfod=false")),
            ("buildid.dir=/dev/null", dict(
                config="[buildid]\n\tdir = /dev/null\n")),
            ("DEBUGINFOD_URLS=", dict(env_over={"DEBUGINFOD_URLS": ""})),
        ]
        for i, (how, kw) in enumerate(opt_outs):
            self.check("opt-out " + how, lambda kw=kw, i=i: self.step_opt_out(
                "opt-out-%d" % i, **kw))
        self.check("debuginfod-urls", self.step_debuginfod_urls)
        self.check("unserved", self.step_unserved)
        self.check("broken-first", self.step_broken_first)
        self.check("record", self.step_record)
        self.check("other-tool", self.step_other_tool)
        self.check("c2c", self.step_c2c)
        self.check("keys", self.step_keys)
        self.check("exec-path", self.step_exec_path)
        self.check("readme-line", self.step_readme_line)
        self.check("dlopen", self.step_dlopen)
        self.check("secure", self.step_secure)
        self.check("verbose", self.step_verbose)
        self.check("unavailable", self.step_unavailable)
        self.check("damaged", self.step_damaged)
        self.check("terminal", self.step_terminal)
        self.content_checks()
        self.check("tui-skip", self.step_tui_skip)
        self.check("tui-found", self.step_tui_found)
        self.check("tui-not-loaded", self.step_tui_not_loaded)
        self.check("tui-annotate", self.step_tui_annotate)
        self.check("top", self.step_top)

    def run(self):
        log("workdir: " + self.work)
        why = self.preflight()
        if why:
            loud("symprov e2e checks NOT RUN (this is a failure):\n" +
                 "\n".join("- " + w for w in why))
            self.failed.append("preflight")
            self.finish()
            return 2
        ok = (self.check("record + move", self.step_profile) and
              self.check("stand-in", self.step_standin) and
              self.check("original report", self.step_expected))
        if ok:
            self.check("before", self.step_before)
            self.check("before-zeroed", self.step_before_zeroed)
            self.check("oracle", self.step_oracle)
            try:
                self.server = DebuginfodServer(
                    self.p("srv"), log_path=self.p("debuginfod.log"))
                self.server.start()
            except Exception as e:  # noqa: BLE001
                self.failed.append("debuginfod")
                print("FAIL debuginfod: %s" % e)
            else:
                try:
                    self.check("served", self.step_served)
                    if not self.args.oracle_only:
                        self.provider_checks()
                    log("debuginfod traffic, whole run: %s"
                        % fmt_traffic(self.traffic()))
                finally:
                    self.server.stop()
        return self.finish()

    def finish(self):
        lines = sorted(self.stderr_seen.items(), key=lambda kv: kv[0])
        if lines:
            log("perf stderr lines (distinct; runs):")
            for line, runs in lines:
                log("  %r: %d run(s), e.g. %s" % (line[:160], len(runs),
                                                  runs[0]))
        log("%.1fs in all" % (time.monotonic() - self.t0))
        if self.failed:
            print("failed: " + ", ".join(self.failed))
        print("%d passed, %d failed" % (len(self.passed), len(self.failed)))
        return 0 if not self.failed else 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--perf", help="perf under test (default $PERF, else "
                    "build/perf/perf)")
    ap.add_argument("--record-perf", help="perf used to record")
    ap.add_argument("--oracle-only", action="store_true",
                    help="no provider steps (any perf)")
    ap.add_argument("--workdir", help="keep everything here")
    ap.add_argument("--duration", type=int, default=3)
    ap.add_argument("--all-entries", action="store_true",
                    help="compare user-space entries too (can flake when "
                    "binaries in the profile change between reports, e.g. "
                    "a parallel build relinks them)")
    return run_checks(Runner, ap.parse_args(argv), "symprov e2e")


if __name__ == "__main__":
    sys.exit(main())
