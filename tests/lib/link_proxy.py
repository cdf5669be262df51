# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A slow link on 127.0.0.1: a TCP proxy in front of a server.

    with ThrottleProxy(upstream_port, mbit=20) as link:
        env['DEBUGINFOD_URLS'] = link.url
        ...
        link.down_bytes   # bytes sent to the clients
    with ThrottleProxy(upstream_port, hold=1.5) as slow:
        ...
        slow.requests     # the request lines, in order: ['GET /buildid/...']

Everything the server sends to every client shares one link of MBIT
Mbit/s (0: no bound), paced in pieces of up to 64 KiB; requests go up
unthrottled, each HOLD seconds after it came (a server that takes its
time to answer).  Bounded in time like the
project's other hand-made servers: idle connections are dropped after IDLE
seconds and the whole proxy stops after MAX_SECONDS.
"""
import select
import socket
import threading
import time

HOST = '127.0.0.1'
PIECE = 64 << 10


class Link:
    """Paces bytes through one shared link: each piece gets the next
    slot of the link's time, and its sender sleeps until the slot ends.
    Time the link sat idle for less than BURST seconds (this process was
    slow to forward) is made up, as a router's buffer would."""

    BURST = 0.05

    def __init__(self, bits_per_s):
        self.bytes_per_s = bits_per_s / 8.0
        self.lock = threading.Lock()
        self.free_at = 0.0

    def take(self, n):
        with self.lock:
            now = time.monotonic()
            self.free_at = max(self.free_at, now - self.BURST) + \
                n / self.bytes_per_s
            until = self.free_at
        delay = until - time.monotonic()
        if delay > 0:
            time.sleep(delay)


class ThrottleProxy:
    def __init__(self, upstream_port, mbit=0, idle=60, max_seconds=3600,
                 hold=0):
        self.upstream = (HOST, upstream_port)
        self.link = Link(mbit * 1e6) if mbit else None
        self.hold = hold
        self.requests = []
        self.arrivals = []  # time.monotonic() of each request, in order
        self.idle = idle
        self.deadline = time.monotonic() + max_seconds
        self.down_bytes = 0
        self.count_lock = threading.Lock()
        self.stopping = threading.Event()
        self.sock = None
        self.port = None

    @property
    def url(self):
        return 'http://%s:%d' % (HOST, self.port)

    def __enter__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((HOST, 0))
        self.sock.listen(64)
        self.sock.settimeout(0.5)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *_exc):
        self.stopping.set()
        self.sock.close()
        return False

    def _accept(self):
        while not self.stopping.is_set() and \
                time.monotonic() < self.deadline:
            try:
                client, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream, timeout=10)
            except OSError:
                client.close()
                continue
            for s in (client, server):
                s.settimeout(self.idle)
            # The last time either way moved a byte: a request waits
            # while its answer flows.
            active = [time.monotonic()]
            threading.Thread(target=self._pump,
                             args=(client, server, False, active),
                             daemon=True).start()
            threading.Thread(target=self._pump,
                             args=(server, client, True, active),
                             daemon=True).start()

    def _pump(self, src, dst, down, active):
        try:
            while not self.stopping.is_set() and \
                    time.monotonic() < self.deadline:
                if not select.select([src], [], [], 1)[0]:
                    if time.monotonic() - active[0] > self.idle:
                        break
                    continue
                data = src.recv(PIECE)
                if not data:
                    break
                # a request: its first line (a connection is kept for
                # several, one at a time)
                if not down and data[:4] in (b'GET ', b'HEAD'):
                    with self.count_lock:
                        self.requests.append(data.split(b'\r\n', 1)[0]
                                             .decode('latin-1'))
                        self.arrivals.append(time.monotonic())
                    self.stopping.wait(self.hold)
                if down and self.link:
                    self.link.take(len(data))
                dst.sendall(data)
                active[0] = time.monotonic()
                if down:
                    with self.count_lock:
                        self.down_bytes += len(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            src.close()
