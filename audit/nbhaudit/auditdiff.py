# SPDX-License-Identifier: GPL-2.0
"""Differences between two nbh-audit JSON reports (an older tree and a
newer one, 6.1 and 6.12), per datum.

Categories, in the order they are decided:

  converted  needs-lock in the old report, converted in the new one
  moved      the same datum name, defined in another file
  changed    in both, verdict changed otherwise
  renamed    in the old report only, and one datum of the new report
             only has the same kind, type and definition file (and no
             other candidate on either side)
  gone       in the old report only: no longer per-CPU data, or not found
  new        in the new report only
  unchanged  the same verdict and definition file

A moved datum keeps both verdicts in its entry; so does a converted one
that also moved."""

import json

from nbhlib import proc

TOOL = "nbh-audit-diff"
SCHEMA = 1
CATEGORIES = ("converted", "moved", "changed", "renamed", "gone", "new", "unchanged")
TITLES = {
    "converted": "converted upstream (needs-lock in {old}, converted in {new})",
    "moved": "moved (the same datum, defined in another file)",
    "changed": "verdict changed",
    "renamed": "renamed (in {old} only, one datum of {new} only with the same kind, type and file)",
    "gone": "gone (in {old} only: no longer per-CPU data, or not found)",
    "new": "new in {new} (in {new} only)",
    "unchanged": "unchanged",
}
FINDING_KEYS = ("datum", "verdict", "file")


def load(path, what):
    """The report at PATH, checked: a one-line BadInput naming WHAT (the
    argument) and the problem otherwise."""
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        raise proc.BadInput(f"{what} {path}: no such file")
    except IsADirectoryError:
        raise proc.BadInput(f"{what} {path}: is a directory")
    except (OSError, UnicodeDecodeError) as e:
        raise proc.BadInput(f"{what} {path}: cannot read ({getattr(e, 'strerror', None) or e})")
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise proc.BadInput(f"{what} {path}: not JSON (line {getattr(e, 'lineno', '?')})")
    if not isinstance(doc, dict) or doc.get("tool") != "nbh-audit":
        raise proc.BadInput(f"{what} {path}: not an nbh-audit report (no \"tool\": \"nbh-audit\")")
    if doc.get("mode") == "context":
        raise proc.BadInput(f"{what} {path}: a --context report, not an audit report")
    if doc.get("schema") != 1:
        raise proc.BadInput(f"{what} {path}: schema {doc.get('schema')!r}, expected 1")
    found = doc.get("findings")
    if not isinstance(found, list):
        raise proc.BadInput(f"{what} {path}: not an audit report (no findings list)")
    seen = set()
    for i, f in enumerate(found):
        if not isinstance(f, dict) or not all(isinstance(f.get(k), str) for k in FINDING_KEYS):
            raise proc.BadInput(f"{what} {path}: finding {i} lacks {', '.join(FINDING_KEYS)}")
        if f["datum"] in seen:
            raise proc.BadInput(f"{what} {path}: datum {f['datum']} reported twice")
        seen.add(f["datum"])
    return doc


def side(f):
    return {"verdict": f["verdict"], "file": f["file"], "line": f.get("line"),
            "kind": f.get("kind"), "type": f.get("type")}


