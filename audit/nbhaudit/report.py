# SPDX-License-Identifier: GPL-2.0
"""Text (coccicheck style), org and HTML renderings of the JSON report."""

import collections
import html as _html
import json
import os
import re
import subprocess

VERDICTS = ("needs-lock", "converted", "safe", "preempt-only", "not-bh", "unknown")
LEVEL = {"needs-lock": "WARNING", "unknown": "INFO", "not-bh": "INFO"}


def summary(findings):
    per = collections.defaultdict(collections.Counter)
    total = collections.Counter()
    for f in findings:
        per[f["subsystem"]][f["verdict"]] += 1
        total[f["verdict"]] += 1
    return {"total": dict(total),
            "per_subsystem": {k: dict(v) for k, v in sorted(per.items())}}


def root_chain(chain):
    """One root chain as a line: the root's reason, then the calls."""
    return "[%s] %s" % (chain[0].get("root", {}).get("reason", "?"),
                        " -> ".join(x["function"] + "()" for x in chain))


def _ctx(a):
    ev = a.get("evidence", {})
    if a["context"] in ("init", "remote") and ev.get("roots"):
        return "%s: %s; its function runs in process context (%d root chain%s, e.g. %s)" % (
            a["context"], ev.get("note", ""), ev["n_roots"], "" if ev["n_roots"] == 1 else "s",
            root_chain(ev["roots"][0]))
    if a["context"] == "bh-disabled":
        return "under %s at %s" % (ev.get("section"), ev.get("at"))
    if a["context"] == "softirq":
        p = ev.get("path", [])
        if p:
            return "softirq: %s" % " -> ".join(x["function"] + "()" for x in p) + \
                   " [%s]" % p[0].get("entry", {}).get("reason", "")
    return "%s: %s" % (a["context"], ev.get("note", ""))


_VIA = re.compile(r"^(.*)\(\) passes it at (\S+)$")


def merged(accesses):
    """The accesses as the reports show them: accesses that differ only in
    the member, in the caller that passed the per-CPU pointer (via) or in
    the accessor it came from (this_cpu_ptr(), container_of()) are one
    row, with "members" and "callers" ([(function, "file:line")])."""
    rows = collections.OrderedDict()
    for a in accesses:
        key = json.dumps({k: v for k, v in a.items() if k not in ("via", "member", "accessor")},
                         sort_keys=True)
        r = rows.get(key)
        if r is None:
            r = rows[key] = dict(a, members=[], callers=[])
            r.pop("via", None)
            r.pop("member", None)
        m = ".".join(a.get("member") or [])
        if m and m not in r["members"]:
            r["members"].append(m)
        if a.get("via"):
            v = _VIA.match(a["via"])
            c = (v.group(1), v.group(2)) if v else (a["via"], "")
            if c not in r["callers"]:
                r["callers"].append(c)
    return list(rows.values())


def _callers(r):
    return ", ".join("%s() at %s" % c if c[1] else c[0] for c in r["callers"])


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
        for a in merged(d["accesses"]):
            if a["context"] in ("remote", "init") and d["verdict"] != "not-bh":
                continue
            prot = a.get("protection", "none")
            f.write("%s:%d:%d-%d: %s: access in %s()%s, %s; protection: %s%s%s\n" % (
                a["file"], a["line"], a.get("col", 0), a.get("col", 0) + 1, level,
                a["function"], (" to " + ", ".join(a["members"])) if a["members"] else "",
                _ctx(a), prot,
                (" (%s)" % a["protection_detail"]) if a.get("protection_detail") else "",
                ("; pointer passed by " + _callers(a)) if a["callers"] else ""))
    for o in doc.get("owners", ()):
        sets, secs = o["sets"], o["sections"]
        for c in o["compares"]:
            f.write("%s:%d:0-0: %s: CPU-keyed owner marker %s compared with the current CPU "
                    "in %s(), %s; set in %s() at %s:%d%s, set and released in %s()%s\n" % (
                        c["file"], c["line"], OWNER_LEVEL.get(c["context"], "INFO"), o["marker"],
                        c["function"], _owner_ctx(c), sets[0]["function"], sets[0]["file"], sets[0]["line"],
                        _more(sets), secs[0]["function"], _more(secs)))
    t = doc["summary"]["total"]
    f.write("# owner markers: %d\n" % len(doc.get("owners", ())))
    tops = per_top(doc)
    if len(tops) > 1:
        width = max(len(k) for k in tops)
        f.write("# per top-level directory: %-*s %s\n" % (width, "", " ".join(VERDICTS)))
        for k, c in tops.items():
            f.write("# per top-level directory: %-*s %s\n" % (width, k, " ".join(
                "%*d" % (len(v), c.get(v, 0)) for v in VERDICTS)))
    f.write("# totals: %s\n" % ", ".join("%s %d" % (v, t.get(v, 0)) for v in VERDICTS))


