"""Headless Firefox for end-to-end tests of the web dashboard, driven over its Marionette
protocol with the standard library only. Same interface as browser.py's Chromium driver, so a
test can run the same checks in either browser:

    with Firefox() as b:
        page = b.open(url)                       # a 1280x800 viewport, waits for the load event
        page.wait_for("document.querySelector('#jobs tr')")
        page.click("#delete")                    # confirm() dialogs are accepted
        assert page.eval("document.title") == "etna"
        page.screenshot("out/jobs.png")
        assert page.console == [], page.console

The protocol. Firefox is started with --marionette and a fresh profile whose user.js sets
`marionette.port` to 0: Marionette listens on a free port of 127.0.0.1 and writes its number to
the file MarionetteActivePort in the profile, so parallel tests cannot race for a port. On that
TCP connection every message, both ways, is `<length>:<json>`, the length in bytes of the JSON
in decimal. The server speaks first, a hello object ({"applicationType": "gecko",
"marionetteProtocol": 3}); then the client sends commands `[0, id, name, params]` one at a
time and the server answers each with `[1, id, error, result]` (error null on success, else
{"error", "message", "stacktrace"}). The commands are WebDriver's (WebDriver:NewSession,
WebDriver:Navigate, WebDriver:ExecuteAsyncScript, WebDriver:TakeScreenshot, ...) plus
Marionette's own; Marionette:SetContext "chrome" runs later scripts in the browser itself, with
its privileged APIs (Services.prefs, ...), which Firefox allows only when started with
--remote-allow-system-access. Every wait has a timeout; when Firefox dies every call raises
AssertionError with the tail of its output.

How the Chromium driver's events are emulated (Marionette has no events):
  * console and dialogs: at startup a frame script is loaded into every tab. On each new window
    (its DOMWindowCreated event, before any of the page's scripts run) it wraps console.log,
    info, warn, error and debug and replaces alert(), confirm() and prompt(); and it listens to
    the content process's console service for the uncaught exceptions of those windows. Each is
    sent to the browser, which queues it for Page.console and Page.dialogs to collect. Hence
    what a page logs while it loads is caught too, and so is what it logs just before it
    navigates away. Limitations: the page can see the wrapped functions (console.log.toString()
    differs) and a page that replaces them itself escapes the hook; objects are logged as JSON
    (or String()), not as Chromium describes them; an exception's text is its message and where
    it was thrown, without the stack; errors outside scripts (CSP violations, failed loads) are
    not caught; messages reach the browser asynchronously, a few milliseconds late at worst.
    Frame scripts (Services.mm.loadFrameScript) are an old Firefox API, still there in 153
    ESR; should a later Firefox remove it, Firefox.__enter__ raises (`browser_selftest.py firefox`
    also checks that the hook still sees what pages log).
  * dialogs never open: alert() returns at once; confirm() returns dialog_accept; prompt()
    returns its default value ("" without one) when dialog_accept, else null. Their messages
    go to Page.dialogs. (beforeunload prompts are off under Marionette.)
  * set_dark sets the pref layout.css.prefers-color-scheme.content-override, which decides what
    prefers-color-scheme matches in pages (0 dark, 1 light), and waits until the page sees it.

Other differences from Chromium: eval() runs in Marionette's sandbox over the page's window:
the page's globals are visible and `window.x = 1` sets one, but a top-level `var x` or `let x`
stays in the sandbox; scripts have no user activation (no popups or clipboard from click()).
The page's Content-Security-Policy does not block eval().

Firefox comes from Debian's `firefox-esr` package (scripts/install-deps.sh installs it).
"""
import itertools
import json
import os
import socket
import subprocess
import tempfile
import time

from browser_process import died, find_binary, kill_group, log_tail, remove_dir
from scripted_page import ScriptedPage

WIDTH, HEIGHT = 1280, 800

