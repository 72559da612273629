# A loopback capture of what an SDK POSTs: each envelope body, decompressed, to OUT/NNN.envelope
import gzip, http.server, os, sys, threading, zlib
OUT = sys.argv[1]; PORT = int(sys.argv[2])
n = [0]; lock = threading.Lock()
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        if self.headers.get("Content-Length") is not None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
        else:
            body = b""
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline(); break
                body += self.rfile.read(size); self.rfile.readline()
        enc = (self.headers.get("Content-Encoding") or "").lower()
        if enc == "gzip": body = gzip.decompress(body)
        elif enc == "deflate": body = zlib.decompress(body)
        elif enc == "br":
            import brotli; body = brotli.decompress(body)
        elif enc not in ("", "identity"): sys.stderr.write("unsupported encoding %s\n" % enc)
        with lock:
            n[0] += 1
            with open(os.path.join(OUT, "%03d.envelope" % n[0]), "wb") as f: f.write(body)
        self.send_response(200); self.send_header("Content-Type", "application/json"); self.end_headers(); self.wfile.write(b"{}")
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", PORT), H).serve_forever()