def compare(old, new):
    """[{datum, category, old, new[, old_datum]}] sorted by category then
    datum, and {category: count}."""
    a = {f["datum"]: f for f in old["findings"]}
    b = {f["datum"]: f for f in new["findings"]}
    rows = []
    for d in sorted(set(a) & set(b)):
        fa, fb = a[d], b[d]
        if fa["verdict"] == "needs-lock" and fb["verdict"] == "converted":
            cat = "converted"
        elif fa["file"] != fb["file"]:
            cat = "moved"
        elif fa["verdict"] != fb["verdict"]:
            cat = "changed"
        else:
            cat = "unchanged"
        rows.append({"datum": d, "category": cat, "old": side(fa), "new": side(fb)})
    only_a = sorted(set(a) - set(b))
    only_b = sorted(set(b) - set(a))

    def shape(f):
        return (f.get("kind"), f.get("type"), f["file"])

    by_shape_b = {}
    for d in only_b:
        by_shape_b.setdefault(shape(b[d]), []).append(d)
    by_shape_a = {}
    for d in only_a:
        by_shape_a.setdefault(shape(a[d]), []).append(d)
    renamed = {}
    for d in only_a:
        s = shape(a[d])
        if len(by_shape_a[s]) == 1 and len(by_shape_b.get(s, [])) == 1:
            renamed[by_shape_b[s][0]] = d
    for d in only_a:
        if d not in renamed.values():
            rows.append({"datum": d, "category": "gone", "old": side(a[d]), "new": None})
    for d in only_b:
        if d in renamed:
            rows.append({"datum": d, "category": "renamed", "old_datum": renamed[d],
                         "old": side(a[renamed[d]]), "new": side(b[d])})
        else:
            rows.append({"datum": d, "category": "new", "old": None, "new": side(b[d])})
    rows.sort(key=lambda r: (CATEGORIES.index(r["category"]), r["datum"]))
    counts = {c: sum(1 for r in rows if r["category"] == c) for c in CATEGORIES}
    return rows, counts


def version(doc):
    return doc.get("tree_version") or "?"


def labels(old, new):
    """Names of the two sides: their tree versions, or old/new when they
    are the same."""
    vo, vn = version(old), version(new)
    return (vo, vn) if vo != vn else ("old", "new")


def where(s):
    return f"{s['file']}:{s['line']}" if s.get("line") is not None else s["file"]


def text(result, f, all_rows=False):
    lo, ln = result["names"]
    f.write(f"# {TOOL}: {result['old']['tree_version']} ({result['old']['report']}) -> "
            f"{result['new']['tree_version']} ({result['new']['report']})\n")
    if result["old"]["paths"] != result["new"]["paths"]:
        f.write(f"# note: the reports audit different paths ({' '.join(result['old']['paths'])} / "
                f"{' '.join(result['new']['paths'])})\n")
    c = result["counts"]
    f.write("# " + ", ".join(f"{cat} {c[cat]}" for cat in CATEGORIES) + "\n")
    for cat in CATEGORIES:
        rows = [r for r in result["data"] if r["category"] == cat]
        if not rows or (cat == "unchanged" and not all_rows):
            continue
        f.write(f"\n{TITLES[cat].format(old=lo, new=ln)}: {len(rows)}\n")
        for r in rows:
            o, n = r["old"], r["new"]
            if cat == "gone":
                line = f"{o['verdict']}  {where(o)}"
            elif cat == "new":
                line = f"{n['verdict']}  {where(n)}"
            elif cat == "renamed":
                line = f"from {r['old_datum']}  {o['verdict']} -> {n['verdict']}  {where(n)}"
            elif cat == "moved":
                line = f"{o['verdict']} -> {n['verdict']}  {where(o)} -> {where(n)}"
            elif cat == "converted" and o["file"] != n["file"]:
                line = f"{where(o)} -> {where(n)}"
            elif cat == "converted":
                line = where(n)
            else:
                line = f"{o['verdict']} -> {n['verdict']}  {where(n)}"
            f.write(f"  {r['datum']}  {line}\n")


def diff(old_path, new_path):
    old = load(old_path, "old report")
    new = load(new_path, "new report")
    rows, counts = compare(old, new)

    def meta(doc, path):
        return {"report": path, "tree_version": version(doc), "paths": doc.get("paths") or []}

    return {"schema": SCHEMA, "tool": TOOL, "old": meta(old, old_path),
            "new": meta(new, new_path), "names": list(labels(old, new)),
            "counts": counts, "data": rows}


def main(args):
    outs = {}
    try:
        if args.json == "-" and args.text == "-":
            raise proc.BadInput("--json - and --text -: standard output named twice")
        if args.json:
            outs["json"] = proc.Output(args.json)
        if args.text or not args.json:
            outs["text"] = proc.Output(args.text or "-")
        result = diff(args.old, args.new)
        if "json" in outs:
            outs["json"].write(lambda f: f.write(json.dumps(result, indent=1) + "\n"))
        if "text" in outs:
            outs["text"].write(lambda f: text(result, f, args.all))
    finally:
        for o in outs.values():
            o.discard()
    return 0
