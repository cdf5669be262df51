# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A real debuginfod on 127.0.0.1, started and stopped by a test.

debuginfod 0.188 has no option to bind to one address: it listens on every
interface, on the port it is given; the tests only ever talk to it on
127.0.0.1.
"""
import os
import re
import signal
import socket
import subprocess
import time
import urllib.request

STARTUP_TIMEOUT = 30


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class DebuginfodServer:
    """debuginfod -F DIR -d :memory: on a free port; a context manager."""

    def __init__(self, directory, expect_files=1, log=None):
        self.directory = directory
        self.expect_files = expect_files
        self.log = log
        self.proc = None
        self.port = None

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self.port

    def start(self):
        for _ in range(5):
            self.port = free_port()
            logf = open(self.log, 'ab') if self.log else subprocess.DEVNULL
            self.proc = subprocess.Popen(
                ['debuginfod', '-F', self.directory, '-p', str(self.port),
                 '-d', ':memory:', '-t', '0', '-g', '0'],
                stdout=logf, stderr=subprocess.STDOUT,
                start_new_session=True)
            if self.log:
                logf.close()
            if self._wait_ready():
                return self
            self.stop()  # port taken meanwhile, or it died: try again
        raise RuntimeError('debuginfod did not start on 127.0.0.1')

    def _wait_ready(self):
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                m = self.metrics()
            except OSError:
                time.sleep(0.1)
                continue
            # ready once the directory was scanned
            if m.get('scanned_files_total{source="file"}', 0) >= \
                    self.expect_files:
                return True
            time.sleep(0.1)
        return False

    def metrics(self):
        """/metrics as {'name{labels}': value}; not counted as a request."""
        with urllib.request.urlopen(self.url + '/metrics', timeout=10) as r:
            text = r.read().decode()
        out = {}
        for line in text.splitlines():
            m = re.match(r'^(\S+)\s+(\S+)$', line)
            if m and not line.startswith('#'):
                out[m.group(1)] = float(m.group(2))
        return out

    def requests(self, type_=None):
        """Requests served other than /metrics, of one type or all."""
        total = 0
        for key, value in self.metrics().items():
            m = re.match(r'^http_requests_total\{type="([^"]+)"\}$', key)
            if m and m.group(1) != 'metrics' and \
                    (type_ is None or m.group(1) == type_):
                total += value
        return int(total)

    def responses(self, code, type_):
        key = 'http_responses_transfer_bytes_count{code="%s",type="%s"}' % (
            code, type_)
        return int(self.metrics().get(key, 0))

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
