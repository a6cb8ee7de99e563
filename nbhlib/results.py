# SPDX-License-Identifier: GPL-2.0
"""Results files: what a named target measured, and on what.

A target that produces figures for the README ends by handing its own
output to scripts/record-results, which keeps the figures and what they
were measured on in results/NAME.json:

  {"schema": 1, "name": NAME, "target": "make bench-latency",
   "date": "2026-12-07T13:10:00Z", "wall_s": 3120,
   "repository": {"commit": SHA, "dirty": false},
   "trees": {"6.1": "6.1.192", ...}, "inputs": {...}, "figures": {...}}

"inputs" says what the figures are of (series, kernels, settings) and
"figures" holds the numbers, both taken from the target's output by the
kind's extract(). render() turns a record into the Markdown block that
the README quotes between

  <!-- results NAME -->
  ...
  <!-- end results NAME -->

and scripts/readme-figures fails when a block differs from what its
results file renders: the README can only say what a run measured.
This module is the one reader and writer of results files.
"""
import datetime
import json
import os
import re

from . import paths, proc

SCHEMA = 1
DIR = os.path.join(paths.REPO, "results")
NAME = re.compile(r"[a-z0-9][a-z0-9.-]*\Z")


def path(name, directory=DIR):
    if not NAME.match(name):
        raise proc.BadInput(f"results name {name!r}: lowercase letters, digits, '.' and '-' only")
    return os.path.join(directory, name + ".json")


def repository():
    """The commit the toolkit ran at, and whether files other than the
    results files differed from it."""
    head = proc.git(["rev-parse", "HEAD"], repo=paths.REPO, check=False)
    status = proc.git(["status", "--porcelain", "--untracked-files=no", "--", ".",
                       ":(exclude)results"], repo=paths.REPO, check=False)
    return {"commit": head.out.strip() if head.rc == 0 else "unknown",
            "dirty": bool(status.out.strip()) if status.rc == 0 else True}


def tree_versions():
    """The pristine version of every kernel tree of the work directory."""
    found = {}
    for t in paths.TREES:
        try:
            with open(os.path.join(paths.tree_dir(t), ".git", "nbh-pristine-version")) as f:
                found[t] = f.read().strip()
        except OSError:
            pass
    return found


def describe(repo=None):
    """repository() as one word, COMMIT or COMMIT+dirty: what a target
    takes when it starts, for record(..., repo=parse(word))."""
    repo = repo or repository()
    return repo["commit"] + ("+dirty" if repo["dirty"] else "")


def parse(word):
    commit, _, dirty = word.partition("+")
    if not re.fullmatch(r"[0-9a-f]{40}|unknown", commit) or dirty not in ("", "dirty"):
        raise proc.BadInput(f"{word!r}: not COMMIT or COMMIT+dirty")
    return {"commit": commit, "dirty": bool(dirty)}


