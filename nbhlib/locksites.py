# SPDX-License-Identifier: GPL-2.0
"""The lock sites of a series: where the kernel takes a nested-BH lock,
or asks a lock's owner instead, read from the series' patches.

A site is one invocation in the code the stack leaves, as the kernel
sees it (the lock-site patch of boot-tests/series/lock-sites gives each
one a static descriptor):

- kind "lock": a call of local_lock_nested_bh() or of its pointer form
  __local_lock_nested_bh() that a patch adds (each lock of a pair; its
  local_unlock_nested_bh() is not a site of its own);
- kind "owner": a per-task check that the PREEMPT_RT stack puts where a
  CPU number stood, "rt_mutex_owner(&LOCK) == current" (the queue's
  xmit lock, a qdisc's root lock: linux-6.1-rt-no-bh-lock, patches 5
  and 6, each under #ifdef CONFIG_PREEMPT_RT).

Comments, Kconfig help, macro definitions (the infrastructure of
local_lock.h) and the arguments of DEFINE_GUARD() are not sites: a
site is a statement ending in ";" in a .c or .h file.

The patches are followed in order, as git am applies them: a later hunk
moves a site (its line is tracked through every hunk of its file), and
deletes it when it removes the line; a site whose line is removed and
added again in the same hunk (same function, kind and expression) is
modified in place and keeps the patch that added it. The line is that of
the stack's tree; it shifts from series to series, so a site is named by
its file, its function (as __func__ names it: ____NAME for the body of
a BPF_CALL_n(NAME) helper) and its rank among the sites of that
function in line order: FILE:FUNCTION#N.
"""
import dataclasses
import json
import os
import re

from . import coverage, proc, series as ser

KINDS = ("lock", "owner")
# "local_lock_nested_bh(&x.bh_lock);", "__local_lock_nested_bh(&cell->bh_lock);"
LOCK_CALL = re.compile(r"(?<![\w.>])(?:__)?local_lock_nested_bh\s*\((.*)\)\s*;")
# "return rt_mutex_owner(&txq->_xmit_lock.lock) == current;", possibly
# wrapped in a macro of the lock-site patch.
OWNER_CHECK = re.compile(r"\brt_mutex_owner\s*\(([^;]*?)\)\s*==\s*current\b")
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")


@dataclasses.dataclass(frozen=True)
class Site:
    file: str        # relative to the tree
    function: str    # the function whose body holds it (__func__)
    index: int       # its rank among the sites of FUNCTION in FILE, from 1
    kind: str        # lock | owner
    expr: str        # the lock expression (owner: the whole check), no whitespace
    patch: str       # the patch that adds it: SERIES/FILE (series directory name)
    line: int        # its line in the tree the patches were made on

    @property
    def id(self):
        return f"{self.file}:{self.function}#{self.index}"

    def text(self):
        series, _, name = self.patch.rpartition("/")
        return f"{self.id} {self.kind} {self.expr} {series}/{name[:4]} {self.line}"


def function_of(line):
    """The function a column-0 line defines, as __func__ names it there:
    the body of a BPF_CALL_n(NAME, ...) helper is ____NAME()."""
    m = coverage.BPF_CALL.match(line)
    if m:
        return f"____{m.group(1)}"
    return coverage.function_of(line)


def squeeze(text):
    return re.sub(r"\s+", "", text)


def site_in(code):
    """(kind, expr) of the site a line of code holds, or None."""
    m = LOCK_CALL.search(code)
    if m:
        return "lock", squeeze(m.group(1))
    m = OWNER_CHECK.search(code)
    if m and code.rstrip().endswith(";"):
        return "owner", squeeze(f"rt_mutex_owner({m.group(1)})==current")
    return None


def is_code(code):
    s = code.lstrip()
    return not s.startswith(("*", "/*", "//", "#"))


@dataclasses.dataclass
class _Open:
    """A site being tracked while the patches are followed."""
    function: str
    kind: str
    expr: str
    patch: str
    line: int


def _files(text):
    """Yield (path, [(old_start, old_len, new_start, new_len, header,
    lines)]) for each file diff of a patch (path None for a deleted
    file)."""
    path, hunks, cur = None, [], None
    started = False
    for line in text.splitlines():
        if line.startswith("diff --git "):
            if started:
                yield path, hunks
            started, path, hunks, cur = True, None, [], None
            continue
        if not started:
            continue
        if cur is None or cur[6] <= 0:
            if line.startswith("+++ "):
                path = line[6:] if line.startswith("+++ b/") else None
                continue
            m = HUNK.match(line)
            if m:
                old_len = int(m.group(2)) if m.group(2) is not None else 1
                new_len = int(m.group(4)) if m.group(4) is not None else 1
                cur = [int(m.group(1)), old_len, int(m.group(3)), new_len, m.group(5), [],
                       old_len + new_len]
                hunks.append(cur)
            continue
        # Inside a hunk: count what it still has to show ("\ No newline"
        # counts nothing).
        if line.startswith("\\"):
            continue
        tag = line[:1] or " "
        cur[5].append((tag, line[1:]))
        cur[6] -= 2 if tag == " " else 1
    if started:
        yield path, hunks


