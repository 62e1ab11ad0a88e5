"""Self-test of the browser drivers, tests/e2e/browser.py (Chromium) and tests/e2e/firefox.py
(Firefox): serves a small page on 127.0.0.1 and checks eval, wait_for, click, type, confirm()
handling, the console, dark mode and screenshots against it, in the browser named.

    python3 tests/e2e/browser_selftest.py chromium|firefox

Exits 0 when all pass, else 1 with the failure. Fails (does not skip) where the browser is not
installed: scripts/install-deps.sh installs both (Debian's chromium and firefox-esr).
"""
import http.server
import os
import struct
import sys
import tempfile
import threading
import time
import traceback
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser, find_chromium  # noqa: E402
from firefox import Firefox, find_firefox  # noqa: E402

# name: (driver, how to find it, its Debian package)
DRIVERS = {"chromium": (Browser, find_chromium, "chromium"),
           "firefox": (Firefox, find_firefox, "firefox-esr")}

PAGE = b"""<!doctype html>
<html><head><meta charset="utf-8"><title>selftest</title>
<style>
  body { background: white; color: black; }
  @media (prefers-color-scheme: dark) { body { background: black; color: white; } }
</style></head>
<body>
  <p id="status">idle</p>
  <button id="delete" onclick="if (confirm('Delete job j?')) {
      document.getElementById('status').textContent = 'deleted'; }">Delete</button>
  <input id="name"><p id="echo"></p>
  <script>
    document.getElementById('name').addEventListener('input',
        e => document.getElementById('echo').textContent = 'typed ' + e.target.value);
    setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p id="late">late</p>'), 300);
    console.log('dashboard', 'ready', 42);
  </script>
</body></html>
"""


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.split("?")[0] == "/":
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)
        else:
            self.send_error(404)

    def log_message(self, *args):
        pass


STATUS = "document.getElementById('status').textContent"


def check(what, got, want):
    if got != want:
        raise AssertionError(f"{what}: got {got!r}, want {want!r}")


def raises(what, fn, *needles):
    """Calls fn, which must raise AssertionError with every one of `needles` in its text."""
    try:
        fn()
    except AssertionError as e:
        missing = [n for n in needles if n not in str(e)]
        if missing:
            raise AssertionError(f"{what}: its error lacks {missing}: {e}") from None
        return
    raise AssertionError(f"{what} did not raise")


