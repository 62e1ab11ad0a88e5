"""What the two browser drivers' pages (browser.py's Chromium, firefox.py's Firefox) do the same
way on top of their own eval(): waiting for an expression, clicking, typing, and writing a
screenshot's PNG. A page class provides eval(expression), console and _gone() (its browser or
tab is dead, so waiting on is pointless)."""
import base64
import json
import os
import time


class ScriptedPage:
    def wait_for(self, expression, timeout=10):
        """Evaluates `expression` every 50 ms until its value is truthy and returns that value.
        An evaluation that throws counts as falsy. On timeout, raises AssertionError naming the
        expression, with its last value or exception and the console messages so far."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                last = self.eval(expression)
                if last:
                    return last
            except AssertionError as e:
                if self._gone():
                    raise
                last = e
            if time.monotonic() >= deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {expression!r} "
                                     f"(last: {last!r}); console: {self.console}")
            time.sleep(0.05)

    def click(self, selector):
        """Clicks the first element matching the CSS `selector` (element.click()); raises
        AssertionError when there is none. A confirm() it opens is answered per dialog_accept."""
        self.eval(f"""(() => {{
            const el = document.querySelector({json.dumps(selector)});
            if (!el) throw new Error("no element matches " + {json.dumps(selector)});
            el.click();
        }})()""")

    def type(self, selector, text):
        """Sets the value of the input, textarea or select matching `selector` to `text` and
        dispatches `input` and `change` events, as if the user had typed it."""
        self.eval(f"""(() => {{
            const el = document.querySelector({json.dumps(selector)});
            if (!el) throw new Error("no element matches " + {json.dumps(selector)});
            el.focus();
            // The prototype's setter, so frameworks that wrap `value` see the change.
            Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), "value")
                .set.call(el, {json.dumps(text)});
            el.dispatchEvent(new Event("input", {{bubbles: true}}));
            el.dispatchEvent(new Event("change", {{bubbles: true}}));
        }})()""")

    @staticmethod
    def write_png(path, data_base64):
        """Writes a base64 PNG to `path`, creating its directories; returns path."""
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "wb") as f:
            f.write(base64.b64decode(data_base64))
        return path