def _apply(sites, hunks, patch, path):
    """Move, delete and add the sites of one file (SITES, a list of
    _Open) through the HUNKS of PATCH; return the new list."""
    out, added = [], []
    fates = {}      # old line -> new line, or None when removed
    for old_start, old_len, new_start, new_len, header, lines, _ in hunks:
        func = function_of(header)
        in_macro = False
        removed = []     # _Open sites this hunk removed (for in-place changes)
        o, n = old_start, new_start
        for tag, code in lines:
            name = function_of(code)
            if name:
                func = name
            macro = in_macro or code.lstrip().startswith("#define")
            in_macro = macro and code.rstrip().endswith("\\")
            if tag == " ":
                fates[o] = n
                o, n = o + 1, n + 1
            elif tag == "-":
                fates[o] = None
                gone = [s for s in sites if s.line == o]
                removed += gone
                o += 1
            else:
                if not macro and is_code(code) and path.endswith((".c", ".h")):
                    found = site_in(code)
                    if found and func is None:
                        raise proc.BadInput(f"{patch}: lock site outside a function in "
                                            f"{path}: {code.strip()}")
                    if found:
                        kind, expr = found
                        same = [s for s in removed if (s.function, s.kind, s.expr) ==
                                (func, kind, expr)]
                        origin = same[0].patch if same else patch
                        if same:
                            removed.remove(same[0])
                        added.append(_Open(func, kind, expr, origin, n))
                n += 1
    for s in sites:
        if s.line in fates:
            if fates[s.line] is None:
                continue
            s.line = fates[s.line]
        else:
            shift = 0
            for old_start, old_len, new_start, new_len, _, _, _ in hunks:
                end = old_start + old_len if old_len else old_start + 1
                if s.line >= end:
                    shift += new_len - old_len
            s.line += shift
        out.append(s)
    return sorted(out + added, key=lambda s: s.line)


def sites(series):
    """The Sites of SERIES (a directory or a series.Series), sorted by
    file, then line; BadInput when it has none."""
    s = ser.read(series) if isinstance(series, str) else series
    files = {}
    for p in s.patches:
        for path, hunks in _files(p.text):
            if path is None:
                continue
            name = f"{os.path.basename(os.path.dirname(p.path))}/{p.name}"
            files[path] = _apply(files.get(path, []), hunks, name, path)
    found = []
    for path in sorted(files):
        rank = {}
        for o in files[path]:
            rank[o.function] = rank.get(o.function, 0) + 1
            found.append(Site(path, o.function, rank[o.function], o.kind, o.expr, o.patch,
                              o.line))
    if not found:
        raise proc.BadInput(f"no lock site in {s.directory}")
    return found


def to_json(series_dir, found):
    return json.dumps({"series": ser.read(series_dir).name,
                       "sites": [dataclasses.asdict(x) for x in found]}, indent=1) + "\n"


def to_text(found):
    """One line per site: ID KIND EXPR PATCH LINE (ID is FILE:FUNCTION#N)."""
    return "".join(x.text() + "\n" for x in found)


def read_text(path):
    """[(id, kind, expr)] of a list to_text() wrote; BadInput when malformed."""
    out = []
    for n, ln in enumerate(open(path), 1):
        w = ln.split()
        if len(w) != 5 or w[1] not in KINDS or not re.match(r"^\S+:\S+#\d+$", w[0]):
            raise proc.BadInput(f"{path}:{n}: not a lock-site line: {ln.strip()}")
        out.append((w[0], w[1], w[2]))
    return out


def tree_sites(tree):
    """The sites a patched TREE holds, read from its files (not from the
    patches): every site statement of a .c or .h file outside the
    infrastructure headers, with its function (the last column-0
    definition above it) and its line, as Sites whose patch is "".
    Line numbers of a tree are exact where the patches' are only
    offsets away (a series made on 6.1 applies at an offset on 6.1-rt)."""
    out = proc.git(["grep", "-nE", r"local_lock_nested_bh\s*\(|rt_mutex_owner\s*\(", "--",
                    "*.c", "*.h", ":!include/linux/local_lock.h",
                    ":!include/linux/local_lock_internal.h"], repo=tree, check=False)
    if out.rc not in (0, 1):        # 1: nothing found
        raise proc.Failure(f"git grep in {tree} failed:\n    {out.tail()}")
    hits = {}
    for ln in out.out.splitlines():
        path, n, code = ln.split(":", 2)
        if is_code(code) and site_in(code):
            hits.setdefault(path, []).append(int(n))
    found = []
    for path in sorted(hits):
        lines = open(os.path.join(tree, path), errors="replace").read().splitlines()
        rank, in_macro = {}, False
        macro_lines = set()
        for i, code in enumerate(lines, 1):
            macro = in_macro or code.lstrip().startswith("#define")
            in_macro = macro and code.rstrip().endswith("\\")
            if macro:
                macro_lines.add(i)
        for n in hits[path]:
            if n in macro_lines:
                continue
            func = next((f for f in map(function_of, reversed(lines[:n - 1])) if f),
                        None)
            kind, expr = site_in(lines[n - 1])
            rank[func] = rank.get(func, 0) + 1
            found.append(Site(path, func, rank[func], kind, expr, "", n))
    return found


def compare(listed, held):
    """Lines saying how the LISTED sites differ from those a tree HELD
    (tree_sites()), by id, kind and expression; empty when they agree."""
    a = {x.id: (x.kind, x.expr) for x in listed}
    b = {x.id: (x.kind, x.expr) for x in held}
    out = [f"listed, not in the tree: {i} {' '.join(a[i])}" for i in sorted(a.keys() - b.keys())]
    out += [f"in the tree, not listed: {i} {' '.join(b[i])}" for i in sorted(b.keys() - a.keys())]
    out += [f"differs: {i} listed {' '.join(a[i])}, tree {' '.join(b[i])}"
            for i in sorted(a.keys() & b.keys()) if a[i] != b[i]]
    return out