def top_level(sub):
    """The top-level directory of a subsystem (arch/x86 for arch/)."""
    parts = sub.split("/")
    return "/".join(parts[:2]) if parts[0] == "arch" and len(parts) > 1 else parts[0]


def per_top(doc):
    """{top-level directory: {verdict: n}} from the per-subsystem summary."""
    tops = collections.OrderedDict()
    for sub, c in doc["summary"]["per_subsystem"].items():
        acc = tops.setdefault(top_level(sub), collections.Counter())
        acc.update(c)
    return tops


# An owner marker compared in BH context relies on the softirq lock (see
# owners.py); elsewhere the context is given for the reader.
OWNER_LEVEL = {"bh-disabled": "WARNING", "softirq": "WARNING"}


def _owner_ctx(c):
    """The context of a comparison, what it rests on, IRQs off."""
    return "%s%s%s" % (c["context"], ": " + c["evidence"] if c["evidence"] else "",
                       "; IRQs off: " + c["irqs_off"] if c["irqs_off"] else "")


def _owner_sites(o):
    """(what, site) of a marker: its sets, its resets, its comparisons."""
    for kind, sites in (("set", o["sets"]), ("reset to -1", o["resets"]),
                        ("compared", o["compares"])):
        for a in sites:
            yield kind, a


def _more(sites):
    return " (and %d more)" % (len(sites) - 1) if len(sites) > 1 else ""


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
    for o in doc.get("owners", ()):
        f.write("** OWNER %s\n%s\n" % (o["marker"], o["reason"]))
        for kind, a in _owner_sites(o):
            f.write("*** [[view:%s::face=ovl-face2::linb=%d::colb=0::cole=1][%s in %s() %s:%d%s]]\n"
                    % (a["file"], a["line"], kind, a["function"], a["file"], a["line"],
                       " " + _owner_ctx(a) if "context" in a else ""))


# Protection of an access: colour class and meaning, worst first.
PROTECTIONS = (
    ("none", "p-bad", "nothing but disabled BH"),
    ("preempt-only", "p-bad", "preempt_disable() only (exposed with a lock that sleeps on "
     "PREEMPT_RT inside the section)"),
    ("nested-bh", "p-ok", "local_lock_nested_bh() on the datum"),
    ("local-lock", "p-ok", "local_lock() on the datum"),
    ("lock", "p-ok", "a lock of the datum"),
    ("irq-disabled", "p-irq", "interrupts disabled"),
    ("irq-safe-op", "p-irq", "one IRQ-safe operation (this_cpu_inc(), u64_stats_inc(), atomics)"),
    ("cmpxchg", "p-irq", "the slot is updated with cmpxchg()/xchg()"),
    ("read-only", "p-ok", "one load of a slot, never written there"),
    ("address-only", "p-ok", "the address is handed to code that protects it"),
    ("peek", "p-ok", "a test read again under protection"),
)
PROT_CLASS = {p: c for p, c, _ in PROTECTIONS}
# Graph colours: softirq entry point, BH-disabled section, and the border
# of a function accessing the datum by its worst protection.
GRAPH_FILL = {"entry": "#ffd0d0", "section": "#d0d0ff"}
GRAPH_BORDER = {"p-bad": "#c00000", "p-ok": "#008000", "p-irq": "#0050c0"}


def _worst(prots):
    order = [p for p, _, _ in PROTECTIONS]
    known = [p for p in prots if p in order]
    return min(known, key=order.index) if known else None


def _dot_svg(d, prefix="g"):
    """Call paths from the softirq entry points to the accesses as SVG;
    the ids graphviz gives its elements get prefix, unique in the page."""
    edges, nodes, prots = set(), {}, collections.defaultdict(set)
    for a in d["accesses"]:
        if a["context"] == "softirq":
            p = a["evidence"].get("path", [])
            for i, x in enumerate(p):
                if nodes.get(x["function"]) != "entry":
                    nodes[x["function"]] = "entry" if i == 0 else "fn"
                if i:
                    edges.add((p[i - 1]["function"], x["function"]))
        elif a["context"] == "bh-disabled":
            sec = a["evidence"]["section"]
            nodes[sec] = "section"
            nodes[a["function"]] = nodes.get(a["function"], "fn")
            edges.add((sec, a["function"]))
        else:
            continue
        prots[a["function"]].add(a.get("protection"))
    if not edges:
        return ""
    lines = ["digraph g {", "rankdir=LR;", "node [shape=box,fontsize=10];"]
    for n, k in sorted(nodes.items()):
        attrs = []
        if k in GRAPH_FILL:
            attrs.append('style=filled,fillcolor="%s"' % GRAPH_FILL[k])
        worst = _worst(prots.get(n, ()))
        if worst:
            attrs.append('color="%s",penwidth=2.5' % GRAPH_BORDER[PROT_CLASS[worst]])
        lines.append('"%s" [%s];' % (n, ",".join(attrs)))
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
    return re.sub(r'\bid="', 'id="%s-' % prefix, svg[i:]) if i >= 0 else ""


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