# Written to the profile's user.js. Marionette already applies its "recommended" test prefs
# (no first-run pages, no updates, no background services); these are belt and braces plus
# what the tests need.
PREFS = {
    "marionette.port": 0,  # any free port, written to <profile>/MarionetteActivePort
    "browser.shell.checkDefaultBrowser": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "toolkit.telemetry.enabled": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.page": 0,  # start with a blank page
    "app.update.auto": False,
    "app.update.disabledForTesting": True,
    "browser.tabs.warnOnClose": False,
    "ui.useOverlayScrollbars": 1,  # scrollbars take no room: a 1280 px wide viewport is 1280
    "layout.css.prefers-color-scheme.content-override": 1,  # light, as Chromium's default
}

# The frame script (runs in the content process of every tab; see the module docstring). For
# each new window it evaluates HOOK in a sandbox that has the window's principal and the window
# as its prototype, so that HOOK's functions are plain same-origin functions to the page.
FRAME_SCRIPT = r"""
const HOOK = %s;
const report = (kind, text) => sendAsyncMessage("etna:console", {kind, text: String(text)});
const windows = new Set();  // the innerWindowIds of the windows hooked, to filter errors by
addEventListener("DOMWindowCreated", event => {
  try {
    const win = event.target.defaultView;
    windows.add(win.windowGlobalChild.innerWindowId);
    const sb = Cu.Sandbox(win, {sandboxPrototype: win, wantXrays: false, sameZoneAs: win,
                                sandboxName: "etna console hook"});
    Cu.exportFunction(report, sb, {defineAs: "etnaReport"});
    Cu.exportFunction(() => Boolean(Services.cpmm.sharedData.get("etna:dialog-accept")), sb,
                      {defineAs: "etnaAccept"});
    Cu.evalInSandbox(HOOK, sb);
  } catch (e) {
    dump("etna console hook: " + e + "\n");
  }
}, true);
// Uncaught exceptions (and unhandled rejections) of these windows' scripts, including the
// functions eval() made in Marionette's sandbox, as the content process's console service
// reports them. (console.log and friends do not go there: the hook above takes those.)
const errors = {
  observe(m) {
    if (!(m instanceof Ci.nsIScriptError) || !windows.has(m.innerWindowID) ||
        !m.category.includes("javascript") ||
        (m.flags & (Ci.nsIScriptError.warningFlag | Ci.nsIScriptError.infoFlag))) {
      return;
    }
    report("exception", m.errorMessage + (m.sourceName ?
        `\n    at ${m.sourceName}:${m.lineNumber}:${m.columnNumber}` : ""));
  },
};
Services.console.registerListener(errors);
addEventListener("unload", () => Services.console.unregisterListener(errors));
"""

HOOK = r"""
(function (report, accept) {
  const describe = v => {
    if (typeof v === "string") return v;
    if (v !== null && typeof v === "object" && typeof v.stack === "string" && "message" in v)
      return String(v) + (v.stack ? "\n" + v.stack.trimEnd() : "");
    try {
      const json = JSON.stringify(v);
      if (json !== undefined) return json;
    } catch (e) {}
    return String(v);
  };
  const console = window.console;
  for (const level of ["log", "info", "warn", "error", "debug"]) {
    const original = console[level];
    console[level] = function (...args) {
      report(level, args.map(describe).join(" "));
      return original.apply(this, args);
    };
  }
  window.alert = message => { report("dialog", message === undefined ? "" : message); };
  window.confirm = message => {
    report("dialog", message === undefined ? "" : message);
    return accept();
  };
  window.prompt = (message, value) => {
    report("dialog", message === undefined ? "" : message);
    return accept() ? (value === undefined ? "" : String(value)) : null;
  };
})(etnaReport, etnaAccept);
"""

# Chrome-context scripts: load the frame script once, and collect what it reported.
INSTALL_HOOK = """
const [frameScript] = arguments;
if (!window.etnaMessages) {
  window.etnaMessages = [];
  Services.mm.addMessageListener("etna:console", m => { window.etnaMessages.push(m.data); });
  Services.mm.loadFrameScript("data:application/javascript," + encodeURIComponent(frameScript),
                              true);
}
"""
TAKE_MESSAGES = "return window.etnaMessages.splice(0);"
SET_DIALOG_ACCEPT = """
Services.ppmm.sharedData.set("etna:dialog-accept", arguments[0]);
Services.ppmm.sharedData.flush();
"""
SET_COLOR_SCHEME = """
Services.prefs.setIntPref("layout.css.prefers-color-scheme.content-override", arguments[0]);
"""