def png_info(path):
    """(width, height, (r, g, b) of the top left pixel) of an 8-bit RGB(A) PNG; AssertionError
    when it is no PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise AssertionError(f"{path} is not a PNG: {data[:16]!r}")
    width, height, depth, color = struct.unpack(">IIBB", data[16:26])
    if depth != 8 or color not in (2, 6):
        raise AssertionError(f"{path}: bit depth {depth}, color type {color}; want 8-bit RGB(A)")
    idat, pos = b"", 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    # Whatever the first row's filter, its first pixel is stored as is (its neighbours are 0).
    first_row = zlib.decompressobj().decompress(idat, 8)
    return width, height, tuple(first_row[1:4])


def run(name, url, out):
    with DRIVERS[name][0]() as b:
        page = b.open(url)
        check("title", page.eval("document.title"), "selftest")
        check("viewport", page.eval("[window.innerWidth, window.innerHeight]"), [1280, 800])
        check("promise", page.eval("new Promise(r => setTimeout(() => r(7), 10))"), 7)
        check("undefined", page.eval("undefined"), None)
        raises("eval of a throwing expression",
               lambda: page.eval("(() => { throw new Error('boom'); })()"), "Error: boom")

        check("wait_for", page.wait_for("document.getElementById('late')?.textContent"), "late")
        raises("wait_for of a false expression", lambda: page.wait_for("window.never", 0.3),
               "timed out", "window.never", "log: dashboard ready 42")

        page.dialog_accept = False
        page.click("#delete")
        check("status after dismissed confirm", page.eval(STATUS), "idle")
        page.dialog_accept = True
        page.click("#delete")
        page.wait_for(STATUS + " == 'deleted'")
        check("dialogs", page.dialogs, ["Delete job j?", "Delete job j?"])
        raises("click on a missing element", lambda: page.click("#missing"), "#missing")

        page.type("#name", 'job "a"\n')  # an <input> drops the newline
        check("typed", page.eval("[document.getElementById('name').value, "
                                 "document.getElementById('echo').textContent]"),
              ['job "a"', 'typed job "a"'])

        bg = "getComputedStyle(document.body).backgroundColor"
        check("light", page.eval(bg), "rgb(255, 255, 255)")
        page.set_dark(True)
        check("dark", page.eval(bg), "rgb(0, 0, 0)")
        check("matchMedia", page.eval("matchMedia('(prefers-color-scheme: dark)').matches"), True)
        shot = page.screenshot(os.path.join(out, "shots", "dark.png"))
        check("dark screenshot (width, height, top left pixel)", png_info(shot),
              (1280, 800, (0, 0, 0)))
        page.set_dark(False)
        check("light again", page.eval(bg), "rgb(255, 255, 255)")
        check("light screenshot", png_info(page.screenshot(os.path.join(out, "light.png"))),
              (1280, 800, (255, 255, 255)))

        page.eval("setTimeout(() => { throw new Error('uncaught'); })")
        page.wait_for("new Promise(r => setTimeout(() => r(true), 50))")
        check("console", page.console[0], "log: dashboard ready 42")
        if not any(m.startswith("exception:") and "uncaught" in m for m in page.console):
            raise AssertionError(f"uncaught exception not in console: {page.console}")

        page.navigate(url + "?again")
        check("navigate", page.eval("location.search"), "?again")
        check("status after reload", page.eval(STATUS), "idle")
        page.eval("window.hashes = []; "
                  "addEventListener('hashchange', e => hashes.push(new URL(e.newURL).hash))")
        start = time.monotonic()
        page.navigate(url + "?again#/jobs")  # same document: no load event to wait for
        page.navigate(url + "?again#/queues")
        if time.monotonic() - start > 2:
            raise AssertionError("navigating to a #fragment waited for a load event")
        check("hashchange", page.wait_for("hashes.length == 2 && hashes"), ["#/jobs", "#/queues"])

        if name == "firefox":
            # Another site (a new content process under Fission) is hooked too: the console
            # from its start, and confirm().
            other = url.replace("127.0.0.1", "localhost") + "?other"
            page.navigate(other)
            check("navigate to another site", page.eval("location.href"), other)
            check("console of the other site", page.console[-1], "log: dashboard ready 42")
            page.click("#delete")
            page.wait_for(STATUS + " == 'deleted'")
            check("dialogs of the other site", len(page.dialogs), 3)

        b.proc.kill()  # a dead browser makes calls fail quickly, not hang
        start = time.monotonic()
        raises(f"eval after {name} died", lambda: page.eval("1"), f"{name} died")
        if time.monotonic() - start > 5:
            raise AssertionError(f"noticing {name}'s death took over 5 s")
        return b.dir


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "chromium"
    if name not in DRIVERS:
        print(f"usage: browser_selftest.py {'|'.join(DRIVERS)}", file=sys.stderr)
        return 2
    if not DRIVERS[name][1]():
        print(f"FAIL: {DRIVERS[name][2]} is not installed; run scripts/install-deps.sh",
              file=sys.stderr)
        return 1
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    start = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix=f"{name}-selftest-") as out:
            profile = run(name, f"http://127.0.0.1:{server.server_address[1]}/", out)
            if os.path.exists(profile):
                raise AssertionError(f"{name} left its directory {profile} behind")
    except Exception as e:  # noqa: BLE001 -- any failure is reported the same way
        traceback.print_exc()
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    finally:
        server.shutdown()
    print(f"{name} selftest: OK in {time.monotonic() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
