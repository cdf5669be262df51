# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A tiny HTTP server on 127.0.0.1 that misbehaves on purpose.

Only for what a real debuginfod cannot be made to do: send a file with
another build ID, a body that is not ELF, a truncated body, hang, and so
on.  It runs in a thread of the test, serves at most for `lifetime`
seconds, and every handler is bounded in time.

Modes (the `mode` argument):

  file             200 with `body`
  not-elf          200 with an HTML page
  status           `status` with a short body (404, 406, 500, 503...)
  truncated        200, Content-Length twice len(body), then body, close
  truncated-nolen  200 without Content-Length, half of body, close
  hang             reads the request, never answers
  stall            200 and its headers, `stall_at` bytes of body (64),
                   then nothing
  stall-once       the first request of a path as 'stall', the later
                   ones as 'file': a transfer that stalls once
  late             reads the request, sends nothing for `delay_s`, then
                   as 'file': a server preparing the file (extracting
                   it from a package)
  trickle          200, one byte of body every `trickle_s` seconds
  stream           200 without Content-Length, then zeros, forever: `chunk`
                   bytes at a time, at most `rate` bytes a second (0: as
                   fast as the client takes them)
  slow             200 with `body`, `chunk` bytes at a time, at most `rate`
                   bytes a second: a slow link
  reset            reads the request, closes without a byte
  redirect-loop    302 to the same path, forever, each after `delay_s`
  huge             200 with Content-Length and X-DEBUGINFOD-SIZE
                   `huge_length` (2 GiB), `stall_at` bytes of body, then
                   nothing

