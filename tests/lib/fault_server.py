# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A tiny HTTP server on 127.0.0.1 that misbehaves on purpose.

Only for what a real debuginfod cannot be made to do: send a file with
another build ID, a body that is not ELF, a truncated body, hang, and so
on.  It runs in a thread of the test, serves at most for `lifetime`
seconds, and every handler is bounded in time.
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
        mode = srv.mode
        if mode == 'file':
            self._send(200, srv.body)
        elif mode == 'not-elf':
            self._send(200, b'<html>surprise</html>\n' * 64)
        elif mode == 'status':
            self._send(srv.status, b'error\n')
        elif mode == 'truncated':
            self.send_response(200)
            self.send_header('Content-Length', str(len(srv.body) * 2))
            self.end_headers()
            self.wfile.write(srv.body)
            self.wfile.flush()
            self.close_connection = True
        elif mode == 'hang':
            srv.stopping.wait(srv.hang_s)
            self.close_connection = True
        elif mode == 'stall':
            self.send_response(200)
            self.send_header('Content-Length', str(len(srv.body)))
            self.end_headers()
            self.wfile.write(srv.body[:64])
            self.wfile.flush()
            srv.stopping.wait(srv.hang_s)
            self.close_connection = True
        elif mode == 'redirect-loop':
            self.send_response(302)
            self.send_header('Location', self.path)
            self.send_header('Content-Length', '0')
            self.end_headers()
        else:
            self._send(500, b'bad mode\n')

    def _send(self, code, body):
        self.send_response(code)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class FaultServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, mode, body=b'', status=500, hang_s=30, lifetime=120):
        super().__init__(('127.0.0.1', 0), _Handler)
        self.mode = mode
        self.body = body
        self.status = status
        self.hang_s = hang_s
        self.lifetime = lifetime
        self.hits = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread = None
        self.timer = None

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self.server_address[1]

    def handle_error(self, request, client_address):
        pass  # clients hanging up on a misbehaving server is the point

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