CSS = """body{font-family:sans-serif;margin:1em 2em;line-height:1.35}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;font-size:90%;vertical-align:top}
code{background:#f4f4f4}table.acc{width:100%}td.src{max-width:24em}
td.src code{white-space:pre-wrap;overflow-wrap:anywhere}td.where{white-space:nowrap}pre{background:#f8f8f8;padding:4px;margin:2px 0;white-space:pre-wrap}
.needs-lock{color:#b00;font-weight:bold}.converted{color:#060}.safe{color:#046}
.not-bh{color:#555}.unknown{color:#a60}.preempt-only{color:#640}
nav#toc{background:#f6f6f6;border:1px solid #ddd;padding:.5em 1em;margin:1em 0}
nav#toc ul{margin:.2em 0;padding-left:1.2em}nav#toc li{margin:.15em 0}
nav#toc a{text-decoration:none}nav#toc .counts{color:#555;font-size:90%}
details{margin:.4em 0;border-top:1px solid #ddd;padding-top:.3em}summary{cursor:pointer}
.datum{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start;margin:.4em 0}
.info{flex:1 1 28em;min-width:20em}.graph{flex:1 1 30em;overflow:auto;max-height:32em;
border:1px solid #eee}.graph svg{max-width:100%;height:auto}
.p-bad{background:#f9d4d4}.p-ok{background:#d4f0d4}.p-irq{background:#d6e6fa}
.quiet td{color:#777}.swatch{display:inline-block;width:1.6em;height:.9em;border:1px solid #999;
vertical-align:middle;margin-right:.3em}
.legend td{border:none;padding:1px 8px 1px 0}:target{outline:2px solid #fc0}"""


def _anchor(prefix, name, used):
    base = prefix + re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")
    a, n = base, 1
    while a in used:
        n += 1
        a = "%s-%d" % (base, n)
    used.add(a)
    return a


def _legend(w):
    w("<h2 id='legend'>Legend</h2><table class='legend'>\n")
    w("<tr><td colspan='2'><b>Verdicts</b> (for CONFIG_PREEMPT_RT=y)</td></tr>\n")
    for v, what in (("needs-lock", "an access in BH context is protected by nothing but disabled BH "
                     "(or preempt_disable() around a lock that sleeps on PREEMPT_RT): it needs "
                     "its own nested-BH lock"),
                    ("converted", "BH accesses hold local_lock_nested_bh(), or the datum is "
                     "not per-CPU on PREEMPT_RT"),
                    ("safe", "every BH access is IRQ-safe, under IRQs off or under a lock of the datum"),
                    ("preempt-only", "BH accesses rely on preempt_disable() or get_cpu*(), "
                     "which excludes softirq processing on PREEMPT_RT too"),
                    ("not-bh", "every chain of callers to an access starts in process context"),
                    ("unknown", "the evidence is incomplete (see the reason)")):
        w("<tr><td class='%s'>%s</td><td>%s</td></tr>\n" % (v, v, _html.escape(what)))
    w("<tr><td colspan='2'><b>Protection of an access</b> (table cells, graph borders)</td></tr>\n")
    for p, c, what in PROTECTIONS:
        w("<tr><td><span class='swatch %s'></span>%s</td><td>%s</td></tr>\n" % (
            c, p, _html.escape(what)))
    w("<tr><td><span class='swatch' style='background:#fff'></span><i>grey row</i></td>"
      "<td>init or another CPU's copy (per_cpu(x, cpu)): not judged</td></tr>\n")
    w("<tr><td colspan='2'><b>Graphs</b>: how BH context reaches the accesses</td></tr>\n")
    w("<tr><td><span class='swatch' style='background:%s'></span>entry</td>"
      "<td>a softirq entry point (NAPI poll, timer, protocol handler, ...)</td></tr>\n"
      % GRAPH_FILL["entry"])
    w("<tr><td><span class='swatch' style='background:%s'></span>section</td>"
      "<td>a BH-disabled section (local_bh_disable(), spin_lock_bh(), ...)</td></tr>\n"
      % GRAPH_FILL["section"])
    w("<tr><td><span class='swatch'></span>box</td><td>a function on the path; an arrow "
      "is a call (or a section covering the call)</td></tr>\n")
    w("<tr><td><span class='swatch' style='border:2px solid %s'></span>border</td>"
      "<td>the function accesses the datum; red: unprotected, green: locked, blue: "
      "IRQ-safe (its worst access)</td></tr>\n" % GRAPH_BORDER["p-bad"])
    w("</table>\n")


