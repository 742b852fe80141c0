#!/usr/bin/env python3
"""A package index on loopback that misbehaves on purpose, for bevenv's transport tests.

Serves one project, `six`, whose wheel is built from WHEEL (a real wheel file). The first
path segment picks the fault, and a counter per full path lets a fault happen only on the first
N requests ("-once" faults), so a retry sees a healthy server:

  /ok/...                 healthy
  /drop-once/...          first request: connection closed without an answer
  /stall/...              never answers (holds the connection)
  /stall-once/...         first request stalls, then healthy
  /500/..., /500-once/... HTTP 500 always / on the first request
  /404/...                HTTP 404 for everything
  /truncated/...          announces a longer body than it sends, then closes
  /truncated-once/...     the same on the first request only
  /bad-json/...           a complete page that is not JSON, served as PEP 691 JSON
  /wrong-bytes/...        the page publishes the real sha256; the file has other bytes

Layout under each fault prefix: /simple/six/ (PEP 691 JSON) and /files/<wheel name>.
Prints the port on stdout, then serves until killed.
"""
import hashlib
import http.server
import json
import os
import socketserver
import sys
import threading
import time

WHEEL = sys.argv[1]
WHEEL_NAME = os.path.basename(WHEEL)
with open(WHEEL, "rb") as f:
    WHEEL_BYTES = f.read()
WHEEL_SHA = hashlib.sha256(WHEEL_BYTES).hexdigest()
COUNTS = {}
LOCK = threading.Lock()


def page():
    return json.dumps({
        "meta": {"api-version": "1.1"},
        "name": "six",
        "files": [{"filename": WHEEL_NAME, "url": "../../files/" + WHEEL_NAME,
                   "hashes": {"sha256": WHEEL_SHA}, "size": len(WHEEL_BYTES)}],
    }).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_body(self, body, content_type, length=None):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        parts = self.path.split("/", 2)
        fault = parts[1] if len(parts) > 1 else ""
        rest = "/" + (parts[2] if len(parts) > 2 else "")
        with LOCK:
            COUNTS[self.path] = COUNTS.get(self.path, 0) + 1
            first = COUNTS[self.path] == 1
        once = fault.endswith("-once")
        active = fault.replace("-once", "") if (first or not once) else "ok"

        if active == "drop":
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if active == "stall":
            time.sleep(30)
            self.close_connection = True
            return
        if active == "500":
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if active == "404":
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return

        if rest.startswith("/simple/six"):
            body = page()
            content_type = "application/vnd.pypi.simple.v1+json"
            if active == "bad-json":
                body = body[: len(body) // 2]
        elif rest == "/files/" + WHEEL_NAME:
            body = WHEEL_BYTES
            content_type = "application/octet-stream"
            if active == "wrong-bytes":
                body = bytes(b ^ 0x5A for b in WHEEL_BYTES[:64]) + WHEEL_BYTES[64:]
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if active == "truncated":
            self.close_connection = True
            self.send_body(body[: len(body) // 2], content_type, length=len(body))
            return
        self.send_body(body, content_type)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


if __name__ == "__main__":
    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()
