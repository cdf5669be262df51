#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A real elfutils debuginfod serving a directory, for the e2e tests.

As a module:

    with DebuginfodServer(dirpath) as srv:      # started and indexed
        env["DEBUGINFOD_URLS"] = srv.url         # http://127.0.0.1:PORT
        ...
        srv.responses(type="debuginfo", code="404")   # request counters
        srv.response_counts()   # {(code, type): n}, /metrics itself excluded
    # stopped here, also on exceptions

As a command:

    debuginfod_server.py serve DIR [--port N] [--url-file F] [--max-seconds S]
        runs until SIGTERM/SIGINT (or S seconds, default 1800), prints the URL
        (and writes it to F once DIR is indexed)
    debuginfod_server.py counts URL
        prints the response counts by code and type from URL/metrics

Runs `debuginfod -F DIR -p PORT -d :memory: -t 0 -g 0 -v` on a free port
(retrying on a lost race for it), waits until /metrics shows the traversal
done and no scan work pending (bounded), and stops it with SIGTERM, then
SIGKILL (bounded).  The child also gets SIGKILL if this process dies.

Binding: debuginfod 0.188 has no listen-address option; libmicrohttpd
listens on the wildcard address (IPv4 and IPv6), so the port is reachable
from other hosts while it runs.  Clients here always use 127.0.0.1.  To keep
it off the network entirely, run the whole test inside a private network
namespace (e.g. `unshare -n` with `ip link set lo up`).
"""

import argparse
import atexit
import ctypes
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HOST = "127.0.0.1"
METRIC_RE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)")
LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class DebuginfodError(Exception):
    pass


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def http_get(url, timeout=5):
    """(status, body bytes); never goes through a proxy."""
    try:
        with _OPENER.open(url, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def parse_metrics(text):
    """{(name, ((label, value), ...sorted)): float} from Prometheus text."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = METRIC_RE.match(line)
        if not m:
            continue
        labels = tuple(sorted(LABEL_RE.findall(m.group(2) or "")))
        try:
            out[(m.group(1), labels)] = float(m.group(3))
        except ValueError:
            pass
    return out


def fetch_metrics(url, timeout=5):
    status, body = http_get(url.rstrip("/") + "/metrics", timeout)
    if status != 200:
        raise DebuginfodError("%s/metrics: HTTP %d" % (url, status))
    return parse_metrics(body.decode("utf-8", "replace"))


def metric(metrics, name, **labels):
    """Sum of name's values over series whose labels include labels."""
    want = set(labels.items())
    return sum(v for (n, ls), v in metrics.items()
               if n == name and want <= set(ls))


def response_counts(metrics, include_metrics=False):
    """{(code, type): responses} from http_responses_transfer_bytes_count,
    which debuginfod 0.188 updates for every response it sends."""
    out = {}
    for (name, labels), v in metrics.items():
        if name != "http_responses_transfer_bytes_count":
            continue
        d = dict(labels)
        if d.get("type") == "metrics" and not include_metrics:
            continue
        key = (d.get("code", "?"), d.get("type", "?"))
        out[key] = out.get(key, 0) + int(v)
    return out


def _child_setup():
    os.setsid()
    try:  # PR_SET_PDEATHSIG = 1: die with the parent
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