`by_type` ({'debuginfo': 'status', 'executable': 'file'}) picks the mode
per last path component of the request (the debuginfod artifact type);
types it does not name get `mode`; for a section query
(/buildid/ID/section/NAME) that is NAME.  `bodies` ({'.symtab': b'...'})
likewise picks the body, `body` for the rest.  With `then`, the requests after the
first `after` ones get mode `then` instead: a server that recovers.  With
`size_header`, a 200 carries X-DEBUGINFOD-SIZE: len(body), as debuginfod
sends; `announce` ({'.symtab': 340664672}) sends that size instead, as
debuginfod 0.188 does for a section of a file it has just extracted from
an archive (the whole file's size).  `hits` lists the paths asked, in
order (`transfers(path)` counts one path's); `sent` counts the bytes of
'stream' and 'slow' bodies.  Whatever the mode, a handler stops once the server is
stopped.
"""
import http.server
import threading
import time


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        srv = self.server
        with srv.lock:
            srv.hits.append(self.path)
            recovered = srv.then and len(srv.hits) > srv.after
        name = self.path.rstrip('/').rsplit('/', 1)[-1]
        self.name = name
        mode = srv.by_type.get(name, srv.mode)
        self.body = srv.bodies.get(name, srv.body)
        if recovered:
            mode = srv.then
        if mode == 'stall-once':
            mode = 'stall' if srv.transfers(self.path) == 1 else 'file'
        elif mode == 'late':
            srv.stopping.wait(srv.delay_s)
            mode = 'file'
        if mode == 'file':
            self._send(200, self.body)
        elif mode == 'not-elf':
            self._send(200, b'<html>surprise</html>\n' * 64)
        elif mode == 'status':
            self._send(srv.status, b'error\n')
        elif mode == 'truncated':
            self.send_response(200)
            self.send_header('Content-Length', str(len(self.body) * 2))
            self.end_headers()
            self.wfile.write(self.body)
            self.wfile.flush()
            self.close_connection = True
        elif mode == 'truncated-nolen':
            # HTTP/1.1 without Content-Length nor chunking: the body ends
            # where the connection does, so a short one looks complete
            self.send_response(200)
            self.send_header('Connection', 'close')
            self.end_headers()
            self.wfile.write(self.body[:len(self.body) // 2])
            self.wfile.flush()
            self.close_connection = True
        elif mode == 'hang':
            srv.stopping.wait(srv.hang_s)
            self.close_connection = True
        elif mode in ('stall', 'huge'):
            self.send_response(200)
            if mode == 'huge':
                self.send_header('Content-Length', str(srv.huge_length))
                self.send_header('X-DEBUGINFOD-SIZE', str(srv.huge_length))
            else:
                self.send_header('Content-Length', str(len(self.body)))
                self._size_header()
            self.end_headers()
            self.wfile.write(self.body[:srv.stall_at])
            self.wfile.flush()
            srv.stopping.wait(srv.hang_s)
            self.close_connection = True
        elif mode == 'trickle':
            self.send_response(200)
            self.send_header('Content-Length', str(len(self.body)))
            self._size_header()
            self.end_headers()
            self._dribble(self.body, srv.trickle_s)
            self.close_connection = True
        elif mode == 'stream':
            self.send_response(200)
            self.send_header('Connection', 'close')
            self.end_headers()
            self._flood()
            self.close_connection = True
        elif mode == 'slow':
            self.send_response(200)
            self.send_header('Content-Length', str(len(srv.body)))
            self._size_header()
            self.end_headers()
            self._flood(srv.body)
            self.close_connection = True
        elif mode == 'reset':
            self.close_connection = True
        elif mode == 'redirect-loop':
            if srv.delay_s:
                srv.stopping.wait(srv.delay_s)
            self.send_response(302)
            self.send_header('Location', self.path)
            self.send_header('Content-Length', '0')
            self.end_headers()
        else:
            self._send(500, b'bad mode\n')

    def _send(self, code, body):
        self.send_response(code)
        self.send_header('Content-Length', str(len(body)))
        if code == 200:
            self._size_header()
        self.end_headers()
        self.wfile.write(body)

    def _size_header(self):
        # what a real debuginfod sends with a file
        srv = self.server
        if srv.size_header:
            self.send_header('X-DEBUGINFOD-SIZE', str(
                srv.announce.get(self.name, len(self.body))))

    def _dribble(self, body, interval):
        srv = self.server
        deadline = time.monotonic() + srv.hang_s
        for i in range(len(body)):
            if srv.stopping.is_set() or time.monotonic() > deadline:
                return
            try:
                self.wfile.write(body[i:i + 1])
                self.wfile.flush()
            except OSError:
                return  # the client gave up: that is the point
            srv.stopping.wait(interval)

    def _flood(self, body=None):
        """Zeros forever, or body; at most srv.rate bytes a second."""
        srv = self.server
        chunk = b'\0' * srv.chunk
        start = time.monotonic()
        deadline = start + srv.hang_s
        sent = 0
        while not srv.stopping.is_set() and time.monotonic() < deadline:
            if body is not None:
                chunk = body[sent:sent + srv.chunk]
                if not chunk:
                    return
            if srv.rate:
                ahead = sent / srv.rate - (time.monotonic() - start)
                if ahead > 0 and srv.stopping.wait(ahead):
                    return
            try:
                self.wfile.write(chunk)
            except OSError:
                return
            sent += len(chunk)
            with srv.lock:
                srv.sent += len(chunk)


class FaultServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, mode, body=b'', status=500, hang_s=30, lifetime=120,
                 trickle_s=0.5, chunk=64 * 1024, rate=0, delay_s=0,
                 by_type=None, then=None, after=1, stall_at=64,
                 size_header=False, bodies=None, huge_length=2 << 30,
                 announce=None):
        super().__init__(('127.0.0.1', 0), _Handler)
        self.mode = mode
        self.body = body
        self.status = status
        self.hang_s = hang_s
        self.lifetime = lifetime
        self.trickle_s = trickle_s
        self.chunk = chunk
        self.delay_s = delay_s
        self.rate = rate
        self.by_type = dict(by_type or {})
        self.bodies = dict(bodies or {})
        self.huge_length = huge_length
        self.then = then
        self.stall_at = stall_at
        self.size_header = size_header
        self.announce = dict(announce or {})
        self.after = after
        self.hits = []
        self.connections = 0  # accepted, whether a request came or not
        self.sent = 0  # bytes of body sent in 'stream' and 'slow' modes
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread = None
        self.timer = None

    def transfers(self, path):
        """How many times PATH was asked."""
        with self.lock:
            return self.hits.count(path)

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self.server_address[1]

    def handle_error(self, request, client_address):
        pass  # clients hanging up on a misbehaving server is the point

    def process_request(self, request, client_address):
        with self.lock:
            self.connections += 1
        super().process_request(request, client_address)

    def wait_connected(self, bound=5):
        """Whether a client connected within BOUND seconds: a client
        that hangs up at once may be accepted after it is gone."""
        deadline = time.monotonic() + bound
        while not self.connections and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.connections > 0

    def __enter__(self):
        self.thread = threading.Thread(target=self.serve_forever,
                                       kwargs={'poll_interval': 0.1},
                                       daemon=True)
        self.thread.start()
        # never outlives its test, whatever the test does
        self.timer = threading.Timer(self.lifetime, self.stop)
        self.timer.daemon = True
        self.timer.start()
        return self

    def stop(self):
        self.stopping.set()
        self.shutdown()

    def __exit__(self, *exc):
        self.timer.cancel()
        self.stop()
        self.server_close()
        self.thread.join(timeout=10)
