"""Headless Chromium for end-to-end tests of the web dashboard, driven over the Chrome DevTools
Protocol (CDP) with the standard library only.

Chromium is started with --remote-debugging-pipe: it reads CDP commands from its fd 3 and
writes responses and events to its fd 4, each message JSON ending in a NUL byte. A reader
thread dispatches responses by id and events by session; every wait has a timeout, and when
Chromium dies every call raises AssertionError with the tail of its stderr.

    with Browser() as b:
        page = b.open(url)                       # 1280x800, waits for the load event
        page.wait_for("document.querySelector('#jobs tr')")
        page.click("#delete")                    # confirm() dialogs are accepted
        assert page.eval("document.title") == "etna"
        page.screenshot("out/jobs.png")
        assert page.console == [], page.console

Chromium comes from Debian's `chromium` package (scripts/install-deps.sh installs it). It runs
with --no-sandbox, so it also works as root in a container.
"""
import fcntl
import itertools
import json
import os
import subprocess
import tempfile
import threading

from browser_process import died, find_binary, kill_group, log_tail, remove_dir
from scripted_page import ScriptedPage

WIDTH, HEIGHT = 1280, 800

FLAGS = [
    "--headless=new",
    "--no-sandbox",  # the sandbox needs user namespaces and refuses to run as root
    "--disable-gpu",
    "--disable-dev-shm-usage",  # containers often have a tiny /dev/shm
    "--remote-debugging-pipe",
    f"--window-size={WIDTH},{HEIGHT}",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--hide-scrollbars",  # screenshots of the same page look the same everywhere
    "--mute-audio",
]


def find_chromium():
    """The path of `chromium` or else `chromium-browser` on PATH; None when neither is there."""
    return find_binary(("chromium", "chromium-browser"))