# eval(): the expression's source is evaluated by an indirect eval (so statements work too, and
# the page's CSP does not apply), its value awaited, and a throw reported as {__etnaError}.
EVAL = """
const done = arguments[arguments.length - 1];
Promise.resolve()
  .then(() => (0, eval)(arguments[0]))
  .then(value => done(value === undefined ? null : value),
        e => done({__etnaError: String(e) + (e && e.stack ? "\\n" + e.stack.trimEnd() : "")}));
"""


def find_firefox():
    """The path of `firefox-esr` or else `firefox` on PATH; None when neither is there."""
    return find_binary(("firefox-esr", "firefox"))


class Firefox:
    """One headless Firefox process, used as a context manager: on exit Firefox (and its
    content processes) is killed and its temporary profile removed. `timeout`: seconds any one
    command or wait may take; `startup_timeout`: seconds Firefox may take to start listening
    and open its session."""

    def __init__(self, binary=None, timeout=10, startup_timeout=60, args=()):
        self.binary = binary or find_firefox()
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.args = list(args)
        self.proc = None
        self.dir = None
        self.version = None  # {"browserName", "browserVersion", ...} once started
        self.page = None
        self._sock = None
        self._buf = b""
        self._ids = itertools.count(1)
        self._dead = False
        self._context = "content"
        self._timeouts = {}

    # --- lifetime -------------------------------------------------------------------------

    def __enter__(self):
        if not self.binary:
            raise AssertionError("firefox is not installed (neither `firefox-esr` nor `firefox` "
                                 "is on PATH): run scripts/install-deps.sh")
        self.dir = tempfile.mkdtemp(prefix="etna-firefox-")
        try:
            self._start()
            # The parameters are the capabilities themselves: Firefox 153's Marionette takes
            # neither {"capabilities": {...}} nor {"alwaysMatch": {...}} (it ignores them).
            caps = self.send("WebDriver:NewSession", {
                "acceptInsecureCerts": True,  # the tests' HTTPS servers are self-signed
                "unhandledPromptBehavior": "accept",  # should the hook miss a dialog
            }, timeout=self.startup_timeout)["capabilities"]
            if caps.get("acceptInsecureCerts") is not True:
                raise AssertionError(f"firefox refused acceptInsecureCerts: {caps}")
            self.version = {k: caps.get(k) for k in ("browserName", "browserVersion",
                                                     "platformName")}
            self._set_timeouts(script=self.timeout, pageLoad=self.timeout)
            self._chrome(INSTALL_HOOK, [FRAME_SCRIPT % json.dumps(HOOK)])
            self._chrome(SET_DIALOG_ACCEPT, [True])
            self._size_viewport()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def _start(self):
        profile = os.path.join(self.dir, "profile")
        os.mkdir(profile)
        with open(os.path.join(profile, "user.js"), "w") as f:
            for name, value in PREFS.items():
                f.write(f"user_pref({json.dumps(name)}, {json.dumps(value)});\n")
        self._log = open(os.path.join(self.dir, "firefox.log"), "w+b")
        env = dict(os.environ, MOZ_CRASHREPORTER_DISABLE="1", MOZ_HEADLESS="1")
        self.proc = subprocess.Popen(
            [self.binary, "--headless", "--marionette", "--remote-allow-system-access",
             "--no-remote", "--profile", profile] + self.args + ["about:blank"],
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log, env=env,
            start_new_session=True)  # its own process group: close() kills its children too
        deadline = time.monotonic() + self.startup_timeout
        port_file = os.path.join(profile, "MarionetteActivePort")
        while True:
            if self.proc.poll() is not None:
                self._dead = True
                raise self._died()
            try:
                with open(port_file) as f:
                    port = int(f.read().strip())
                self._sock = socket.create_connection(("127.0.0.1", port), timeout=5)
                break
            except (OSError, ValueError):  # not written (completely) yet, or not listening
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"firefox did not start listening for Marionette within "
                                     f"{self.startup_timeout} s; its output ends:\n"
                                     f"{self.stderr_tail()}")
            time.sleep(0.1)
        hello = self._receive(deadline, "the Marionette hello")
        if not isinstance(hello, dict) or hello.get("marionetteProtocol") != 3:
            raise AssertionError(f"unexpected Marionette hello: {hello!r}")

    def close(self):
        """Kills Firefox and its child processes and removes its temporary directory."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self.proc is not None:
            kill_group(self.proc)
        if getattr(self, "_log", None):
            self._log.close()
        if self.dir:
            remove_dir(self.dir)
            self.dir = None

    def stderr_tail(self, chars=3000):
        """The last `chars` characters Firefox wrote to stdout and stderr."""
        return log_tail(os.path.join(self.dir or "", "firefox.log"), chars)

    def _died(self):
        return died("firefox", self.proc, self.stderr_tail)

    # --- the protocol -------------------------------------------------------------------------

    def _receive(self, deadline, what):
        """Reads one `<length>:<json>` message, waiting until `deadline` (time.monotonic())."""
        while True:
            head, colon, rest = self._buf.partition(b":")
            if colon:
                if not head.isdigit():
                    raise AssertionError(f"garbled Marionette message: {self._buf[:80]!r}")
                if len(rest) >= int(head):
                    self._buf = rest[int(head):]
                    return json.loads(rest[:int(head)])
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"firefox did not answer {what} in time")
            self._sock.settimeout(left)
            try:
                chunk = self._sock.recv(1 << 16)
            except socket.timeout:
                continue  # the deadline check above reports it
            except OSError:
                chunk = b""
            if not chunk:
                self._dead = True
                raise self._died()
            self._buf += chunk

    def send(self, name, params=None, timeout=None):
        """Sends one Marionette command and returns its result; raises AssertionError when
        Firefox answers with an error, does not answer within `timeout` seconds (plus a little
        grace, so that Marionette's own timeouts report first) or has died."""
        if self._dead or self._sock is None:
            raise self._died()
        msg_id = next(self._ids)
        data = json.dumps([0, msg_id, name, params or {}]).encode()
        try:
            self._sock.sendall(str(len(data)).encode() + b":" + data)
        except OSError:
            self._dead = True
            raise self._died() from None
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout + 5
        while True:
            try:
                reply = self._receive(deadline, name)
            except AssertionError as e:
                if "in time" in str(e):
                    raise AssertionError(f"firefox did not answer {name} within {timeout} s")
                raise
            # Answers to commands that timed out earlier arrive late: skip them.
            if isinstance(reply, list) and len(reply) == 4 and reply[:2] == [1, msg_id]:
                break
        error, result = reply[2], reply[3]
        if error:
            raise AssertionError(f"{name} failed: {error.get('error')}: {error.get('message')}")
        return result

    def _set_timeouts(self, **seconds):
        """Sets Marionette's session timeouts (script, pageLoad) where they differ."""
        changed = {k: int(v * 1000) for k, v in seconds.items() if self._timeouts.get(k) != v}
        if changed:
            self.send("WebDriver:SetTimeouts", changed)
            self._timeouts.update(seconds)

    def _set_context(self, context):
        if self._context != context:
            self.send("Marionette:SetContext", {"value": context})
            self._context = context

    def _chrome(self, script, args=()):
        """Runs `script` (a function body) in the browser's privileged chrome context."""
        self._set_context("chrome")
        try:
            return self.send("WebDriver:ExecuteScript", {"script": script, "args": list(args)})
        finally:
            if not self._dead:
                self._set_context("content")

    def _size_viewport(self):
        """Resizes the window so that the page's viewport is WIDTH x HEIGHT."""
        rect = self.send("WebDriver:SetWindowRect", {"width": WIDTH, "height": HEIGHT})
        inner = self.send("WebDriver:ExecuteScript",
                          {"script": "return [window.innerWidth, window.innerHeight]"})["value"]
        if inner != [WIDTH, HEIGHT]:
            self.send("WebDriver:SetWindowRect",
                      {"width": rect["width"] + WIDTH - inner[0],
                       "height": rect["height"] + HEIGHT - inner[1]})

    # --- pages --------------------------------------------------------------------------------

    def open(self, url, timeout=None):
        """Navigates the one tab (viewport 1280x800) to `url` and waits for its load event.
        Returns its Page; there is one Page per Firefox, which a second open() navigates."""
        if self.page is None:
            self.page = Page(self)
        self.page.navigate(url, timeout)
        return self.page


class Page(ScriptedPage):
    """The tab of a Firefox, made by Firefox.open.

    console: what the page logged ("log: text", "error: text", ...) and the exceptions it did
        not catch ("exception: Error: ..."), in order, so a test can assert it empty.
    dialog_accept: what confirm() returns (True by default), so a test can click a button that
        asks confirm() first; prompt() returns null when False. No dialog ever opens.
    dialogs: the messages of alert(), confirm() and prompt() calls so far.
    """

    def __init__(self, browser):
        self.browser = browser
        self.crashed = False  # for the Chromium driver's interface; a crash raises instead
        self._console = []
        self._dialogs = []
        self._dialog_accept = True

    def _collect(self):
        """Moves what the hook reported from the browser's queue to console and dialogs."""
        if self.browser._dead:
            return
        for m in self.browser._chrome(TAKE_MESSAGES)["value"]:
            if m["kind"] == "dialog":
                self._dialogs.append(m["text"])
            else:
                self._console.append(f"{m['kind']}: {m['text']}")

    @property
    def console(self):
        self._collect()
        return self._console

    @property
    def dialogs(self):
        self._collect()
        return self._dialogs

    @property
    def dialog_accept(self):
        return self._dialog_accept

    @dialog_accept.setter
    def dialog_accept(self, accept):
        self.browser._chrome(SET_DIALOG_ACCEPT, [bool(accept)])
        self._dialog_accept = bool(accept)

    def send(self, name, params=None, timeout=None):
        """Sends a Marionette command; see Firefox.send."""
        return self.browser.send(name, params, timeout)

    def navigate(self, url, timeout=None):
        """Loads `url` and waits for its load event. A URL that differs from the current one
        only in its #fragment is a same-document navigation: Marionette returns at once (wait_for
        what the page's router shows)."""
        timeout = self.browser.timeout if timeout is None else timeout
        self.browser._set_timeouts(pageLoad=timeout)
        try:
            self.send("WebDriver:Navigate", {"url": url}, timeout)
        except AssertionError as e:
            if "firefox died" in str(e) or "did not answer" in str(e):
                raise
            raise AssertionError(f"navigating to {url} failed: {e}") from None

    def eval(self, expression, timeout=None):
        """Evaluates JavaScript (an expression, or statements: the value of the last) in the
        page, awaiting it if it is a Promise, and returns its value as JSON decodes it (None for
        undefined; a DOM element comes back as a WebDriver element reference). Raises
        AssertionError with the exception's text when it throws."""
        timeout = self.browser.timeout if timeout is None else timeout
        self.browser._set_timeouts(script=timeout)
        try:
            value = self.send("WebDriver:ExecuteAsyncScript",
                              {"script": EVAL, "args": [expression]}, timeout)["value"]
        except AssertionError as e:
            if "firefox died" in str(e) or "did not answer" in str(e):
                raise
            if "script timeout" in str(e):
                raise AssertionError(f"{expression!r} did not settle within {timeout} s") from None
            raise AssertionError(f"{expression!r} threw: {e}") from None
        if isinstance(value, dict) and "__etnaError" in value:
            raise AssertionError(f"{expression!r} threw: {value['__etnaError']}")
        return value

    def _gone(self):
        return self.browser._dead

    def set_dark(self, dark=True):
        """Makes prefers-color-scheme match dark (True) or light (False), in this page and the
        ones loaded later, and waits until this page sees it."""
        self.browser._chrome(SET_COLOR_SCHEME, [0 if dark else 1])
        self.wait_for(f"matchMedia('(prefers-color-scheme: dark)').matches === {str(dark).lower()}",
                      self.browser.timeout)

    def screenshot(self, path):
        """Writes a PNG of the viewport (1280x800) to `path`, creating its directories; returns
        path."""
        return self.write_png(path, self.send("WebDriver:TakeScreenshot", {"full": False})["value"])

    def close(self):
        """Leaves the page for about:blank (the tab itself stays: Firefox has only this one)."""
        self.navigate("about:blank")