class DebuginfodServer:
    def __init__(self, root, port=None, debuginfod="debuginfod",
                 extra_args=(), log_path=None, start_timeout=30,
                 index_timeout=120, attempts=5):
        self.root = os.path.abspath(root)
        self.want_port = port
        self.debuginfod = debuginfod
        self.extra_args = list(extra_args)
        self.log_path = log_path
        self.start_timeout = start_timeout
        self.index_timeout = index_timeout
        self.attempts = attempts
        self.proc = None
        self.port = None
        self._log = None
        self._own_log = False

    @property
    def url(self):
        return "http://%s:%d" % (HOST, self.port)

    # lifecycle -----------------------------------------------------------
    def start(self):
        if not os.path.isdir(self.root):
            raise DebuginfodError("no such directory: %s" % self.root)
        if self.log_path is None:
            fd, self.log_path = tempfile.mkstemp(prefix="debuginfod.",
                                                 suffix=".log")
            os.close(fd)
            self._own_log = True
        atexit.register(self.stop)
        last = ""
        for _ in range(1 if self.want_port else self.attempts):
            self.port = self.want_port or free_port()
            try:
                self._spawn()
                self._wait_up()
                self._wait_indexed()
                return self
            except DebuginfodError as e:
                last = str(e)
                alive = self.proc is not None and self.proc.poll() is None
                self.stop()
                if alive:  # up but broken, or indexing too slow: no retry
                    break
        raise DebuginfodError("debuginfod did not start: %s\n%s"
                              % (last, self.log_tail()))

    def _spawn(self):
        cmd = [self.debuginfod, "-F", "-p", str(self.port), "-d", ":memory:",
               "-t", "0", "-g", "0", "-v"] + self.extra_args + [self.root]
        self._log = open(self.log_path, "ab")
        env = dict(os.environ)
        env.pop("DEBUGINFOD_URLS", None)  # no federation to outside servers
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                     stdout=self._log,
                                     stderr=subprocess.STDOUT, env=env,
                                     preexec_fn=_child_setup)

    def _alive_or_raise(self):
        if self.proc.poll() is not None:
            raise DebuginfodError("debuginfod exited with %s"
                                  % self.proc.returncode)

    def _wait_up(self):
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            self._alive_or_raise()
            try:
                m = fetch_metrics(self.url, timeout=2)
                if metric(m, "thread_count", role="traverse") or \
                        metric(m, "ready"):
                    return
            except (OSError, DebuginfodError):
                pass
            time.sleep(0.1)
        raise DebuginfodError("no /metrics on port %d after %ss"
                              % (self.port, self.start_timeout))

    def expected_files(self):
        n = 0
        for _dirpath, _dirs, files in os.walk(self.root):
            n += len(files)
        return n

    def _wait_indexed(self):
        want = self.expected_files()
        deadline = time.monotonic() + self.index_timeout
        m = {}
        while time.monotonic() < deadline:
            self._alive_or_raise()
            m = fetch_metrics(self.url)
            if (metric(m, "thread_work_total", role="traverse") >= 1 and
                    metric(m, "thread_busy", role="traverse") == 0 and
                    metric(m, "thread_work_pending", role="scan") == 0 and
                    metric(m, "thread_busy", role="scan") == 0 and
                    metric(m, "traversed_total", type="file") >= want):
                return
            time.sleep(0.2)
        raise DebuginfodError(
            "not indexed after %ss (traversed %d of %d files, scanned %d)"
            % (self.index_timeout, metric(m, "traversed_total", type="file"),
               want, metric(m, "scanned_files_total")))

    def stop(self, timeout=10):
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5)):
                try:
                    os.killpg(proc.pid, sig)
                except (ProcessLookupError, PermissionError):
                    break
                try:
                    proc.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        if self._log:
            self._log.close()
            self._log = None

    def cleanup(self):
        self.stop()
        if self._own_log and self.log_path:
            try:
                os.unlink(self.log_path)
            except OSError:
                pass

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, *_exc):
        if exc_type is None:
            self.cleanup()  # keep the log when something failed
        else:
            self.stop()
        return False

    def client_env(self, home, cache=None, base=None):
        """An environment for a client of this server alone: BASE (the
        process' own by default) without any DEBUGINFOD_*, symbol provider
        list or XDG cache, with HOME and the client cache (HOME/cache by
        default) given."""
        base = os.environ if base is None else base
        env = {k: v for k, v in base.items()
               if not k.startswith("DEBUGINFOD_") and
               k not in ("PERF_SYMBOL_PROVIDERS", "XDG_CACHE_HOME")}
        env.update(HOME=home, DEBUGINFOD_URLS=self.url,
                   DEBUGINFOD_CACHE_PATH=cache or os.path.join(home, "cache"))
        return env

    # observation -----------------------------------------------------------
    def metrics(self):
        return fetch_metrics(self.url)

    def response_counts(self):
        return response_counts(self.metrics())

    def responses(self, type=None, code=None):
        """Responses sent so far, optionally only of one type/code."""
        return sum(n for (c, t), n in self.response_counts().items()
                   if (type is None or t == type) and
                   (code is None or c == str(code)))

    def log_tail(self, n=20):
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-n:])
        except (OSError, TypeError):
            return ""


def _cmd_serve(args):
    srv = DebuginfodServer(args.dir, port=args.port, log_path=args.log,
                           index_timeout=args.index_timeout)
    stop = []

    def on_signal(signum, _frame):
        stop.append(signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    try:
        srv.start()
        print(srv.url, flush=True)
        if args.url_file:
            tmp = args.url_file + ".tmp"
            with open(tmp, "w") as f:
                f.write(srv.url + "\n")
            os.replace(tmp, args.url_file)
        deadline = time.monotonic() + args.max_seconds
        while not stop and time.monotonic() < deadline:
            if srv.proc is None or srv.proc.poll() is not None:
                print("debuginfod_server: debuginfod died\n" + srv.log_tail(),
                      file=sys.stderr)
                return 1
            time.sleep(0.2)
        return 0
    except DebuginfodError as e:
        print("debuginfod_server: error: %s" % e, file=sys.stderr)
        return 1
    finally:
        if args.log:
            srv.stop()
        else:
            srv.cleanup()


def _cmd_counts(args):
    try:
        counts = response_counts(fetch_metrics(args.url))
    except (OSError, DebuginfodError) as e:
        print("debuginfod_server: error: %s" % e, file=sys.stderr)
        return 1
    if not counts:
        print("no requests")
    for (code, typ), n in sorted(counts.items()):
        print("%s %s %d" % (code, typ, n))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="serve DIR until signalled")
    s.add_argument("dir")
    s.add_argument("--port", type=int)
    s.add_argument("--url-file", help="write the URL here once indexed")
    s.add_argument("--log", help="debuginfod's output (default: temp file)")
    s.add_argument("--max-seconds", type=float, default=1800)
    s.add_argument("--index-timeout", type=float, default=120)
    c = sub.add_parser("counts", help="response counts by code and type")
    c.add_argument("url")
    args = ap.parse_args(argv)
    return _cmd_serve(args) if args.cmd == "serve" else _cmd_counts(args)


if __name__ == "__main__":
    sys.exit(main())
