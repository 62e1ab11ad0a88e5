"""The process side the two browser drivers (browser.py's Chromium, firefox.py's Firefox) share:
finding the binary, killing the browser with every process it started, removing its temporary
directory, and the tail of its log for error messages."""
import os
import shutil
import signal
import subprocess
import time


def find_binary(names):
    """The path of the first of `names` on PATH; None when none is there."""
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return None


def kill_group(proc):
    """SIGKILLs the process group `proc` leads (it was started with start_new_session=True), so
    its helpers go too even if it is gone itself, and reaps it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def remove_dir(path):
    """Removes `path`, retrying for 5 s: a helper killed a moment ago may still be writing."""
    deadline = time.monotonic() + 5
    while True:
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.exists(path) or time.monotonic() > deadline:
            return
        time.sleep(0.05)


def log_tail(path, chars=3000, keep=lambda line: True):
    """The last `chars` characters of the log at `path`, its lines filtered by `keep`."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode(errors="replace")
    except (OSError, TypeError):
        return "(no output)"
    return "\n".join(line for line in text.splitlines() if keep(line))[-chars:] or "(no output)"


def died(name, proc, tail):
    """The AssertionError for a browser whose channel closed: its exit status (it closes the
    channel a moment before it exits) and the end of its output, from `tail()`."""
    code = None
    if proc:
        try:
            code = proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
    return AssertionError(f"{name} died (exit status {code}); its output ends:\n{tail()}")