def record(name, target, inputs, figures, started=None, now=None, repo=None):
    """A results record; STARTED (seconds since the epoch) gives wall_s,
    REPO (parse()) the toolkit's state when the target started (default:
    now)."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    rec = {"schema": SCHEMA, "name": name, "target": target,
           "date": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
           "wall_s": round(now.timestamp() - started) if started else None,
           "repository": repo or repository(), "trees": tree_versions(),
           "inputs": inputs, "figures": figures}
    return rec


def write(rec, directory=DIR):
    os.makedirs(directory, exist_ok=True)
    proc.write_atomic(path(rec["name"], directory), json.dumps(rec, indent=1, sort_keys=True) + "\n")


def read(name, directory=DIR):
    """The record of NAME; BadInput naming the problem if it is missing
    or not a results record of this schema."""
    p = path(name, directory)
    try:
        with open(p) as f:
            rec = json.load(f)
    except OSError as e:
        raise proc.BadInput(f"{p}: {e.strerror}")
    except ValueError as e:
        raise proc.BadInput(f"{p}: not JSON ({e})")
    if not isinstance(rec, dict) or rec.get("schema") != SCHEMA or rec.get("name") != name:
        raise proc.BadInput(f"{p}: not a schema-{SCHEMA} results record named {name}")
    for key in ("target", "date", "repository", "inputs", "figures"):
        if key not in rec:
            raise proc.BadInput(f"{p}: no {key!r}")
    return rec


def provenance(rec):
    """The line under every block: when, by which command, at which commit."""
    repo = rec["repository"]
    commit = repo["commit"][:12] + (" with local changes" if repo.get("dirty") else "")
    trees = ", ".join(f"{k} {v}" for k, v in rec.get("trees", {}).items()) or "none recorded"
    wall = f", {rec['wall_s']} s wall" if rec.get("wall_s") else ""
    return (f"`{rec['target']}`, {rec['date']}{wall}, toolkit {commit}, "
            f"trees {trees}; results/{rec['name']}.json")


# --- kinds: extract(tool output) -> (inputs, figures); render(record) -> lines

def _us(ns):
    return round(ns / 1e3, 1)


def bench_latency_extract(data):
    """run-bench-latency's bench-latency.json."""
    try:
        kernels = data["kernels"]
        inputs = {k: data[k] for k in ("series", "variant", "rounds", "count", "period_us",
                                       "ports", "rules", "filters")}
        inputs["kernels"] = list(kernels)
        if "images" in data:
            inputs["images"] = data["images"]
        figures = {}
        for label, kd in kernels.items():
            per = {}
            for kind, s in kd["summary"].items():
                per[kind] = {f: _us(s[f]) for f in ("median", "p99", "max")}
                per[kind]["boots_max"] = [_us(b["max"]) for b in kd["boots"][kind]]
                per[kind]["boots_p99"] = [_us(b["p99"]) for b in kd["boots"][kind]]
                if kind == "response":
                    per[kind]["missed"] = [b.get("missed", 0) for b in kd["boots"][kind]]
            figures[label] = per
    except (KeyError, TypeError) as e:
        raise proc.BadInput(f"not run-bench-latency output: no {e}")
    return inputs, figures


LATENCY_ROWS = (("response", "response: from the deadline to the end of the send"),
                ("wakeup", "wake-up: how late against the deadline slept until"),
                ("op", "the send alone"),
                ("cyclictest", "cyclictest under the same load"),
                ("load-section", "one section of the load, measured alone"))


def _ratio(a, b):
    return f"{a / b:.2f}x" if b else "-"


def bench_latency_render(rec):
    i, fig = rec["inputs"], rec["figures"]
    before, after = i["kernels"]
    lines = [f"{i['rounds']} boots per kernel, {i['count']} sends one every {i['period_us']} us, "
             f"load: a bridge flooding to {i['ports']} ports, {i['rules']} nftables rules and "
             f"{i['filters']} tc filters per copy; microseconds, `{before}` / `{after}` "
             f"(ratio {before} over {after}):", "",
             "| figure | median | p99 | maximum | p99 boot by boot | maximum boot by boot |",
             "|---|---|---|---|---|---|"]

    def boots(key):
        return " / ".join(", ".join(f"{x:.0f}" for x in fig[k][kind][key])
                          for k in (before, after))
    for kind, title in LATENCY_ROWS:
        a, b = fig[before][kind], fig[after][kind]
        cells = [f"{a[f]:g} / {b[f]:g} ({_ratio(a[f], b[f])})" for f in ("median", "p99", "max")]
        lines.append(f"| {title} | " + " | ".join(cells)
                     + f" | {boots('boots_p99')} | {boots('boots_max')} |")
    missed = {k: fig[k]["response"]["missed"] for k in (before, after)}
    lines += ["", "Deadlines skipped because an earlier send overran them, boot by boot: "
              + "; ".join(f"`{k}` " + ", ".join(map(str, m)) for k, m in missed.items()) + "."]
    return lines


def audit_extract(data):
    """nbh-audit's JSON report."""
    try:
        summary = data["summary"]
        inputs = {"tree_version": data["tree_version"], "config": data["config"],
                  "build_units": data["build"]["units"] if data.get("build") else None,
                  "directories": len(data["paths"]), "files": data["files"],
                  "spatch_files": data["spatch_files"]}
        top = {}
        for sub, counts in summary["per_subsystem"].items():
            d = sub.split("/")[0] if not sub.startswith("kernel/bpf") else "kernel/bpf"
            for verdict, n in counts.items():
                top.setdefault(d, {}).setdefault(verdict, 0)
                top[d][verdict] += n
        figures = {"total": summary["total"], "by_directory": top,
                   "findings": len(data["findings"])}
    except (KeyError, TypeError, AttributeError) as e:
        raise proc.BadInput(f"not nbh-audit output: no {e}")
    return inputs, figures


