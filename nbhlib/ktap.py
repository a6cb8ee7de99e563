# SPDX-License-Identifier: GPL-2.0
"""The one KTAP writer (Documentation/dev-tools/ktap.rst, version 1).

    t = ktap.Writer()            # prints "KTAP version 1"
    t.plan(3)
    t.result(True, "apply")      # ok 1 apply
    t.result(None, "sparse", skip="no sparse")   # ok 2 sparse # SKIP ...
    sub = t.subtest("boot")      # a nested run, indented two spaces
    sub.plan(1); sub.result(False, "smoke")
    t.result(sub.passed, "boot") # the parent's result closes the subtest
    t.totals()                   # "# Totals: pass:1 fail:1 skip:1"

Nested results are indented two spaces per level, from the nested
version line to the line before the parent's result, as the spec says.
`indent()` does the same for the KTAP output of another program.
"""
import sys

INDENT = "  "


def indent(text, level=1):
    """TEXT (another program's KTAP, with its log lines) nested LEVEL
    levels deep."""
    pad = INDENT * level
    return "".join(pad + ln if ln.strip() else ln for ln in text.splitlines(True))


class Writer:
    def __init__(self, out=None, level=0, header=True):
        self.out = out or sys.stdout
        self.level = level
        self.n = 0
        self.counts = {"pass": 0, "fail": 0, "skip": 0}
        if header:
            self._line("KTAP version 1")

    def _line(self, text):
        self.out.write(INDENT * self.level + text + "\n")
        self.out.flush()

    def plan(self, n):
        """The plan follows the version line (the spec says so, and the
        kernel's kunit parser loops on a plan after results); a writer
        that cannot know the count leaves it out."""
        if self.n:
            raise ValueError("KTAP plan after results: give it first or leave it out")
        self._line(f"1..{n}")

    def diag(self, text):
        for ln in str(text).splitlines() or [""]:
            self._line(f"# {ln}".rstrip())

    def result(self, ok, name, skip=None, comment=None):
        """ok: True, False, or None with skip= (a skipped test is "ok ... #
        SKIP reason"). comment goes after the name as "# comment"."""
        self.n += 1
        if skip is not None:
            self.counts["skip"] += 1
            tail = f" # SKIP {skip}".rstrip()
            ok = True
        else:
            self.counts["pass" if ok else "fail"] += 1
            tail = f" # {comment}" if comment else ""
        # "#" starts the directive: a name that holds one (a console
        # line "CPU#0", a quoted "# comment") would end there.
        name = " ".join(str(name).replace("#", "").split())
        self._line(f"{'ok' if ok else 'not ok'} {self.n} {name}{tail}")
        return bool(ok)

    def check(self, ok, name, diag=()):
        """A result whose diagnostic lines DIAG (a list of strings, or a
        string) are printed before it, as "# " lines, only when it
        failed. Returns bool(ok)."""
        if not ok:
            for d in [diag] if isinstance(diag, str) else diag:
                self.diag(d)
        return self.result(bool(ok), name)

    def subtest(self, name=None):
        """A nested writer one level deeper; close it with a result line of
        this writer."""
        if name:
            self._line(f"# Subtest: {name}")
        return Writer(self.out, self.level + 1)

    @property
    def passed(self):
        return self.counts["fail"] == 0

    def totals(self):
        c = self.counts
        self._line(f"# Totals: pass:{c['pass']} fail:{c['fail']} skip:{c['skip']}")


def parse(text):
    """The top-level results of KTAP TEXT: [(ok, number, name, directive)].
    Nested (indented) lines and unknown lines are skipped."""
    import re
    res = []
    for ln in text.splitlines():
        m = re.match(r"^(ok|not ok) (\d+)\s*(.*?)(?:\s+#\s*(.*))?$", ln)
        if m:
            res.append((m.group(1) == "ok", int(m.group(2)), m.group(3), m.group(4) or ""))
    return res
