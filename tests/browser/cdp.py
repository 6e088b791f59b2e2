#!/usr/bin/python3
"""tests/browser/cdp.py: drive headless Chromium in real time over the
DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages ending
in NUL on fds 3 and 4), standard library only.

--dump-dom needs --virtual-time-budget to wait for the page's fetches, and
virtual time stops performance.now() during a script, so a draw there
measures 0 ms; this driver waits on the wall clock instead.

    cdp.py URL --wait JS [--run JS]... [--timeout S]

Loads URL, polls the expression --wait until it is truthy, then evaluates
each --run in order (awaiting a promise; each may change the page and
return what it measured), writes --screenshot FILE, and prints one JSON
object: {"wait_s": seconds,
"results": [...], "console_errors": [...]}. Exit 1 when the wait times out
or an evaluation throws; the errors are printed to stderr.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, chrome):
        self.dir = tempfile.mkdtemp(prefix="league-cdp.")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        def fds():
            # chromium reads commands on fd 3 and writes replies on fd 4;
            # dup first so that neither lands on the other's number
            r, w = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(r, 3)
            os.dup2(w, 4)
        self.proc = subprocess.Popen(
            [chrome, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--disable-dev-shm-usage", "--no-first-run",
             "--hide-scrollbars", "--window-size=900,900",
             "--user-data-dir=" + self.dir, "--remote-debugging-pipe",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, preexec_fn=fds, close_fds=False)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        return self.reply(self.next_id)

    def reply(self, want):
        while True:
            while b"\0" not in self.buf:
                chunk = os.read(self.from_chrome, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self.buf += chunk
            raw, self.buf = self.buf.split(b"\0", 1)
            msg = json.loads(raw)
            if msg.get("id") == want:
                if "error" in msg:
                    raise RuntimeError(msg["error"])
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def evaluate(b, session, expr):
    r = b.send("Runtime.evaluate", {"expression": expr, "awaitPromise": True,
                                    "returnByValue": True}, session)
    if "exceptionDetails" in r:
        raise RuntimeError("%s: %s" % (expr, r["exceptionDetails"]))
    return r["result"].get("value")


def console_errors(events):
    out = []
    for e in events:
        p = e.get("params", {})
        if e["method"] == "Runtime.exceptionThrown":
            out.append(str(p.get("exceptionDetails", {}).get("text")))
        elif (e["method"] == "Runtime.consoleAPICalled" and
              p.get("type") == "error"):
            out.append(" ".join(str(a.get("value")) for a in p["args"]))
        elif (e["method"] == "Log.entryAdded" and
              p.get("entry", {}).get("level") == "error"):
            out.append(p["entry"].get("text", ""))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--wait", required=True)
    ap.add_argument("--run", action="append", default=[])
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--screenshot", help="a PNG of the page after the runs")
    a = ap.parse_args()
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chrome:
        sys.exit("cdp.py: no chromium (install it: sh util/deps.sh browser)")
    b = Browser(chrome)
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"})
        session = b.send("Target.attachToTarget",
                         {"targetId": target["targetId"],
                          "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            b.send(domain + ".enable", session=session)
        t0 = time.monotonic()
        b.send("Page.navigate", {"url": a.url}, session)
        # the page may not be there yet: a throw reads as false
        wait = "(()=>{try{return %s}catch(e){return false}})()" % a.wait
        while not evaluate(b, session, wait):
            if time.monotonic() - t0 > a.timeout:
                sys.exit("cdp.py: %s: still false after %.0f s: %s" %
                         (a.url, a.timeout, a.wait))
            time.sleep(0.05)
        waited = time.monotonic() - t0
        results = [evaluate(b, session, r) for r in a.run]
        if a.screenshot:
            import base64
            shot = b.send("Page.captureScreenshot", {"format": "png"},
                          session)
            with open(a.screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        print(json.dumps({"wait_s": round(waited, 3), "results": results,
                          "console_errors": console_errors(b.events)}))
    finally:
        b.close()


if __name__ == "__main__":
    main()