def html(doc, tree, f):
    e = _html.escape
    src = Source(tree)
    w = f.write
    order = {v: i for i, v in enumerate(VERDICTS)}
    used = set()
    subs = collections.OrderedDict((s, []) for s in doc["summary"]["per_subsystem"])
    for d in sorted(doc["findings"], key=lambda d: (order[d["verdict"]], d["datum"])):
        subs.setdefault(d["subsystem"], []).append(d)
    sub_id = {s: _anchor("s-", s, used) for s in subs}
    datum_id = {id(d): _anchor("d-", d["datum"], used) for ds in subs.values() for d in ds}
    counts = lambda c: ", ".join("%s %d" % (v, c[v]) for v in VERDICTS if c.get(v))  # noqa: E731

    w("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>nbh-audit %s</title>"
      "<style>%s</style></head><body>\n" % (e(doc["tree_version"]), CSS))
    w("<h1 id='top'>nbh-audit: per-CPU data relying on disabled BH</h1>\n")
    w("<p>Linux %s, paths %s, %d files. %s.</p>\n" % (
        e(doc["tree_version"]), e(" ".join(doc["paths"])), doc["files"], e(doc["config"])))

    w("<nav id='toc'><b>Contents</b><ul>\n"
      "<li><a href='#summary'>Verdicts per subsystem</a></li>\n"
      "<li><a href='#legend'>Legend</a></li>\n")
    if doc["unparsed"]:
        w("<li><a href='#unparsed'>Not parsed by spatch</a> (%d)</li>\n" % len(doc["unparsed"]))
    owners = doc.get("owners", [])
    owner_id = [_anchor("o-", o["marker"], used) for o in owners]
    if owners:
        w("<li><a href='#owners'>CPU-keyed owner markers</a>: %s</li>\n" % ", ".join(
            "<a href='#%s'>%s</a>" % (a, e(o["marker"])) for o, a in zip(owners, owner_id)))
    w("<li><a href='#datums'>Datums by subsystem</a><ul>\n")
    for s, ds in subs.items():
        w("<li><a href='#%s'>%s</a> <span class='counts'>(%s)</span>: %s</li>\n" % (
            sub_id[s], e(s), counts(doc["summary"]["per_subsystem"].get(s, {})),
            ", ".join("<a class='%s' title='%s' href='#%s'>%s</a>" % (
                d["verdict"], d["verdict"], datum_id[id(d)], e(d["datum"])) for d in ds)))
    w("</ul></li></ul></nav>\n")

    w("<h2 id='summary'>Verdicts per subsystem</h2><table><tr><th>subsystem</th>%s</tr>\n" %
      "".join("<th class='%s'>%s</th>" % (v, v) for v in VERDICTS))
    for s, c in doc["summary"]["per_subsystem"].items():
        w("<tr><td><a href='#%s'>%s</a></td>%s</tr>\n" % (
            sub_id[s], e(s), "".join("<td>%d</td>" % c.get(v, 0) for v in VERDICTS)))
    t = doc["summary"]["total"]
    w("<tr><th>total</th>%s</tr></table>\n" % "".join("<th>%d</th>" % t.get(v, 0) for v in VERDICTS))
    _legend(w)
    if doc["unparsed"]:
        w("<h2 id='unparsed'>Not parsed by spatch (audited lexically)</h2><ul>\n")
        for u in doc["unparsed"]:
            w("<li><code>%s:%d</code> %s: %s</li>\n" % (
                e(u["file"]), u["line"], e(u["function"] + "()") if u["function"] else "the file",
                e(u["reason"])))
        w("</ul>\n")

    if owners:
        _html_owners(w, e, src, owners, owner_id)
    w("<h2 id='datums'>Datums by subsystem</h2>\n")
    for s, ds in subs.items():
        w("<section id='%s'><h3>%s <span class='counts'>%s</span></h3>\n" % (
            sub_id[s], e(s), counts(doc["summary"]["per_subsystem"].get(s, {}))))
        for d in ds:
            _html_datum(w, e, src, d, datum_id[id(d)], sub_id[s])
        w("</section>\n")
    w("<p><a href='#top'>top</a></p></body></html>\n")