class Browser:
    """One headless Chromium process, used as a context manager: on exit Chromium is killed and
    its temporary profile removed. `timeout`: seconds any one CDP command or wait may take."""

    def __init__(self, binary=None, timeout=10, startup_timeout=30, args=()):
        self.binary = binary or find_chromium()
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.args = list(args)
        self.proc = None
        self.version = None  # Browser.getVersion's answer, once started
        self._ids = itertools.count(1)
        self._cond = threading.Condition()
        self._responses = {}  # id -> response message, until its caller takes it
        self._ignored = set()  # ids of commands sent without waiting
        self._pages = {}  # sessionId -> Page
        self._dead = False
        self._write_lock = threading.Lock()

    # --- lifetime -------------------------------------------------------------------------

    def __enter__(self):
        if not self.binary:
            raise AssertionError(
                "chromium is not installed (neither `chromium` nor `chromium-browser` is on "
                "PATH): run scripts/install-deps.sh")
        self.dir = tempfile.mkdtemp(prefix="etna-browser-")
        try:
            self._start()
            self.version = self.send("Browser.getVersion", timeout=self.startup_timeout)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def _start(self):
        # The child's ends of the two pipes are moved to fds >= 10, so that the shell's
        # redirections onto 3 and 4 cannot overwrite one another (bash, as dash only takes
        # one-digit fds). No preexec_fn: it is unsafe in a process with threads.
        cmd_r, cmd_w = os.pipe()  # we write commands, Chromium reads them on fd 3
        ev_r, ev_w = os.pipe()  # Chromium writes on fd 4, we read
        child_r = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10)
        child_w = fcntl.fcntl(ev_w, fcntl.F_DUPFD, 10)
        for fd in (cmd_r, ev_w):
            os.close(fd)
        self._out, self._in = cmd_w, ev_r
        self._stderr = open(os.path.join(self.dir, "chromium.log"), "w+b")
        argv = [self.binary] + FLAGS + [f"--user-data-dir={os.path.join(self.dir, 'profile')}"]
        argv += self.args + ["about:blank"]
        try:
            self.proc = subprocess.Popen(
                ["/bin/bash", "-c",
                 f'exec "$0" "$@" 3<&{child_r} 4>&{child_w} {child_r}<&- {child_w}>&-'] + argv,
                stdin=subprocess.DEVNULL, stdout=self._stderr, stderr=self._stderr,
                pass_fds=(child_r, child_w), start_new_session=True)
        except BaseException:
            os.close(self._in)  # no reader thread will
            raise
        finally:
            os.close(child_r)
            os.close(child_w)
        self._reader = threading.Thread(target=self._read_loop, name="chromium-cdp", daemon=True)
        self._reader.start()

    def close(self):
        """Kills Chromium and its helper processes and removes its temporary directory."""
        if self.proc is not None:
            kill_group(self.proc)
        if getattr(self, "_out", None) is not None:
            os.close(self._out)
            self._out = None
        if getattr(self, "_reader", None) is not None:
            self._reader.join(timeout=5)  # it closes our read end at EOF
        if getattr(self, "_stderr", None):
            self._stderr.close()
        if getattr(self, "dir", None):
            remove_dir(self.dir)
            self.dir = None

    def stderr_tail(self, chars=3000):
        """The last `chars` characters Chromium wrote to stdout and stderr, less its complaints
        that there is no D-Bus (harmless, and many in a container)."""
        return log_tail(os.path.join(self.dir or "", "chromium.log"), chars,
                        keep=lambda line: ":ERROR:dbus/" not in line)

    def _died(self):
        return died("chromium", self.proc, self.stderr_tail)

    # --- the protocol -------------------------------------------------------------------------

    def _read_loop(self):
        """The reader thread: splits what Chromium writes at NUL bytes and dispatches each
        message, until EOF; then every waiting call learns that Chromium is gone."""
        parts = []  # the pieces of a message not yet ended
        try:
            while True:
                try:
                    chunk = os.read(self._in, 1 << 16)
                except OSError:
                    break
                if not chunk:
                    break
                *ended, rest = chunk.split(b"\0")
                for piece in ended:
                    self._dispatch(json.loads(b"".join(parts) + piece))
                    parts = []
                parts.append(rest)
        finally:
            os.close(self._in)
            with self._cond:
                self._dead = True
                self._cond.notify_all()

    def _dispatch(self, msg):
        if "id" in msg:
            with self._cond:
                if msg["id"] in self._ignored:
                    self._ignored.discard(msg["id"])
                else:
                    self._responses[msg["id"]] = msg
                    self._cond.notify_all()
            return
        page = self._pages.get(msg.get("sessionId"))
        if page is not None:
            page._on_event(msg["method"], msg.get("params", {}))
            with self._cond:
                self._cond.notify_all()

    def send(self, method, params=None, session=None, timeout=None, wait=True):
        """Sends one CDP command and returns its result; raises AssertionError when Chromium
        answers with an error, does not answer within `timeout` seconds, or has died. With
        `wait=False` it returns at once and the answer is dropped (for use on the reader
        thread, which must never wait)."""
        with self._cond:
            if self._dead:
                raise self._died()
            msg_id = next(self._ids)
            if not wait:
                self._ignored.add(msg_id)
        msg = {"id": msg_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        try:
            with self._write_lock:
                while data:
                    data = data[os.write(self._out, data):]
        except (OSError, TypeError):
            raise self._died() from None
        if not wait:
            return None
        timeout = self.timeout if timeout is None else timeout
        with self._cond:
            self._cond.wait_for(lambda: msg_id in self._responses or self._dead, timeout)
            reply = self._responses.pop(msg_id, None)
            if reply is None:
                if self._dead:
                    raise self._died()
                raise AssertionError(f"chromium did not answer {method} within {timeout} s")
        if "error" in reply:
            raise AssertionError(f"{method} failed: {reply['error'].get('message')} "
                                 f"{reply['error'].get('data', '')}".rstrip())
        return reply.get("result", {})

    def _wait(self, predicate, what, timeout):
        """Waits until predicate() (called under the lock) is true; AssertionError otherwise."""
        with self._cond:
            if not self._cond.wait_for(lambda: predicate() or self._dead, timeout):
                raise AssertionError(f"timed out after {timeout} s waiting for {what}")
            if self._dead and not predicate():
                raise self._died()

    # --- pages --------------------------------------------------------------------------------

    def open(self, url, timeout=None):
        """Opens a new 1280x800 tab, navigates it to `url` and waits for its load event.
        Returns its Page."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, target, session)
        with self._cond:
            self._pages[session] = page
        page.send("Emulation.setDeviceMetricsOverride",
                  {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
        page.send("Page.enable")
        page.send("Runtime.enable")
        page.navigate(url, timeout)
        return page


class Page(ScriptedPage):
    """One tab, made by Browser.open.

    console: what the page logged ("log: text", "error: text", ...) and the exceptions it did
        not catch ("exception: Uncaught Error: ..."), in order, so a test can assert it empty.
    dialog_accept: JavaScript dialogs (alert, confirm, prompt, beforeunload) are answered as
        soon as they open: accepted while this is True (the default), so a test can click a
        button that asks confirm() first; dismissed (confirm() returns false) when False.
    dialogs: the messages of the dialogs answered so far, e.g. to assert what confirm() asked.
    """

    def __init__(self, browser, target, session):
        self.browser = browser
        self.target = target
        self.session = session
        self.console = []
        self.dialogs = []
        self.dialog_accept = True
        self.crashed = False
        self._loads = 0  # Page.loadEventFired events so far

    def send(self, method, params=None, timeout=None):
        """Sends a CDP command to this tab; see Browser.send."""
        if self.crashed:
            raise AssertionError(f"the page crashed; console: {self.console}")
        return self.browser.send(method, params, self.session, timeout)

    def _on_event(self, method, params):
        """Called on the reader thread for each event of this tab."""
        if method == "Page.loadEventFired":
            self._loads += 1
        elif method == "Runtime.consoleAPICalled":
            text = " ".join(_describe(arg) for arg in params.get("args", []))
            self.console.append(f"{params.get('type')}: {text}")
        elif method == "Runtime.exceptionThrown":
            self.console.append(f"exception: {_exception_text(params['exceptionDetails'])}")
        elif method == "Page.javascriptDialogOpening":
            self.dialogs.append(params.get("message", ""))
            self.browser.send("Page.handleJavaScriptDialog", {"accept": bool(self.dialog_accept)},
                              self.session, wait=False)
        elif method == "Inspector.targetCrashed":
            self.crashed = True

    def navigate(self, url, timeout=None):
        """Loads `url` and waits for its load event. A URL that differs from the current one
        only in its #fragment is a same-document navigation: it fires `hashchange` but no load
        event, so it returns at once (wait_for what the page's router shows)."""
        timeout = self.browser.timeout if timeout is None else timeout
        loads = self._loads
        result = self.send("Page.navigate", {"url": url}, timeout)
        if result.get("errorText"):
            raise AssertionError(f"navigating to {url} failed: {result['errorText']}")
        if "loaderId" not in result:  # same-document: no new document, no load event
            return
        self.browser._wait(lambda: self._loads > loads or self.crashed,
                           f"the load event of {url}", timeout)
        if self.crashed:
            raise AssertionError(f"the page crashed loading {url}; console: {self.console}")

    def eval(self, expression, timeout=None):
        """Evaluates a JavaScript expression in the page (awaiting it if it is a Promise) and
        returns its value as JSON decodes it (None for undefined). Raises AssertionError with
        the exception's text when it throws."""
        result = self.send("Runtime.evaluate",
                           {"expression": expression, "returnByValue": True,
                            "awaitPromise": True, "userGesture": True}, timeout)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression!r} threw: "
                                 f"{_exception_text(result['exceptionDetails'])}")
        return result["result"].get("value")

    def _gone(self):
        return self.crashed or self.browser._dead

    def set_dark(self, dark=True):
        """Emulates prefers-color-scheme: dark (True) or light (False)."""
        self.send("Emulation.setEmulatedMedia",
                  {"features": [{"name": "prefers-color-scheme",
                                 "value": "dark" if dark else "light"}]})

    def screenshot(self, path):
        """Writes a PNG of the viewport to `path`, creating its directories; returns path."""
        return self.write_png(path, self.send("Page.captureScreenshot", {"format": "png"})["data"])

    def close(self):
        """Closes this tab."""
        self.browser.send("Target.closeTarget", {"targetId": self.target})


def _describe(obj):
    """A short text for a CDP RemoteObject (a console.log argument)."""
    if "value" in obj:
        value = obj["value"]
        return value if isinstance(value, str) else json.dumps(value)
    return obj.get("description") or obj.get("unserializableValue") or obj.get("type", "?")


def _exception_text(details):
    """The text of a CDP ExceptionDetails: the exception's description (message and stack)."""
    exc = details.get("exception") or {}
    return exc.get("description") or str(exc.get("value", "")) or details.get("text", "?")
