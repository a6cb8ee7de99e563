# SPDX-License-Identifier: GPL-2.0
"""Look at an HTML report in headless Chromium (Debian's chromium and
chromium-driver) through the W3C WebDriver protocol, with nothing but
the standard library: does the page render, do its anchors resolve,
and a screenshot for a human to look at."""

import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

# Run in the page: every in-page link and whether its target exists, and
# where the first graph sits relative to its datum's summary.
PAGE_FACTS = """
const links = [...document.querySelectorAll('a[href^="#"]')].map(a => a.getAttribute('href').slice(1));
const ids = new Set([...document.querySelectorAll('[id]')].map(e => e.id));
const dup = [...document.querySelectorAll('[id]')].map(e => e.id).filter((x, i, a) => a.indexOf(x) !== i);
const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; };
const want = arguments[0] ? document.getElementById(arguments[0]) : null;
const g = (want && want.querySelector('.datum .graph')) ||
          document.querySelector('details[open] .datum .graph');
const info = g ? g.parentElement.querySelector('.info') : null;
return {
  title: document.title,
  height: document.documentElement.scrollHeight,
  links: links,
  missing: [...new Set(links.filter(x => !ids.has(x)))],
  duplicate_ids: [...new Set(dup)],
  toc: !!document.getElementById('toc'),
  legend: !!document.getElementById('legend'),
  svgs: document.querySelectorAll('svg').length,
  graph: g ? {graph: box(g), info: box(info), datum: g.closest('details').id} : null,
};
"""

# Navigate to one fragment; where did the target land?
GO_TO = """
const id = arguments[0];
location.hash = '#' + id;
const e = document.getElementById(id);
if (!e) return {found: false};
const r = e.getBoundingClientRect();
const bottom = window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2;
return {found: true, target: (document.querySelector(':target') || {}).id || null,
        top: r.top, height: r.height, at_bottom: bottom, visible: r.height > 0};
"""


class Error(Exception):
    pass


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Browser:
    """One headless Chromium session driven by chromedriver."""

    def __init__(self, width=1280, height=900, timeout=60):
        for prog in (CHROMIUM, CHROMEDRIVER):
            if not os.access(prog, os.X_OK):
                raise Error("%s missing (apt-get install chromium chromium-driver, or make deps)"
                            % prog)
        self.profile = tempfile.mkdtemp(prefix="nbh-chromium.")
        self.port = _free_port()
        self.log = open(os.path.join(self.profile, "chromedriver.log"), "w")
        self.driver = subprocess.Popen([CHROMEDRIVER, "--port=%d" % self.port],
                                       stdout=self.log, stderr=subprocess.STDOUT)
        self.base = "http://127.0.0.1:%d" % self.port
        self.session = None
        deadline = time.time() + timeout
        while True:
            try:
                if self._call("GET", "/status")["value"].get("ready"):
                    break
            except (OSError, Error):
                pass
            if time.time() > deadline or self.driver.poll() is not None:
                self.close()
                raise Error("chromedriver did not start")
            time.sleep(0.2)
        args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--hide-scrollbars", "--window-size=%d,%d" % (width, height),
                "--user-data-dir=" + os.path.join(self.profile, "profile")]
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": args}}}}
        try:
            self.session = self._call("POST", "/session", caps)["value"]["sessionId"]
        except Error:
            self.close()
            raise

    def _call(self, method, path, body=None, timeout=120):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return json.loads(r.read().decode())
        except urllib.error.HTTPError as e:
            try:
                msg = json.loads(e.read().decode())["value"].get("message", "")
            except (ValueError, KeyError, AttributeError):
                msg = str(e)
            raise Error("webdriver %s %s: %s" % (method, path, msg.split("\n")[0]))

    def _s(self, method, path, body=None):
        return self._call(method, "/session/%s%s" % (self.session, path), body)["value"]

    def open(self, path):
        self._s("POST", "/url", {"url": "file://" + os.path.abspath(path)})

    def script(self, js, *args):
        return self._s("POST", "/execute/sync", {"script": js, "args": list(args)})

    def screenshot(self, path):
        png = base64.b64decode(self._s("GET", "/screenshot"))
        with open(path, "wb") as f:
            f.write(png)
        return png

    def close(self):
        if self.session:
            try:
                self._call("DELETE", "/session/%s" % self.session, timeout=30)
            except (OSError, Error):
                pass
            self.session = None
        if self.driver.poll() is None:
            self.driver.terminate()
            try:
                self.driver.wait(10)
            except subprocess.TimeoutExpired:
                self.driver.kill()
                self.driver.wait()
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


def png_size(png):
    """(width, height) of a PNG, or None."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        return None
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def check_report(path, shots, sample=None, focus=None):
    """Problems found in the HTML report at path ([] if none) and the
    page facts; screenshots go to shots (a prefix: PREFIX-top.png,
    PREFIX-datum.png, the datum with anchor focus if it has a graph,
    else the first open one).  sample: at most that many anchors are
    visited."""
    problems = []
    b = Browser()
    try:
        b.open(path)
        facts = b.script(PAGE_FACTS, focus)
        if not facts["toc"]:
            problems.append("no table of contents (#toc)")
        if not facts["legend"]:
            problems.append("no legend (#legend)")
        if not facts["links"]:
            problems.append("no in-page link")
        problems += ["link #%s has no target" % x for x in facts["missing"]]
        problems += ["id %s used twice" % x for x in facts["duplicate_ids"]]
        top = b.screenshot(shots + "-top.png")
        if not png_size(top) or len(top) < 5000:
            problems.append("screenshot of the top is not a rendered page (%d bytes)" % len(top))
        g = facts["graph"]
        if not g:
            problems.append("no open datum with a graph")
        else:
            gl, gt, gw, gh = g["graph"]
            il, it, iw, ih = g["info"]
            if not (gw > 0 and gh > 0):
                problems.append("graph of %s not rendered" % g["datum"])
            if not (gl >= il + iw - 1 and gt < it + ih):
                problems.append("graph of %s not next to its summary (graph at %d,%d, "
                                "summary at %d,%d %dx%d)" % (g["datum"], gl, gt, il, it, iw, ih))
        targets = list(dict.fromkeys(facts["links"]))
        if sample and len(targets) > sample:
            step = len(targets) / float(sample)
            targets = [targets[int(i * step)] for i in range(sample)]
        for t in targets:
            r = b.script(GO_TO, t)
            if not r.get("found"):
                continue        # already reported as missing
            if r["target"] != t or not r["visible"] or (abs(r["top"]) > 2 and not r["at_bottom"]):
                problems.append("#%s does not scroll to its target (%s)" % (t, r))
        if g:
            b.script("document.getElementById(arguments[0]).open = true;", g["datum"])
            b.script(GO_TO, g["datum"])
            b.screenshot(shots + "-datum.png")
        return problems, facts
    finally:
        b.close()