VERDICTS = ("needs-lock", "converted", "safe", "preempt-only", "not-bh", "unknown")


def audit_render(rec):
    i, fig = rec["inputs"], rec["figures"]
    units = f", {i['build_units']} compiled units" if i.get("build_units") else ""
    about = f"{i['about']}; " if i.get("about") else ""
    lines = [f"{about}Linux {i['tree_version']}, {i['directories']} directories, {i['files']} files"
             f"{units} ({i['spatch_files']} parsed by spatch); {i['config']}; "
             f"{fig['findings']} findings:", "",
             "| directory | " + " | ".join(VERDICTS) + " |",
             "|---|" + "---|" * len(VERDICTS)]
    rows = sorted(fig["by_directory"].items(),
                  key=lambda kv: (-kv[1].get("needs-lock", 0), kv[0]))
    for d, counts in rows + [("all", fig["total"])]:
        name = f"**{d}**" if d == "all" else f"`{d}`"
        lines.append(f"| {name} | " + " | ".join(str(counts.get(v, 0)) for v in VERDICTS) + " |")
    return lines


def boots_extract(data):
    """run-no-conversions' no-conversions.json: one boot per test."""
    try:
        inputs = {k: data[k] for k in ("title", "series", "stress", "append")}
        inputs["image"] = data.get("image")
        tests = [{"test": f["test"], "outcome": f["outcome"], "what": f["what"],
                  "broken": f["broken"]} for f in data["tests"]]
        expected = [{"line": " ".join(x for x in (e["test"], e["kind"], e["text"]) if x),
                     "seen": e["seen"]} for e in data["expected"]]
        figures = {"tests": tests, "broken": sum(t["broken"] for t in tests),
                   "expected": expected, "must_pass": data.get("must_pass", False)}
    except (KeyError, TypeError) as e:
        raise proc.BadInput(f"not run-no-conversions output: no {e}")
    return inputs, figures


def boots_render(rec):
    i, fig = rec["inputs"], rec["figures"]
    params = "".join(f", `{a}`" for a in i["append"])
    lines = [f"{i['title']} (`{i['series']}`), one boot per test, {i['stress']} s stress "
             f"phases{params}: {fig['broken']} of {len(fig['tests'])} tests failed, "
             "splatted or took the guest down"
             + ("; every test had to pass." if fig["must_pass"] else ".")]
    if fig["expected"]:
        seen = sum(e["seen"] for e in fig["expected"])
        lines[0] += (f" Expected breakages seen: {seen} of {len(fig['expected'])}"
                     + "".join(f"; MISSING `{e['line']}`" for e in fig["expected"]
                               if not e["seen"]) + ".")
    lines += ["", "| test | outcome | what it showed |", "|---|---|---|"]
    for t in fig["tests"]:
        what = t["what"].replace("|", "/")
        lines.append(f"| `{t['test']}` | {'**' + t['outcome'] + '**' if t['broken'] else t['outcome']}"
                     f" | {what} |")
    return lines


KINDS = {"bench-latency": (bench_latency_extract, bench_latency_render),
         "audit-rt-config": (audit_extract, audit_render),
         "no-conversions": (boots_extract, boots_render)}


def kind(name):
    """(extract, render) of a results name: its kind is the name, or the
    kind the name starts with followed by '.' or '-' (audit-rt-config.6.12
    and bench-latency-6.12 are an audit-rt-config and a bench-latency)."""
    for k in KINDS:
        if name == k or name.startswith((k + ".", k + "-")):
            return KINDS[k]
    raise proc.BadInput(f"no results kind for {name!r} (known: {', '.join(sorted(KINDS))})")


def render(rec):
    """The Markdown lines of a record, provenance last."""
    return kind(rec["name"])[1](rec) + ["", provenance(rec)]