def _html_datum(w, e, src, d, anchor, sub_anchor):
    rows = merged(d["accesses"])
    w("<details id='%s'%s><summary><span class='%s'>%s</span> <code>%s</code> (%s, %d access%s)"
      "</summary>\n" % (anchor, " open" if d["verdict"] == "needs-lock" else "", d["verdict"],
                        d["verdict"], e(d["datum"]), e(d["subsystem"]), len(rows),
                        "" if len(rows) == 1 else "es"))
    w("<div class='datum'><div class='info'>")
    w("<p>%s</p>" % e(d["reason"]))
    if d.get("config"):
        w("<p><i>%s</i></p>" % e(d["config"]))
    w("<p>Defined at <code>%s:%d</code> as <code>%s</code>:</p><pre>%s</pre>\n" % (
        e(d["file"]), d["line"], e(d["type"]), e(src.line(d["file"], d["line"]))))
    live = collections.Counter((a["context"], a.get("protection", "none")) for a in rows
                               if a["context"] not in ("remote", "init"))
    if live:
        w("<p>Accesses by context and protection: %s.</p>" % ", ".join(
            "<span class='%s'>%s %s</span> %d" % (PROT_CLASS.get(p, ""), e(c), e(p), n)
            for (c, p), n in sorted(live.items())))
    w("<p><a href='#%s'>%s</a> &middot; <a href='#toc'>contents</a></p>" % (
        sub_anchor, e(d["subsystem"])))
    w("</div>")
    svg = _dot_svg(d, anchor + "-g") if d["verdict"] in ("needs-lock", "converted") else ""
    if svg:
        w("<div class='graph'>%s</div>" % svg)
    w("</div>\n")
    if rows:
        w("<table class='acc'><tr><th>where</th><th>function</th><th>members</th><th>context</th>"
          "<th>protection</th><th>pointer passed by</th><th>source</th></tr>\n")
        for a in rows:
            quiet = a["context"] in ("remote", "init")
            prot = a.get("protection", "")
            w("<tr%s><td class='where'><code>%s:%d</code></td><td>%s()</td><td>%s</td><td>%s</td>"
              "<td class='%s'>%s</td><td>%s</td><td class='src'><code>%s</code></td></tr>\n" % (
                  " class='quiet'" if quiet else "", e(a["file"]), a["line"], e(a["function"]),
                  e(", ".join(a["members"])), e(_ctx(a)),
                  "" if quiet else PROT_CLASS.get(prot, ""),
                  e(prot + (": " + a["protection_detail"] if a.get("protection_detail") else "")),
                  "<br>".join(e("%s() at %s" % c if c[1] else c[0]) for c in a["callers"]),
                  e(src.line(a["file"], a["line"]))))
        w("</table>\n")
    w("</details>\n")


def _html_owners(w, e, src, owners, anchors):
    w("<h2 id='owners'>CPU-keyed owner markers</h2>\n<p>A member or variable set to the "
      "current CPU number inside a section, reset to -1 at its end, and compared with the "
      "current CPU number to ask &ldquo;am I inside?&rdquo;: with BH disabled nobody else on "
      "the CPU can be inside; without the softirq lock a task preempted inside leaves its "
      "CPU in the marker.</p>\n")
    for o, anchor in zip(owners, anchors):
        w("<details id='%s' open><summary><code>%s</code> (%s)</summary>\n" % (
            anchor, e(o["marker"]), e(o["reason"])))
        w("<p>Set and released in %s. <a href='#toc'>contents</a></p>\n" % ", ".join(
            "<code>%s()</code>" % e(x["function"]) for x in o["sections"]))
        w("<table class='acc'><tr><th>where</th><th>function</th><th>what</th><th>context</th>"
          "<th>source</th></tr>\n")
        for kind, a in _owner_sites(o):
            what = kind + (": " + a["value"] if kind == "set" else "") + (
                " (caller: %s)" % ", ".join(a["via"]) if a.get("via") else "")
            ctx = _owner_ctx(a) if "context" in a else ""
            cls = " class='p-bad'" if OWNER_LEVEL.get(a.get("context")) else ""
            w("<tr><td class='where'><code>%s:%d</code></td><td>%s()</td><td>%s</td>"
              "<td%s>%s</td><td class='src'><code>%s</code></td></tr>\n" % (
                  e(a["file"]), a["line"], e(a["function"]), e(what), cls, e(ctx),
                  e(src.line(a["file"], a["line"]))))
        w("</table></details>\n")
