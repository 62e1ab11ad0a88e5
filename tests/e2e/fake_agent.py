#!/usr/bin/python3
"""A stand-in for the node agent's log endpoint, for API server tests.

Serves GET /containerLogs/<ns>/<pod>/<container>?tailLines=N&follow=true on 127.0.0.1 with a
fixed log of ten lines (followed: sent as separate chunks, then the stream ends) ("<pod>/<container> line 1" ...). Prints its port on stdout, then serves
until killed.
"""
import http.server
import sys
import urllib.parse

LINES = 10


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        parts = url.path.strip("/").split("/")
        if len(parts) != 4 or parts[0] != "containerLogs":
            self.send_error(404)
            return
        query = urllib.parse.parse_qs(url.query)
        lines = [f"{parts[2]}/{parts[3]} line {i}\n" for i in range(1, LINES + 1)]
        if "tailLines" in query:
            lines = lines[-int(query["tailLines"][0]):]
        if query.get("follow", [""])[0] == "true":
            # A followed log: the lines as separate chunks, then the stream ends (the container
            # exited), which ends `kubectl logs -f`.
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for line in lines:
                data = line.encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            return
        body = "".join(lines).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
