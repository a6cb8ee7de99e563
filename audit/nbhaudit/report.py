# SPDX-License-Identifier: GPL-2.0
"""Text (coccicheck style), org and HTML renderings of the JSON report."""

import collections
import os
import subprocess

VERDICTS = ("needs-lock", "converted", "safe", "not-bh", "unknown")
LEVEL = {"needs-lock": "WARNING", "unknown": "INFO"}


def summary(findings):
    per = collections.defaultdict(collections.Counter)
    total = collections.Counter()
    for f in findings:
        per[f["subsystem"]][f["verdict"]] += 1
        total[f["verdict"]] += 1
    return {"total": dict(total),
            "per_subsystem": {k: dict(v) for k, v in sorted(per.items())}}


def _ctx(a):
    ev = a.get("evidence", {})
    if a["context"] == "bh-disabled":
        return "under %s at %s" % (ev.get("section"), ev.get("at"))
    if a["context"] == "softirq":
        p = ev.get("path", [])
        if p:
            return "softirq: %s" % " -> ".join(x["function"] + "()" for x in p) + \
                   " [%s]" % p[0].get("entry", {}).get("reason", "")
    return "%s: %s" % (a["context"], ev.get("note", ""))


def text(doc, f):
    f.write("# nbh-audit %s on %s (%s)\n" % (doc["tree_version"], " ".join(doc["paths"]),
                                             doc["config"]))
    for u in doc["unparsed"]:
        f.write("%s:%d:0-0: INFO: spatch could not parse %s: %s\n" % (
            u["file"], u["line"], (u["function"] + "()") if u["function"] else "the file",
            u["reason"]))
    for d in doc["findings"]:
        level = LEVEL.get(d["verdict"])
        if not level:
            continue
        f.write("%s:%d:0-0: %s: per-CPU %s is %s: %s\n" % (
            d["file"], d["line"], level, d["datum"], d["verdict"], d["reason"]))
        for a in d["accesses"]:
            if a["context"] in ("remote", "init"):
                continue
            prot = a.get("protection", "none")
            f.write("%s:%d:%d-%d: %s: access in %s(), %s; protection: %s%s\n" % (
                a["file"], a["line"], a.get("col", 0), a.get("col", 0) + 1, level,
                a["function"], _ctx(a), prot,
                (" (%s)" % a["protection_detail"]) if a.get("protection_detail") else ""))
    t = doc["summary"]["total"]
    f.write("# totals: %s\n" % ", ".join("%s %d" % (v, t.get(v, 0)) for v in VERDICTS))


def org(doc, f):
    f.write("* nbh-audit %s %s\n" % (doc["tree_version"], " ".join(doc["paths"])))
    for d in doc["findings"]:
        f.write("** %s %s\n" % (d["verdict"].upper(), d["datum"]))
        f.write("[[view:%s::face=ovl-face1::linb=%d::colb=0::cole=1][%s %s:%d]]\n" % (
            d["file"], d["line"], d["reason"], d["file"], d["line"]))
        for a in d["accesses"]:
            f.write("*** [[view:%s::face=ovl-face2::linb=%d::colb=0::cole=1][%s() %s:%d %s, %s]]\n" % (
                a["file"], a["line"], a["function"], a["file"], a["line"],
                a["context"], a.get("protection", "")))


