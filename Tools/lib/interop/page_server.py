"""The HTTP server the viewer page (Tools/interop-web/) is loaded from and
posts to."""
import json
import os
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from programs import TOOLS

WEB = os.path.join(TOOLS, "interop-web")


class PageServer:
    """Serves the viewer page and takes what it posts: stats, reports, events, logs.
    Commands for the page (re-subscribe) wait in a list it polls."""

    def __init__(self, work):
        self.lock = threading.Lock()
        self.posts = []        # (time, kind, value)
        self.commands = []
        self.log = open(os.path.join(work, "page.log"), "w")
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                url = urllib.parse.urlparse(self.path)
                if url.path == "/cmd":
                    since = int(urllib.parse.parse_qs(url.query).get("since", ["0"])[0])
                    with server.lock:
                        body = json.dumps(server.commands[since:]).encode()
                    return self.reply(200, "application/json", body)
                name = os.path.basename(url.path)
                path = os.path.join(WEB, name)
                if name in ("viewer.html", "worker.js") and os.path.exists(path):
                    with open(path, "rb") as f:
                        kind = "text/html" if name.endswith(".html") else "text/javascript"
                        return self.reply(200, kind, f.read())
                self.reply(404, "text/plain", b"not found")

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                try:
                    value = json.loads(self.rfile.read(length) or b"null")
                except ValueError:
                    value = None
                now = time.monotonic()
                kind = self.path.strip("/")
                with server.lock:
                    server.posts.append((now, kind, value))
                server.log.write("%.3f %s %s\n" % (now, kind, json.dumps(value)))
                server.log.flush()
                self.reply(204, "text/plain", b"")

            def reply(self, code, kind, body):
                self.send_response(code)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 8000), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def command(self, value):
        with self.lock:
            self.commands.append(value)

    def of(self, kind):
        with self.lock:
            return [(t, v) for t, k, v in self.posts if k == kind]

    def close(self):
        self.httpd.shutdown()
