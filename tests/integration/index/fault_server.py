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
  /drip/...               sends its headers, then one byte a second (for 15 s at most)
  /retry-after-once/...   first request: HTTP 503 with `Retry-After: 1`
  /retry-after-date-once/ first request: HTTP 503 with `Retry-After: <HTTP-date 2 s ahead>`
  /retry-after-long/..., /retry-after-long-once/...
                          HTTP 429 with `Retry-After: 3600`, always / on the first request
  /huge-page/...          a 64 MiB PEP 691 page (valid JSON: padded with spaces)
  /huge-page-unsized/...  the same without Content-Length (the end is the connection's close)
  /huge-metadata/...      the page offers a PEP 658 file of 64 MiB (a huge description)
  /short-hash/...         the page publishes the sha256 cut to 40 hex digits
  /wrong-metadata/...     the page offers a PEP 658 file that names another release
  /wrong-wheel/...        the wheel (hashed as served) carries METADATA of another release

Layout under each fault prefix: /simple/six/ (PEP 691 JSON) and /files/<wheel name>.
Prints the port on stdout, then serves until killed.
"""
import email.utils
import hashlib
import http.server
import io
import json
import os
import socketserver
import sys
import threading
import time
import zipfile

WHEEL = sys.argv[1]
WHEEL_NAME = os.path.basename(WHEEL)
with open(WHEEL, "rb") as f:
    WHEEL_BYTES = f.read()
WHEEL_SHA = hashlib.sha256(WHEEL_BYTES).hexdigest()
COUNTS = {}
LOCK = threading.Lock()
HUGE = 64 << 20
OTHER_METADATA = b"Metadata-Version: 2.1\nName: not-six\nVersion: 9.9\n\n"


def other_wheel():
    """The wheel with its METADATA swapped for another release's."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(WHEEL_BYTES)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename.endswith(".dist-info/METADATA"):
                data = OTHER_METADATA
            dst.writestr(info, data)
    return out.getvalue()


OTHER_WHEEL = other_wheel()


def page(fault):
    wheel = OTHER_WHEEL if fault == "wrong-wheel" else WHEEL_BYTES
    entry = {"filename": WHEEL_NAME, "url": "../../files/" + WHEEL_NAME,
             "hashes": {"sha256": hashlib.sha256(wheel).hexdigest()}, "size": len(wheel)}
    if fault == "short-hash":
        entry["hashes"]["sha256"] = WHEEL_SHA[:40]
    if fault in ("huge-metadata", "wrong-metadata"):
        entry["core-metadata"] = True
    return json.dumps({"meta": {"api-version": "1.1"}, "name": "six", "files": [entry]}).encode()


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

    def send_huge(self, head, tail, sized):
        """`head`, then spaces up to HUGE bytes, then `tail`; with or without Content-Length."""
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
        if sized:
            self.send_header("Content-Length", str(HUGE))
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        chunk = b" " * (1 << 20)
        left = HUGE - len(head) - len(tail)
        try:
            self.wfile.write(head)
            while left > 0:
                self.wfile.write(chunk[: min(left, len(chunk))])
                left -= len(chunk)
            self.wfile.write(tail)
        except OSError:
            pass  # the client refused the rest

    def drip(self, body):
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.close_connection = True
        try:
            for i in range(min(len(body), 15)):
                self.wfile.write(body[i:i + 1])
                self.wfile.flush()
                time.sleep(1)
        except OSError:
            pass

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
        if active.startswith("retry-after"):
            long = active == "retry-after-long"
            self.send_response(429 if long else 503)
            if long:
                self.send_header("Retry-After", "3600")
            elif active == "retry-after-date":
                self.send_header("Retry-After", email.utils.formatdate(time.time() + 2, usegmt=True))
            else:
                self.send_header("Retry-After", "1")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if active.startswith("huge-page") and rest.startswith("/simple/six"):
            self.send_huge(page(active)[:-1], b"}", active == "huge-page")
            return
        if active == "huge-metadata" and rest.endswith(".metadata"):
            self.send_huge(OTHER_METADATA.replace(b"not-six", b"six").replace(b"9.9", b"1.16.0"),
                           b"", True)
            return
        if active == "drip":
            self.drip(page(active) if rest.startswith("/simple/six") else WHEEL_BYTES)
            return

        if rest.startswith("/simple/six"):
            body = page(active)
            content_type = "application/vnd.pypi.simple.v1+json"
            if active == "bad-json":
                body = body[: len(body) // 2]
        elif rest == "/files/" + WHEEL_NAME + ".metadata" and active == "wrong-metadata":
            body = OTHER_METADATA
            content_type = "application/octet-stream"
        elif rest == "/files/" + WHEEL_NAME:
            body = OTHER_WHEEL if active == "wrong-wheel" else WHEEL_BYTES
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