def _dot_svg(d):
    """Call paths from the softirq entry points to the accesses as SVG."""
    edges, nodes = set(), {}
    for a in d["accesses"]:
        if a["context"] == "softirq":
            p = a["evidence"].get("path", [])
            for i, x in enumerate(p):
                nodes[x["function"]] = "entry" if i == 0 else "fn"
                if i:
                    edges.add((p[i - 1]["function"], x["function"]))
        elif a["context"] == "bh-disabled":
            sec = a["evidence"]["section"]
            nodes[sec] = "section"
            nodes[a["function"]] = nodes.get(a["function"], "fn")
            edges.add((sec, a["function"]))
    if not edges:
        return ""
    lines = ["digraph g {", "rankdir=LR;", "node [shape=box,fontsize=10];"]
    for n, k in sorted(nodes.items()):
        style = {"entry": "style=filled,fillcolor=\"#ffd0d0\"",
                 "section": "style=filled,fillcolor=\"#d0d0ff\""}.get(k, "")
        lines.append('"%s" [%s];' % (n, style))
    for a, b in sorted(edges)[:60]:
        lines.append('"%s" -> "%s";' % (a, b))
    lines.append("}")
    try:
        proc = subprocess.run(["dot", "-Tsvg"], input="\n".join(lines),
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              universal_newlines=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    svg = proc.stdout
    i = svg.find("<svg")
    return svg[i:] if i >= 0 else ""


class Source:
    def __init__(self, tree):
        self.tree = tree
        self.cache = {}

    def line(self, rel, no):
        if rel not in self.cache:
            try:
                with open(os.path.join(self.tree, rel), errors="replace") as f:
                    self.cache[rel] = f.read().split("\n")
            except OSError:
                self.cache[rel] = []
        lines = self.cache[rel]
        return lines[no - 1].strip() if 0 < no <= len(lines) else ""


CSS = """body{font-family:sans-serif;margin:1em 2em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:2px 6px;font-size:90%}code{background:#f4f4f4}
.needs-lock{color:#b00;font-weight:bold}.converted{color:#060}.safe{color:#046}
.unknown{color:#a60}details{margin:.3em 0}pre{background:#f8f8f8;padding:4px;margin:2px 0}"""


def html(doc, tree, f):
    e = html_escape = __import__("html").escape
    src = Source(tree)
    w = f.write
    w("<!DOCTYPE html><html><head><meta charset='utf-8'><title>nbh-audit %s</title>"
      "<style>%s</style></head><body>\n" % (e(doc["tree_version"]), CSS))
    w("<h1>nbh-audit: per-CPU data relying on disabled BH</h1>\n")
    w("<p>Linux %s, paths %s, %d files. %s.</p>\n" % (
        e(doc["tree_version"]), e(" ".join(doc["paths"])), doc["files"], e(doc["config"])))
    w("<h2>Verdicts per subsystem</h2><table><tr><th>subsystem</th>%s</tr>\n" %
      "".join("<th>%s</th>" % v for v in VERDICTS))
    for sub, c in doc["summary"]["per_subsystem"].items():
        w("<tr><td>%s</td>%s</tr>\n" % (e(sub), "".join("<td>%d</td>" % c.get(v, 0) for v in VERDICTS)))
    t = doc["summary"]["total"]
    w("<tr><th>total</th>%s</tr></table>\n" % "".join("<th>%d</th>" % t.get(v, 0) for v in VERDICTS))
    if doc["unparsed"]:
        w("<h2>Not parsed by spatch (audited lexically)</h2><ul>\n")
        for u in doc["unparsed"]:
            w("<li><code>%s:%d</code> %s(): %s</li>\n" % (e(u["file"]), u["line"],
                                                          e(u["function"]), e(u["reason"])))
        w("</ul>\n")
    order = {v: i for i, v in enumerate(VERDICTS)}
    w("<h2>Datums</h2>\n")
    for d in sorted(doc["findings"], key=lambda d: (order[d["verdict"]], d["datum"])):
        w("<details%s><summary><span class='%s'>%s</span> <code>%s</code> (%s)</summary>\n" % (
            " open" if d["verdict"] == "needs-lock" else "", d["verdict"], d["verdict"],
            e(d["datum"]), e(d["subsystem"])))
        w("<p>%s</p>" % e(d["reason"]))
        if d.get("config"):
            w("<p><i>%s</i></p>" % e(d["config"]))
        w("<p>Defined at <code>%s:%d</code> as <code>%s</code>:</p><pre>%s</pre>\n" % (
            e(d["file"]), d["line"], e(d["type"]), e(src.line(d["file"], d["line"]))))
        if d["accesses"]:
            w("<table><tr><th>where</th><th>function</th><th>context</th><th>protection</th><th>source</th></tr>\n")
            for a in d["accesses"]:
                w("<tr><td><code>%s:%d</code></td><td>%s()</td><td>%s</td><td>%s</td><td><code>%s</code></td></tr>\n" % (
                    e(a["file"]), a["line"], e(a["function"]), e(_ctx(a)),
                    e(a.get("protection", "") + (": " + a["protection_detail"] if a.get("protection_detail") else "")),
                    e(src.line(a["file"], a["line"]))))
            w("</table>\n")
        if d["verdict"] in ("needs-lock", "converted"):
            svg = _dot_svg(d)
            if svg:
                w("<div>%s</div>\n" % svg)
        w("</details>\n")
    w("</body></html>\n")
    del html_escape
