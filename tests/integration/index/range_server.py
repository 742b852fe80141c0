#!/usr/bin/env python3
"""A static file server that answers HTTP Range requests (Python's http.server does not), and
counts the body bytes it sends per path: GET /__bytes returns them as JSON.

    range_server.py DIRECTORY [--ignore-ranges]

Prints its port on the first line of stdout. With --ignore-ranges it answers every GET with 200
and the whole file, as a server without range support does.
"""
import http.server
import json
import os
import re
import sys
import threading

DIRECTORY = sys.argv[1]
IGNORE_RANGES = "--ignore-ranges" in sys.argv[2:]
SENT = {}
LOCK = threading.Lock()


def parse_range(header, size):
    """(first, last) of a single `bytes=` range, or None when the header is not one."""
    match = re.fullmatch(r"bytes=(\d*)-(\d*)", header.strip())
    if not match or (not match.group(1) and not match.group(2)):
        return None
    if not match.group(1):
        length = int(match.group(2))
        return (max(0, size - length), size - 1) if length > 0 else None
    first = int(match.group(1))
    last = int(match.group(2)) if match.group(2) else size - 1
    return (first, min(last, size - 1)) if first <= last and first < size else None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_body(self, status, body, headers=()):
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command == "HEAD":
            return
        # In pieces, so that a client that stops reading is charged only what was sent.
        for begin in range(0, len(body), 65536):
            piece = body[begin:begin + 65536]
            self.wfile.write(piece)
            with LOCK:
                SENT[self.path] = SENT.get(self.path, 0) + len(piece)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        if self.path == "/__bytes":
            with LOCK:
                body = json.dumps(SENT).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        path = os.path.join(DIRECTORY, os.path.basename(self.path))
        if not os.path.isfile(path):
            self.send_body(404, b"not found")
            return
        with open(path, "rb") as f:
            data = f.read()
        header = self.headers.get("Range")
        if header is None or IGNORE_RANGES:
            self.send_body(200, data, [("Accept-Ranges", "none" if IGNORE_RANGES else "bytes")])
            return
        wanted = parse_range(header, len(data))
        if wanted is None:
            self.send_body(416, b"", [("Content-Range", f"bytes */{len(data)}")])
            return
        first, last = wanted
        self.send_body(206, data[first:last + 1],
                       [("Content-Range", f"bytes {first}-{last}/{len(data)}")])


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # a client that stops reading (a range answered whole) is expected, not an error


server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
